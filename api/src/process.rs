//! What a process serving the API does around the router: binding listeners with errors that name the
//! setting, the metrics listener, the RPC client, and the stop signal. Shared by `api serve` and the
//! development stack (the `dev` crate).

use crate::config::ApiConfig;
use std::sync::Arc;
use tokio::sync::watch;

/// SIGTERM or SIGINT: the HTTP server stops accepting, finishes the requests in flight, and the indexer
/// writes its open batch.
pub fn shutdown_signal(tx: watch::Sender<bool>) {
    tokio::spawn(async move {
        let signal = indexer::signal::shutdown_signal().await;
        tracing::info!("{signal}: finishing requests in flight, then stopping");
        let _ = tx.send(true);
    });
}

/// Resolves once the stop signal is raised.
pub async fn stopped(mut rx: watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// Binds a listener, naming the port and the setting when it cannot.
pub async fn bind(
    addr: std::net::SocketAddr,
    what: &str,
) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("{what}: port {} (binding {addr}): {e}", addr.port()))
}

/// `GET /metrics` on `--metrics-addr`, when set.
pub async fn serve_metrics(
    api: &ApiConfig,
    indexer: Option<Arc<indexer::Metrics>>,
    rx: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    if let Some(addr) = api.metrics_addr {
        let listener = bind(addr, "--metrics-addr (METRICS_ADDR)").await?;
        tracing::info!("Prometheus metrics on http://{addr}/metrics");
        let app = indexer::metrics::metrics_router(indexer);
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(stopped(rx))
                .await
        });
    }
    Ok(())
}

/// The RPC client the API builds and submits transactions with, at confirmed commitment.
pub fn rpc_client(url: &str) -> solana_rpc_client::nonblocking::rpc_client::RpcClient {
    solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        url.to_string(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    )
}
