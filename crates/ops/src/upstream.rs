//! What the service records of each call it makes to a service it depends on (an "upstream": the Solana RPC
//! node by method, the Yellowstone gRPC stream, Jupiter, KyberSwap, 0x, LI.FI, Relay, each EVM chain's RPC
//! node): `upstream_requests_total`, `upstream_errors_total` (by `kind`) and
//! `upstream_request_duration_seconds`, each labelled `upstream` and `method` (and `chain` for EVM RPC).
//! The alert rules and the dashboard in `deploy/` read these names (docs/operations.md#health-and-metrics).
//!
//! An answer the upstream gave on purpose (a 4xx "no route", a JSON-RPC simulation failure, a revert) is not
//! an error of the upstream: errors are what an on-call can act on.

use std::time::Instant;

/// The upstreams, as their `upstream` label reads.
pub const SOLANA_RPC: &str = "solana-rpc";
pub const YELLOWSTONE: &str = "yellowstone";
pub const JUPITER: &str = "jupiter";
pub const EVM_RPC: &str = "evm-rpc";

/// Why a call failed, as the `kind` label reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// No answer within the client's timeout.
    Timeout,
    /// No connection (refused, DNS, TLS).
    Connect,
    /// 429: the upstream rate-limits this service.
    RateLimited,
    /// 401 or 403: the upstream refused this service's key.
    Unauthorized,
    /// A 5xx answer.
    ServerError,
    /// An answer that could not be read (not JSON, a missing field).
    Decode,
    /// A JSON-RPC error object, or a stream's status (gRPC), other than an answer on purpose.
    Rpc,
    /// Anything else (the connection broke mid-answer, ...).
    Other,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::Connect => "connect",
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::ServerError => "server_error",
            ErrorKind::Decode => "decode",
            ErrorKind::Rpc => "rpc",
            ErrorKind::Other => "other",
        }
    }

    /// The kind of an HTTP status, `None` for a success or an answer on purpose (any other 4xx).
    pub fn of_status(status: u16) -> Option<ErrorKind> {
        match status {
            429 => Some(ErrorKind::RateLimited),
            401 | 403 => Some(ErrorKind::Unauthorized),
            500..=599 => Some(ErrorKind::ServerError),
            _ => None,
        }
    }

    /// The kind of a failed `reqwest` call.
    pub fn of_reqwest(e: &reqwest::Error) -> ErrorKind {
        if e.is_timeout() {
            ErrorKind::Timeout
        } else if e.is_connect() {
            ErrorKind::Connect
        } else if let Some(kind) = e.status().and_then(|s| ErrorKind::of_status(s.as_u16())) {
            kind
        } else if e.is_decode() {
            ErrorKind::Decode
        } else {
            ErrorKind::Other
        }
    }
}

/// One call under way: recorded once, by [`Call::finish`] (or as an error of kind `other` when dropped
/// unfinished: a cancelled call still counts). While traces are exported ([`trace_calls`]), each call is
/// also a span (`upstream`, `method`, `chain`, `error`), a child of the span it was started in (the API's
/// request).
#[must_use = "a call is recorded when finished"]
pub struct Call {
    upstream: &'static str,
    method: String,
    chain: Option<&'static str>,
    start: Instant,
    done: bool,
    span: tracing::Span,
}

