//! The API's settings, from flags or the environment.

use std::net::SocketAddr;

#[derive(Debug, Clone, clap::Args)]
pub struct ApiConfig {
    /// Address to listen on.
    #[arg(long = "listen", env = "API_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The URL clients reach this API at. It is written into every token's metadata URI, on chain and
    /// immutable: `serve` requires it; `dev` uses `http://<listen>`.
    #[arg(long, env = "PUBLIC_BASE_URL")]
    pub public_base_url: Option<String>,
    /// Serve `GET /metrics` (Prometheus text: requests by route and status, the indexer's series) on this
    /// address, apart from the public port.
    #[arg(long, env = "METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,
    /// Platform fee on EVM swaps, basis points (taken only with `--evm-fee-recipient`). Solana swaps take no
    /// platform fee and quote `feeBps: 0`.
    #[arg(long, env = "PLATFORM_FEE_BPS", default_value_t = 0)]
    pub platform_fee_bps: u16,
    /// Sustained requests per second per client (by `X-Client-Id`, else by IP address), any rate (a
    /// replenish interval in nanoseconds, not rounded to milliseconds).
    #[arg(long, env = "RATE_LIMIT_PER_SECOND", default_value_t = 20)]
    pub rate_limit_per_second: u32,
    /// Requests a client may send at once before the sustained rate applies.
    #[arg(long, env = "RATE_LIMIT_BURST", default_value_t = 40)]
    pub rate_limit_burst: u32,
    /// Jupiter's Swap API (v1) base URL; empty disables the Jupiter adapter. Jupiter retired the keyless
    /// `lite-api.jup.ag` on 2026-01-31: `api.jup.ag` wants an API key (`--jupiter-api-key`; without one it
    /// admits about one request every two seconds).
    #[arg(
        long,
        env = "JUPITER_BASE_URL",
        default_value = "https://api.jup.ag/swap/v1",
        hide_env_values = true
    )]
    pub jupiter_base_url: String,
    /// Jupiter's API key, sent as `x-api-key` (never logged; `--jupiter-api-key-file` reads it from a file).
    #[arg(long, env = "JUPITER_API_KEY", hide_env_values = true)]
    pub jupiter_api_key: Option<String>,
    /// Largest request body, bytes.
    #[arg(long, env = "MAX_BODY_BYTES", default_value_t = 65_536)]
    pub max_body_bytes: usize,
    /// The aggregator's: EVM RPC endpoints, the EVM and cross-chain aggregators, the cross-chain timers.
    #[command(flatten)]
    pub aggregator: aggregator::Config,
    /// Origins browsers may call the API from (CORS), comma-separated, e.g. `https://app.example.com`; `*`
    /// allows any origin. None: no CORS headers (`serve`); `dev` allows any origin unless given.
    #[arg(long, env = "CORS_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub cors_origins: Vec<axum::http::HeaderValue>,
    /// Solana builds offer this percentile (0 to 100) of the recent prioritization fees of the accounts they
    /// write (`getRecentPrioritizationFees`) as their compute-unit price, unless the caller sets
    /// `priorityLevel`.
    #[arg(long, env = "PRIORITY_FEE_PERCENTILE", default_value_t = 50, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub priority_fee_percentile: u8,
    /// The most a Solana build offers per compute unit, micro-lamports.
    #[arg(long, env = "PRIORITY_FEE_CAP", default_value_t = 1_000_000)]
    pub priority_fee_cap: u64,
    /// Programs `/swap/submit-solana` relays transactions of, besides its defaults (the launchpad, the AMM,
    /// Jupiter, Compute Budget, System, SPL Token, Token-2022, Associated Token Account, Memo);
    /// comma-separated program ids.
    #[arg(long, env = "RELAY_PROGRAMS", value_delimiter = ',')]
    pub relay_programs: Vec<solana_pubkey::Pubkey>,
    /// Longest a request may take to answer, seconds (then 504 `TIMEOUT`); the live feed's streams are not
    /// bounded (only their opening is). Above the relay's 30 s confirmation wait.
    #[arg(long, env = "REQUEST_TIMEOUT_SECS", default_value_t = 45)]
    pub request_timeout_secs: u64,
    /// Relay transactions of any program (an open relay: every call is billed to this operator's RPC plan).
    #[arg(long, env = "RELAY_ANY_PROGRAM")]
    pub relay_any_program: bool,
    /// Relayed transactions this process waits on at once, all clients together (past it 503 `RELAY_BUSY`,
    /// nothing sent).
    #[arg(long, env = "RELAY_MAX_IN_FLIGHT", default_value_t = 1_000)]
    pub relay_max_in_flight: usize,
    /// Relayed transactions one client address (an IPv6 client by its /64) waits on at once (past it 429
    /// `TOO_MANY_RELAYS`, nothing sent).
    #[arg(long, env = "RELAY_MAX_PER_CLIENT", default_value_t = 10)]
    pub relay_max_per_client: usize,
    /// How long the relay waits for a transaction's confirmation before answering `confirmed: false`,
    /// seconds.
    #[arg(long, env = "RELAY_CONFIRM_WAIT_SECS", default_value_t = 30)]
    pub relay_confirm_wait_secs: u64,
    /// A prepared launch neither recorded nor found on chain this long after prepare is deleted (its
    /// metadata URI then answers 404, and record `NOT_FOUND`); its transaction expired within minutes.
    #[arg(long, env = "PREPARED_TTL_SECS", default_value_t = 86_400)]
    pub prepared_ttl_secs: u64,
    /// How often the sweeper deletes expired prepared launches (and their images), seconds: on its own
    /// timer in every replica, every expired row each round, in chunks.
    #[arg(long, env = "PREPARED_SWEEP_SECS", default_value_t = 60)]
    pub prepared_sweep_secs: u64,
    /// Longest one read of a launch's metadata URI may take, seconds (the JSON, then its image, each):
    /// launches built elsewhere are listed with what their URI on chain points to, read by the metadata
    /// worker (docs/api.md).
    #[arg(long, env = "METADATA_FETCH_TIMEOUT_SECS", default_value_t = 10)]
    pub metadata_fetch_timeout_secs: u64,
    /// Let the metadata worker read URIs on private, loopback and link-local addresses: a local stack and
    /// tests only (in production anyone who launches a token would make this service request its own
    /// network).
    #[arg(long, env = "METADATA_FETCH_PRIVATE")]
    pub metadata_fetch_private: bool,
    /// How often the metadata worker looks for launches whose metadata is due, milliseconds.
    #[arg(long, env = "METADATA_POLL_MS", default_value_t = 2_000)]
    pub metadata_poll_ms: u64,
    /// Prepared launches one creator may have pending (neither recorded nor launched, younger than
    /// `--prepared-ttl-secs`); past it prepare answers 429 `TOO_MANY_PENDING_LAUNCHES`.
    #[arg(long, env = "MAX_PENDING_PREPARES_PER_CREATOR", default_value_t = 10)]
    pub max_pending_prepares_per_creator: u32,
    /// Prepared launches pending from one client address (an IPv6 client by its /64, under
    /// `--trusted-proxies`); past it prepare answers 429 `TOO_MANY_PENDING_LAUNCHES_ADDRESS`.
    #[arg(long, env = "MAX_PENDING_PREPARES_PER_ADDRESS", default_value_t = 50)]
    pub max_pending_prepares_per_address: u32,
    /// Where launch images are stored (never in the database): a directory (made when missing),
    /// `file:///path`, `s3://bucket[/prefix]` (an S3-compatible store; credentials, region and endpoint from
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`), or
    /// `memory:`. Replicas share it: a directory only when they share the disk.
    #[arg(long, env = "IMAGE_STORE", default_value = "images")]
    pub image_store: String,
    /// S3 settings given in code (`object_store`'s keys: `aws_endpoint`, `aws_access_key_id`, ...), over the
    /// environment's: for embedders and tests, which must not set a running process's environment.
    #[arg(skip)]
    pub image_store_options: Vec<(String, String)>,
    /// Reverse proxies and load balancers in front of the API, addresses or CIDRs, comma-separated: a
    /// request from one of them is rate-limited by the client its `--forwarded-header` names (the rightmost
    /// hop that is not a trusted proxy). From anyone else the header is ignored. None: the peer address.
    #[arg(long, env = "TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_net)]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The one header a trusted proxy names the client in: `x-forwarded-for` or `forwarded` (RFC 7239).
    /// The other is never read: the proxy must overwrite the one chosen (docs/operations.md).
    #[arg(long, env = "FORWARDED_HEADER", value_enum, default_value_t = ForwardedHeader::XForwardedFor)]
    pub forwarded_header: ForwardedHeader,
    /// Live feed: events a client may fall behind the newest before it is told so and disconnected (the
    /// size of the process's broadcast ring, shared by all its feed clients).
    #[arg(long, env = "FEED_BUFFER", default_value_t = 4_096)]
    pub feed_buffer: usize,
    /// Live feed: how often the feed reads the index without a commit notification (a safety net;
    /// notifications wake it at once), milliseconds.
    #[arg(long, env = "FEED_POLL_MS", default_value_t = 1_000)]
    pub feed_poll_ms: u64,
    /// Live feed: open SSE and WebSocket connections per client address.
    #[arg(long, env = "FEED_MAX_CONNECTIONS", default_value_t = 20)]
    pub feed_max_connections: usize,
    /// Live feed: open SSE and WebSocket connections of this process, all clients together (then 503
    /// `FEED_FULL`): many addresses cannot exhaust its memory or file descriptors.
    #[arg(long, env = "FEED_MAX_TOTAL_CONNECTIONS", default_value_t = 10_000)]
    pub feed_max_total_connections: usize,
    /// Live feed: subscriptions per WebSocket connection.
    #[arg(long, env = "FEED_MAX_SUBSCRIPTIONS", default_value_t = 16)]
    pub feed_max_subscriptions: usize,
    /// Live feed: mints and wallets together per subscription (or SSE stream).
    #[arg(long, env = "FEED_MAX_FILTER_VALUES", default_value_t = 100)]
    pub feed_max_filter_values: usize,
    /// Live feed: a WebSocket client that does not take a message within this long is disconnected as a
    /// slow consumer, milliseconds.
    #[arg(long, env = "FEED_SEND_TIMEOUT_MS", default_value_t = 10_000)]
    pub feed_send_timeout_ms: u64,
    /// Secrets that sign the routes quotes hand out (HMAC-SHA256; each at least 32 bytes),
    /// comma-separated: the first signs, every one verifies, so a key rotates without downtime (add the new
    /// one second, then first, then drop the old). Give every replica the same keys; without any, each
    /// process signs with a random key of its own and refuses routes quoted by another.
    #[arg(
        long,
        env = "ROUTE_KEYS",
        value_delimiter = ',',
        value_parser = parse_route_key,
        hide_env_values = true
    )]
    pub route_keys: Vec<String>,
    /// How long a reading of the chain's clock (the Clock sysvar, which fees are charged by) is reused,
    /// advanced by the time since, milliseconds (0: read it for every quote, as the tests that move a
    /// localnet's clock by hand do). Default: 1000, `dev` included.
    #[arg(long, env = "CHAIN_CLOCK_TTL_MS")]
    pub chain_clock_ttl_ms: Option<u64>,
    /// A SOL/USD price older than this many seconds (by its publish time) is reported `stale` beside the
    /// USD values computed with it.
    #[arg(long, env = "USD_MAX_AGE_SECS", default_value_t = 120)]
    pub usd_max_age_secs: u64,
    /// On SIGTERM, `/readyz` answers 503 for this long, seconds, while the listener keeps serving (longer
    /// than the load balancer's health-check interval times its failure threshold); then requests in flight
    /// drain and the process stops. 0: stop accepting at once.
    #[arg(long, env = "SHUTDOWN_DRAIN_SECS", default_value_t = 5)]
    pub shutdown_drain_secs: u64,
    /// A block explorer the browser UI links mints, wallets and transactions to: a URL template in which
    /// `{kind}` becomes `address` or `tx` and `{id}` the address or the signature, e.g.
    /// `https://explorer.solana.com/{kind}/{id}?cluster=devnet`. None (the default, a localnet's too): no
    /// explorer links.
    #[arg(long, env = "EXPLORER_URL", value_parser = parse_explorer_url)]
    pub explorer_url: Option<String>,
    /// The RPC node is a localnet (`dev`): the browser UI offers its local development wallet and
    /// `POST /ui/airdrop` funds it from the localnet's faucet. Never set by a flag.
    #[arg(skip)]
    pub localnet: bool,
}

