//! The launchpad's REST API: thin axum handlers per area (`routes/`) over the index (`indexer::read`), the
//! SDK and the chain. Errors are [`error::ApiError`]; `/openapi.json` is generated from the handlers.

pub mod access;
pub mod aggregators;
pub mod body;
pub mod cache;
pub mod chains;
pub mod config;
pub mod crosschain;
pub mod error;
pub mod evm;
pub mod extract;
pub mod feed;
pub mod image;
pub mod keeper;
pub mod layers;
pub mod logging;
pub mod routes;
pub mod schema;
pub mod solana;
pub mod ui;
pub mod walkthrough;

use crate::body::Json;
use anchor_lang::prelude::Pubkey;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use config::ApiConfig;
use indexer::read::CurveState;
use indexer::{Metrics, Store};
use std::net::SocketAddr;
use std::sync::Arc;
use utoipa::OpenApi;

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
    pub jupiter: Option<aggregators::jupiter::Jupiter>,
    /// The EVM swap sources: KyberSwap (keyless) and 0x (with an API key), when configured.
    pub kyberswap: Option<aggregators::kyberswap::KyberSwap>,
    pub zerox: Option<aggregators::zerox::ZeroX>,
    /// The bridge aggregators: LI.FI, and Relay as its fallback.
    pub lifi: Option<aggregators::lifi::Lifi>,
    pub relay: Option<aggregators::relay::Relay>,
    /// JSON-RPC clients of the EVM chains.
    pub evm: evm::EvmChains,
    /// Seconds added to the wall clock (tests move time forward with it; always 0 in service).
    pub clock_offset: Arc<std::sync::atomic::AtomicI64>,
    /// Curves read from the index, by mint and the in-process indexer's batch count (so a new batch
    /// invalidates them at once), each kept at most [`CURVE_CACHE_TTL`].
    pub curves: moka::future::Cache<(Pubkey, u64), Option<Arc<CurveState>>>,
    /// Unix seconds of the last sweep of expired prepared launches.
    pub last_sweep: Arc<std::sync::atomic::AtomicI64>,
    /// The listing's `total` per filter set, kept [`LISTING_TOTAL_TTL`] (a count over every launch).
    pub listing_totals: moka::future::Cache<String, u64>,
    /// Browse responses by URI, index generation and clock, each kept at most [`cache::RESPONSE_TTL`].
    pub responses: Arc<cache::Responses>,
    /// The live feed's fan-out, started by its first client.
    pub feed: Arc<tokio::sync::OnceCell<Arc<feed::Hub>>>,
}

/// How long a listing total is reused: the listing's own `max-age`.
pub const LISTING_TOTAL_TTL: std::time::Duration = std::time::Duration::from_secs(5);

/// The longest a curve read is served from memory (well under a slot).
pub const CURVE_CACHE_TTL: std::time::Duration = std::time::Duration::from_millis(100);

impl AppState {
    pub fn new(
        store: Store,
        config: ApiConfig,
        rpc: Arc<solana_rpc_client::nonblocking::rpc_client::RpcClient>,
        indexer: Option<Arc<Metrics>>,
    ) -> AppState {
        use aggregators::http::Upstream;
        let jupiter = (!config.jupiter_base_url.is_empty())
            .then(|| aggregators::jupiter::Jupiter::new(&config.jupiter_base_url));
        let kyberswap = Upstream::enabled(&config.kyberswap_base_url).then(|| {
            aggregators::kyberswap::KyberSwap::new(
                &config.kyberswap_base_url,
                &config.kyberswap_client_id,
            )
        });
        let zerox = match (
            &config.zerox_api_key,
            Upstream::enabled(&config.zerox_base_url),
        ) {
            (Some(key), true) if !key.is_empty() => {
                Some(aggregators::zerox::ZeroX::new(&config.zerox_base_url, key))
            }
            _ => None,
        };
        let lifi = Upstream::enabled(&config.lifi_base_url)
            .then(|| aggregators::lifi::Lifi::new(&config.lifi_base_url, &config.lifi_integrator));
        let relay = Upstream::enabled(&config.relay_base_url)
            .then(|| aggregators::relay::Relay::new(&config.relay_base_url));
        let evm = evm::EvmChains::new(&config);
        AppState(Arc::new(Shared {
            store,
            config: Arc::new(config),
            rpc,
            indexer,
            jupiter,
            kyberswap,
            zerox,
            lifi,
            relay,
            evm,
            clock_offset: Arc::new(std::sync::atomic::AtomicI64::new(0)),
            curves: moka::future::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(CURVE_CACHE_TTL)
                .build(),
            last_sweep: Arc::new(std::sync::atomic::AtomicI64::new(0)),
            listing_totals: moka::future::Cache::builder()
                .max_capacity(10_000)
                .time_to_live(LISTING_TOTAL_TTL)
                .build(),
            responses: Arc::new(cache::responses()),
            feed: Arc::new(tokio::sync::OnceCell::new()),
        }))
    }

    /// The in-process indexer's committed batches (0 when the indexer runs elsewhere): what was read from
    /// the index under an older generation is out of date.
    pub fn generation(&self) -> u64 {
        self.indexer.as_ref().map_or(0, |m| {
            m.committed_batches
                .load(std::sync::atomic::Ordering::Relaxed)
        })
    }

