//! `indexer`: runs the pipeline against a Solana RPC + Yellowstone gRPC endpoint into a database.

use clap::Parser;
use index::Store;
use indexer::{Indexer, IndexerConfig};
use std::time::Duration;
use tokio::sync::watch;

/// `--version`: the version and the commit it was built from (`LAUNCHPAD_COMMIT` in the build's environment,
/// as deploy/Containerfile sets it: docs/deploying.md). Read by the binary alone, so a new commit rebuilds
/// only the binary.
fn version() -> &'static str {
    let commit = option_env!("LAUNCHPAD_COMMIT").unwrap_or("unknown");
    Box::leak(format!("{} (commit {commit})", env!("CARGO_PKG_VERSION")).into_boxed_str())
}

#[derive(Parser, Debug)]
#[command(
    version = version(),
    about = "Indexes the launchpad and AMM programs from Yellowstone gRPC into PostgreSQL or SQLite"
)]
struct Cli {
    #[command(flatten)]
    config: IndexerConfig,
    /// The log's format: `text` (human) or `json` (one object per line, for a log collector).
    #[arg(long, global = true, env = "LOG_FORMAT", value_parser = ["text", "json"])]
    log_format: Option<String>,
    /// An OpenTelemetry collector's OTLP/HTTP endpoint (`http://collector:4318`; `/v1/traces` is appended
    /// unless the URL has a path): the process's spans (each call to Yellowstone and the Solana RPC node)
    /// are exported there. Off when not given.
    #[arg(long, global = true, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

/// Without a command the indexer runs.
#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Lists the changes the database refused and the indexer set aside (the quarantine), with their errors.
    Quarantine {
        /// Also those already replayed.
        #[arg(long)]
        all: bool,
    },
    /// Writes the quarantined changes again, once the cause of the refusal is fixed, and exits; a change
    /// still refused stays quarantined with the new error. Safe while an indexer runs.
    ReplayQuarantine,
}

/// Runs a command against the index and exits.
async fn command(store: &Store, config: &IndexerConfig, command: Command) -> anyhow::Result<()> {
    match command {
        Command::Quarantine { all } => {
            for q in store.quarantined(all).await? {
                println!(
                    "#{} {} slot {} {} attempts {}{}: {}",
                    q.id,
                    q.entry.ident,
                    q.entry.slot,
                    q.sqlstate.as_deref().unwrap_or("-"),
                    q.attempts,
                    q.replayed_at
                        .map_or(String::new(), |t| format!(" replayed at {t}")),
                    q.error
                );
            }
        }
        Command::ReplayQuarantine => {
            let r = indexer::pipeline::replay(store, config.commitment).await?;
            println!(
                "replayed {} changes; {} still refused{}",
                r.written,
                r.refused,
                if r.unreadable.is_empty() {
                    String::new()
                } else {
                    format!("; unreadable: {}", r.unreadable.join("; "))
                }
            );
            anyhow::ensure!(
                r.refused == 0 && r.unreadable.is_empty(),
                "some quarantined changes were not written"
            );
        }
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    // Secrets given as files (`--database-url-file`, `DATABASE_URL_FILE`, ...) are read first.
    ops::secret_files::main_with_secrets(run)
}

async fn run(args: Vec<std::ffi::OsString>) -> anyhow::Result<()> {
    // One log setup for every binary: redacted (an RPC provider's key rides in its URL), human or JSON.
    let _log = ops::logging::init_for(
        &args,
        "launchpad-indexer",
        std::io::stdout(),
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    )?;
    let matches = <Cli as clap::CommandFactory>::command().get_matches_from(args);
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)?;
    // The index is the product's database: never a file made up in the working directory.
    if !matches!(
        matches.value_source("database_url"),
        Some(clap::parser::ValueSource::CommandLine | clap::parser::ValueSource::EnvVariable)
    ) {
        anyhow::bail!(
            "the indexer needs its database: give --database-url or DATABASE_URL \
             (postgres://user:password@host/database, or sqlite://path.db for a single machine)"
        );
    }
    let config = cli.config;
    if let Some(c) = cli.command {
        let store = Store::open_with(&config.database_url, config.db_options()).await?;
        return command(&store, &config, c).await;
    }
    ops::metrics::prometheus();
    ops::metrics::build_info(
        "indexer",
        env!("CARGO_PKG_VERSION"),
        option_env!("LAUNCHPAD_COMMIT").unwrap_or("unknown"),
    );
    // Settings that can never work stop here, with the flag at fault named, rather than in a retry loop.
    config.grpc_tls()?;
    let store = loop {
        match Store::open_with(&config.database_url, config.db_options()).await {
            Ok(s) => break s,
            Err(e) => {
                tracing::warn!("database not ready ({e:#}); retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    };
    // The pool's connections in every scrape of --health-addr's /metrics.
    let pool = store.pool().clone();
    ops::metrics::on_scrape(move || {
        ops::metrics::pool_gauges(
            "primary",
            pool.size(),
            pool.num_idle(),
            pool.options().get_max_connections(),
        )
    });
    tracing::info!(
        "indexing {} into {} at {:?} commitment",
        config.grpc_url.join(", "),
        store.backend().name(),
        config.commitment
    );
    let indexer = Indexer::new(config.clone(), store);
    let metrics = indexer.metrics();
    if config.metrics_interval_secs > 0 {
        tokio::spawn(
            metrics
                .clone()
                .log_every(Duration::from_secs(config.metrics_interval_secs)),
        );
    }
    if let Some(addr) = config.health_addr {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            anyhow::anyhow!("--health-addr (INDEXER_HEALTH_ADDR) {addr}: cannot bind: {e}")
        })?;
        tracing::info!(
            "health on http://{addr}/health (/livez, /readyz), Prometheus metrics on http://{addr}/metrics"
        );
        let app = ops::health::health_router(metrics.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
    }
    let (stop, shutdown) = watch::channel(false);
    ops::signal::raise_on_signal(stop, "writing the open batch and stopping");
    indexer.run(shutdown).await;
    if metrics.role() == ops::health::Role::Refused {
        anyhow::bail!("{}", metrics.last_error().unwrap_or_default());
    }
    tracing::info!("stopped");
    Ok(())
}
