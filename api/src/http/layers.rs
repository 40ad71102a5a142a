//! What wraps every route: per-client and per-address rate limits (the client named by a trusted proxy's
//! forwarding header), CORS, and a panic caught as a 500 in the
//! spec's envelope.

use crate::error::{ApiError, ErrorCode};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use governor::Quota;
use std::num::NonZeroU32;
use std::sync::Arc;
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};

use tower_http::cors::{AllowOrigin, CorsLayer};

pub use crate::http::client::{client_of, limit_address, ClientAddress, LimitKey};
pub use crate::process::config::ForwardedHeader;

/// A keyed limiter as its layer holds it.
type Limiter = tower_governor::governor::SharedRateLimiter<
    LimitKey,
    governor::middleware::NoOpMiddleware<governor::clock::QuantaInstant>,
>;

/// How often the limiters forget the clients whose quota is whole again (they would be let through as
/// fresh ones anyway): without it every address and client id ever seen stays in memory.
pub const LIMITER_PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// The service's two keyed limiters (per client, per address): their memory, and its pruning.
#[derive(Clone)]
pub struct Limiters {
    per_client: Limiter,
    per_address: Limiter,
}

impl Limiters {
    /// The keys each limiter holds: (per client, per address).
    pub fn keys(&self) -> (usize, usize) {
        (self.per_client.len(), self.per_address.len())
    }

    /// Forgets every key whose quota is whole again, and gives the memory back.
    pub fn prune(&self) {
        for (name, limiter) in [("client", &self.per_client), ("address", &self.per_address)] {
            limiter.retain_recent();
            limiter.shrink_to_fit();
            metrics::gauge!("api_rate_limiter_keys", "limiter" => name).set(limiter.len() as f64);
        }
    }

    /// Prunes every [`LIMITER_PRUNE_EVERY`] on a thread of its own, until the limiters are dropped.
    fn prune_on_a_timer(&self) {
        let (client, address) = (
            Arc::downgrade(&self.per_client),
            Arc::downgrade(&self.per_address),
        );
        let spawned = std::thread::Builder::new()
            .name("rate-limit-prune".into())
            .spawn(move || loop {
                std::thread::sleep(LIMITER_PRUNE_EVERY);
                let (Some(per_client), Some(per_address)) = (client.upgrade(), address.upgrade())
                else {
                    return;
                };
                Limiters {
                    per_client,
                    per_address,
                }
                .prune();
            });
        if let Err(e) = spawned {
            tracing::warn!("rate limiter pruning thread: {e}: the limiters' memory is not bounded");
        }
    }
}

/// Rate-limit key: the caller's `X-Client-Id`, else its address.
#[derive(Clone, Debug)]
struct ClientKey(ClientAddress);

impl KeyExtractor for ClientKey {
    type Key = LimitKey;

    fn extract<T>(&self, req: &axum::http::Request<T>) -> Result<Self::Key, GovernorError> {
        if let Some(id) = req
            .headers()
            .get("x-client-id")
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty() && v.len() <= 128)
        {
            return Ok(LimitKey::Id(id.to_string()));
        }
        Ok(self.0.key(req))
    }
}

/// Rate-limit key: the caller's address, whatever `X-Client-Id` it sends (so that rotating ids does not
/// escape the limit).
#[derive(Clone, Debug)]
struct AddressKey(ClientAddress);

impl KeyExtractor for AddressKey {
    type Key = LimitKey;

    fn extract<T>(&self, req: &axum::http::Request<T>) -> Result<Self::Key, GovernorError> {
        Ok(self.0.key(req))
    }
}

/// What a request costs against the rate limits, in requests: a cached read costs one; what makes the
/// service work harder costs more (the whole list is here: a newcomer finds every weight in one place).
pub fn request_cost(method: &Method, path: &str) -> u32 {
    if method != Method::POST {
        return 1;
    }
    match path {
        // Image checks and decoding, metadata, a simulated transaction.
        "/launchpad/prepare" => 3,
        // A transaction built and simulated against the RPC node, or sent to it.
        "/swap/build"
        | "/swap/submit-solana"
        | "/swap/cross-chain/build"
        | "/launchpad/claim"
        | "/launchpad/fee-shares"
        | "/launchpad/creator/propose"
        | "/launchpad/creator/accept" => 2,
        _ => 1,
    }
}

/// Charges a request's cost beyond the one request each limiter counted already ([`request_cost`]), on
/// both limiters, under the same keys; 429 when either has not that much left. A synchronous check in a
/// service of its own: a `from_fn` middleware boxed the rest of the stack and its future for every request,
/// though most requests cost one and pass straight through.
#[derive(Clone)]
struct ChargeLayer {
    limiters: Limiters,
    keys: (ClientKey, AddressKey),
    burst: (u32, u32),
}

