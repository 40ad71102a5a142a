//! The service's state: what every handler can reach ([`AppState`]), built once per process.

use crate::process::config::ApiConfig;
use crate::{chain, feed, http, prices};
use anchor_lang::prelude::Pubkey;
use index::read::CurveState;
use index::Store;
use ops::health::Metrics;
use std::sync::Arc;

/// What every handler can reach: one shared [`Shared`] (every request clones the state a few times, and
/// a clone is one reference count, not one per field).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The service's state, behind [`AppState`].
pub struct Shared {
    pub store: Store,
    pub config: Arc<ApiConfig>,
    /// The Solana RPC node transactions are built against and relayed to.
    pub rpc: Arc<solana_rpc_client::nonblocking::rpc_client::RpcClient>,
    /// The indexer's metrics, when it runs in this process.
    pub indexer: Option<Arc<Metrics>>,
    /// The Jupiter adapter, when configured.
    pub jupiter: Option<prices::jupiter::Jupiter>,
    /// The EVM swap and cross-chain aggregator's clients (EVM RPC, KyberSwap, 0x, LI.FI, Relay).
    pub aggregator: aggregator::Aggregator,
    /// The chain's clock, which fees are charged by.
    pub chain_clock: chain::clock::ChainClock,
    /// The keys routes are sealed with ([`crate::routes::swap::seal`]).
    pub route_keys: crate::routes::swap::seal::RouteKeys,
    /// Seconds added to the wall clock (tests move time forward with it; always 0 in service).
    pub clock_offset: Arc<std::sync::atomic::AtomicI64>,
    /// Curves read from the index, by mint and the in-process indexer's batch count (so a new batch
    /// invalidates them at once), each kept at most [`CURVE_CACHE_TTL`].
    pub curves: moka::future::Cache<(Pubkey, u64), Option<Arc<CurveState>>>,
    /// The stored cursor, when the indexer runs elsewhere, kept [`CURSOR_CACHE_TTL`].
    pub cursor: moka::future::Cache<(), Option<u64>>,
    /// Where images live (`--image-store`): launch images in its `launches` namespace
    /// ([`crate::routes::launch::images::LAUNCHES`]); other users take their own namespace.
    pub images: image_store::ImageStore,
    /// The listing's `total` per filter set, kept [`LISTING_TOTAL_TTL`] (a count over every launch).
    pub listing_totals: moka::future::Cache<String, u64>,
    /// Browse responses by URI, index generation and clock, each kept at most [`http::cache::RESPONSE_TTL`].
    pub responses: Arc<http::cache::Responses>,
    /// The live feed's fan-out, started by its first client.
    pub feed: Arc<tokio::sync::OnceCell<Arc<feed::Hub>>>,
    /// Turns true when the process starts shutting down: live streams end with a last word (SSE
    /// `event: shutdown`, WebSocket close 1012) so that the server can drain and clients resume elsewhere.
    pub closing: Arc<tokio::sync::watch::Sender<bool>>,
    /// The relay's confirmation watcher, started by the first relay.
    pub confirmations: Arc<std::sync::OnceLock<chain::confirmations::Confirmations>>,
    /// Relayed transactions being waited on, per client address and in all.
    pub relays: Arc<http::admission::Admissions>,
    /// The rate limiters of the router built over this state (the first one).
    pub limiters: Arc<std::sync::OnceLock<http::layers::Limiters>>,
    /// What `/readyz` answers: the last database check, and whether the process is draining.
    pub readiness: Arc<crate::process::readiness::Readiness>,
}

impl axum::extract::FromRef<AppState> for aggregator::Aggregator {
    fn from_ref(state: &AppState) -> aggregator::Aggregator {
        state.aggregator.clone()
    }
}

/// How long a listing total is reused: the listing's own `max-age`.
pub const LISTING_TOTAL_TTL: std::time::Duration = std::time::Duration::from_secs(5);

/// The longest the stored cursor is served from memory.
pub const CURSOR_CACHE_TTL: std::time::Duration = std::time::Duration::from_millis(100);

/// The longest a curve read is served from memory (well under a slot).
pub const CURVE_CACHE_TTL: std::time::Duration = std::time::Duration::from_millis(100);

