//! The launchpad's REST API: thin axum handlers per area (`routes/`) over the index (`index::read`), the
//! SDK and the chain. The EVM swap and cross-chain aggregator is one module tree, [`multichain`], mounted
//! as one router. Errors are [`error::ApiError`]; `/openapi.json` is generated from the handlers.

pub mod access;
pub mod admission;
pub mod body;
pub mod cache;
pub mod chain_clock;
pub mod chains;
pub mod config;
pub mod confirmations;
pub mod error;
pub mod extract;
pub mod feed;
pub mod image;
pub mod json;
pub mod jupiter;
pub mod keeper;
pub mod layers;
pub mod multichain;
pub mod process;
pub use ops::redact;
pub mod routes;
pub mod schema;
pub mod solana;
pub mod ui;
pub mod usd;

use anchor_lang::prelude::Pubkey;
use axum::routing::{get, post};
use axum::Router;
use config::ApiConfig;
use index::read::CurveState;
use index::Store;
use ops::health::Metrics;
use std::net::SocketAddr;
use std::sync::Arc;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

/// mimalloc: the service allocates and frees a few small buffers per request on two threads, where glibc's
/// allocator cost a tenth of the time under load (docs/benchmarks.md). Whatever links this crate (the binary,
/// its tests and benches) runs on it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    pub jupiter: Option<jupiter::Jupiter>,
    /// The EVM swap and cross-chain aggregator's clients (EVM RPC, KyberSwap, 0x, LI.FI, Relay).
    pub multichain: multichain::Multichain,
    /// The chain's clock, which fees are charged by.
    pub chain_clock: chain_clock::ChainClock,
    /// The keys routes are sealed with ([`routes::swap::seal`]).
    pub route_keys: routes::swap::seal::RouteKeys,
    /// Seconds added to the wall clock (tests move time forward with it; always 0 in service).
    pub clock_offset: Arc<std::sync::atomic::AtomicI64>,
    /// Curves read from the index, by mint and the in-process indexer's batch count (so a new batch
    /// invalidates them at once), each kept at most [`CURVE_CACHE_TTL`].
    pub curves: moka::future::Cache<(Pubkey, u64), Option<Arc<CurveState>>>,
    /// The stored cursor, when the indexer runs elsewhere, kept [`CURSOR_CACHE_TTL`].
    pub cursor: moka::future::Cache<(), Option<u64>>,
    /// Unix seconds of the last sweep of expired prepared launches.
    pub last_sweep: Arc<std::sync::atomic::AtomicI64>,
    /// The listing's `total` per filter set, kept [`LISTING_TOTAL_TTL`] (a count over every launch).
    pub listing_totals: moka::future::Cache<String, u64>,
    /// Browse responses by URI, index generation and clock, each kept at most [`cache::RESPONSE_TTL`].
    pub responses: Arc<cache::Responses>,
    /// The live feed's fan-out, started by its first client.
    pub feed: Arc<tokio::sync::OnceCell<Arc<feed::Hub>>>,
    /// Turns true when the process starts shutting down: live streams end with a last word (SSE
    /// `event: shutdown`, WebSocket close 1012) so that the server can drain and clients resume elsewhere.
    pub closing: Arc<tokio::sync::watch::Sender<bool>>,
    /// The relay's confirmation watcher, started by the first relay.
    pub confirmations: Arc<std::sync::OnceLock<confirmations::Confirmations>>,
    /// Relayed transactions being waited on, per client address and in all.
    pub relays: Arc<admission::Admissions>,
    /// The rate limiters of the router built over this state (the first one).
    pub limiters: Arc<std::sync::OnceLock<layers::Limiters>>,
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
            jupiter::Jupiter::new(&config.jupiter_base_url, config.jupiter_api_key.as_deref())
        });
        let multichain = multichain::Multichain::new(&config);
        // Keys were checked when the flags were read.
        let route_keys = routes::swap::seal::RouteKeys::new(&config.route_keys)
            .ok()
            .flatten()
            .unwrap_or_else(|| {
                tracing::info!(
                    "routes are sealed with a key made at start: give every replica the same --route-keys \
                     (ROUTE_KEYS) so that a route quoted by one builds on another"
                );
                routes::swap::seal::RouteKeys::random()
            });
        let ttl = config
            .chain_clock_ttl_ms
            .unwrap_or(if config.localnet { 0 } else { 1_000 });
        let chain_clock = chain_clock::ChainClock::new(std::time::Duration::from_millis(ttl));
        let relays = Arc::new(admission::Admissions::new(
            config.relay_max_per_client,
            config.relay_max_in_flight,
        ));
        AppState(Arc::new(Shared {
            chain_clock,
            route_keys,
            store,
            config: Arc::new(config),
            rpc,
            indexer,
            jupiter,
            multichain,
            clock_offset: Arc::new(std::sync::atomic::AtomicI64::new(0)),
            curves: moka::future::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(CURVE_CACHE_TTL)
                .build(),
            cursor: moka::future::Cache::builder()
                .max_capacity(1)
                .time_to_live(CURSOR_CACHE_TTL)
                .build(),
            last_sweep: Arc::new(std::sync::atomic::AtomicI64::new(0)),
            listing_totals: moka::future::Cache::builder()
                .max_capacity(10_000)
                .time_to_live(LISTING_TOTAL_TTL)
                .build(),
            responses: Arc::new(cache::responses()),
            feed: Arc::new(tokio::sync::OnceCell::new()),
            limiters: Arc::default(),
            confirmations: Arc::default(),
            relays,
            closing: Arc::new(tokio::sync::watch::channel(false).0),
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
    pub fn confirmations(&self) -> &confirmations::Confirmations {
        self.confirmations
            .get_or_init(|| confirmations::Confirmations::start(self.rpc.clone()))
    }

    /// The chain's time (the Clock sysvar, as fees are charged by it).
    pub async fn chain_time(&self) -> chain_clock::ChainTime {
        self.chain_clock.now(&self.rpc).await
    }

    /// The process's live feed (its reader starts with the first client).
    pub async fn feed(&self) -> Result<Arc<feed::Hub>, error::ApiError> {
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
    pub fn fee_policy(&self, level: Option<solana::PriorityLevel>) -> solana::FeePolicy {
        solana::FeePolicy {
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

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Launchpad API",
        description = "Public, keyless, non-custodial: quotes and unsigned transactions; the wallet signs. \
                       Errors are `{ \"error\": { \"message\", \"code\" } }`."
    ),
    components(schemas(schema::SolanaAddress, schema::SolanaSignature)),
    tags(
        (name = "launchpad", description = "Bonding-curve launches"),
        (name = "swap", description = "Swaps and transaction relay"),
        (name = "cross-chain", description = "Cross-chain swaps (LI.FI, Relay as fallback)"),
        (name = "service", description = "Health and documentation"),
    )
)]
pub struct ApiDoc;

/// The OpenAPI document as served: [`ApiDoc`] with every area's paths. utoipa 5.5 writes a response link's
/// fields in snake case (`operation_id`, `operation_ref`, `request_body`); OpenAPI spells them in camel case,
/// so they are renamed here.
fn openapi_document(api: utoipa::openapi::OpenApi) -> serde_json::Value {
    let mut doc = serde_json::to_value(api).unwrap_or_default();
    // The rate limit answers every operation behind it (all but the probes) with 429: said once, here.
    if let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) {
        for (path, item) in paths.iter_mut() {
            if path == "/livez" || path == "/readyz" {
                continue;
            }
            let operations = item
                .as_object_mut()
                .into_iter()
                .flat_map(|item| item.values_mut())
                .filter_map(|op| op.get_mut("responses").and_then(|r| r.as_object_mut()));
            for responses in operations {
                responses.entry("429").or_insert_with(|| {
                    serde_json::json!({
                        "description": "RATE_LIMITED: this client (its X-Client-Id, else its address) is over its \
                                        quota; retry after Retry-After seconds",
                        "headers": { "Retry-After": {
                            "description": "seconds until a request is admitted again",
                            "schema": { "type": "integer", "minimum": 1 }
                        } },
                        "content": { "application/json": {
                            "schema": { "$ref": "#/components/schemas/ErrorBody" }
                        } }
                    })
                });
            }
        }
    }
    if let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) {
        let links = paths
            .values_mut()
            .filter_map(|item| item.as_object_mut())
            .flat_map(|item| item.values_mut())
            .filter_map(|op| op.get_mut("responses").and_then(|r| r.as_object_mut()))
            .flat_map(|responses| responses.values_mut())
            .filter_map(|r| r.get_mut("links").and_then(|l| l.as_object_mut()))
            .flat_map(|links| links.values_mut())
            .filter_map(|l| l.as_object_mut());
        for link in links {
            for (from, to) in [
                ("operation_id", "operationId"),
                ("operation_ref", "operationRef"),
                ("request_body", "requestBody"),
            ] {
                if let Some(v) = link.remove(from) {
                    link.insert(to.into(), v);
                }
            }
        }
    }
    doc
}

async fn not_found() -> error::ApiError {
    error::ApiError::not_found("no such endpoint")
}

async fn method_not_allowed() -> error::ApiError {
    error::ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
        "this endpoint does not take that method",
    )
}