impl ChargeLayer {
    /// The 429 answer when `req` costs more than either limiter has left, else `None`.
    fn refusal<B>(&self, req: &axum::http::Request<B>) -> Option<Response> {
        let extra = request_cost(req.method(), req.uri().path()).saturating_sub(1);
        if extra == 0 {
            return None;
        }
        use governor::clock::Clock as _;
        let checks = [
            (
                &self.limiters.per_client,
                self.keys.0.extract(req),
                self.burst.0,
            ),
            (
                &self.limiters.per_address,
                self.keys.1.extract(req),
                self.burst.1,
            ),
        ];
        for (limiter, key, burst) in checks {
            let Ok(key) = key else { continue };
            // A cost above the burst could never pass: it takes the whole burst instead.
            let Some(n) = NonZeroU32::new(extra.min(burst.saturating_sub(1))) else {
                continue;
            };
            match limiter.check_key_n(&key, n) {
                Ok(Ok(())) | Err(_) => {}
                Ok(Err(not_until)) => {
                    let wait =
                        not_until.wait_time_from(governor::clock::QuantaClock::default().now());
                    return Some(ApiError::rate_limited(wait.as_secs().max(1)).into_response());
                }
            }
        }
        None
    }
}

impl<S> tower::Layer<S> for ChargeLayer {
    type Service = Charge<S>;

    fn layer(&self, inner: S) -> Charge<S> {
        Charge {
            inner,
            charge: self.clone(),
        }
    }
}

/// [`ChargeLayer`]'s service.
#[derive(Clone)]
struct Charge<S> {
    inner: S,
    charge: ChargeLayer,
}

impl<S, B> tower::Service<axum::http::Request<B>> for Charge<S>
where
    S: tower::Service<axum::http::Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future =
        futures::future::Either<S::Future, std::future::Ready<Result<Response, S::Error>>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: axum::http::Request<B>) -> Self::Future {
        match self.charge.refusal(&req) {
            Some(refused) => futures::future::Either::Right(std::future::ready(Ok(refused))),
            None => futures::future::Either::Left(self.inner.call(req)),
        }
    }
}

/// Clients that share an address (several apps behind one NAT) share this many times one client's limit.
pub const CLIENTS_PER_ADDRESS: u32 = 4;

/// `per_second` requests a second sustained, `burst` at once: governor's own per-second quota, whose
/// replenish interval is exact to the nanosecond (100,000/s is one request every 10 us).
pub fn quota(per_second: u32, burst: u32) -> Quota {
    let nonzero = |n: u32| NonZeroU32::new(n.max(1)).expect("at least 1");
    Quota::per_second(nonzero(per_second)).allow_burst(nonzero(burst))
}

fn governor_error(e: GovernorError) -> Response {
    match e {
        GovernorError::TooManyRequests { wait_time, .. } => {
            ApiError::rate_limited(wait_time.max(1)).into_response()
        }
        other => {
            ApiError::new(ErrorCode::Internal, format!("rate limiter: {other}")).into_response()
        }
    }
}

/// Which of the global layers [`wrap_with`] applies: every one in service ([`Layers::ALL`], what [`wrap`]
/// applies). The layer-cost bench (`api/benches/layers.rs`) turns each off in turn to price it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers {
    /// `x-request-id` made (or taken from the client) and sent back.
    pub request_id: bool,
    /// The request's span (method, route, path, request id) around everything the request logs.
    pub span: bool,
    /// The request record ([`crate::http::access::record`]): the secret scan of the path, query and
    /// headers, metrics, the access line and the error envelope.
    pub access: bool,
    /// CORS (when configured).
    pub cors: bool,
    /// The rate limits (per address, per client) and the weighted charge.
    pub limits: bool,
    /// The time limit to a response's head.
    pub timeout: bool,
    /// A panic answered 500 in the envelope.
    pub catch_panic: bool,
}

impl Layers {
    /// Every layer: what the service runs.
    pub const ALL: Layers = Layers {
        request_id: true,
        span: true,
        access: true,
        cors: true,
        limits: true,
        timeout: true,
        catch_panic: true,
    };
}

/// Request ids: a version-4 UUID from the thread's random generator. `tower_http`'s `MakeRequestUuid` asks
/// the kernel for 16 random bytes per request (a system call each).
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestUuid;

impl tower_http::request_id::MakeRequestId for RequestUuid {
    fn make_request_id<B>(
        &mut self,
        _: &axum::http::Request<B>,
    ) -> Option<tower_http::request_id::RequestId> {
        let id = uuid::Builder::from_random_bytes(rand::random()).into_uuid();
        let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
        let text = id.hyphenated().encode_lower(&mut text);
        HeaderValue::from_str(text)
            .ok()
            .map(tower_http::request_id::RequestId::new)
    }
}

