//! Settings of the indexer, from flags or the environment (shared with the API's `dev` and `serve`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The commitment the stream is read at: `confirmed` (the default) or `finalized`. `processed` is refused
/// (see [`parse_commitment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commitment {
    Confirmed,
    Finalized,
}

/// Why `processed` is refused.
pub const PROCESSED_REFUSED: &str = "processed commitment is not supported: a transaction can land on two \
forks, and rows of a slot that later dies cannot be told from the surviving fork's; use confirmed (the \
default, about a second behind processed) or finalized (see docs/indexer.md, Forks)";

/// One endpoint of `--rpc-url` or `--grpc-url`: an `http://` or `https://` URL (surrounding spaces
/// trimmed).
pub fn endpoint(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("an empty endpoint (check the commas of the list)".into());
    }
    match url::Url::parse(s) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Ok(s.to_string()),
        Ok(_) => Err("an endpoint must be an http:// or https:// URL with a host".into()),
        Err(e) => Err(format!("not a URL: {e}")),
    }
}

/// `--commitment`: `confirmed` or `finalized`; `processed` with the reason it is refused.
pub fn parse_commitment(s: &str) -> Result<Commitment, String> {
    match s.to_ascii_lowercase().as_str() {
        "confirmed" => Ok(Commitment::Confirmed),
        "finalized" => Ok(Commitment::Finalized),
        "processed" => Err(PROCESSED_REFUSED.to_string()),
        other => Err(format!(
            "{other:?} is not a commitment: confirmed or finalized"
        )),
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct IndexerConfig {
    /// Solana JSON-RPC URLs (used to backfill account state): several endpoints, repeated or
    /// comma-separated, are tried in order, the next when one cannot be reached, and the first again once it
    /// is back. URLs can hold a provider's key: their environment values are never shown in `--help`.
    #[arg(
        long,
        env = "RPC_URL",
        default_value = "http://127.0.0.1:8899",
        value_delimiter = ',',
        value_parser = endpoint,
        hide_env_values = true
    )]
    pub rpc_url: Vec<String>,
    /// Yellowstone gRPC URLs, repeated or comma-separated: tried in order, the next when one cannot be
    /// reached, and the first again once it is back; `https://` connects over TLS, verified against the
    /// system's roots (or the `--grpc-ca-cert` file).
    #[arg(
        long,
        env = "GRPC_URL",
        default_value = "http://127.0.0.1:10000",
        value_delimiter = ',',
        value_parser = endpoint,
        hide_env_values = true
    )]
    pub grpc_url: Vec<String>,
    /// Yellowstone `x-token`, when the endpoint requires one.
    #[arg(long, env = "GRPC_X_TOKEN", hide_env_values = true)]
    pub grpc_x_token: Option<String>,
    /// PEM file of the certificate authority to trust for an `https://` gRPC URL, instead of the system's
    /// roots (a provider with a private CA).
    #[arg(long, env = "GRPC_CA_CERT")]
    pub grpc_ca_cert: Option<PathBuf>,
    /// `postgres://…` or `sqlite://path`.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://launchpad.db",
        hide_env_values = true
    )]
    pub database_url: String,
    /// `confirmed` or `finalized` (`processed` is refused: see docs/indexer.md, Forks).
    #[arg(
        long,
        env = "INDEXER_COMMITMENT",
        value_parser = parse_commitment,
        default_value = "confirmed"
    )]
    pub commitment: Commitment,
    /// Largest number of changes written in one transaction.
    #[arg(long, env = "INDEXER_BATCH_SIZE", default_value_t = 1000)]
    pub batch_size: usize,
    /// Longest a change waits for its batch, in milliseconds.
    #[arg(long, env = "INDEXER_BATCH_WAIT_MS", default_value_t = 50)]
    pub batch_wait_ms: u64,
    /// First and largest reconnect / retry delay, in milliseconds (exponential, with jitter).
    #[arg(long, env = "INDEXER_BACKOFF_MIN_MS", default_value_t = 200)]
    pub backoff_min_ms: u64,
    #[arg(long, env = "INDEXER_BACKOFF_MAX_MS", default_value_t = 10_000)]
    pub backoff_max_ms: u64,
    /// Seconds between metrics log lines (0: none).
    #[arg(long, env = "INDEXER_METRICS_INTERVAL", default_value_t = 30)]
    pub metrics_interval_secs: u64,
    /// Serve `GET /health` (JSON metrics) on this address.
    #[arg(long, env = "INDEXER_HEALTH_ADDR")]
    pub health_addr: Option<SocketAddr>,
    /// Seconds the writer may go without progress (nothing heard from its gRPC source) while its sources
    /// cannot be reached before it gives up the writer's lease, so that a standby with a working source
    /// takes over; it takes the lease again only once a source of its own answers. 0: never give it up.
    #[arg(long, env = "INDEXER_LEASE_YIELD_SECS", default_value_t = 60)]
    pub lease_yield_secs: u64,
    /// Seconds the gRPC stream may deliver nothing (not even a slot or a ping) before the indexer asks the
    /// RPC node whether the chain moved on; if it did, the stream is stale (a half-open connection) and is
    /// reconnected. Also how long `/readyz` tolerates silence. 0 turns the watchdog off.
    #[arg(long, env = "INDEXER_STREAM_IDLE_SECS", default_value_t = 30)]
    pub stream_idle_secs: u64,
    /// Most connections this process opens to the database (default: 10 on PostgreSQL, 4 on SQLite).
    #[arg(long, env = "DB_MAX_CONNECTIONS")]
    pub db_max_connections: Option<u32>,
    /// Longest a statement on a pooled connection may run, in milliseconds, before PostgreSQL cancels it
    /// (0: no limit). Not the writer's lease session, whose batches and migrations may run long.
    #[arg(long, env = "DB_STATEMENT_TIMEOUT_MS", default_value_t = 30_000)]
    pub db_statement_timeout_ms: u64,
    /// Do not migrate the schema at start: for processes that must not change it (run `api migrate`
    /// once per release instead).
    #[arg(long, env = "DB_NO_MIGRATE")]
    pub no_migrate: bool,
    /// JSON-RPC requests catching up keeps in flight at once (the backfill's holder reads, one per launch;
    /// the gap recovery's `getBlock` and `getTransaction`).
    #[arg(long, env = "INDEXER_RECOVERY_CONCURRENCY", default_value_t = 16)]
    pub recovery_concurrency: usize,
    /// Most JSON-RPC requests a second catching up (backfill and recovery) makes, to stay inside the
    /// provider's limit (0: as fast as the node answers).
    #[arg(long, env = "INDEXER_RECOVERY_RPS", default_value_t = 50)]
    pub recovery_rps: u32,
    /// How long candles of the finest intervals are kept: comma-separated interval=duration pairs
    /// (`1s=2d,15s=1week`, `1m=90d`, `15s=forever`) of the stored intervals (1s, 15s, 1m; 1h is always kept);
    /// intervals not named are kept for ever. 5m and 15m candles are derived from the 1m ones and 4h and 1d
    /// from the 1h ones, and kept as long as those. The writer deletes expired candles once a minute.
    #[arg(
        long,
        env = "INDEXER_CANDLE_RETENTION",
        value_parser = index::store::retention::Retention::with_candles,
        default_value = "1s=2d,15s=7d"
    )]
    pub candle_retention: index::store::retention::Retention,
    /// How long trades (`trades`, `market_trades`, `amm_swaps`) are kept, by block time: a duration of at
    /// least a day (`90d`, `1year`) or `forever`. On PostgreSQL whole partitions (a day of slots each) are
    /// dropped once their newest trade is older; SQLite deletes the oldest rows. Trade lists, wallet
    /// histories and fee sums then start at the retention.
    #[arg(
        long,
        env = "INDEXER_TRADE_RETENTION",
        value_parser = index::store::retention::trades_keep,
        default_value = "forever"
    )]
    pub trade_retention: index::store::retention::Keep,
}