    /// The process's live feed (its reader starts with the first client).
    pub async fn feed(&self) -> Result<Arc<feed::Hub>, error::ApiError> {
        let config = feed::HubConfig {
            buffer: self.config.feed_buffer,
            poll: std::time::Duration::from_millis(self.config.feed_poll_ms),
            max_per_client: self.config.feed_max_connections,
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
    paths(
        routes::health::health,
        routes::launchpad::curve,
        routes::launchpad::launches,
        routes::launchpad::fees,
        routes::tokens::token,
        routes::trades::trades,
        routes::candles::candles,
        routes::feed::stream,
        routes::feed::ws,
        routes::holders::holders,
        routes::wallets::wallet,
        routes::launch::prepare,
        routes::launch::metadata,
        routes::launch::image,
        routes::launch::record,
        routes::claim::claim,
        routes::submit::submit,
        routes::catalog::chains,
        routes::catalog::tokens,
        routes::swap::quote,
        routes::swap::build,
        routes::swap::record::record,
        routes::allowance::allowance,
        routes::cross_chain::quote::quote,
        routes::cross_chain::build::build,
        routes::cross_chain::status::status,
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

async fn openapi() -> Json<serde_json::Value> {
    Json(openapi_document())
}

/// The OpenAPI document as served. utoipa 5.5 writes a response link's fields in snake case
/// (`operation_id`, `operation_ref`, `request_body`); OpenAPI spells them in camel case, so they are renamed
/// here.
pub fn openapi_document() -> serde_json::Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
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

/// The whole service. Serve it with `into_make_service_with_connect_info::<SocketAddr>()` so that
/// clients without `X-Client-Id` are rate-limited by address.
pub fn router(state: AppState) -> Router {
    // Prepare and record can carry an image.
    let image_body =
        DefaultBodyLimit::max(image::PREPARE_BODY_LIMIT.max(state.config.max_body_bytes));
    let endpoints = Router::new()
        .route("/", get(ui::index))
        .route("/ui/config.json", get(ui::config))
        .route("/ui/airdrop", post(ui::airdrop))
        .route("/ui/{version}/{*file}", get(ui::asset))
        .route("/health", get(routes::health::health))
        .route("/openapi.json", get(openapi))
        .route(
            "/launchpad/curve/{mint}",
            get(routes::launchpad::curve).layer(cache::layer(&state, cache::policy::LIVE)),
        )
        .route(
            "/launchpad/launches",
            get(routes::launchpad::launches).layer(cache::layer(&state, cache::policy::LISTING)),
        )
        .route("/launchpad/fees", get(routes::launchpad::fees))
        .route("/launchpad/stream", get(routes::feed::stream))
        .route("/launchpad/ws", get(routes::feed::ws))
        .route(
            "/launchpad/tokens/{mint}",
            get(routes::tokens::token).layer(cache::layer(&state, cache::policy::MARKET)),
        )
        .route(
            "/launchpad/trades/{mint}",
            get(routes::trades::trades).layer(cache::layer(&state, cache::policy::LIVE)),
        )
        .route(
            "/launchpad/candles/{mint}",
            get(routes::candles::candles).layer(cache::layer(&state, cache::policy::MARKET)),
        )
        .route(
            "/launchpad/tokens/{mint}/holders",
            get(routes::holders::holders).layer(cache::layer(&state, cache::policy::MARKET)),
        )
        .route(
            "/launchpad/wallets/{address}",
            get(routes::wallets::wallet).layer(cache::layer(&state, cache::policy::LIVE)),
        )
        .route(
            "/launchpad/prepare",
            post(routes::launch::prepare).layer(image_body),
        )
        .route(
            "/launchpad/images/{hash}",
            get(routes::launch::image).layer(cache::layer(&state, cache::policy::METADATA)),
        )
        .route(
            "/launchpad/metadata/{file}",
            get(routes::launch::metadata).layer(cache::layer(&state, cache::policy::METADATA)),
        )
        .route(
            "/launchpad/record",
            post(routes::launch::record).layer(image_body),
        )
        .route("/launchpad/claim", post(routes::claim::claim))
        .route("/swap/submit-solana", post(routes::submit::submit))
        .route("/swap/chains", get(routes::catalog::chains))
        .route("/swap/tokens", get(routes::catalog::tokens))
        .route("/swap/quote", post(routes::swap::quote))
        .route("/swap/build", post(routes::swap::build))
        .route("/swap/record", post(routes::swap::record::record))
        .route("/swap/allowance", get(routes::allowance::allowance))
        .route(
            "/swap/cross-chain/quote",
            post(routes::cross_chain::quote::quote),
        )
        .route(
            "/swap/cross-chain/build",
            post(routes::cross_chain::build::build),
        )
        .route(
            "/swap/cross-chain/status/{quote_id}",
            get(routes::cross_chain::status::status),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);
    layered(endpoints, state)
}

/// `endpoints` with what wraps every endpoint ([`layers::wrap`]). Tests wrap routes of their own (a handler
/// made to panic) with it.
pub fn layered(endpoints: Router<AppState>, state: AppState) -> Router {
    let wrapped = layers::wrap(endpoints, &state.config);
    wrapped.with_state(state)
}

/// Serves `router` on `listener` until `shutdown` resolves.
pub async fn serve(
    state: AppState,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    use axum::serve::ListenerExt;
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
