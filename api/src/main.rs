//! `api dev`: localnet + indexer + API in one process on SQLite, for development.
//! `api serve`: the API against a real cluster's index (PostgreSQL), optionally running the indexer too.

use api::config::ApiConfig;
use api::AppState;
use clap::{Parser, Subcommand};
use indexer::{Indexer, IndexerConfig, Store};
use localnet::{Localnet, LocalnetConfig};
use solana_signer::Signer;
use std::sync::Arc;
use tokio::sync::watch;

#[derive(Parser, Debug)]
#[command(version, about = "The launchpad's REST API")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Localnet (JSON-RPC :8899, gRPC :10000), indexer and API (:8080) in one process, on a fresh SQLite file.
    Dev(Box<DevArgs>),
    /// The API over an existing index (and, with --with-indexer, the indexer in the same process).
    Serve(Box<ServeArgs>),
}

#[derive(clap::Args, Debug)]
struct DevArgs {
    /// Where the dev database and wallet go (wiped at start: the chain is new every run).
    #[arg(long, default_value = ".dev")]
    dir: std::path::PathBuf,
    #[command(flatten)]
    api: ApiConfig,
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    #[command(flatten)]
    api: ApiConfig,
    #[command(flatten)]
    indexer: IndexerConfig,
    /// Also run the indexer in this process.
    #[arg(long, env = "WITH_INDEXER")]
    with_indexer: bool,
    /// The operator's keypair file (Solana CLI format): runs the keeper, which migrates pools completed by
    /// other clients. The key is the operator's own, never a user's.
    #[arg(long, env = "KEEPER_KEYPAIR")]
    keeper_keypair: Option<std::path::PathBuf>,
}

fn shutdown_signal(tx: watch::Sender<bool>) {
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
        let _ = tx.send(true);
    });
}

fn rpc_client(url: &str) -> solana_rpc_client::nonblocking::rpc_client::RpcClient {
    solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        url.to_string(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    )
}

async fn stopped(mut rx: watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn,solana=warn,agave=warn".into()),
        )
        .init();
    let (stop, rx) = watch::channel(false);
    shutdown_signal(stop);
    match Cli::parse().command {
        Command::Dev(args) => {
            let DevArgs { dir, api } = *args;
            dev(dir, api, rx).await
        }
        Command::Serve(args) => {
            let ServeArgs {
                api,
                indexer,
                with_indexer,
                keeper_keypair,
            } = *args;
            let store = Store::open(&indexer.database_url).await?;
            let rpc_url = indexer.rpc_url.clone();
            let metrics = if with_indexer {
                let ix = Indexer::new(indexer, store.clone());
                let m = ix.metrics();
                tokio::spawn(ix.run(rx.clone()));
                Some(m)
            } else {
                None
            };
            let listener = tokio::net::TcpListener::bind(api.addr).await?;
            tracing::info!("API on {}", api.base_url());
            let rpc = Arc::new(rpc_client(&rpc_url));
            if let Some(path) = keeper_keypair {
                let operator = solana_keypair::read_keypair_file(&path).map_err(|e| {
                    anyhow::anyhow!("reading the keeper keypair {}: {e}", path.display())
                })?;
                tokio::spawn(api::keeper::run(
                    store.clone(),
                    rpc.clone(),
                    operator,
                    rx.clone(),
                ));
            }
            let state = AppState::new(store, api, rpc, metrics);
            api::serve(state, listener, stopped(rx)).await
        }
    }
}

/// The outside aggregators this configuration uses, for the dev banner.
fn outside_services(c: &ApiConfig) -> String {
    let services = [
        ("Jupiter", c.jupiter_base_url.as_str()),
        ("KyberSwap", c.kyberswap_base_url.as_str()),
        (
            "0x",
            if c.zerox_api_key.is_some() {
                c.zerox_base_url.as_str()
            } else {
                ""
            },
        ),
        ("LI.FI", c.lifi_base_url.as_str()),
        ("Relay", c.relay_base_url.as_str()),
    ];
    let on: Vec<_> = services
        .iter()
        .filter(|(_, url)| !url.is_empty())
        .map(|(name, url)| format!("{name} {url}"))
        .collect();
    if on.is_empty() {
        "none configured".into()
    } else {
        on.join(", ")
    }
}

async fn dev(
    dir: std::path::PathBuf,
    api_config: ApiConfig,
    rx: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let net = Localnet::start(LocalnetConfig::default()).await?;
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    // A development wallet, written in the Solana CLI's keypair format (its key is never printed).
    let wallet = localnet::testkit::funded(&rpc, 1_000 * localnet::testkit::SOL).await?;
    let wallet_path = dir.join("wallet.json");
    std::fs::write(
        &wallet_path,
        serde_json::to_string(&wallet.to_bytes().to_vec())?,
    )?;
    let db_url = format!("sqlite://{}/launchpad.db", dir.display());
    let store = Store::open(&db_url).await?;
    let ix = Indexer::new(
        IndexerConfig::local(net.rpc_url(), net.grpc_url(), db_url.clone()),
        store.clone(),
    );
    let metrics = ix.metrics();
    let indexer = tokio::spawn(ix.run(rx.clone()));
    let listener = tokio::net::TcpListener::bind(api_config.addr).await?;
    println!(
        "\nlaunchpad dev stack\n  API           {}\n  OpenAPI       {}/openapi.json\n  JSON-RPC      {}\n  \
         Yellowstone   {}\n  database      {db_url}\n  dev wallet    {} (1000 SOL; keypair in {})\n  \
         aggregators   {} (Jupiter routes, EVM swaps and cross-chain quotes need these services reachable; \
         `--<name>-base-url ''` turns one off)\n",
        api_config.base_url(),
        api_config.base_url(),
        net.rpc_url(),
        net.grpc_url(),
        wallet.pubkey(),
        wallet_path.display(),
        outside_services(&api_config)
    );
    let rpc = Arc::new(rpc_client(&net.rpc_url()));
    let keeper = localnet::testkit::funded(&rpc, 100 * localnet::testkit::SOL).await?;
    tokio::spawn(api::keeper::run(
        store.clone(),
        rpc.clone(),
        keeper,
        rx.clone(),
    ));
    let state = AppState::new(store, api_config, rpc, Some(metrics));
    api::serve(state, listener, stopped(rx)).await?;
    let _ = indexer.await;
    net.shutdown().await;
    Ok(())
}
