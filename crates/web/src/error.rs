//! The one error type of every endpoint: `{ "error": { "message", "code" } }`, with a code from the one
//! list of codes, [`ErrorCode`]: each carries its HTTP status and what it means, which the OpenAPI
//! document (the `ErrorCode` schema) and `docs/api.md` (its table of codes) show. A handler never spells a
//! code: it names a variant.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::openapi::{ObjectBuilder, RefOr, Schema, Type};

/// Defines [`ErrorCode`] from one line per code: its variant, its text, its status, what it means.
macro_rules! error_codes {
    ($($variant:ident = $name:literal, $status:ident, $description:literal;)*) => {
        /// Every code an answer (or a live feed's message) can carry. Append-only: a published code keeps
        /// its name and its status.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ErrorCode {
            $($variant,)*
        }

        impl ErrorCode {
            /// Every code, in the order they were added.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as the answer spells it (`INVALID_PARAMS`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name,)*
                }
            }

            /// The HTTP status it is answered with.
            pub const fn status(self) -> StatusCode {
                match self {
                    $(ErrorCode::$variant => StatusCode::$status,)*
                }
            }

            /// What it means, for the documentation.
            pub const fn description(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $description,)*
                }
            }
        }
    };
}

error_codes! {
    MissingParams = "MISSING_PARAMS", BAD_REQUEST, "a required field or parameter is absent or blank";
    InvalidParams = "INVALID_PARAMS", BAD_REQUEST, "a field or parameter is malformed, out of range or contradicted by the chain";
    InvalidAddress = "INVALID_ADDRESS", BAD_REQUEST, "an address is not one of its chain's";
    InvalidJson = "INVALID_JSON", BAD_REQUEST, "the body is not JSON of the expected shape";
    SameToken = "SAME_TOKEN", BAD_REQUEST, "`tokenIn` and `tokenOut` are the same token";
    SameChain = "SAME_CHAIN", BAD_REQUEST, "a cross-chain swap within one chain";
    UnsupportedChain = "UNSUPPORTED_CHAIN", BAD_REQUEST, "a chain key the service does not support (for this request)";
    InvalidRoute = "INVALID_ROUTE", BAD_REQUEST, "a route this service did not quote, or changed since";
    QuoteExpired = "QUOTE_EXPIRED", BAD_REQUEST, "the quote is older than its lifetime: quote again";
    SecretMaterial = "SECRET_MATERIAL", BAD_REQUEST, "the request carries what looks like a private key or seed phrase; nothing was read";
    ProgramNotAllowed = "PROGRAM_NOT_ALLOWED", BAD_REQUEST, "the relay does not send transactions calling that program";
    NotSigned = "NOT_SIGNED", BAD_REQUEST, "the transaction to relay is not signed";
    BadSignature = "BAD_SIGNATURE", BAD_REQUEST, "a signature of the transaction to relay does not verify";
    ReferrerAccountMissing = "REFERRER_ACCOUNT_MISSING", BAD_REQUEST, "the referrer has no quote token account";
    SelfReferral = "SELF_REFERRAL", BAD_REQUEST, "the referrer is the taker";
    InvalidFeeShares = "INVALID_FEE_SHARES", BAD_REQUEST, "fee-share recipients that are not 1 to 10 distinct wallets with shares summing to 10,000 bps";
    InvalidKind = "INVALID_KIND", BAD_REQUEST, "a claim kind the service does not know";
    InvalidImage = "INVALID_IMAGE", BAD_REQUEST, "a launch image that is not a PNG, JPEG, GIF or WebP within the limits";
    InvalidChain = "INVALID_CHAIN", BAD_REQUEST, "a launch on a chain other than `solana`";
    InvalidLaunchType = "INVALID_LAUNCH_TYPE", BAD_REQUEST, "a launch type other than `bonding-curve`";
    InvalidPreset = "INVALID_PRESET", BAD_REQUEST, "a curve preset the launchpad does not have";
    InvalidQuote = "INVALID_QUOTE", BAD_REQUEST, "a quote asset the launchpad does not have";
    InvalidName = "INVALID_NAME", BAD_REQUEST, "a launch name outside its length";
    InvalidSymbol = "INVALID_SYMBOL", BAD_REQUEST, "a launch symbol outside its length or alphabet";
    InvalidDescription = "INVALID_DESCRIPTION", BAD_REQUEST, "a launch description above its length";
    InvalidSupply = "INVALID_SUPPLY", BAD_REQUEST, "a total supply other than the launchpad's";
    InvalidAmount = "INVALID_AMOUNT", BAD_REQUEST, "a first buy that is not a positive amount the curve can fill";
    InvalidLink = "INVALID_LINK", BAD_REQUEST, "a website, X or Telegram link that is not an https profile or site";
    InvalidSignature = "INVALID_SIGNATURE", BAD_REQUEST, "a transaction signature that is not one";
    TxMismatch = "TX_MISMATCH", BAD_REQUEST, "the record does not match what was prepared, or the transaction is not the launch";
    TxFailed = "TX_FAILED", BAD_REQUEST, "the recorded transaction failed on chain";
    NotEntitled = "NOT_ENTITLED", FORBIDDEN, "the wallet holds no role that may do this";
    FeesShared = "FEES_SHARED", FORBIDDEN, "the creator's fees are shared: the recipients claim them";
    NotFound = "NOT_FOUND", NOT_FOUND, "no such token, pool, quote, record or endpoint";
    NoRoute = "NO_ROUTE", NOT_FOUND, "no venue routes the pair for that amount";
    MethodNotAllowed = "METHOD_NOT_ALLOWED", METHOD_NOT_ALLOWED, "the endpoint does not take that method";
    NotConfirmed = "NOT_CONFIRMED", CONFLICT, "the transaction is not confirmed yet: retry shortly";
    AlreadyRecorded = "ALREADY_RECORDED", CONFLICT, "the launch was recorded with another transaction";
    NothingToClaim = "NOTHING_TO_CLAIM", CONFLICT, "there is nothing to claim";
    FeeSharesLocked = "FEE_SHARES_LOCKED", CONFLICT, "the fee shares are locked";
    BridgeInFlight = "BRIDGE_IN_FLIGHT", CONFLICT, "the wallet's previous cross-chain transfer has not settled";
    RouteStale = "ROUTE_STALE", CONFLICT, "the curve graduated since the quote: quote again";
    NotProposed = "NOT_PROPOSED", CONFLICT, "the wallet was not proposed as the creator";
    OriginNotFound = "ORIGIN_NOT_FOUND", CONFLICT, "the origin transaction of a cross-chain transfer is not on its chain";
    ResumeTooOld = "RESUME_TOO_OLD", GONE, "the feed no longer keeps events that old: read the state over REST";
    PayloadTooLarge = "PAYLOAD_TOO_LARGE", PAYLOAD_TOO_LARGE, "the body is above the limit";
    SimulationFailed = "SIMULATION_FAILED", UNPROCESSABLE_ENTITY, "the built transaction would fail";
    InsufficientBalance = "INSUFFICIENT_BALANCE", UNPROCESSABLE_ENTITY, "the wallet does not hold enough";
    InsufficientAllowance = "INSUFFICIENT_ALLOWANCE", UNPROCESSABLE_ENTITY, "the wallet's ERC-20 allowance is too low";
    RateLimited = "RATE_LIMITED", TOO_MANY_REQUESTS, "the client is over its quota: retry after `Retry-After` seconds";
    TooManyRelays = "TOO_MANY_RELAYS", TOO_MANY_REQUESTS, "the client's share of relays awaited at once is taken";
    TooManyConnections = "TOO_MANY_CONNECTIONS", TOO_MANY_REQUESTS, "the client's share of feed connections is taken";
    TooManySubscriptions = "TOO_MANY_SUBSCRIPTIONS", TOO_MANY_REQUESTS, "a feed connection's subscriptions are at their limit";
    SlowConsumer = "SLOW_CONSUMER", TOO_MANY_REQUESTS, "a feed client fell too far behind and is disconnected (a feed message)";
    TooManyPendingLaunches = "TOO_MANY_PENDING_LAUNCHES", TOO_MANY_REQUESTS, "the creator has as many prepared launches pending as allowed: sign and send one, or wait for them to expire";
    TooManyPendingLaunchesAddress = "TOO_MANY_PENDING_LAUNCHES_ADDRESS", TOO_MANY_REQUESTS, "the client's address has as many prepared launches pending as allowed: sign and send one, or wait for them to expire";
    Internal = "INTERNAL", INTERNAL_SERVER_ERROR, "the request was not completed";
    InvalidUpstream = "INVALID_UPSTREAM", BAD_GATEWAY, "an aggregator answered without what its documentation promises";
    Unavailable = "UNAVAILABLE", SERVICE_UNAVAILABLE, "the index, an RPC node or an aggregator cannot be reached";
    UpstreamRateLimited = "UPSTREAM_RATE_LIMITED", SERVICE_UNAVAILABLE, "an aggregator rate-limits the service: retry after `Retry-After` seconds";
    NoCrossChainRoute = "NO_CROSS_CHAIN_ROUTE", SERVICE_UNAVAILABLE, "neither LI.FI nor Relay has a route";
    SolanaBlockhashExpired = "SOLANA_BLOCKHASH_EXPIRED", SERVICE_UNAVAILABLE, "the relayed transaction's blockhash expired: build and sign again";
    SolanaSimulationFailed = "SOLANA_SIMULATION_FAILED", SERVICE_UNAVAILABLE, "the relayed transaction fails";
    SolanaTransactionFailed = "SOLANA_TRANSACTION_FAILED", SERVICE_UNAVAILABLE, "the relayed transaction failed on chain";
    SolanaSubmitFailed = "SOLANA_SUBMIT_FAILED", SERVICE_UNAVAILABLE, "the RPC node refused the relayed transaction";
    RelayBusy = "RELAY_BUSY", SERVICE_UNAVAILABLE, "this replica's relays are all taken: another replica may take it";
    FeedFull = "FEED_FULL", SERVICE_UNAVAILABLE, "this replica's feed connections are all taken: another replica may take it";
    Timeout = "TIMEOUT", GATEWAY_TIMEOUT, "the request took longer than the service allows";
    MessageSignatureInvalid = "MESSAGE_SIGNATURE_INVALID", BAD_REQUEST, "the signature is not the wallet's over the message the request describes (signed by another wallet, or over other text)";
    MessageExpired = "MESSAGE_EXPIRED", BAD_REQUEST, "the signed message's expiration time has passed (or is further ahead than allowed): sign again";
    NonceUsed = "NONCE_USED", CONFLICT, "the wallet used the signed message's nonce already (a replay): sign a new message";
    TextTooLong = "TEXT_TOO_LONG", BAD_REQUEST, "a comment above its length";
    MarkupNotAllowed = "MARKUP_NOT_ALLOWED", BAD_REQUEST, "a comment or name with HTML or script markup in it: text only";
    WalletHidden = "WALLET_HIDDEN", FORBIDDEN, "an operator hid the wallet's comments: it cannot post";
    InvalidDisplayName = "INVALID_DISPLAY_NAME", BAD_REQUEST, "a display name outside its length or alphabet";
    NameReserved = "NAME_RESERVED", BAD_REQUEST, "a display name that is, or looks like, a reserved word";
    NameTaken = "NAME_TAKEN", CONFLICT, "another wallet holds that display name (names are unique case-insensitively)";
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `err.code == "NOT_FOUND"` reads as the answer does.
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The document's `ErrorCode`: every code, each with its status and meaning in the description.
impl utoipa::PartialSchema for ErrorCode {
    fn schema() -> RefOr<Schema> {
        let table: Vec<String> = ErrorCode::ALL
            .iter()
            .map(|c| format!("- `{c}` ({}): {}", c.status().as_u16(), c.description()))
            .collect();
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(ErrorCode::ALL.iter().map(|c| c.as_str())))
            .description(Some(format!(
                "A stable machine-readable code, answered with its status:\n{}",
                table.join("\n")
            )))
            .into()
    }
}

