//! The stack `dev` runs: localnet + indexer + keeper + API in one process, on a fresh SQLite file under
//! `--dir`, with a funded development wallet.

use api::process::config::ApiConfig;
use api::process::serve::{bind, rpc_client, serve_metrics};
use api::AppState;
use index::Store;
use indexer::{Indexer, IndexerConfig};
use localnet::{Localnet, LocalnetConfig};
use ops::signal::stopped;
use solana_signer::Signer;
use std::sync::Arc;
use tokio::sync::watch;

/// The development stack's settings: its own three, and every setting of the API.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "The development stack: localnet (JSON-RPC :8899, PubSub :8900, gRPC :10000), \
    indexer and API (:8080) in one process, on a fresh SQLite file"
)]
pub struct DevArgs {
    /// Where the dev database and wallet go (wiped at start: the chain is new every run).
    #[arg(long, env = "DEV_DIR", default_value = ".dev")]
    pub dir: std::path::PathBuf,
    /// The localnet's JSON-RPC port (PubSub listens on the next port, as on a Solana validator; 0 picks
    /// free ports).
    #[arg(long, env = "DEV_RPC_PORT", default_value_t = 8899)]
    pub rpc_port: u16,
    /// The localnet's Yellowstone gRPC port (0 picks a free port).
    #[arg(long, env = "DEV_GRPC_PORT", default_value_t = 10000)]
    pub grpc_port: u16,
    #[command(flatten)]
    pub api: ApiConfig,
}

/// The outside aggregators this configuration uses, for the dev banner.
fn outside_services(c: &ApiConfig) -> String {
    let services = [
        ("Jupiter", c.jupiter_base_url.as_str()),
        ("KyberSwap", c.aggregator.kyberswap_base_url.as_str()),
        (
            "0x",
            if c.aggregator.zerox_api_key.is_some() {
                c.aggregator.zerox_base_url.as_str()
            } else {
                ""
            },
        ),
        ("LI.FI", c.aggregator.lifi_base_url.as_str()),
        ("Relay", c.aggregator.relay_base_url.as_str()),
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

/// Runs the stack until the stop signal: wipes `dir`, starts the localnet, funds and writes the development
/// wallet, starts the indexer, the keeper and the API, and prints where each listens.
pub async fn run(args: DevArgs, rx: watch::Receiver<bool>) -> anyhow::Result<()> {
    let DevArgs {
        dir,
        rpc_port,
        grpc_port,
        api: mut api_config,
    } = args;
    // Development: a front end on any local port may call the API.
    if api_config.cors_origins.is_empty() {
        api_config.cors_origins = vec![axum::http::HeaderValue::from_static("*")];
    }
    // The browser UI offers its local development wallet (funded by the localnet's faucet).
    api_config.localnet = true;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    // The API's port is checked first: it is the one most often taken by another copy of the stack.
    let listener = bind(api_config.addr, "--listen (API_ADDR)").await?;
    let loopback = std::net::Ipv4Addr::LOCALHOST;
    let net = Localnet::start(LocalnetConfig {
        rpc_addr: (loopback, rpc_port).into(),
        grpc_addr: (loopback, grpc_port).into(),
        ..LocalnetConfig::default()
    })
    .await
    .map_err(|e| {
        anyhow::anyhow!(
            "{e:#} (choose other ports with --rpc-port/DEV_RPC_PORT and --grpc-port/DEV_GRPC_PORT)"
        )
    })?;
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
    serve_metrics(&api_config, Some(metrics.clone()), rx.clone()).await?;
    println!(
        "\nlaunchpad dev stack\n  launchpad UI  {}/\n  API           {}\n  OpenAPI       {}/openapi.json\n  live feed     \
         {}/launchpad/stream (SSE), {}/launchpad/ws (WebSocket)\n  JSON-RPC      {}\n  \
         Yellowstone   {}\n  database      {db_url}\n  dev wallet    {} (1000 SOL; keypair in {})\n  \
         aggregators   {} (Jupiter routes, EVM swaps and cross-chain quotes need these services reachable; \
         `--<name>-base-url ''` turns one off)\n",
        api_config.base_url(),
        api_config.base_url(),
        api_config.base_url(),
        api_config.base_url(),
        api_config.base_url().replacen("http", "ws", 1),
        net.rpc_url(),
        net.grpc_url(),
        wallet.pubkey(),
        wallet_path.display(),
        outside_services(&api_config)
    );
    let rpc = Arc::new(rpc_client(&net.rpc_url()));
    let keeper = localnet::testkit::funded(&rpc, 100 * localnet::testkit::SOL).await?;
    let policy = api::solana::FeePolicy {
        percentile: api_config.priority_fee_percentile,
        cap: api_config.priority_fee_cap,
    };
    tokio::spawn(api::chain::keeper::run(
        store.clone(),
        rpc.clone(),
        keeper,
        policy,
        rx.clone(),
    ));
    let state = AppState::new(store, api_config, rpc, Some(metrics));
    api::serve(state, listener, stopped(rx)).await?;
    let _ = indexer.await;
    net.shutdown().await;
    Ok(())
}