/// An explorer URL template: an http(s) URL naming `{id}` (where the address or signature goes).
pub fn parse_explorer_url(s: &str) -> Result<String, String> {
    let s = s.trim();
    let filled = s.replace("{kind}", "tx").replace("{id}", "x");
    match reqwest::Url::parse(&filled) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && s.contains("{id}") => Ok(s.to_string()),
        Ok(_) => Err(format!(
            "`{s}` is not an http(s) URL template naming `{{id}}` (e.g. \
             `https://explorer.solana.com/{{kind}}/{{id}}?cluster=devnet`)"
        )),
        Err(e) => Err(format!("`{s}`: {e}")),
    }
}

fn parse_route_key(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.len() < crate::routes::swap::seal::MIN_KEY_LEN {
        return Err(format!(
            "a route key is at least {} bytes (e.g. `openssl rand -hex 32`)",
            crate::routes::swap::seal::MIN_KEY_LEN
        ));
    }
    Ok(s.to_string())
}

fn parse_net(s: &str) -> Result<ipnet::IpNet, String> {
    let s = s.trim();
    s.parse::<ipnet::IpNet>()
        .or_else(|_| s.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("`{s}` is neither an IP address nor a CIDR (10.0.0.0/8)"))
}

fn parse_origin(s: &str) -> Result<axum::http::HeaderValue, String> {
    let s = s.trim().trim_end_matches('/');
    if s != "*" {
        let url = reqwest::Url::parse(s).map_err(|e| format!("`{s}` is not an origin: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") || url.path() != "/" {
            return Err(format!(
                "`{s}` is not an origin (scheme://host[:port], no path)"
            ));
        }
    }
    axum::http::HeaderValue::from_str(s).map_err(|e| format!("`{s}`: {e}"))
}

impl ApiConfig {
    pub fn local(addr: SocketAddr) -> Self {
        ApiConfig {
            addr,
            public_base_url: None,
            metrics_addr: None,
            platform_fee_bps: 0,
            rate_limit_per_second: 20,
            rate_limit_burst: 40,
            // A local stack cannot reach Jupiter; its own pools route everything launched on it.
            jupiter_base_url: String::new(),
            jupiter_api_key: None,
            max_body_bytes: 65_536,
            // Nor the EVM and bridge aggregators: their adapters are off until a URL is given.
            aggregator: aggregator::Config::local(),
            cors_origins: vec![],
            priority_fee_percentile: 50,
            priority_fee_cap: 1_000_000,
            relay_programs: Vec::new(),
            relay_any_program: false,
            relay_max_in_flight: 1_000,
            relay_max_per_client: 10,
            relay_confirm_wait_secs: 30,
            route_keys: Vec::new(),
            // The local chain answers in microseconds: read its clock for every quote.
            chain_clock_ttl_ms: Some(0),
            usd_max_age_secs: 120,
            request_timeout_secs: 45,
            prepared_ttl_secs: 86_400,
            prepared_sweep_secs: 60,
            metadata_fetch_timeout_secs: 10,
            metadata_fetch_private: false,
            metadata_poll_ms: 200,
            max_pending_prepares_per_creator: 10,
            max_pending_prepares_per_address: 50,
            // Tests and the local stack keep images in memory.
            image_store: "memory:".into(),
            image_store_options: Vec::new(),
            trusted_proxies: vec![],
            forwarded_header: ForwardedHeader::XForwardedFor,
            // Tests and the local stack stop at once.
            shutdown_drain_secs: 0,
            feed_buffer: 4_096,
            feed_poll_ms: 1_000,
            feed_max_connections: 20,
            feed_max_total_connections: 10_000,
            feed_max_subscriptions: 16,
            feed_max_filter_values: 100,
            feed_send_timeout_ms: 10_000,
            explorer_url: None,
            localnet: false,
        }
    }

    pub fn base_url(&self) -> String {
        self.public_base_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.addr))
    }
}

/// The one header a trusted proxy names the client in (`--forwarded-header`); the other is never read, so a
/// client cannot pick its identity through the header its proxy does not overwrite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ForwardedHeader {
    /// `X-Forwarded-For` (what nginx, HAProxy and cloud load balancers write).
    #[default]
    #[value(name = "x-forwarded-for")]
    XForwardedFor,
    /// `Forwarded` (RFC 7239), its `for=` parameters.
    #[value(name = "forwarded")]
    Forwarded,
}
