//! `api serve`: the API against a real cluster's index (PostgreSQL), optionally running the indexer too.
//! The development stack (localnet + indexer + API in one process) is the `dev` crate's binary, so this one
//! links no development chain; it is its own package (`server`) so that the `api` library links no indexer.

use api::process::config::ApiConfig;
use api::process::serve::{bind, serve_metrics};
use api::AppState;
use clap::{Parser, Subcommand};
use index::Store;
use indexer::{Indexer, IndexerConfig};
use ops::signal::stopped;
use std::sync::Arc;
use tokio::sync::watch;

/// `--version`: the version and the commit it was built from (`LAUNCHPAD_COMMIT` in the build's environment,
/// as deploy/Containerfile sets it: docs/deploying.md). Read by the binary alone, so a new commit rebuilds
/// only the binary.
fn version() -> &'static str {
    let commit = option_env!("LAUNCHPAD_COMMIT").unwrap_or("unknown");
    Box::leak(format!("{} (commit {commit})", env!("CARGO_PKG_VERSION")).into_boxed_str())
}

#[derive(Parser, Debug)]
#[command(name = "api", version = version(), about = "The launchpad's REST API")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The log's format: `text` (human) or `json` (one object per line, for a log collector). Read before
    /// anything is logged.
    #[arg(long, global = true, env = "LOG_FORMAT", value_parser = ["text", "json"])]
    log_format: Option<String>,
    /// An OpenTelemetry collector's OTLP/HTTP endpoint (`http://collector:4318`; `/v1/traces` is appended
    /// unless the URL has a path): the process's spans (requests with their route, upstream calls) are
    /// exported there. Off when not given.
    #[arg(long, global = true, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The API over an existing index (and, with --with-indexer, the indexer in the same process).
    Serve(Box<ServeArgs>),
    /// Brings the index's schema up to date and exits (once per release, before processes started with
    /// --no-migrate).
    Migrate(MigrateArgs),
    /// The keeper: migrates curves other clients completed, paying with the operator's key. Run it apart from
    /// the internet-facing API; as many copies as you like, one is active (the keeper's lease).
    Keeper(KeeperArgs),
}

#[derive(clap::Args, Debug)]
struct KeeperArgs {
    /// The index: postgres://user:password@host/database (or sqlite://path on one machine).
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: String,
    /// Solana JSON-RPC URLs, repeated or comma-separated: tried in order.
    #[arg(
        long,
        env = "RPC_URL",
        value_delimiter = ',',
        required = true,
        hide_env_values = true
    )]
    rpc_url: Vec<String>,
    /// The operator's keypair file (Solana CLI format) that pays the migrations' fees and rent: the
    /// operator's own, never a user's.
    #[arg(long, env = "KEEPER_KEYPAIR")]
    keypair: std::path::PathBuf,
    /// Where `/livez`, `/readyz` and `/metrics` listen.
    #[arg(long, env = "METRICS_ADDR", default_value = "127.0.0.1:9102")]
    metrics_addr: std::net::SocketAddr,
    /// The percentile (0 to 100) of the recent prioritization fees of the accounts a migration writes that
    /// it offers per compute unit.
    #[arg(long, env = "PRIORITY_FEE_PERCENTILE", default_value_t = 50, value_parser = clap::value_parser!(u8).range(0..=100))]
    priority_fee_percentile: u8,
    /// The most a migration offers per compute unit, micro-lamports.
    #[arg(long, env = "PRIORITY_FEE_CAP", default_value_t = 1_000_000)]
    priority_fee_cap: u64,
    /// Longest a statement may run, in milliseconds, before PostgreSQL cancels it (0: no limit).
    #[arg(long, env = "DB_STATEMENT_TIMEOUT_MS", default_value_t = 30_000)]
    db_statement_timeout_ms: u64,
}

#[derive(clap::Args, Debug)]
struct MigrateArgs {
    /// The index: postgres://user:password@host/database or sqlite://path.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    database_url: String,
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    #[command(flatten)]
    api: ApiConfig,
    #[command(flatten)]
    indexer: IndexerConfig,
    /// A PostgreSQL read replica (a hot standby of --database-url) for the API's reads of the index:
    /// launches, curves, trades, candles, holders. Writes, the live feed and its LISTEN stay on the
    /// primary; what is read here lags the primary by the replica's delay. Its pool takes
    /// --db-max-connections and --db-statement-timeout-ms too.
    #[arg(long, env = "DATABASE_READ_URL", hide_env_values = true)]
    database_read_url: Option<String>,
    /// Also run the indexer in this process.
    #[arg(long, env = "WITH_INDEXER")]
    with_indexer: bool,
    /// Gone: the keeper is its own process (`api keeper`), so the internet-facing API holds no funded key.
    /// Given, `serve` refuses to start and says so.
    #[arg(long, env = "KEEPER_KEYPAIR", hide = true)]
    keeper_keypair: Option<std::path::PathBuf>,
}

/// What `serve --keeper-keypair` (or KEEPER_KEYPAIR in serve's environment) answers.
const KEEPER_MOVED: &str = "--keeper-keypair (KEEPER_KEYPAIR) is no setting of `api serve` any more: the keeper \
     runs as its own process, `api keeper --keypair <file>`, so that the internet-facing API holds no funded key \
     (docs/operations.md#the-keeper)";

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
            "`api serve` needs these settings (flag or environment variable; `cargo run -p dev` runs a \
             local stack with defaults):\n  {}",
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

fn main() -> anyhow::Result<()> {
    // Secrets given as files (`--database-url-file`, `DATABASE_URL_FILE`, ...) are read first.
    ops::secret_files::main_with_secrets(run)
}

