//! Several JSON-RPC endpoints behind one client: each request goes to the endpoint in use, and on to the
//! next in the configured order when that one cannot be reached (a connection refused or cut, a timeout, an
//! HTTP 429 or 5xx); an answer from the node, an error one included, ends the request. While a later endpoint
//! is in use, the first is tried again every [`RETURN_EVERY`], so the client goes back to it once it is back.

use async_trait::async_trait;
use solana_commitment_config::CommitmentConfig;
use solana_rpc_client::http_sender::HttpSender;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_rpc_client::rpc_client::RpcClientConfig;
use solana_rpc_client::rpc_sender::{RpcSender, RpcTransportStats};
use solana_rpc_client_api::client_error::{ErrorKind, Result};
use solana_rpc_client_api::request::RpcRequest;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a client on a later endpoint tries the first one again.
pub const RETURN_EVERY: Duration = Duration::from_secs(10);

/// An RPC client over `urls` (at least one), tried in order, at `commitment`; each request is recorded by
/// method as `upstream_requests_total{upstream="solana-rpc"}` (`ops::upstream`), once whichever endpoints it
/// tried.
pub fn client(urls: &[String], commitment: CommitmentConfig) -> RpcClient {
    RpcClient::new_sender(
        ops::upstream::solana::Metered(Failover::new(urls)),
        RpcClientConfig::with_commitment(commitment),
    )
}

/// The sender behind [`client`].
pub struct Failover {
    endpoints: Vec<HttpSender>,
    /// The endpoint requests go to first.
    current: AtomicUsize,
    /// When the first endpoint is next tried while a later one is in use.
    retry_first_at: Mutex<Instant>,
}

impl Failover {
    pub fn new(urls: &[String]) -> Failover {
        assert!(!urls.is_empty(), "at least one RPC endpoint");
        Failover {
            endpoints: urls.iter().map(HttpSender::new).collect(),
            current: AtomicUsize::new(0),
            retry_first_at: Mutex::new(Instant::now()),
        }
    }

    /// The index of the endpoint in use.
    pub fn current(&self) -> usize {
        self.current.load(Ordering::Relaxed)
    }

    /// The order this request tries the endpoints in: the one in use (or the first, when it is time to
    /// try it again), then the others in the configured order.
    fn order(&self, now: Instant) -> Vec<usize> {
        let current = self.current();
        let mut first = current;
        if current != 0 {
            let mut at = self
                .retry_first_at
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if now >= *at {
                *at = now + RETURN_EVERY;
                first = 0;
            }
        }
        let mut order = vec![first];
        order.extend((0..self.endpoints.len()).filter(|i| *i != first));
        order
    }
}

/// Whether an error says the endpoint could not be reached (try the next one), rather than that the node
/// answered.
pub fn unreachable(kind: &ErrorKind) -> bool {
    match kind {
        ErrorKind::Io(_) => true,
        ErrorKind::Reqwest(e) => {
            e.is_connect()
                || e.is_timeout()
                || e.is_request()
                || e.status()
                    .is_some_and(|s| s.is_server_error() || s.as_u16() == 429)
        }
        _ => false,
    }
}

#[async_trait]
impl RpcSender for Failover {
    async fn send(
        &self,
        request: RpcRequest,
        params: serde_json::Value,
    ) -> Result<serde_json::Value> {
        let mut last = None;
        for i in self.order(Instant::now()) {
            match self.endpoints[i].send(request, params.clone()).await {
                Err(e) if unreachable(e.kind()) => {
                    if self.endpoints.len() > 1 {
                        tracing::warn!(
                            "RPC endpoint {} of {} unreachable: {e}",
                            i + 1,
                            self.endpoints.len()
                        );
                    }
                    last = Some(e);
                }
                answered => {
                    let was = self.current.swap(i, Ordering::Relaxed);
                    if was != i {
                        tracing::warn!(
                            "RPC: now on endpoint {} of {} (was {})",
                            i + 1,
                            self.endpoints.len(),
                            was + 1
                        );
                        if i != 0 {
                            *self
                                .retry_first_at
                                .lock()
                                .unwrap_or_else(|e| e.into_inner()) = Instant::now() + RETURN_EVERY;
                        }
                    }
                    return answered;
                }
            }
        }
        Err(last.expect("at least one endpoint was tried"))
    }

    fn get_transport_stats(&self) -> RpcTransportStats {
        let mut total = RpcTransportStats::default();
        for e in &self.endpoints {
            let s = e.get_transport_stats();
            total.request_count += s.request_count;
            total.elapsed_time += s.elapsed_time;
            total.rate_limited_time += s.rate_limited_time;
        }
        total
    }

    fn url(&self) -> String {
        self.endpoints[self.current()].url()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JSON-RPC server answering every request with `slot`, counting the requests it got.
    async fn node(
        slot: u64,
    ) -> (
        String,
        std::sync::Arc<AtomicUsize>,
        tokio::task::JoinHandle<()>,
    ) {
        let hits = std::sync::Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        let app = axum::Router::new().route(
            "/",
            axum::routing::post(move |body: axum::Json<serde_json::Value>| {
                let counted = counted.clone();
                async move {
                    counted.fetch_add(1, Ordering::SeqCst);
                    axum::Json(
                        serde_json::json!({"jsonrpc": "2.0", "id": body["id"], "result": slot}),
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let handle = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        (url, hits, handle)
    }

    fn closed_port() -> String {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    }

    #[tokio::test]
    async fn the_next_endpoint_answers_when_the_first_is_down_and_the_first_is_tried_again() {
        let (second, second_hits, _s) = node(2).await;
        let first = closed_port();
        let sender = Failover::new(&[first.clone(), second.clone()]);
        let slot = sender
            .send(RpcRequest::GetSlot, serde_json::Value::Null)
            .await
            .unwrap();
        assert_eq!(slot, 2);
        assert_eq!(sender.current(), 1);
        // Within RETURN_EVERY the first is not tried again: the second gets the request directly.
        assert_eq!(sender.order(Instant::now()), vec![1, 0]);
        // Once it is time, the first comes first again.
        assert_eq!(sender.order(Instant::now() + RETURN_EVERY), vec![0, 1]);
        assert_eq!(second_hits.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn an_answer_from_the_node_is_not_a_failover_and_the_first_is_returned_to() {
        let (first, first_hits, _f) = node(1).await;
        let (second, second_hits, _s) = node(2).await;
        let sender = Failover::new(&[first, second]);
        assert_eq!(
            sender
                .send(RpcRequest::GetSlot, serde_json::Value::Null)
                .await
                .unwrap(),
            1
        );
        assert_eq!(
            (
                first_hits.load(Ordering::SeqCst),
                second_hits.load(Ordering::SeqCst)
            ),
            (1, 0)
        );
        // On the second endpoint (as after a failover), the first is tried again once due.
        sender.current.store(1, Ordering::Relaxed);
        *sender.retry_first_at.lock().unwrap() = Instant::now();
        assert_eq!(
            sender
                .send(RpcRequest::GetSlot, serde_json::Value::Null)
                .await
                .unwrap(),
            1
        );
        assert_eq!(sender.current(), 0, "back on the first endpoint");
    }

    #[tokio::test]
    async fn every_endpoint_down_is_the_last_error() {
        let sender = Failover::new(&[closed_port(), closed_port()]);
        let e = sender
            .send(RpcRequest::GetSlot, serde_json::Value::Null)
            .await
            .unwrap_err();
        assert!(unreachable(e.kind()), "{e}");
    }
}