impl IndexerConfig {
    /// Defaults for a local stack: the given endpoints and database, confirmed commitment.
    pub fn local(rpc_url: String, grpc_url: String, database_url: String) -> Self {
        IndexerConfig {
            rpc_url: vec![rpc_url],
            grpc_url: vec![grpc_url],
            grpc_x_token: None,
            grpc_ca_cert: None,
            database_url,
            commitment: Commitment::Confirmed,
            batch_size: 1000,
            batch_wait_ms: 50,
            backoff_min_ms: 200,
            backoff_max_ms: 10_000,
            metrics_interval_secs: 30,
            health_addr: None,
            stream_idle_secs: 30,
            lease_yield_secs: 60,
            db_max_connections: None,
            db_statement_timeout_ms: 0,
            no_migrate: false,
            candle_retention: Default::default(),
            trade_retention: Default::default(),
            recovery_concurrency: 16,
            recovery_rps: 0,
        }
    }

    /// How this process uses the database.
    pub fn db_options(&self) -> index::store::DbOptions {
        index::store::DbOptions {
            max_connections: self.db_max_connections,
            statement_timeout: (self.db_statement_timeout_ms > 0)
                .then(|| std::time::Duration::from_millis(self.db_statement_timeout_ms)),
            migrate: !self.no_migrate,
        }
    }