/// Whether calls are spans: off (no span made, nothing spent) unless traces are exported.
static TRACED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on each [`Call`] is a span too (`crate::otlp` turns it on with the exporter).
pub fn trace_calls() {
    TRACED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The span of a call of `method` on `upstream`, when traces are exported.
fn span_of(upstream: &'static str, method: &str) -> tracing::Span {
    if !TRACED.load(std::sync::atomic::Ordering::Relaxed) {
        return tracing::Span::none();
    }
    tracing::info_span!(
        target: "ops::upstream",
        "upstream",
        otel.name = %format_args!("{upstream} {method}"),
        otel.kind = "client",
        upstream,
        method,
        chain = tracing::field::Empty,
        error = tracing::field::Empty,
    )
}

impl Call {
    /// Starts timing a call of `method` (an RPC method, or the path of an HTTP API without its query) on
    /// `upstream`.
    pub fn start(upstream: &'static str, method: impl Into<String>) -> Call {
        let method = method.into();
        Call {
            upstream,
            span: span_of(upstream, &method),
            method,
            chain: None,
            start: Instant::now(),
            done: false,
        }
    }

    /// The same, labelled with the EVM chain it went to.
    pub fn on_chain(mut self, chain: &'static str) -> Call {
        self.chain = Some(chain);
        self.span.record("chain", chain);
        self
    }

    /// Records the call: one request, its duration, and an error of `kind` when it failed.
    pub fn finish(mut self, error: Option<ErrorKind>) {
        self.done = true;
        if let Some(kind) = error {
            self.span.record("error", kind.as_str());
        }
        record(
            self.upstream,
            &self.method,
            self.chain,
            self.start.elapsed(),
            error,
        );
    }

    /// Records an HTTP answer by its status ([`ErrorKind::of_status`]).
    pub fn status(self, status: u16) {
        self.finish(ErrorKind::of_status(status));
    }

    /// Records the outcome of a `reqwest` send.
    pub fn reqwest<T>(self, result: &Result<T, reqwest::Error>) {
        self.finish(result.as_ref().err().map(ErrorKind::of_reqwest));
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.done {
            self.span.record("error", ErrorKind::Other.as_str());
            record(
                self.upstream,
                &self.method,
                self.chain,
                self.start.elapsed(),
                Some(ErrorKind::Other),
            );
        }
    }
}

/// The labels of a call's series.
fn labels(
    upstream: &'static str,
    method: &str,
    chain: Option<&'static str>,
) -> Vec<(&'static str, String)> {
    let mut labels = vec![
        ("upstream", upstream.to_string()),
        ("method", method.to_string()),
    ];
    if let Some(chain) = chain {
        labels.push(("chain", chain.to_string()));
    }
    labels
}

/// Records one finished call (what [`Call`] does; for a caller that timed it itself).
pub fn record(
    upstream: &'static str,
    method: &str,
    chain: Option<&'static str>,
    elapsed: std::time::Duration,
    error: Option<ErrorKind>,
) {
    let labels = labels(upstream, method, chain);
    metrics::counter!("upstream_requests_total", &labels).increment(1);
    metrics::histogram!("upstream_request_duration_seconds", &labels).record(elapsed.as_secs_f64());
    if let Some(kind) = error {
        error_of(upstream, method, chain, kind);
    }
}

/// Records an error found after the call was recorded (an answer that turned out unreadable).
pub fn error_of(
    upstream: &'static str,
    method: &str,
    chain: Option<&'static str>,
    kind: ErrorKind,
) {
    let mut labels = labels(upstream, method, chain);
    labels.push(("kind", kind.as_str().to_string()));
    metrics::counter!("upstream_errors_total", &labels).increment(1);
}

#[cfg(feature = "solana")]
pub mod solana {
    //! The Solana RPC client every process builds: HTTP to the node, each call recorded by its JSON-RPC
    //! method.

    use super::{Call, ErrorKind, SOLANA_RPC};
    use solana_rpc_client::http_sender::HttpSender;
    use solana_rpc_client::nonblocking::rpc_client::RpcClient;
    use solana_rpc_client::rpc_client::RpcClientConfig;
    use solana_rpc_client::rpc_sender::{RpcSender, RpcTransportStats};
    use solana_rpc_client_api::client_error::{Error, ErrorKind as ClientErrorKind};
    use solana_rpc_client_api::request::{RpcError, RpcRequest};

    /// JSON-RPC code of a `sendTransaction` whose preflight simulation failed: the transaction's fault,
    /// answered on purpose.
    const PREFLIGHT_FAILURE: i64 = -32002;

    /// A sender (HTTP to one node, or a failover over several), with every call recorded.
    pub struct Metered<S>(pub S);

    /// An RPC client to `url` at `commitment`, every call recorded as `upstream="solana-rpc"` by method.
    pub fn rpc_client(
        url: impl ToString,
        commitment: solana_commitment_config::CommitmentConfig,
    ) -> RpcClient {
        RpcClient::new_sender(
            Metered(HttpSender::new(url)),
            RpcClientConfig::with_commitment(commitment),
        )
    }

    /// What kind of failure `e` is, `None` for an answer on purpose.
    pub fn kind(e: &Error) -> Option<ErrorKind> {
        match e.kind() {
            ClientErrorKind::Reqwest(e) => Some(ErrorKind::of_reqwest(e)),
            ClientErrorKind::Io(_) => Some(ErrorKind::Connect),
            ClientErrorKind::SerdeJson(_) => Some(ErrorKind::Decode),
            ClientErrorKind::RpcError(RpcError::RpcResponseError { code, .. })
                if *code == PREFLIGHT_FAILURE =>
            {
                None
            }
            ClientErrorKind::RpcError(RpcError::ParseError(_)) => Some(ErrorKind::Decode),
            ClientErrorKind::RpcError(_) => Some(ErrorKind::Rpc),
            ClientErrorKind::TransactionError(_) => None,
            _ => Some(ErrorKind::Other),
        }
    }

    #[async_trait::async_trait]
    impl<S: RpcSender + Send + Sync> RpcSender for Metered<S> {
        async fn send(
            &self,
            request: RpcRequest,
            params: serde_json::Value,
        ) -> Result<serde_json::Value, Error> {
            let call = Call::start(SOLANA_RPC, request.to_string());
            let result = self.0.send(request, params).await;
            call.finish(result.as_ref().err().and_then(kind));
            result
        }

        fn get_transport_stats(&self) -> RpcTransportStats {
            self.0.get_transport_stats()
        }

        fn url(&self) -> String {
            self.0.url()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_on_purpose_are_not_errors() {
        assert_eq!(ErrorKind::of_status(200), None);
        assert_eq!(
            ErrorKind::of_status(400),
            None,
            "a 4xx is the upstream's answer"
        );
        assert_eq!(ErrorKind::of_status(404), None);
        assert_eq!(ErrorKind::of_status(429), Some(ErrorKind::RateLimited));
        assert_eq!(ErrorKind::of_status(403), Some(ErrorKind::Unauthorized));
        assert_eq!(ErrorKind::of_status(502), Some(ErrorKind::ServerError));
    }
}