/// The traces' `service.name`: `launchpad-api` for `serve` (and `migrate`), `launchpad-keeper` for `keeper`.
fn service(args: &[std::ffi::OsString]) -> &'static str {
    if args.iter().skip(1).any(|a| a == "keeper") {
        "launchpad-keeper"
    } else {
        "launchpad-api"
    }
}

async fn run(args: Vec<std::ffi::OsString>) -> anyhow::Result<()> {
    let _log = ops::logging::init_for(
        &args,
        service(&args),
        std::io::stdout(),
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    )?;
    ops::metrics::prometheus();
    ops::metrics::build_info(
        "api",
        env!("CARGO_PKG_VERSION"),
        option_env!("LAUNCHPAD_COMMIT").unwrap_or("unknown"),
    );
    let (stop, rx) = watch::channel(false);
    let matches = <Cli as clap::CommandFactory>::command().get_matches_from(args);
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)?;
    match cli.command {
        Command::Serve(args) => {
            let ServeArgs {
                mut api,
                indexer,
                database_read_url,
                with_indexer,
                keeper_keypair,
            } = *args;
            if keeper_keypair.is_some() {
                anyhow::bail!(KEEPER_MOVED);
            }
            if let Some(serve) = matches.subcommand_matches("serve") {
                require_explicit(serve, &api, with_indexer)?;
            }
            if with_indexer {
                indexer.grpc_tls()?;
            }
            ops::signal::raise_on_signal(stop, "finishing requests in flight, then stopping");
            let mut store = Store::open_with(&indexer.database_url, indexer.db_options()).await?;
            if let Some(url) = &database_read_url {
                store = store
                    .with_read_replica(url, indexer.db_options())
                    .await
                    .map_err(|e| anyhow::anyhow!("--database-read-url (DATABASE_READ_URL): {e}"))?;
            }
            if api.route_keys.is_empty() {
                // Every replica seals routes with the keys shared through the index (made on first start).
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64);
                api.route_keys = api::process::route_keys::shared(&store, now)
                    .await
                    .map_err(|e| {
                        anyhow::anyhow!("reading the shared route keys (route_keys): {e}")
                    })?;
            }
            api::process::serve::pool_metrics(&store, database_read_url.is_some());
            let rpc_url = indexer.rpc_url.clone();
            let mut tasks = Vec::new();
            let metrics = if with_indexer {
                let health_addr = indexer.health_addr;
                let ix = Indexer::new(indexer, store.clone());
                let m = ix.metrics();
                if let Some(addr) = health_addr {
                    let listener = bind(addr, "--health-addr (INDEXER_HEALTH_ADDR)").await?;
                    let app = ops::health::health_router(m.clone());
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
            let rpc = Arc::new(indexer::rpc::client(
                &rpc_url,
                solana_commitment_config::CommitmentConfig::confirmed(),
            ));
            let state = AppState::new(store, api, rpc, metrics);
            api::serve(state, listener, stopped(rx)).await?;
            // The indexer writes its open batch before the process ends.
            for task in tasks {
                let _ = tokio::time::timeout(std::time::Duration::from_secs(30), task).await;
            }
            tracing::info!("stopped");
            Ok(())
        }
        Command::Keeper(args) => keeper(args, stop, rx).await,
        Command::Migrate(MigrateArgs { database_url }) => {
            let store = Store::connect(&database_url).await?;
            store.migrate().await?;
            tracing::info!("the {} index is up to date", store.backend().name());
            Ok(())
        }
    }
}

/// `api keeper`: the keeper's loop and its port (`/livez`, `/readyz`, `/metrics`) until SIGTERM, when it
/// finishes its round, gives its lease up (a standby takes over at its next round) and exits.
async fn keeper(
    args: KeeperArgs,
    stop: watch::Sender<bool>,
    rx: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    use solana_signer::Signer as _;
    let operator = solana_keypair::read_keypair_file(&args.keypair).map_err(|e| {
        anyhow::anyhow!(
            "--keypair (KEEPER_KEYPAIR): reading the keeper's keypair {}: {e}",
            args.keypair.display()
        )
    })?;
    ops::signal::raise_on_signal(stop, "finishing the keeper's round, then stopping");
    // The schema is `api migrate`'s (or the indexer's) to bring up to date; the keeper only reads it.
    let options = index::store::DbOptions {
        statement_timeout: (args.db_statement_timeout_ms > 0)
            .then(|| std::time::Duration::from_millis(args.db_statement_timeout_ms)),
        max_connections: Some(2),
        migrate: false,
    };
    let store = Store::connect_with(&args.database_url, options).await?;
    api::process::serve::pool_metrics(&store, false);
    let status = Arc::new(api::chain::keeper::Status::default());
    let listener = bind(args.metrics_addr, "--metrics-addr (METRICS_ADDR)").await?;
    let app = api::chain::keeper::router(status.clone());
    let stopping = rx.clone();
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(stopped(stopping))
            .await
    });
    tracing::info!(
        "keeper {} on {}; /readyz and /metrics on http://{}",
        operator.pubkey(),
        store.backend().name(),
        args.metrics_addr
    );
    let rpc = Arc::new(indexer::rpc::client(
        &args.rpc_url,
        solana_commitment_config::CommitmentConfig::confirmed(),
    ));
    let policy = api::solana::FeePolicy {
        percentile: args.priority_fee_percentile,
        cap: args.priority_fee_cap,
    };
    api::chain::keeper::run_reporting(store, rpc, operator, policy, rx, status).await;
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), server).await;
    tracing::info!("stopped");
    Ok(())
}