/// Wraps every route of `router` in what the service applies to all requests, as one layer (innermost last):
/// the request log and metrics with the envelope for error responses that are not in it yet, CORS, the body
/// limit, the rate limits (per address at [`CLIENTS_PER_ADDRESS`] times the per-client one, then per client),
/// and a panic answered 500 in the envelope. One layer rather than one per concern: axum boxes every layer of
/// a route and clones each box per request.
pub fn wrap<S: Clone + Send + Sync + 'static>(
    router: axum::Router<S>,
    config: &crate::process::config::ApiConfig,
) -> (axum::Router<S>, Limiters) {
    wrap_with(router, config, Layers::ALL)
}

/// [`wrap`] with only the `layers` named (the layer-cost bench's; the service runs [`Layers::ALL`]). A layer
/// that changes the response's body type is followed by the conversion to axum's response, so that either
/// choice gives one type.
pub fn wrap_with<S: Clone + Send + Sync + 'static>(
    router: axum::Router<S>,
    config: &crate::process::config::ApiConfig,
    layers: Layers,
) -> (axum::Router<S>, Limiters) {
    let address = ClientAddress::of_config(config);
    let client = quota(config.rate_limit_per_second, config.rate_limit_burst);
    let shared = quota(
        config
            .rate_limit_per_second
            .saturating_mul(CLIENTS_PER_ADDRESS),
        config.rate_limit_burst.saturating_mul(CLIENTS_PER_ADDRESS),
    );
    let keys = (ClientKey(address.clone()), AddressKey(address.clone()));
    let bursts = (client.burst_size().get(), shared.burst_size().get());
    let per_client = GovernorConfigBuilder::default()
        .period(client.replenish_interval())
        .burst_size(client.burst_size().get())
        .key_extractor(ClientKey(address.clone()))
        .finish()
        .expect("rate limits are positive");
    let per_address = GovernorConfigBuilder::default()
        .period(shared.replenish_interval())
        .burst_size(shared.burst_size().get())
        .key_extractor(AddressKey(address.clone()))
        .finish()
        .expect("rate limits are positive");
    let limiters = Limiters {
        per_client: per_client.limiter().clone(),
        per_address: per_address.limiter().clone(),
    };
    limiters.prune_on_a_timer();
    let router = router.layer(
        tower::ServiceBuilder::new()
            // Every request carries an id: the client's `x-request-id` if it sent one, else a new UUID; it is
            // sent back on the response and names the request's span, so every log line a request causes
            // (JSON logs: the `request_id` field) can be found from the response a client reports.
            .option_layer(
                layers
                    .request_id
                    .then(|| tower_http::request_id::SetRequestIdLayer::x_request_id(RequestUuid)),
            )
            .option_layer(
                layers
                    .request_id
                    .then(tower_http::request_id::PropagateRequestIdLayer::x_request_id),
            )
            .option_layer(layers.span.then(|| {
                tower::ServiceBuilder::new()
                    .map_response(IntoResponse::into_response)
                    .layer(
                        tower_http::trace::TraceLayer::new_for_http()
                            .make_span_with(request_span)
                            .on_request(())
                            .on_response(
                                tower_http::trace::DefaultOnResponse::new()
                                    .level(tracing::Level::DEBUG),
                            )
                            .on_failure(()),
                    )
                    .into_inner()
            }))
            .option_layer(layers.access.then(|| {
                let address = address.clone();
                axum::middleware::from_fn(move |req, next| {
                    crate::http::access::record(address.clone(), req, next)
                })
            }))
            .option_layer(cors(&config.cors_origins).filter(|_| layers.cors))
            .layer(axum::extract::DefaultBodyLimit::max(config.max_body_bytes))
            .option_layer(
                layers
                    .limits
                    .then(|| GovernorLayer::new(per_address).error_handler(governor_error)),
            )
            .option_layer(
                layers
                    .limits
                    .then(|| GovernorLayer::new(per_client).error_handler(governor_error)),
            )
            .option_layer(layers.limits.then(|| ChargeLayer {
                limiters: limiters.clone(),
                keys,
                burst: bursts,
            }))
            // Bounds the time to a response's head: a stream's body (the live feed) is not cut.
            .option_layer(layers.timeout.then(|| {
                tower_http::timeout::TimeoutLayer::with_status_code(
                    StatusCode::GATEWAY_TIMEOUT,
                    std::time::Duration::from_secs(config.request_timeout_secs.max(1)),
                )
            }))
            .option_layer(layers.catch_panic.then(|| {
                tower::ServiceBuilder::new()
                    .map_response(IntoResponse::into_response)
                    .layer(crate::error::catch_panic())
                    .into_inner()
            })),
    );
    (router, limiters)
}

