//! HTTP caching of browse responses: every successful GET gets a strong `ETag` (the SHA-256 of its body,
//! or the one the handler set) and the route's `Cache-Control`; a request whose `If-None-Match` names the
//! current tag gets `304 Not Modified` with no body. The server keeps each successful response for
//! [`RESPONSE_TTL`] within one generation of the index, so a page many clients poll costs one read of the
//! index per generation, not one per request. A JSON or text body of at least [`MIN_COMPRESSED_BYTES`] is
//! also served gzip-compressed to clients that accept it (compressed once per kept response, with its own
//! tag); images are already compressed and go as they are.

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

/// Bodies at least this long are also served gzip-compressed (candles, listings, trades: JSON that
/// shrinks several times); shorter ones gain less than the header costs.
pub const MIN_COMPRESSED_BYTES: usize = 1024;

/// A successful browse response as served: its headers (type, tag, `Cache-Control`) and body.
#[derive(Debug)]
pub struct Stored {
    headers: axum::http::HeaderMap,
    body: axum::body::Bytes,
    /// The gzip variant (headers with `Content-Encoding` and its own tag, body), made by the first request
    /// that accepts it; `None` when the body is short or does not shrink.
    gzip: std::sync::OnceLock<Option<(axum::http::HeaderMap, axum::body::Bytes)>>,
}

impl Stored {
    fn gzipped(&self) -> Option<&(axum::http::HeaderMap, axum::body::Bytes)> {
        self.gzip
            .get_or_init(|| {
                use std::io::Write;
                if !compressible(&self.headers, self.body.len()) {
                    return None;
                }
                let mut encoder = flate2::write::GzEncoder::new(
                    Vec::with_capacity(self.body.len() / 4),
                    flate2::Compression::default(),
                );
                encoder.write_all(&self.body).ok()?;
                let compressed = encoder.finish().ok()?;
                if compressed.len() >= self.body.len() {
                    return None;
                }
                let mut headers = self.headers.clone();
                headers.remove(header::CONTENT_LENGTH);
                headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                if let Some(tag) = headers.get(header::ETAG).and_then(|v| v.to_str().ok()) {
                    let tag = HeaderValue::from_str(&gzip_tag(tag)).ok()?;
                    headers.insert(header::ETAG, tag);
                }
                Some((headers, compressed.into()))
            })
            .as_ref()
    }
}

/// Whether a body with these headers is worth compressing: JSON or text of at least
/// [`MIN_COMPRESSED_BYTES`] (images and other binary bodies are compressed already).
fn compressible(headers: &axum::http::HeaderMap, len: usize) -> bool {
    let textual = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .is_some_and(|t| t.starts_with("text/") || t == "application/json" || t.ends_with("+json"));
    textual && len >= MIN_COMPRESSED_BYTES
}

/// The tag of a representation's gzip variant: `"x"` becomes `"x-gzip"` (a strong tag names one encoding).
fn gzip_tag(tag: &str) -> String {
    match tag.strip_suffix('"') {
        Some(open) => format!("{open}-gzip\""),
        None => tag.to_string(),
    }
}

/// Whether an `Accept-Encoding` value admits gzip: a `gzip` (or `x-gzip`) entry, else a `*` entry, whose
/// quality is not 0.
fn accepts_gzip(accept_encoding: &str) -> bool {
    let (mut gzip, mut any) = (None, None);
    for entry in accept_encoding.split(',') {
        let mut params = entry.split(';');
        let coding = params.next().unwrap_or("").trim();
        let quality = params
            .find_map(|p| {
                let (name, value) = p.split_once('=')?;
                name.trim()
                    .eq_ignore_ascii_case("q")
                    .then(|| value.trim().parse::<f32>().unwrap_or(0.0))
            })
            .unwrap_or(1.0);
        if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            gzip = Some(quality > 0.0);
        } else if coding == "*" {
            any = Some(quality > 0.0);
        }
    }
    gzip.or(any).unwrap_or(false)
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
    let gzip = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(accepts_gzip);
    // The path and query as received (a request's URI is nearly always just those): no formatting.
    let uri = req.uri();
    let key = (
        uri.path_and_query()
            .filter(|_| uri.scheme().is_none())
            .map_or_else(|| uri.to_string(), |p| p.as_str().to_string()),
        version.0,
        version.1,
    );
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
    let (headers, body) = match gzip.then(|| stored.gzipped()).flatten() {
        Some((headers, body)) => (headers, body),
        None => (&stored.headers, &stored.body),
    };
    let tag = headers
        .get(header::ETAG)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if if_none_match
        .as_deref()
        .is_some_and(|inm| matches(inm, tag))
    {
        let mut not_modified = StatusCode::NOT_MODIFIED.into_response();
        for name in [header::ETAG, header::CACHE_CONTROL, header::VARY] {
            if let Some(v) = headers.get(&name) {
                not_modified.headers_mut().insert(name, v.clone());
            }
        }
        return not_modified;
    }
    let mut response = Response::new(Body::from(body.clone()));
    *response.headers_mut() = headers.clone();
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
    if compressible(&parts.headers, body.len()) {
        // Caches between us and the client keep the two encodings apart.
        parts
            .headers
            .entry(header::VARY)
            .or_insert(HeaderValue::from_static("accept-encoding"));
    }
    Some(Stored {
        headers: parts.headers,
        body,
        gzip: std::sync::OnceLock::new(),
    })
}