/// Every area's routes with their OpenAPI paths, each named once: in its handler's `#[utoipa::path]`,
/// mounted by its module's `router`.
fn areas(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(routes::health::router())
        .merge(routes::launchpad::router(state))
        .merge(routes::tokens::router(state))
        .merge(routes::trades::router(state))
        .merge(routes::candles::router(state))
        .merge(routes::feed::router())
        .merge(routes::holders::router(state))
        .merge(routes::wallets::router(state))
        .merge(routes::launch::router(state))
        .merge(routes::claim::router())
        .merge(routes::creator::router())
        .merge(routes::fee_shares::router())
        .merge(routes::referrals::router())
        .merge(routes::submit::router())
        .merge(routes::catalog::router())
        .merge(routes::swap::router())
        .merge(multichain::router())
}

/// The whole service. Serve it with `into_make_service_with_connect_info::<SocketAddr>()` so that
/// clients without `X-Client-Id` are rate-limited by address.
pub fn router(state: AppState) -> Router {
    let (endpoints, mut api) = areas(&state).split_for_parts();
    let (probes, probes_api) = routes::health::probes().split_for_parts();
    api.merge(probes_api);
    // Serialized once: the document only changes with the binary.
    let document =
        axum::body::Bytes::from(serde_json::to_vec(&openapi_document(api)).unwrap_or_default());
    let endpoints = endpoints
        .route("/", get(ui::index))
        .route("/ui/config.json", get(ui::config))
        .route("/ui/airdrop", post(ui::airdrop))
        .route("/ui/{version}/{*file}", get(ui::asset))
        .route(
            "/openapi.json",
            get(move || {
                let json = [(
                    axum::http::header::CONTENT_TYPE,
                    axum::http::HeaderValue::from_static("application/json"),
                )];
                std::future::ready((json, document.clone()))
            }),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);
    // The probes answer outside the rate limit: a load balancer's frequent probing never gets a 429.
    let probes = probes.with_state(state.clone());
    layered(endpoints, state).merge(probes)
}

/// `endpoints` with what wraps every endpoint ([`layers::wrap`]). Tests wrap routes of their own (a handler
/// made to panic) with it.
pub fn layered(endpoints: Router<AppState>, state: AppState) -> Router {
    let (wrapped, limiters) = layers::wrap(endpoints, &state.config);
    let _ = state.limiters.set(limiters);
    wrapped.with_state(state)
}

/// Serves `router` on `listener` until `shutdown` resolves.
pub async fn serve(
    state: AppState,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    use axum::serve::ListenerExt;
    // On shutdown the live streams end first (each with its last word), so that draining does not wait
    // for subscribers that would never leave.
    let closing = state.closing.clone();
    let shutdown = async move {
        shutdown.await;
        let _ = closing.send(true);
    };
    // No Nagle delay: a small write (a feed event, a response's last bytes) goes out at once instead of
    // waiting for the peer's (possibly delayed) acknowledgement of the previous one.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
    });
    axum::serve(
        listener,
        router(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    Ok(())
}