impl AppState {
    pub fn new(
        store: Store,
        config: ApiConfig,
        rpc: Arc<solana_rpc_client::nonblocking::rpc_client::RpcClient>,
        indexer: Option<Arc<Metrics>>,
    ) -> AppState {
        let jupiter = (!config.jupiter_base_url.is_empty()).then(|| {
            prices::jupiter::Jupiter::new(
                &config.jupiter_base_url,
                config.jupiter_api_key.as_deref(),
            )
        });
        // Keys were checked when the flags were read.
        let route_keys = crate::routes::swap::seal::RouteKeys::new(&config.route_keys)
            .ok()
            .flatten()
            .unwrap_or_else(|| {
                tracing::info!(
                    "routes are sealed with a key made at start: give every replica the same --route-keys \
                     (ROUTE_KEYS) so that a route quoted by one builds on another"
                );
                crate::routes::swap::seal::RouteKeys::random()
            });
        // One default for a cluster and `dev` alike: a reading is advanced by the time since it was taken, so
        // it is behind only when something moves the chain's clock by hand (`localnet_advanceClock`; the
        // tests that do so read it for every quote).
        let ttl = config.chain_clock_ttl_ms.unwrap_or(1_000);
        let chain_clock = chain::clock::ChainClock::new(std::time::Duration::from_millis(ttl));
        let relays = Arc::new(http::admission::Admissions::new(
            config.relay_max_per_client,
            config.relay_max_in_flight,
        ));
        let clock_offset = Arc::new(std::sync::atomic::AtomicI64::new(0));
        let aggregator = aggregator::Aggregator::new(
            config.aggregator.clone(),
            config.platform_fee_bps,
            store.clone(),
            rpc.clone(),
            clock_offset.clone(),
        );
        // A location that cannot be opened (a directory that cannot be made) stops the process at start.
        let images = image_store::ImageStore::open_with(
            &config.image_store,
            config.image_store_options.clone(),
        )
        .unwrap_or_else(|e| panic!("--image-store (IMAGE_STORE): {e}"));
        AppState(Arc::new(Shared {
            chain_clock,
            route_keys,
            store,
            config: Arc::new(config),
            rpc,
            indexer,
            jupiter,
            aggregator,
            clock_offset,
            curves: moka::future::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(CURVE_CACHE_TTL)
                .build(),
            cursor: moka::future::Cache::builder()
                .max_capacity(1)
                .time_to_live(CURSOR_CACHE_TTL)
                .build(),
            images,
            listing_totals: moka::future::Cache::builder()
                .max_capacity(10_000)
                .time_to_live(LISTING_TOTAL_TTL)
                .build(),
            responses: Arc::new(http::cache::responses()),
            feed: Arc::new(tokio::sync::OnceCell::new()),
            limiters: Arc::default(),
            confirmations: Arc::default(),
            relays,
            closing: Arc::new(tokio::sync::watch::channel(false).0),
            readiness: Arc::default(),
        }))
    }

    /// The batches this process's indexer committed (0 when the indexer runs elsewhere): what was read from
    /// the index under an older generation is out of date.
    pub fn generation(&self) -> u64 {
        self.store.commits().borrow().batches
    }

    /// The index's last committed slot: every update of it and of the slots before it is readable. The
    /// in-process indexer's own count when it runs here, else the cursor it stored (`None` while the
    /// database does not answer).
    pub async fn indexed_slot(&self) -> Option<u64> {
        match &self.indexer {
            Some(m) => Some(m.cursor_slot.load(std::sync::atomic::Ordering::Relaxed)),
            // One read of the stored cursor per [`CURSOR_CACHE_TTL`], whoever waits on it (every relay
            // awaiting its `indexed` answer polls this).
            None => {
                let store = self.store.clone();
                self.cursor
                    .try_get_with((), async move {
                        store
                            .cursor(index::store::MAIN_STREAM)
                            .await
                            .map_err(|e| e.to_string())
                    })
                    .await
                    .ok()
                    .flatten()
            }
        }
    }

    /// The relay's confirmation watcher (started here by the first relay).
    pub fn confirmations(&self) -> &chain::confirmations::Confirmations {
        self.confirmations
            .get_or_init(|| chain::confirmations::Confirmations::start(self.rpc.clone()))
    }

    /// The chain's time (the Clock sysvar, as fees are charged by it).
    pub async fn chain_time(&self) -> chain::clock::ChainTime {
        self.chain_clock.now(&self.rpc).await
    }

    /// The process's live feed (its reader starts with the first client).
    pub async fn feed(&self) -> Result<Arc<feed::Hub>, crate::error::ApiError> {
        let config = feed::HubConfig {
            buffer: self.config.feed_buffer,
            poll: std::time::Duration::from_millis(self.config.feed_poll_ms),
            max_per_client: self.config.feed_max_connections,
            max_total: self.config.feed_max_total_connections,
        };
        let hub = self
            .feed
            .get_or_try_init(|| feed::Hub::start(self.store.clone(), config))
            .await?;
        Ok(hub.clone())
    }

    /// The curve of `mint` as of the index's latest batch.
    pub async fn curve(&self, mint: &Pubkey) -> Result<Option<Arc<CurveState>>, sqlx::Error> {
        let generation = self.generation();
        let store = self.store.clone();
        let mint = *mint;
        self.curves
            .try_get_with((mint, generation), async move {
                store.curve(&mint).await.map(|c| c.map(Arc::new))
            })
            .await
            .map_err(|e| sqlx::Error::Protocol(e.to_string()))
    }

    /// How a Solana build prices its compute units: the caller's level, else the configured percentile.
    pub fn fee_policy(
        &self,
        level: Option<crate::solana::PriorityLevel>,
    ) -> crate::solana::FeePolicy {
        crate::solana::FeePolicy {
            percentile: level.map_or(self.config.priority_fee_percentile, |l| l.percentile()),
            cap: self.config.priority_fee_cap,
        }
    }

    /// Unix seconds now.
    pub fn now(&self) -> i64 {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        wall + self.clock_offset.load(std::sync::atomic::Ordering::Relaxed)
    }
}
