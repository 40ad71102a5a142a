//! What wraps every route: per-client and per-address rate limits, CORS, and a panic caught as a 500 in the
//! spec's envelope.

use crate::error::ApiError;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Rate-limit key: the caller's `X-Client-Id`, else its IP address.
#[derive(Clone, Copy, Debug)]
struct ClientKey;

impl KeyExtractor for ClientKey {
    type Key = String;

    fn extract<T>(&self, req: &axum::http::Request<T>) -> Result<Self::Key, GovernorError> {
        if let Some(id) = req
            .headers()
            .get("x-client-id")
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty() && v.len() <= 128)
        {
            return Ok(format!("id:{id}"));
        }
        AddressKey.extract(req)
    }
}

/// Rate-limit key: the caller's IP address, whatever `X-Client-Id` it sends (so that rotating ids does not
/// escape the limit).
#[derive(Clone, Copy, Debug)]
struct AddressKey;

impl KeyExtractor for AddressKey {
    type Key = String;

    fn extract<T>(&self, req: &axum::http::Request<T>) -> Result<Self::Key, GovernorError> {
        Ok(req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| "ip:unknown".into(), |c| format!("ip:{}", c.0.ip())))
    }
}

/// Clients that share an address (several apps behind one NAT) share this many times one client's limit.
pub const CLIENTS_PER_ADDRESS: u32 = 4;

fn governor_error(e: GovernorError) -> Response {
    match e {
        GovernorError::TooManyRequests { wait_time, .. } => {
            ApiError::rate_limited(wait_time.max(1)).into_response()
        }
        other => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            format!("rate limiter: {other}"),
        )
        .into_response(),
    }
}

/// Applies the rate limits of `config` to `router`.
pub fn rate_limits<S: Clone + Send + Sync + 'static>(
    router: axum::Router<S>,
    config: &crate::config::ApiConfig,
) -> axum::Router<S> {
    let per_second = config.rate_limit_per_second.max(1);
    let burst = config.rate_limit_burst.max(1);
    let per_client = GovernorConfigBuilder::default()
        .per_millisecond(u64::from((1000 / per_second).max(1)))
        .burst_size(burst)
        .key_extractor(ClientKey)
        .finish()
        .expect("rate limits are positive");
    let per_address = GovernorConfigBuilder::default()
        .per_millisecond(u64::from(
            (1000 / per_second.saturating_mul(CLIENTS_PER_ADDRESS)).max(1),
        ))
        .burst_size(burst.saturating_mul(CLIENTS_PER_ADDRESS))
        .key_extractor(AddressKey)
        .finish()
        .expect("rate limits are positive");
    router
        .layer(GovernorLayer::new(per_client).error_handler(governor_error))
        .layer(GovernorLayer::new(per_address).error_handler(governor_error))
}

/// CORS for browsers on other origins: `*` allows any origin (what `api dev` uses unless told otherwise),
/// a list allows exactly those; none sends no CORS headers (browsers then refuse cross-origin calls).
pub fn cors(origins: &[HeaderValue]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().cloned())
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
            .allow_headers(tower_http::cors::Any)
            .expose_headers([axum::http::header::RETRY_AFTER, axum::http::header::ETAG])
            .max_age(std::time::Duration::from_secs(600)),
    )
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