impl utoipa::ToSchema for ErrorCode {}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: ErrorCode,
    pub message: String,
    /// Seconds, for 429.
    pub retry_after: Option<u64>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// What went wrong, for a human.
    pub message: String,
    pub code: ErrorCode,
}

impl ApiError {
    /// An error answered with its code's status.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::with_status(code.status(), code, message)
    }

    /// An error answered with another status than its code's: only where a response made elsewhere (a
    /// layer's, axum's own) is rewritten into the envelope with its status kept.
    pub fn with_status(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn missing(field: &str) -> Self {
        Self::new(ErrorCode::MissingParams, format!("`{field}` is required"))
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidParams, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unavailable, message)
    }

    pub fn rate_limited(retry_after: u64) -> Self {
        ApiError {
            retry_after: Some(retry_after),
            ..Self::new(
                ErrorCode::RateLimited,
                format!("too many requests; retry after {retry_after} s"),
            )
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        tracing::warn!("index query failed: {e}");
        ApiError::unavailable("the index is unavailable; retry shortly")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                // An upstream's error text can repeat the URL it called, with our key in it.
                message: ops::redact::redact(&self.message).into_owned(),
                code: self.code,
            },
        };
        // Two strings in a fixed shape: serializing cannot fail.
        let json = serde_json::to_vec(&body).unwrap_or_default();
        let content_type = HeaderValue::from_static("application/json");
        let mut response =
            (self.status, [(header::CONTENT_TYPE, content_type)], json).into_response();
        if let Some(s) = self.retry_after {
            if let Ok(v) = HeaderValue::from_str(&s.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, v);
            }
        }
        response
    }
}

