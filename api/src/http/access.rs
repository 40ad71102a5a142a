//! What the service records of each request: Prometheus metrics by route and status (always), a usage line
//! per calling client every [`USAGE_WINDOW`] (attribution by `X-Client-Id`, `X-Client-Name` and
//! `X-Client-Source`), and one access line per request at `info` (target `api::request`; a server error's at
//! `warn`): method, route template (never the raw path or query), status, latency in microseconds, the client's
//! `X-Client-Id` or else a hash of its address (keyed per process: never the address itself), inside the
//! request's span, which carries its `request_id`. `RUST_LOG=info,api::request=warn` turns the line off for
//! successes; nothing is formatted or hashed then. Bodies are never logged.

use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use dashmap::DashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// How often each client's usage is logged.
pub const USAGE_WINDOW: Duration = Duration::from_secs(60);

/// Distinct clients counted per window; requests of any further ones are counted under `client_id=*`.
pub const MAX_CLIENTS: usize = 1_000;

/// Longest header value kept (characters).
const MAX_HEADER_CHARS: usize = 64;

/// Who a request says it comes from.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Client {
    id: String,
    name: String,
    source: String,
}

impl Client {
    /// The identification headers, when the request sends any.
    fn of(headers: &axum::http::HeaderMap) -> Option<Client> {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.chars().take(MAX_HEADER_CHARS).collect::<String>())
        };
        let (id, name, source) = (
            header("x-client-id"),
            header("x-client-name"),
            header("x-client-source"),
        );
        (id.is_some() || name.is_some() || source.is_some()).then(|| Client {
            id: id.unwrap_or_default(),
            name: name.unwrap_or_default(),
            source: source.unwrap_or_default(),
        })
    }

    fn others() -> Client {
        Client {
            id: "*".into(),
            name: String::new(),
            source: String::new(),
        }
    }
}

#[derive(Default)]
struct Counts {
    requests: u64,
    errors: u64,
}

/// Requests per identified client in the current window.
pub struct Usage {
    clients: DashMap<Client, Counts>,
    started: Instant,
    /// Seconds from `started` at which the current window opened.
    window: AtomicU64,
}

impl Default for Usage {
    fn default() -> Self {
        Usage {
            clients: DashMap::new(),
            started: Instant::now(),
            window: AtomicU64::new(0),
        }
    }
}

impl Usage {
    fn record(&self, client: Client, error: bool) {
        let client = if self.clients.len() >= MAX_CLIENTS && !self.clients.contains_key(&client) {
            Client::others()
        } else {
            client
        };
        {
            let mut counts = self.clients.entry(client).or_default();
            counts.requests += 1;
            counts.errors += u64::from(error);
        }
        self.flush_if_due(self.started.elapsed());
    }

    /// Logs and clears the window's counts once it is [`USAGE_WINDOW`] old (by whichever request finds it
    /// so; there is no timer).
    fn flush_if_due(&self, now: Duration) {
        let now = now.as_secs();
        let opened = self.window.load(Ordering::Relaxed);
        if now < opened + USAGE_WINDOW.as_secs()
            || self
                .window
                .compare_exchange(opened, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        self.clients.retain(|client, counts| {
            tracing::info!(
                target: "api::usage",
                client_id = %client.id,
                client_name = %client.name,
                client_source = %client.source,
                requests = counts.requests,
                errors = counts.errors,
                seconds = now - opened,
                "usage"
            );
            false
        });
    }
}

static USAGE: LazyLock<Usage> = LazyLock::new(Usage::default);

/// The request metrics of one method and status on a route.
struct Series {
    method: &'static str,
    status: StatusCode,
    requests: metrics::Counter,
    duration: metrics::Histogram,
}

/// Each route's metric handles, registered on the first request of each method and status (routes and
/// statuses are few), so that a request records without building label sets.
#[derive(Default)]
struct Registry(DashMap<String, Vec<Series>>);

impl Registry {
    fn record(&self, route: &str, method: &'static str, status: StatusCode, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        if let Some(series) = self.0.get(route) {
            if let Some(s) = series
                .iter()
                .find(|s| s.status == status && s.method == method)
            {
                s.requests.increment(1);
                s.duration.record(seconds);
                return;
            }
        }
        let labels = [
            ("method", method.to_string()),
            ("route", route.to_string()),
            ("status", status.as_str().to_string()),
        ];
        let s = Series {
            method,
            status,
            requests: metrics::counter!("http_requests_total", &labels[..]),
            duration: metrics::histogram!("http_request_duration_seconds", &labels[..]),
        };
        s.requests.increment(1);
        s.duration.record(seconds);
        self.0.entry(route.to_string()).or_default().push(s);
    }
}

static SERIES: LazyLock<Registry> = LazyLock::new(Registry::default);

/// The method as a static label (any other method is `other`).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