/// A boxed [`conditional`] future.
type Conditional = std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>>;

/// The layer of [`conditional`] with `cache_control`, storing in `state`'s [`Responses`].
pub fn layer(
    state: &crate::state::AppState,
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
                "/big",
                axum::routing::get(|| async { "candle ".repeat(1_000) }),
            )
            .route(
                "/image",
                axum::routing::get(|| async {
                    ([("content-type", "image/png")], vec![0u8; 4_096])
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

    async fn get_with(
        app: &axum::Router,
        uri: &str,
        headers: &[(&str, &str)],
    ) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
        let mut req = Request::get(uri);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let response = app
            .clone()
            .oneshot(req.body(Body::empty()).unwrap())
            .await
            .unwrap();
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(body, 1 << 20).await.unwrap().to_vec();
        (parts.status, parts.headers, body)
    }

    #[tokio::test]
    async fn large_bodies_are_gzipped_for_clients_that_accept_it_with_their_own_tag() {
        use std::io::Read;
        let app = app(Arc::new(AtomicUsize::new(0)));
        let (status, plain_headers, plain) = get_with(&app, "/big", &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert!(plain_headers.get("content-encoding").is_none());
        assert_eq!(plain_headers["vary"], "accept-encoding");
        let plain_tag = plain_headers["etag"].to_str().unwrap().to_string();

        let accept = [("accept-encoding", "gzip, deflate, br")];
        let (status, headers, zipped) = get_with(&app, "/big", &accept).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers["content-encoding"], "gzip");
        assert_eq!(headers["vary"], "accept-encoding");
        let tag = headers["etag"].to_str().unwrap().to_string();
        assert_eq!(tag, super::gzip_tag(&plain_tag));
        assert!(
            zipped.len() * 10 < plain.len(),
            "{} of {}",
            zipped.len(),
            plain.len()
        );
        let mut unzipped = Vec::new();
        flate2::read::GzDecoder::new(&zipped[..])
            .read_to_end(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, plain);

        // Each tag names its own encoding.
        let (status, headers, body) =
            get_with(&app, "/big", &[accept[0], ("if-none-match", &tag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED);
        assert_eq!(headers["etag"], tag.as_str());
        assert!(body.is_empty());
        let (status, _, _) =
            get_with(&app, "/big", &[accept[0], ("if-none-match", &plain_tag)]).await;
        assert_eq!(status, StatusCode::OK);

        // Refused gzip, or a body too short to gain: as it is.
        let (_, headers, _) = get_with(&app, "/big", &[("accept-encoding", "gzip;q=0, br")]).await;
        assert!(headers.get("content-encoding").is_none());
        let (_, headers, body) = get_with(&app, "/page", &accept).await;
        assert!(headers.get("content-encoding").is_none());
        assert!(headers.get("vary").is_none());
        assert_eq!(body, b"page");
        // Images are compressed already.
        let (_, headers, body) = get_with(&app, "/image", &accept).await;
        assert!(headers.get("content-encoding").is_none());
        assert!(headers.get("vary").is_none());
        assert_eq!(body.len(), 4_096);
    }

    #[test]
    fn accept_encoding_is_read_with_its_qualities() {
        use super::accepts_gzip;
        assert!(accepts_gzip("gzip"));
        assert!(accepts_gzip("br, GZIP;q=0.5"));
        assert!(accepts_gzip("*"));
        assert!(accepts_gzip("x-gzip"));
        assert!(!accepts_gzip("identity"));
        assert!(!accepts_gzip("gzip;q=0"));
        assert!(!accepts_gzip("gzip; q=0.000, br"));
        assert!(!accepts_gzip("*;q=0"));
        assert!(!accepts_gzip("*, gzip;q=0"), "the gzip entry wins over `*`");
        assert!(!accepts_gzip(""));
        assert_eq!(super::gzip_tag("\"abc\""), "\"abc-gzip\"");
        assert_eq!(super::gzip_tag("W/\"abc\""), "W/\"abc-gzip\"");
    }

    #[test]
    fn if_none_match_lists_and_weak_tags_match() {
        assert!(super::matches("\"a\"", "\"a\""));
        assert!(super::matches("\"b\", W/\"a\"", "\"a\""));
        assert!(super::matches("*", "\"a\""));
        assert!(!super::matches("\"b\"", "\"a\""));
    }
}
