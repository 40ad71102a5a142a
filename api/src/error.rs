//! The one error type of every endpoint: `{ "error": { "message", "code" } }` with a documented status.
//!
//! | status | codes |
//! |---|---|
//! | 400 | `MISSING_PARAMS`, `INVALID_PARAMS`, `INVALID_ADDRESS`, `INVALID_JSON`, `SAME_TOKEN`, `SAME_CHAIN`, `UNSUPPORTED_CHAIN`, `INVALID_ROUTE`, `QUOTE_EXPIRED`, `SECRET_MATERIAL` |
//! | 404 | `NOT_FOUND` (unknown token, pool, route or quote), `NO_ROUTE` |
//! | 409 | `BRIDGE_IN_FLIGHT` |
//! | 413 | `PAYLOAD_TOO_LARGE` |
//! | 422 | `SIMULATION_FAILED`, `INSUFFICIENT_BALANCE`, `INSUFFICIENT_ALLOWANCE` |
//! | 429 | `RATE_LIMITED` (with `Retry-After`) |
//! | 500 | `INTERNAL` |
//! | 502 | `INVALID_UPSTREAM` (an aggregator answered without what its documentation promises) |
//! | 503 | `UNAVAILABLE` (the index or an upstream is unreachable), `UPSTREAM_RATE_LIMITED` (with `Retry-After`), `NO_CROSS_CHAIN_ROUTE` |

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tower_http::catch_panic::CatchPanicLayer;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
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
    /// A stable machine-readable code.
    pub code: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn missing(field: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "MISSING_PARAMS",
            format!("`{field}` is required"),
        )
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "INVALID_PARAMS", message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "NOT_FOUND", message)
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE", message)
    }

    pub fn rate_limited(retry_after: u64) -> Self {
        ApiError {
            retry_after: Some(retry_after),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "RATE_LIMITED",
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
                message: crate::redact::redact(&self.message).into_owned(),
                code: self.code.to_string(),
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
pub fn address(field: &str, value: Option<&str>) -> Result<anchor_lang::prelude::Pubkey, ApiError> {
    required(field, value)?.parse().map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "INVALID_ADDRESS",
            format!("`{field}` is not a valid Solana address"),
        )
    })
}

/// The last line of defense of the envelope: an error response that is not JSON (an extractor of axum's used
/// directly by some handler, a layer's own rejection) is rewritten as `{ "error": { "message", "code" } }`
/// with its status and text kept. Handlers should still use [`crate::extract`]: this only catches misses.
/// Applied by the request log ([`crate::access::record`]), which sees every response first (one middleware,
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
        StatusCode::NOT_FOUND => "NOT_FOUND",
        StatusCode::METHOD_NOT_ALLOWED => "METHOD_NOT_ALLOWED",
        StatusCode::PAYLOAD_TOO_LARGE => "PAYLOAD_TOO_LARGE",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "INVALID_JSON",
        StatusCode::TOO_MANY_REQUESTS => "RATE_LIMITED",
        StatusCode::GATEWAY_TIMEOUT => "TIMEOUT",
        s if s.is_client_error() => "INVALID_PARAMS",
        _ => "INTERNAL",
    };
    let message = if text.is_empty() || status.is_server_error() {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    } else {
        text
    };
    let mut rewritten = ApiError::new(status, code, message).into_response();
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
        StatusCode::INTERNAL_SERVER_ERROR,
        "INTERNAL",
        "internal error; the request was not completed",
    )
    .into_response()
}