/// A client's address as the access line shows it: a keyed hash (the key is random per process), so that lines
/// of one client can be grouped without the log holding the address.
struct HashedAddress(Option<u64>);

impl HashedAddress {
    fn of(ip: Option<std::net::IpAddr>) -> HashedAddress {
        static KEY: LazyLock<std::collections::hash_map::RandomState> =
            LazyLock::new(std::collections::hash_map::RandomState::new);
        HashedAddress(ip.map(|ip| std::hash::BuildHasher::hash_one(&*KEY, ip)))
    }
}

impl std::fmt::Display for HashedAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(h) => write!(f, "{h:016x}"),
            None => Ok(()),
        }
    }
}

/// The middleware: times the request, puts an error response outside the envelope into it
/// ([`crate::error::envelope`]), records the outcome and writes the access line. `address` names the client
/// behind trusted proxies.
pub async fn record(
    address: crate::http::client::ClientAddress,
    req: Request,
    next: Next,
) -> Response {
    let method = method_label(req.method());
    // A key or seed phrase in the path, the query or a header is refused before anything reads it, and
    // the request is logged by its route alone: no path, no client headers.
    if let Some(place) = crate::body::secret_outside_body(req.uri(), req.headers()) {
        let response =
            crate::error::envelope(crate::body::secret_refused(&place).into_response()).await;
        let route = req
            .extensions()
            .get::<axum::extract::MatchedPath>()
            .map_or("unmatched".to_string(), |p| p.as_str().to_string());
        SERIES.record(&route, method, response.status(), Duration::ZERO);
        tracing::info!(target: "api::request", method, route, status = 400, refused = %place, "request");
        return response;
    }
    let client = Client::of(req.headers());
    // The address is looked up (and hashed) only for a line that is written, and only without a client id.
    let logged = tracing::enabled!(target: "api::request", tracing::Level::INFO);
    let hashed = if logged && client.as_ref().is_none_or(|c| c.id.is_empty()) {
        let peer = req
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip());
        HashedAddress::of(address.of(req.headers(), peer))
    } else {
        HashedAddress(None)
    };
    // Metrics are labelled by the matched route (`/launchpad/curve/{mint}`), never the raw path.
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .cloned();
    let route = route.as_ref().map_or("unmatched", |p| p.as_str());
    let start = Instant::now();
    let response = crate::error::envelope(next.run(req).await).await;
    let elapsed = start.elapsed();
    let status = response.status();
    SERIES.record(route, method, status, elapsed);
    let (id, name, source) = client
        .as_ref()
        .map_or(("", "", ""), |c| (&*c.id, &*c.name, &*c.source));
    let us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
    if status.is_server_error() {
        tracing::warn!(
            target: "api::request",
            method, route, status = status.as_u16(), us,
            client_id = id, client_name = name, client_source = source, address = %hashed,
            "request"
        );
    } else {
        tracing::info!(
            target: "api::request",
            method, route, status = status.as_u16(), us,
            client_id = id, client_name = name, client_source = source, address = %hashed,
            "request"
        );
    }
    if let Some(client) = client {
        USAGE.record(client, status.is_client_error() || status.is_server_error());
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(id: &str) -> Client {
        Client {
            id: id.into(),
            name: "bot".into(),
            source: "agent".into(),
        }
    }

    #[test]
    fn usage_is_counted_per_client_and_capped() {
        let usage = Usage::default();
        for i in 0..MAX_CLIENTS + 10 {
            usage.record(client(&format!("c{i}")), i % 2 == 0);
        }
        usage.record(client("c0"), false);
        assert_eq!(usage.clients.len(), MAX_CLIENTS + 1, "the rest are `*`");
        let c0 = usage.clients.get(&client("c0")).unwrap();
        assert_eq!((c0.requests, c0.errors), (2, 1));
        drop(c0);
        assert_eq!(usage.clients.get(&Client::others()).unwrap().requests, 10);
    }

    #[test]
    fn a_window_is_flushed_once_and_cleared() {
        let usage = Usage::default();
        usage.record(client("a"), false);
        usage.flush_if_due(USAGE_WINDOW - Duration::from_secs(1));
        assert_eq!(usage.clients.len(), 1, "not yet due");
        usage.flush_if_due(USAGE_WINDOW);
        assert!(usage.clients.is_empty());
        usage.record(client("a"), false);
        usage.flush_if_due(USAGE_WINDOW + Duration::from_secs(1));
        assert_eq!(usage.clients.len(), 1, "the next window opened at 60 s");
    }

    #[test]
    fn requests_without_identification_are_not_attributed() {
        assert!(Client::of(&axum::http::HeaderMap::new()).is_none());
        let mut h = axum::http::HeaderMap::new();
        h.insert("x-client-source", "agent".parse().unwrap());
        assert_eq!(Client::of(&h).unwrap().source, "agent");
    }
}
