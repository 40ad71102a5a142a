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
    /// Localnet (JSON-RPC :8899, PubSub :8900, gRPC :10000), indexer and API (:8080) in one process, on a
    /// fresh SQLite file.
    Dev(Box<DevArgs>),
    /// The API over an existing index (and, with --with-indexer, the indexer in the same process).
    Serve(Box<ServeArgs>),
}

#[derive(clap::Args, Debug)]
struct DevArgs {
    /// Where the dev database and wallet go (wiped at start: the chain is new every run).
    #[arg(long, env = "DEV_DIR", default_value = ".dev")]
    dir: std::path::PathBuf,
    /// The localnet's JSON-RPC port (PubSub listens on the next port, as on a Solana validator; 0 picks
    /// free ports).
    #[arg(long, env = "DEV_RPC_PORT", default_value_t = 8899)]
    rpc_port: u16,
    /// The localnet's Yellowstone gRPC port (0 picks a free port).
    #[arg(long, env = "DEV_GRPC_PORT", default_value_t = 10000)]
    grpc_port: u16,
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

/// SIGTERM or SIGINT: the HTTP server stops accepting, finishes the requests in flight, and the indexer
/// writes its open batch.
fn shutdown_signal(tx: watch::Sender<bool>) {
    tokio::spawn(async move {
        let signal = indexer::signal::shutdown_signal().await;
        tracing::info!("{signal}: finishing requests in flight, then stopping");
        let _ = tx.send(true);
    });
}

/// `serve` runs against real infrastructure: settings whose local default would quietly serve an empty
/// index, or write a wrong URL on chain forever, must be given (flag or environment).
fn require_explicit(
    serve: &clap::ArgMatches,
    api: &ApiConfig,
    with_indexer: bool,
) -> anyhow::Result<()> {
    use clap::parser::ValueSource;
    let given = |id: &str| {
        matches!(
            serve.value_source(id),
            Some(ValueSource::CommandLine | ValueSource::EnvVariable)
        )
    };
    let mut missing = Vec::new();
    if !given("rpc_url") {
        missing
            .push("--rpc-url (RPC_URL): the Solana JSON-RPC node transactions are built against");
    }
    if !given("database_url") {
        missing.push(
            "--database-url (DATABASE_URL): the index, postgres://user:password@host/database",
        );
    }
    if with_indexer && !given("grpc_url") {
        missing
            .push("--grpc-url (GRPC_URL): the Yellowstone gRPC endpoint the indexer streams from");
    }
    if api.public_base_url.is_none() {
        missing.push(
            "--public-base-url (PUBLIC_BASE_URL): the URL clients reach this API at; it is written into \
             every token's metadata URI on chain, which can never change",
        );
    }
    if !missing.is_empty() {
        anyhow::bail!(
            "`api serve` needs these settings (flag or environment variable; `api dev` runs a local stack \
             with defaults):\n  {}",
            missing.join("\n  ")
        );
    }
    if let Some(url) = &api.public_base_url {
        let parsed = reqwest::Url::parse(url)
            .map_err(|e| anyhow::anyhow!("--public-base-url (PUBLIC_BASE_URL) `{url}`: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            anyhow::bail!("--public-base-url (PUBLIC_BASE_URL) `{url}` is not an http(s) URL");
        }
    }
    Ok(())
}

/// Binds a listener, naming the port and the setting when it cannot.
async fn bind(addr: std::net::SocketAddr, what: &str) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("{what}: port {} (binding {addr}): {e}", addr.port()))
}

/// `GET /metrics` on `--metrics-addr`, when set.
async fn serve_metrics(
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
    let _log = api::logging::init(
        std::io::stdout(),
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
    indexer::metrics::prometheus();
    let (stop, rx) = watch::channel(false);
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)?;
    match cli.command {
        Command::Dev(args) => {
            shutdown_signal(stop);
            dev(*args, rx).await
        }
        Command::Serve(args) => {
            let ServeArgs {
                api,
                indexer,
                with_indexer,
                keeper_keypair,
            } = *args;
            if let Some(serve) = matches.subcommand_matches("serve") {
                require_explicit(serve, &api, with_indexer)?;
            }
            if with_indexer {
                indexer.grpc_tls()?;
            }
            shutdown_signal(stop);
            let store = Store::open(&indexer.database_url).await?;
            let rpc_url = indexer.rpc_url.clone();
            let mut tasks = Vec::new();
            let metrics = if with_indexer {
                let health_addr = indexer.health_addr;
                let ix = Indexer::new(indexer, store.clone());
                let m = ix.metrics();
                if let Some(addr) = health_addr {
                    let listener = bind(addr, "--health-addr (INDEXER_HEALTH_ADDR)").await?;
                    let app = indexer::metrics::health_router(m.clone());
                    let rx = rx.clone();
                    tokio::spawn(async move {
                        axum::serve(listener, app)
                            .with_graceful_shutdown(stopped(rx))
                            .await
                    });
                }
                tasks.push(tokio::spawn(ix.run(rx.clone())));
                Some(m)
            } else {
                None
            };
            let listener = bind(api.addr, "--listen (API_ADDR)").await?;
            serve_metrics(&api, metrics.clone(), rx.clone()).await?;
            tracing::info!("API on {}", api.base_url());
            let rpc = Arc::new(rpc_client(&rpc_url));
            if let Some(path) = keeper_keypair {
                let operator = solana_keypair::read_keypair_file(&path).map_err(|e| {
                    anyhow::anyhow!("reading the keeper keypair {}: {e}", path.display())
                })?;
                tasks.push(tokio::spawn(api::keeper::run(
                    store.clone(),
                    rpc.clone(),
                    operator,
                    rx.clone(),
                )));
            }
            let state = AppState::new(store, api, rpc, metrics);
            api::serve(state, listener, stopped(rx)).await?;
            // The indexer writes its open batch and the keeper finishes its round before the process ends.
            for task in tasks {
                let _ = tokio::time::timeout(std::time::Duration::from_secs(30), task).await;
            }
            tracing::info!("stopped");
            Ok(())
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

async fn dev(args: DevArgs, rx: watch::Receiver<bool>) -> anyhow::Result<()> {
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
