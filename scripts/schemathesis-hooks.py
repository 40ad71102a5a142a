"""Relations between request fields that JSON Schema cannot state, for scripts/schemathesis.

The OpenAPI document states each field's own rules (required, enums, patterns, ranges). What it cannot state
is how two fields relate, which the handlers also refuse with 400: a swap's two tokens must differ
(`SAME_TOKEN`; on EVM chains without regard to case, and the two spellings of the native token are one
token) and a candle range's `from` must not be after its `to`. Generated requests keep to these, so that
every request the generator calls valid is one the API must accept.
"""

import schemathesis

EVM_NATIVE = {"0x" + "e" * 40, "0x" + "0" * 40}


def _token(value):
    if not isinstance(value, str):
        return value
    if value.startswith("0x"):
        lowered = value.lower()
        return "native" if lowered in EVM_NATIVE else lowered
    return value


def _same_token(request):
    if not isinstance(request, dict):
        return False
    a, b = request.get("tokenIn"), request.get("tokenOut")
    return a is not None and _token(a) == _token(b)


@schemathesis.hook
def filter_body(ctx, body):
    path = ctx.operation.path
    if path == "/swap/quote":
        return not _same_token(body)
    if path == "/swap/build" and isinstance(body, dict):
        return not _same_token(body.get("request"))
    return True


@schemathesis.hook
def filter_query(ctx, query):
    if ctx.operation.path != "/launchpad/candles/{mint}" or not isinstance(query, dict):
        return True
    start, end = query.get("from"), query.get("to")
    try:
        return start is None or end is None or int(start) <= int(end)
    except (TypeError, ValueError):
        return True
