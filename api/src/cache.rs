//! HTTP caching of browse responses: every successful GET gets a strong `ETag` (the SHA-256 of its body,
//! or the one the handler set) and the route's `Cache-Control`; a request whose `If-None-Match` names the
//! current tag gets `304 Not Modified` with no body. The server keeps each successful response for
//! [`RESPONSE_TTL`] within one generation of the index, so a page many clients poll costs one read of the
//! index per generation, not one per request.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// Largest body hashed for a tag; larger responses pass through untagged.
const MAX_TAGGED_BYTES: usize = 4 << 20;

/// `Cache-Control` of each browse endpoint, by how fast it changes.
pub mod policy {
    /// The curve, a token's trades: change with every trade.
    pub const LIVE: &str = "public, max-age=1";
    /// A token's page and its candles: change with every trade, read by charts that poll.
    pub const MARKET: &str = "public, max-age=2";
    /// The listing: changes with every trade of any launch; a few seconds behind is fine for browsing.
    pub const LISTING: &str = "public, max-age=5";
    /// A launch's metadata JSON: fixed at prepare.
    pub const METADATA: &str = "public, max-age=300";
}

/// Whether `If-None-Match` (a list of tags, or `*`) names `etag` (weak comparison, as RFC 9110 asks).
fn matches(if_none_match: &str, etag: &str) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    if_none_match
        .split(',')
        .any(|t| t.trim() == "*" || bare(t) == bare(etag))
}

/// How long a browse response is reused for the same URI, within one index generation: the age bound of
/// every browse endpoint (the curve cache's too), far below the shortest `max-age` clients are told.
pub const RESPONSE_TTL: std::time::Duration = std::time::Duration::from_millis(100);

/// Bytes of responses kept at most.
const RESPONSES_BYTES: u64 = 64 << 20;

/// A successful browse response as served: its headers (type, tag, `Cache-Control`) and body.
#[derive(Debug)]
pub struct Stored {
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
}

/// Browse responses by (URI, the index's generation, the clock offset), so that many clients asking for the
/// same page within [`RESPONSE_TTL`] cost one read of the index.
pub type Responses = moka::future::Cache<(String, u64, i64), std::sync::Arc<Stored>>;

pub fn responses() -> Responses {
    moka::future::Cache::builder()
        .weigher(|k: &(String, u64, i64), v: &std::sync::Arc<Stored>| {
            u32::try_from(k.0.len() + v.body.len()).unwrap_or(u32::MAX)
        })
        .max_capacity(RESPONSES_BYTES)
        .time_to_live(RESPONSE_TTL)
        .build()
}

/// The middleware: serves a GET from [`Responses`] when it can, tags a successful one and answers a matching
/// conditional request with 304.
/// `version` is the index's generation and the clock offset: a response is reused only within one version.
pub async fn conditional(
    responses: std::sync::Arc<Responses>,
    version: (u64, i64),
    cache_control: &'static str,
    req: Request,
    next: Next,
) -> Response {
    let if_none_match = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return next.run(req).await;
    }
    let key = (req.uri().to_string(), version.0, version.1);
    // Concurrent misses of one key are coalesced: one request runs the handler, the others wait for its
    // answer (a page polled by many clients costs one read per generation even as it expires).
    let mut pending = Some((req, next));
    let mut uncached = None;
    let stored = responses
        .optionally_get_with(key, async {
            let (req, next) = pending.take()?;
            let response = next.run(req).await;
            if response.status() != StatusCode::OK {
                uncached = Some(response);
                return None;
            }
            match store(cache_control, response).await {
                Some(stored) => Some(std::sync::Arc::new(stored)),
                None => {
                    uncached = Some(StatusCode::INTERNAL_SERVER_ERROR.into_response());
                    None
                }
            }
        })
        .await;
    let stored = match (stored, uncached, pending) {
        (Some(stored), _, _) => stored,
        (None, Some(response), _) => return response,
        // The request this one waited for was answered with something not kept (an error): answer this one
        // on its own.
        (None, None, Some((req, next))) => return next.run(req).await,
        (None, None, None) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    let tag = stored
        .headers
        .get(header::ETAG)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if if_none_match
        .as_deref()
        .is_some_and(|inm| matches(inm, tag))
    {
        let mut not_modified = StatusCode::NOT_MODIFIED.into_response();
        for name in [header::ETAG, header::CACHE_CONTROL] {
            if let Some(v) = stored.headers.get(&name) {
                not_modified.headers_mut().insert(name, v.clone());
            }
        }
        return not_modified;
    }
    let mut response = Response::new(Body::from(stored.body.clone()));
    *response.headers_mut() = stored.headers.clone();
    response
}