    /// Checks the gRPC settings at start: every endpoint's TLS settings can be made (see
    /// [`IndexerConfig::grpc_tls_for`]), and a `--grpc-ca-cert` has an `https://` endpoint to apply to.
    /// Errors name the flag at fault.
    pub fn grpc_tls(&self) -> anyhow::Result<()> {
        if let Some(path) = &self.grpc_ca_cert {
            if !self.grpc_url.iter().any(|u| is_https(u)) {
                anyhow::bail!(
                    "--grpc-ca-cert (GRPC_CA_CERT) {} is set but no --grpc-url (GRPC_URL) is https:// ({})",
                    path.display(),
                    self.grpc_url.join(", ")
                );
            }
        }
        for url in &self.grpc_url {
            self.grpc_tls_for(url)?;
        }
        Ok(())
    }

    /// The TLS settings for one gRPC endpoint: none for `http://`; for `https://` the system's roots, or only
    /// the `--grpc-ca-cert` authority when one is given. Errors name the flag at fault.
    pub fn grpc_tls_for(
        &self,
        url: &str,
    ) -> anyhow::Result<Option<tonic::transport::ClientTlsConfig>> {
        use anyhow::Context;
        use tonic::transport::{Certificate, ClientTlsConfig};
        if !is_https(url) {
            return Ok(None);
        }
        let tls = ClientTlsConfig::new();
        Ok(Some(match &self.grpc_ca_cert {
            Some(path) => {
                let pem = std::fs::read(path).with_context(|| {
                    format!("reading --grpc-ca-cert (GRPC_CA_CERT) {}", path.display())
                })?;
                if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
                    anyhow::bail!(
                        "--grpc-ca-cert (GRPC_CA_CERT) {} holds no PEM certificate",
                        path.display()
                    );
                }
                tls.ca_certificate(Certificate::from_pem(pem))
            }
            None => tls.with_native_roots(),
        }))
    }

    /// The writer gives up its lease after this long without progress while its sources are unreachable
    /// (`None`: never).
    pub fn lease_yield(&self) -> Option<Duration> {
        (self.lease_yield_secs > 0).then(|| Duration::from_secs(self.lease_yield_secs))
    }

    pub fn batch_wait(&self) -> Duration {
        Duration::from_millis(self.batch_wait_ms)
    }

    /// A fresh capped exponential backoff (with jitter) for reconnects and database retries.
    pub fn backoff(&self) -> impl Iterator<Item = Duration> {
        use backon::BackoffBuilder;
        backon::ExponentialBuilder::default()
            .with_min_delay(Duration::from_millis(self.backoff_min_ms.max(1)))
            .with_max_delay(Duration::from_millis(
                self.backoff_max_ms.max(self.backoff_min_ms),
            ))
            .with_factor(2.0)
            .with_jitter()
            .without_max_times()
            .build()
    }
}