/// A required request field, trimmed; `MISSING_PARAMS` when absent or blank.
pub fn required<'a>(field: &str, value: Option<&'a str>) -> Result<&'a str, ApiError> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| ApiError::missing(field))
}

/// A Solana address from a request field.
pub fn address(field: &str, value: Option<&str>) -> Result<solana_pubkey::Pubkey, ApiError> {
    required(field, value)?.parse().map_err(|_| {
        ApiError::new(
            ErrorCode::InvalidAddress,
            format!("`{field}` is not a valid Solana address"),
        )
    })
}

/// The last line of defense of the envelope: an error response that is not JSON (an extractor of axum's used
/// directly by some handler, a layer's own rejection) is rewritten as `{ "error": { "message", "code" } }`
/// with its status and text kept. Handlers should still use [`crate::extract`]: this only catches misses.
/// Applied by the API's request log (its `access::record`), which sees every response first (one middleware,
/// not two).
pub async fn envelope(response: Response) -> Response {
    let status = response.status();
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4_096)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let code = match status {
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::InvalidJson,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        StatusCode::GATEWAY_TIMEOUT => ErrorCode::Timeout,
        s if s.is_client_error() => ErrorCode::InvalidParams,
        _ => ErrorCode::Internal,
    };
    let message = if text.is_empty() || status.is_server_error() {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    } else {
        text
    };
    let mut rewritten = ApiError::with_status(status, code, message).into_response();
    for name in [header::RETRY_AFTER, header::ALLOW] {
        if let Some(v) = parts.headers.get(&name) {
            rewritten.headers_mut().insert(name, v.clone());
        }
    }
    rewritten
}

/// A panic in a handler: logged, and answered 500 `INTERNAL` in the envelope (the process keeps serving).
pub fn catch_panic() -> CatchPanicLayer<fn(Box<dyn std::any::Any + Send>) -> Response> {
    CatchPanicLayer::custom(panic_response as fn(_) -> _)
}

fn panic_response(panic: Box<dyn std::any::Any + Send>) -> Response {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!("handler panicked: {what}");
    ApiError::new(
        ErrorCode::Internal,
        "internal error; the request was not completed",
    )
    .into_response()
}
