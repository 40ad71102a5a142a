//! What a process serving the API does around the router: binding listeners with errors that name the
//! setting, the metrics listener and the RPC client (the stop signal is `ops::signal`). Shared by `api serve`
//! and the development stack (the `dev` crate).

use crate::process::config::ApiConfig;
use std::sync::Arc;
use tokio::sync::watch;

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
    indexer: Option<Arc<ops::health::Metrics>>,
    rx: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    if let Some(addr) = api.metrics_addr {
        let listener = bind(addr, "--metrics-addr (METRICS_ADDR)").await?;
        tracing::info!("Prometheus metrics on http://{addr}/metrics");
        let app = ops::metrics::metrics_router(indexer);
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(ops::signal::stopped(rx))
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