fn is_https(url: &str) -> bool {
    url.get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
}

#[cfg(test)]
mod tests {
    use super::{Commitment, IndexerConfig, PROCESSED_REFUSED};
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        config: IndexerConfig,
    }

    #[test]
    fn processed_commitment_is_refused_with_the_reason() {
        let parse = |c: &str| Cli::try_parse_from(["indexer", "--commitment", c]);
        let refused = parse("processed").err().expect("processed is refused");
        assert!(refused.to_string().contains(PROCESSED_REFUSED), "{refused}");
        assert_eq!(
            parse("finalized").ok().map(|c| c.config.commitment),
            Some(Commitment::Finalized)
        );
        assert_eq!(
            Cli::try_parse_from(["indexer"])
                .ok()
                .map(|c| c.config.commitment),
            Some(Commitment::Confirmed)
        );
        assert!(parse("fast").is_err());
    }

    fn with(url: &str, ca: Option<&str>) -> IndexerConfig {
        IndexerConfig {
            grpc_ca_cert: ca.map(Into::into),
            ..IndexerConfig::local(String::new(), url.into(), String::new())
        }
    }

    #[test]
    fn tls_follows_the_url_scheme_and_a_ca_file_is_checked_at_start() {
        let tls = |url: &str| with(url, None).grpc_tls_for(url).unwrap();
        assert!(tls("http://127.0.0.1:10000").is_none());
        assert!(tls("https://grpc.example.com:443").is_some());
        assert!(tls("HTTPS://grpc.example.com").is_some());
        assert!(with("http://127.0.0.1:10000", None).grpc_tls().is_ok());
        let plain = with("http://127.0.0.1:10000", Some("/ca.pem")).grpc_tls();
        assert!(
            format!("{:#}", plain.unwrap_err()).contains("no --grpc-url (GRPC_URL) is https://")
        );
        let missing = with("https://grpc.example.com", Some("/nonexistent/ca.pem")).grpc_tls();
        assert!(format!("{:#}", missing.unwrap_err())
            .contains("--grpc-ca-cert (GRPC_CA_CERT) /nonexistent/ca.pem"));
        let dir = std::env::temp_dir().join(format!("indexer-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let not_pem = dir.join("ca.pem");
        std::fs::write(&not_pem, "not a certificate").unwrap();
        let bad = with("https://grpc.example.com", not_pem.to_str()).grpc_tls();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(format!("{:#}", bad.unwrap_err()).contains("holds no PEM certificate"));
    }

    #[test]
    fn several_endpoints_come_repeated_or_comma_separated_in_order_and_bad_ones_are_refused() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("indexer").chain(args.iter().copied()))
        };
        let cli = parse(&[
            "--grpc-url",
            "http://a:10000, https://b:443",
            "--grpc-url",
            "http://c:10000",
            "--rpc-url",
            "http://r1:8899,http://r2:8899",
        ])
        .unwrap();
        assert_eq!(
            cli.config.grpc_url,
            ["http://a:10000", "https://b:443", "http://c:10000"]
        );
        assert_eq!(cli.config.rpc_url, ["http://r1:8899", "http://r2:8899"]);
        let defaults = parse(&[]).unwrap().config;
        assert_eq!(defaults.rpc_url, ["http://127.0.0.1:8899"]);
        assert_eq!(defaults.grpc_url, ["http://127.0.0.1:10000"]);
        assert_eq!(
            defaults.lease_yield(),
            Some(std::time::Duration::from_secs(60))
        );
        let never = parse(&["--lease-yield-secs", "0"]).unwrap().config;
        assert_eq!(never.lease_yield(), None);
        for bad in [
            "http://a:1,,http://b:2",
            "ftp://a",
            "not a url",
            "secret-key-in-url",
        ] {
            let e = parse(&["--rpc-url", bad]).err().expect(bad).to_string();
            assert!(e.contains("--rpc-url"), "{e}");
        }
    }
}
