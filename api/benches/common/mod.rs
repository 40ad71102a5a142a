//! The stack the API benches start in their own process: a localnet, the indexer into a fresh SQLite file
//! under the temporary directory, and a JSON-RPC client at `confirmed`.
#![allow(dead_code)]

use index::Store;
use indexer::{Indexer, IndexerConfig, Metrics};
use localnet::{Localnet, LocalnetConfig};
use std::sync::Arc;

pub struct Stack {
    pub net: Localnet,
    pub store: Store,
    /// Where the index file is (removed by the bench at the end).
    pub dir: std::path::PathBuf,
    /// Set to stop the indexer and whatever else the bench ties to it.
    pub stop: tokio::sync::watch::Sender<bool>,
    pub metrics: Arc<Metrics>,
    pub rpc: Arc<solana_rpc_client::nonblocking::rpc_client::RpcClient>,
    /// Flushes the log when dropped.
    pub log: tracing_appender::non_blocking::WorkerGuard,
}

/// Starts the stack on a SQLite file; `name` prefixes the index's directory.
pub async fn start(name: &str) -> Stack {
    start_on(name, None).await
}

/// Starts the stack, indexing into `database` (a `postgres://` URL) when given, else into a SQLite file.
pub async fn start_on(name: &str, database: Option<String>) -> Stack {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Logged like the binary (`info`), to a file beside the index; installed first, as the
    // binary does, so that the localnet's own logger setup finds it in place.
    let log = ops::logging::init(std::fs::File::create(dir.join("api.log")).unwrap(), false);
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let db = database.unwrap_or_else(|| format!("sqlite://{}/index.db", dir.display()));
    let store = Store::open(&db).await.unwrap();
    let (stop, rx) = tokio::sync::watch::channel(false);
    let ix = Indexer::new(
        IndexerConfig {
            metrics_interval_secs: 0,
            ..IndexerConfig::local(net.rpc_url(), net.grpc_url(), db)
        },
        store.clone(),
    );
    let metrics = ix.metrics();
    tokio::spawn(ix.run(rx));
    let rpc = Arc::new(
        solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
            net.rpc_url(),
            solana_commitment_config::CommitmentConfig::confirmed(),
        ),
    );
    Stack {
        net,
        store,
        dir,
        stop,
        metrics,
        rpc,
        log,
    }
}
