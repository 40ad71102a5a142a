//! HTTP caching of browse responses: every successful GET gets a strong `ETag` (the SHA-256 of its body,
//! or the one the handler set) and the route's `Cache-Control`; a request whose `If-None-Match` names the
//! current tag gets `304 Not Modified` with no body. The body is still computed (the tag is its hash):
//! what a 304 saves is the transfer, and a client or CDN may reuse the response for `max-age`.

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

/// The middleware: tags a successful GET and answers a matching conditional request with 304.
pub async fn conditional(cache_control: &'static str, req: Request, next: Next) -> Response {
    let if_none_match = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let get = req.method() == Method::GET || req.method() == Method::HEAD;
    let response = next.run(req).await;
    if !get || response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let etag = match parts.headers.get(header::ETAG).cloned() {
        Some(tag) => {
            parts
                .headers
                .entry(header::CACHE_CONTROL)
                .or_insert(HeaderValue::from_static(cache_control));
            (tag, Body::new(body))
        }
        None => {
            let Ok(bytes) = axum::body::to_bytes(body, MAX_TAGGED_BYTES).await else {
                return StatusCode::INTERNAL_SERVER_ERROR.into_response();
            };
            let digest = Sha256::digest(&bytes);
            let tag = format!("\"{}\"", hex::encode(&digest[..16]));
            parts.headers.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(cache_control),
            );
            (
                HeaderValue::from_str(&tag).expect("hex is a valid header value"),
                Body::from(bytes),
            )
        }
    };
    let (tag, body) = etag;
    parts.headers.insert(header::ETAG, tag.clone());
    if if_none_match
        .as_deref()
        .is_some_and(|inm| matches(inm, tag.to_str().unwrap_or("")))
    {
        let mut not_modified = StatusCode::NOT_MODIFIED.into_response();
        for name in [header::ETAG, header::CACHE_CONTROL] {
            if let Some(v) = parts.headers.get(&name) {
                not_modified.headers_mut().insert(name, v.clone());
            }
        }
        return not_modified;
    }
    Response::from_parts(parts, body)
}

/// A boxed [`conditional`] future.
type Conditional = std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>>;

/// The layer of [`conditional`] with `cache_control`.
pub fn layer(
    cache_control: &'static str,
) -> axum::middleware::FromFnLayer<impl Fn(Request, Next) -> Conditional + Clone, (), (Request,)> {
    axum::middleware::from_fn(move |req: Request, next: Next| {
        Box::pin(conditional(cache_control, req, next)) as Conditional
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn if_none_match_lists_and_weak_tags_match() {
        assert!(super::matches("\"a\"", "\"a\""));
        assert!(super::matches("\"b\", W/\"a\"", "\"a\""));
        assert!(super::matches("*", "\"a\""));
        assert!(!super::matches("\"b\"", "\"a\""));
    }
}
