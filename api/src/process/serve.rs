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

/// The RPC client the API builds and submits transactions with, at confirmed commitment; each call is
/// recorded by method (`upstream_requests_total{upstream="solana-rpc"}`, [`ops::upstream`]).
pub fn rpc_client(url: &str) -> solana_rpc_client::nonblocking::rpc_client::RpcClient {
    ops::upstream::solana::rpc_client(url, solana_commitment_config::CommitmentConfig::confirmed())
}

/// The database pools' connections in every scrape of this process (`db_pool_connections`,
/// `db_pool_max_connections`): the primary's, and the read replica's when `replica`.
pub fn pool_metrics(store: &index::Store, replica: bool) {
    let store = store.clone();
    ops::metrics::on_scrape(move || {
        let mut pools = vec![("primary", store.pool())];
        if replica {
            pools.push(("replica", store.reads()));
        }
        for (name, pool) in pools {
            ops::metrics::pool_gauges(
                name,
                pool.size(),
                pool.num_idle(),
                pool.options().get_max_connections(),
            );
        }
    });
}