/// A request's span: its method, route (the template: what `--otlp-endpoint` traces group by), path (never
/// the query, which may hold an address or worse) and id.
fn request_span(req: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    // A client's own id is logged only when it looks like one (at most 64 of `A-Za-z0-9-_.:`).
    let id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            v.len() <= 64
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
        })
        .unwrap_or("unreadable");
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or("unmatched", |p| p.as_str());
    tracing::info_span!(
        "request",
        otel.kind = "server",
        method = %req.method(),
        route,
        path = %req.uri().path(),
        request_id = %id,
    )
}

/// CORS for browsers on other origins: `*` allows any origin (what `dev` uses unless told otherwise),
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{header, HeaderMap};
    use ipnet::IpNet;
    use std::net::IpAddr;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn the_client_is_the_rightmost_untrusted_hop_and_only_a_trusted_peer_is_believed() {
        let trusted: [IpNet; 2] = [
            "10.0.0.0/8".parse().unwrap(),
            "127.0.0.1/32".parse().unwrap(),
        ];
        let proxies = ClientAddress::new(&trusted, ForwardedHeader::XForwardedFor);
        let xff = |v: &str| headers(&[("x-forwarded-for", v)]);
        // An untrusted peer: its headers are ignored.
        assert_eq!(
            proxies.of(&xff("1.2.3.4"), ip("203.0.113.9")),
            ip("203.0.113.9")
        );
        // A trusted peer: the rightmost hop that is not a proxy, whatever the client wrote left of it.
        assert_eq!(proxies.of(&xff("1.2.3.4"), ip("10.1.1.1")), ip("1.2.3.4"));
        assert_eq!(
            proxies.of(&xff("6.6.6.6, 1.2.3.4, 10.0.0.7"), ip("127.0.0.1")),
            ip("1.2.3.4")
        );
        // Two header instances are one list.
        assert_eq!(
            proxies.of(
                &headers(&[
                    ("x-forwarded-for", "6.6.6.6"),
                    ("x-forwarded-for", "1.2.3.4")
                ]),
                ip("10.0.0.1")
            ),
            ip("1.2.3.4")
        );
        // Garbage stops the walk at the proxy before it.
        assert_eq!(
            proxies.of(&xff("1.2.3.4, bogus, 10.0.0.7"), ip("10.0.0.1")),
            ip("10.0.0.7")
        );
        assert_eq!(proxies.of(&xff("bogus"), ip("10.0.0.1")), ip("10.0.0.1"));
        // Every hop a proxy: the leftmost.
        assert_eq!(
            proxies.of(&xff("10.0.0.3, 10.0.0.2"), ip("10.0.0.1")),
            ip("10.0.0.3")
        );
        // Only the configured header is read: a client's `Forwarded` names nobody when the proxy writes
        // X-Forwarded-For, and the other way round.
        let both = headers(&[
            (
                "forwarded",
                "for=6.6.6.6, for=\"[2001:db8::1]:4711\";proto=https",
            ),
            ("x-forwarded-for", "5.5.5.5"),
        ]);
        assert_eq!(proxies.of(&both, ip("10.0.0.1")), ip("5.5.5.5"));
        let forged = headers(&[("forwarded", "for=6.6.6.6")]);
        assert_eq!(proxies.of(&forged, ip("10.0.0.1")), ip("10.0.0.1"));
        let rfc7239 = ClientAddress::new(&trusted, ForwardedHeader::Forwarded);
        // RFC 7239, IPv6 with a port included.
        assert_eq!(rfc7239.of(&both, ip("10.0.0.1")), ip("2001:db8::1"));
        assert_eq!(
            rfc7239.of(&headers(&[("x-forwarded-for", "5.5.5.5")]), ip("10.0.0.1")),
            ip("10.0.0.1")
        );
        assert_eq!(
            rfc7239.of(
                &headers(&[("forwarded", "for=6.6.6.6, for=unknown, for=10.0.0.9")]),
                ip("10.0.0.1")
            ),
            ip("10.0.0.9")
        );
        // An IPv4 peer seen as IPv6 (a dual-stack listener) is still trusted.
        assert_eq!(
            proxies.of(&xff("1.2.3.4"), ip("::ffff:10.0.0.1")),
            ip("1.2.3.4")
        );
        // No proxies configured: never believed.
        assert_eq!(
            ClientAddress::new(&[], ForwardedHeader::Forwarded)
                .of(&xff("1.2.3.4"), ip("127.0.0.1")),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn quotas_keep_any_rate() {
        let q = quota(100_000, 1);
        assert_eq!(q.replenish_interval(), std::time::Duration::from_micros(10));
        let q = quota(3_000_000, 7);
        assert_eq!(q.replenish_interval().as_nanos(), 333);
        assert_eq!(q.burst_size().get(), 7);
        assert_eq!(quota(20, 40).replenish_interval().as_millis(), 50);
    }
}
