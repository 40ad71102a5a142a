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
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The API over an existing index (and, with --with-indexer, the indexer in the same process).
    Serve(Box<ServeArgs>),
    /// Brings the index's schema up to date and exits (once per release, before processes started with
    /// --no-migrate).
    Migrate(MigrateArgs),
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
    /// The operator's keypair file (Solana CLI format): runs the keeper, which migrates pools completed by
    /// other clients. The key is the operator's own, never a user's.
    #[arg(long, env = "KEEPER_KEYPAIR")]
    keeper_keypair: Option<std::path::PathBuf>,
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

async fn run(args: Vec<std::ffi::OsString>) -> anyhow::Result<()> {
    let _log = ops::logging::init_as(
        ops::logging::Format::of(&args),
        std::io::stdout(),
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
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
            if let Some(path) = keeper_keypair {
                let operator = solana_keypair::read_keypair_file(&path).map_err(|e| {
                    anyhow::anyhow!("reading the keeper keypair {}: {e}", path.display())
                })?;
                let policy = api::solana::FeePolicy {
                    percentile: api.priority_fee_percentile,
                    cap: api.priority_fee_cap,
                };
                tasks.push(tokio::spawn(api::chain::keeper::run(
                    store.clone(),
                    rpc.clone(),
                    operator,
                    policy,
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
        Command::Migrate(MigrateArgs { database_url }) => {
            let store = Store::connect(&database_url).await?;
            store.migrate().await?;
            tracing::info!("the {} index is up to date", store.backend().name());
            Ok(())
        }
    }
}