/// `response` read whole, with its `ETag` (the handler's, else the SHA-256 of its body) and
/// `cache_control`; `None` when its body cannot be read.
async fn store(cache_control: &'static str, response: Response) -> Option<Stored> {
    let (mut parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, MAX_TAGGED_BYTES).await.ok()?;
    if parts.headers.contains_key(header::ETAG) {
        parts
            .headers
            .entry(header::CACHE_CONTROL)
            .or_insert(HeaderValue::from_static(cache_control));
    } else {
        let digest = Sha256::digest(&body);
        let tag = format!("\"{}\"", hex::encode(&digest[..16]));
        parts.headers.insert(
            header::ETAG,
            HeaderValue::from_str(&tag).expect("hex is a valid header value"),
        );
        parts.headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(cache_control),
        );
    }
    Some(Stored {
        headers: parts.headers,
        body,
    })
}

/// A boxed [`conditional`] future.
type Conditional = std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>>;

/// The layer of [`conditional`] with `cache_control`, storing in `state`'s [`Responses`].
pub fn layer(
    state: &crate::AppState,
    cache_control: &'static str,
) -> axum::middleware::FromFnLayer<impl Fn(Request, Next) -> Conditional + Clone, (), (Request,)> {
    let state = state.clone();
    axum::middleware::from_fn(move |req: Request, next: Next| {
        let version = (
            state.generation(),
            state
                .clock_offset
                .load(std::sync::atomic::Ordering::Relaxed),
        );
        Box::pin(conditional(
            state.responses.clone(),
            version,
            cache_control,
            req,
            next,
        )) as Conditional
    })
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tower::ServiceExt;

    /// A router whose `/page` takes 50 ms and counts its calls, and whose `/missing` answers 404 (counted
    /// too), behind [`super::conditional`] at version `(0, 0)`.
    fn app(calls: Arc<AtomicUsize>) -> axum::Router {
        let responses = Arc::new(super::responses());
        let (page, missing) = (calls.clone(), calls);
        axum::Router::new()
            .route(
                "/page",
                axum::routing::get(move || async move {
                    page.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    "page"
                }),
            )
            .route(
                "/missing",
                axum::routing::get(move || async move {
                    missing.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    StatusCode::NOT_FOUND
                }),
            )
            .layer(axum::middleware::from_fn(move |req, next| {
                super::conditional(responses.clone(), (0, 0), super::policy::LIVE, req, next)
            }))
    }

    async fn get(app: &axum::Router, uri: &str) -> (StatusCode, String) {
        let response = app
            .clone()
            .oneshot(Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, String::from_utf8_lossy(&body).to_string())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_misses_run_the_handler_once() {
        let calls = Arc::new(AtomicUsize::new(0));
        let app = app(calls.clone());
        let answers = futures::future::join_all((0..32).map(|_| get(&app, "/page"))).await;
        assert!(answers
            .iter()
            .all(|a| *a == (StatusCode::OK, "page".into())));
        assert_eq!(
            calls.load(Ordering::SeqCst),
            1,
            "one handler run for 32 requests"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn errors_are_not_kept_and_every_waiter_gets_its_own_answer() {
        let calls = Arc::new(AtomicUsize::new(0));
        let app = app(calls.clone());
        let answers = futures::future::join_all((0..8).map(|_| get(&app, "/missing"))).await;
        assert!(answers.iter().all(|(s, _)| *s == StatusCode::NOT_FOUND));
        assert_eq!(calls.load(Ordering::SeqCst), 8, "an error is never shared");
    }

    #[test]
    fn if_none_match_lists_and_weak_tags_match() {
        assert!(super::matches("\"a\"", "\"a\""));
        assert!(super::matches("\"b\", W/\"a\"", "\"a\""));
        assert!(super::matches("*", "\"a\""));
        assert!(!super::matches("\"b\"", "\"a\""));
    }
}
