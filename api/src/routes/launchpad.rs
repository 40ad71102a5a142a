//! Launchpad reads: `GET /launchpad/curve/{mint}`, `GET /launchpad/launches`, `GET /launchpad/fees`.

use crate::error::{address, ApiError};
use crate::extract::{ApiPath, ApiQuery};
use crate::http::cache;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use sdk::accounts::PoolStatus;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

/// The bonding curve of a launched token, as of the index's latest slot.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CurveResponse {
    pub mint: String,
    pub pool: String,
    pub config: String,
    pub creator: String,
    /// `fair`, `shield` or `distribute`.
    pub preset: String,
    /// `sol` or `usdc`.
    pub quote: String,
    pub quote_mint: String,
    /// `bonding`, `complete` (graduated, migration pending) or `migrated`.
    pub status: String,
    /// Progress to graduation in basis points (10000 = graduated).
    pub progress_bps: u16,
    /// Progress as a percentage with two decimals, e.g. `"42.17"`.
    pub progress: String,
    /// Quote raised so far, base units.
    pub quote_raised: String,
    /// Quote raised at which the curve graduates, base units (10 SOL or 750 USDC).
    pub graduation_threshold: String,
    /// The fee a swap pays now, basis points: at the chain's time (the Clock sysvar the program charges
    /// by), not this server's.
    pub current_fee_bps: u16,
    /// When `currentFeeBps` steps down next (a decaying launch fee), unix seconds by the chain's clock;
    /// null when it no longer changes.
    pub fee_changes_at: Option<i64>,
    /// The fee once any decay is over, basis points.
    pub final_fee_bps: u16,
    /// The AMM pool's swap fee, basis points: what a swap pays once `venue` is `amm` (null before
    /// migration). `currentFeeBps` and `finalFeeBps` stay the curve's.
    pub amm_fee_bps: Option<u16>,
    pub migrated: bool,
    /// Where the token trades now: `curve` (the bonding curve, also while migration is pending) or `amm`
    /// (the pool the curve migrated into).
    pub venue: String,
    /// Spot price in whole quote per whole token on `venue`.
    pub price: String,
    /// The curve's spot price (frozen at graduation).
    pub curve_price: String,
    /// The Q64.64 square-root price the program stores.
    pub sqrt_price: String,
    pub base_reserve: String,
    pub quote_reserve: String,
    /// The AMM pool the curve migrated into (null before migration).
    pub amm_pool: Option<String>,
    /// Unix seconds.
    pub launched_at: i64,
    /// The slot of the pool state shown.
    pub slot: u64,
}

#[utoipa::path(
    get,
    path = "/launchpad/curve/{mint}",
    params(crate::extract::MintPath),
    responses(
        (status = 200, body = CurveResponse),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: no launch with this mint"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE: the index is unreachable"),
    ),
    tag = "launchpad"
)]
pub async fn curve(
    State(state): State<AppState>,
    ApiPath(mint): ApiPath<String>,
) -> Result<Json<CurveResponse>, ApiError> {
    let mint = address("mint", Some(&mint))?;
    let c = state
        .curve(&mint)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no launch with mint {mint}")))?;
    let now = state.chain_time().await.now;
    let threshold = c.config.threshold;
    let graduated = c.pool.status != PoolStatus::Bonding;
    let progress_bps = c.progress_bps();
    let amm = match c.migrated() {
        true => state.store.amm_pool(&c.pool.amm_pool).await?,
        false => None,
    };
    let (venue, price) = match &amm {
        Some(amm) => (
            "amm",
            amm.price(&c.pool.quote_mint, c.config.quote_decimals),
        ),
        None => ("curve", c.price()),
    };
    Ok(Json(CurveResponse {
        mint: mint.to_string(),
        pool: c.address.to_string(),
        config: c.pool.config.to_string(),
        creator: c.pool.creator.to_string(),
        preset: curve::Preset::from_u8(c.config.preset)
            .map_or("unknown", |p| p.name())
            .into(),
        quote: curve::QuoteAsset::from_u8(c.config.quote)
            .map_or("unknown", |q| q.name())
            .into(),
        quote_mint: c.pool.quote_mint.to_string(),
        status: index::market::status_name(c.pool.status).into(),
        progress_bps,
        progress: format!("{}.{:02}", progress_bps / 100, progress_bps % 100),
        // At graduation the quote reserve is exactly the threshold; migration then moves it to the AMM.
        quote_raised: if graduated {
            threshold
        } else {
            c.pool.quote_reserve
        }
        .to_string(),
        graduation_threshold: threshold.to_string(),
        current_fee_bps: c.current_fee_bps(now),
        fee_changes_at: c.fee_changes_at(now).filter(|_| !graduated),
        final_fee_bps: c.final_fee_bps(),
        amm_fee_bps: amm.as_ref().map(|a| a.pool.fee_bps),
        migrated: c.migrated(),
        venue: venue.into(),
        price,
        curve_price: c.price(),
        sqrt_price: c.pool.sqrt_price.to_string(),
        base_reserve: c.pool.base_reserve.to_string(),
        quote_reserve: c.pool.quote_reserve.to_string(),
        amm_pool: (c.pool.amm_pool != anchor_lang::prelude::Pubkey::default())
            .then(|| c.pool.amm_pool.to_string()),
        launched_at: c.pool.launch_timestamp,
        slot: c.slot,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Paging {
    /// 1 to 100; default 20.
    pub limit: Option<String>,
    /// Default 0.
    pub offset: Option<String>,
}

impl Paging {
    pub fn parse(&self) -> Result<(u32, u64), ApiError> {
        let limit = super::trades::limit_param(self.limit.as_deref(), 20, super::trades::MAX_PAGE)?;
        let offset = match self.offset.as_deref() {
            None => 0,
            Some(o) => o
                .parse::<u64>()
                .ok()
                .filter(|o| *o <= i64::MAX as u64)
                .ok_or_else(|| ApiError::invalid("`offset` must be a non-negative integer"))?,
        };
        Ok((limit, offset))
    }
}

/// The listing's orders, statuses, presets and quotes (validation and the OpenAPI document both use these).
const ORDERS: [&str; 2] = ["asc", "desc"];
const STATUSES: [&str; 3] = ["bonding", "complete", "migrated"];
const PRESETS: [&str; 3] = ["fair", "shield", "distribute"];
const QUOTES: [&str; 2] = ["sol", "usdc"];

/// Most characters of a search.
const MAX_SEARCH_CHARS: usize = 64;

fn search_schema() -> utoipa::openapi::Object {
    crate::schema::trimmed_text(MAX_SEARCH_CHARS).build()
}

fn prefix_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .min_length(Some(1))
        .max_length(Some(index::read::MAX_PREFIX_CHARS))
        .pattern(Some("^[0-9A-Za-z]+$"))
        .build()
}

fn offset_schema() -> utoipa::openapi::Object {
    crate::extract::integer_schema(0, i64::MAX as u64)
}
fn sort_schema() -> utoipa::openapi::Object {
    crate::extract::one_of_schema(index::read::Sort::NAMES.iter().map(|(n, _)| *n))
}
fn order_schema() -> utoipa::openapi::Object {
    crate::extract::one_of_schema(ORDERS)
}
fn status_schema() -> utoipa::openapi::Object {
    crate::extract::one_of_schema(STATUSES)
}
fn preset_schema() -> utoipa::openapi::Object {
    crate::extract::one_of_schema(PRESETS)
}
fn quote_schema() -> utoipa::openapi::Object {
    crate::extract::one_of_schema(QUOTES)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LaunchesQuery {
    /// 1 to 100; default 20.
    #[param(schema_with = super::trades::page_limit_schema)]
    pub limit: Option<String>,
    /// Default 0.
    #[param(schema_with = offset_schema)]
    pub offset: Option<String>,
    /// `new` (default), `marketCap`, `volume24h`, `lastTrade` or `progress`. Ties are broken by mint, so pages
    /// never repeat or skip a launch. `marketCap` and `volume24h` compare SOL and USDC launches in dollars
    /// (at the response's `usd` price) unless `quote` narrows the listing to one quote.
    #[param(schema_with = sort_schema)]
    pub sort: Option<String>,
    /// `desc` (default) or `asc`.
    #[param(schema_with = order_schema)]
    pub order: Option<String>,
    /// `bonding`, `complete` or `migrated`.
    #[param(schema_with = status_schema)]
    pub status: Option<String>,
    /// `fair`, `shield` or `distribute`.
    #[param(schema_with = preset_schema)]
    pub preset: Option<String>,
    /// `sol` or `usdc`.
    #[param(schema_with = quote_schema)]
    pub quote: Option<String>,
    /// Only this creator's launches.
    #[param(schema_with = crate::extract::address_schema)]
    pub creator: Option<String>,
    /// Name or symbol (case-insensitive substring, 1 to 64 characters), or an exact mint.
    #[param(schema_with = search_schema)]
    pub q: Option<String>,
    /// Launches whose mint starts with it (as written: base58 is case-sensitive) or whose symbol starts with
    /// it (any case): 1 to 44 ASCII letters and digits.
    #[param(schema_with = prefix_schema)]
    pub prefix: Option<String>,
}

/// A listed launch with its market.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchEntry {
    #[serde(flatten)]
    pub launch: index::read::LaunchRow,
    /// `bonding`, `complete` or `migrated`.
    pub status: String,
    /// Progress to graduation, basis points.
    pub progress_bps: u16,
    /// Spot price where it trades now, whole quote per whole token (18 decimals, rounded down).
    pub price: String,
    /// `price` times the supply, whole quote (24 decimals).
    pub market_cap: String,
    /// Tokens traded in the rolling 24h window (the current hour and the 23 before it), base units.
    pub volume24h_base: String,
    /// Quote traded in the window, base units.
    pub volume24h_quote: String,
    /// The latest trade, unix seconds, or null.
    pub last_trade_at: Option<i64>,
    /// Wallets holding it (the launchpad's and the AMM's vaults are not holders).
    pub holders: u64,
    /// Whether this service prepared it (`POST /launchpad/prepare`, with the metadata URI the launch carries
    /// on chain); false for a launch built elsewhere (an SDK, another front-end), listed all the same.
    pub prepared: bool,
    /// The image's URL (content-addressed, served by this service): prepare's, or the one read from the
    /// launch's metadata URI; null without one (or before it was read).
    pub image: Option<String>,
    /// `price` in dollars (18 decimals, rounded down), or null without a SOL/USD price (see the
    /// response's `usd`).
    pub price_usd: Option<String>,
    /// `marketCap` in dollars (6 decimals, rounded down), or null.
    pub market_cap_usd: Option<String>,
    /// `volume24hQuote` in dollars (6 decimals, rounded down), or null.
    pub volume24h_usd: Option<String>,
}

impl LaunchEntry {
    fn new(
        state: &AppState,
        r: index::read::ListingRow,
        usd: Option<&crate::prices::usd::SolUsd>,
    ) -> Self {
        use index::market::{fixed_to_decimal, MARKET_CAP_DIGITS};
        let quote = r.launch.quote.clone();
        let in_usd = |f: &dyn Fn(&crate::prices::usd::SolUsd) -> Option<String>| usd.and_then(f);
        LaunchEntry {
            price_usd: in_usd(&|u| u.price(&quote, r.stats.price)),
            market_cap_usd: in_usd(&|u| u.market_cap(&quote, r.stats.market_cap)),
            volume24h_usd: in_usd(&|u| u.amount(&quote, r.stats.volume_24h_quote)),
            launch: r.launch,
            status: r.stats.status,
            progress_bps: r.stats.progress_bps,
            price: fixed_to_decimal(r.stats.price, curve::display::PRICE_DIGITS),
            market_cap: fixed_to_decimal(r.stats.market_cap, MARKET_CAP_DIGITS),
            volume24h_base: r.stats.volume_24h_base.to_string(),
            volume24h_quote: r.stats.volume_24h_quote.to_string(),
            last_trade_at: r.stats.last_trade_time,
            holders: r.holders,
            prepared: r.prepared,
            image: r
                .image_hash
                .as_deref()
                .map(|h| crate::routes::tokens::image_url(state, h)),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchesResponse {
    /// Every launch of the program the index has seen on chain, whoever built it (prepared here or not,
    /// recorded or not), in the requested order.
    pub launches: Vec<LaunchEntry>,
    /// Launches that match the filters (counted at most every 5 seconds per filter set).
    pub total: u64,
    pub limit: u32,
    pub offset: u64,
    /// The SOL/USD price the USD values (and the `marketCap` and `volume24h` sorts across SOL and USDC
    /// launches) use; null before the indexer has seen the oracle.
    pub usd: Option<crate::prices::usd::UsdPrice>,
}

/// An optional parameter that must be one of `allowed`.
fn one_of(name: &str, value: Option<&str>, allowed: &[&str]) -> Result<Option<String>, ApiError> {
    match value {
        None => Ok(None),
        Some(v) if allowed.contains(&v) => Ok(Some(v.to_string())),
        Some(_) => Err(ApiError::invalid(format!(
            "`{name}` must be one of {}",
            allowed.join(", ")
        ))),
    }
}

impl LaunchesQuery {
    pub fn parse(&self) -> Result<index::read::ListingQuery, ApiError> {
        use index::read::Sort;
        let (limit, offset) = Paging {
            limit: self.limit.clone(),
            offset: self.offset.clone(),
        }
        .parse()?;
        let sorts: Vec<&str> = Sort::NAMES.iter().map(|(n, _)| *n).collect();
        let sort = one_of("sort", self.sort.as_deref(), &sorts)?
            .and_then(|s| Sort::from_name(&s))
            .unwrap_or(Sort::New);
        let descending =
            one_of("order", self.order.as_deref(), &ORDERS)?.is_none_or(|o| o == "desc");
        let creator = match self.creator.as_deref() {
            Some(c) => Some(address("creator", Some(c))?.to_string()),
            None => None,
        };
        let q = match self.q.as_deref().map(str::trim) {
            None => None,
            Some(q) if q.chars().any(char::is_control) => {
                return Err(ApiError::invalid("`q` must not contain control characters"))
            }
            Some(q) if (1..=MAX_SEARCH_CHARS).contains(&q.chars().count()) => Some(q.to_string()),
            Some(_) => return Err(ApiError::invalid("`q` must be 1 to 64 characters")),
        };
        let prefix = match self.prefix.as_deref() {
            None => None,
            Some(p) if index::read::valid_prefix(p) => Some(p.to_string()),
            Some(_) => {
                return Err(ApiError::invalid(
                    "`prefix` must be 1 to 44 ASCII letters and digits (the start of a mint or a symbol)",
                ))
            }
        };
        Ok(index::read::ListingQuery {
            sort,
            descending,
            status: one_of("status", self.status.as_deref(), &STATUSES)?,
            preset: one_of("preset", self.preset.as_deref(), &PRESETS)?,
            quote: one_of("quote", self.quote.as_deref(), &QUOTES)?,
            creator,
            q,
            prefix,
            limit,
            offset,
        })
    }
}

#[utoipa::path(
    get,
    path = "/launchpad/launches",
    params(LaunchesQuery),
    responses(
        (status = 200, body = LaunchesResponse),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_PARAMS or INVALID_ADDRESS"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn launches(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<LaunchesQuery>,
) -> Result<Json<LaunchesResponse>, ApiError> {
    let query = query.parse()?;
    let filters = format!(
        "{:?}",
        (
            &query.status,
            &query.preset,
            &query.quote,
            &query.creator,
            &query.q,
            &query.prefix
        )
    );
    let store = state.store.clone();
    let total = state
        .listing_totals
        .try_get_with(filters, {
            let query = query.clone();
            async move { store.listing_total(&query).await }
        })
        .await
        .map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
    let usd = crate::prices::usd::sol_usd(&state).await?;
    let page = state
        .store
        .listing(&query, usd.as_ref().map(|u| u.rate))
        .await?;
    Ok(Json(LaunchesResponse {
        launches: page
            .into_iter()
            .map(|r| LaunchEntry::new(&state, r, usd.as_ref()))
            .collect(),
        total,
        limit: query.limit,
        offset: query.offset,
        usd: usd.map(|u| u.price),
    }))
}

#[derive(Debug, Deserialize)]
pub struct FeesQuery {
    /// The wallet (a launch's creator, or the partner).
    pub creator: Option<String>,
}

impl IntoParams for FeesQuery {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![crate::extract::param(
            utoipa::openapi::path::ParameterIn::Query,
            "creator",
            true,
            "The wallet (a launch's creator, or the partner)",
            crate::extract::address_schema(),
        )]
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeeEntry {
    pub pool: String,
    pub mint: String,
    /// `trading`, `surplus` or `locked-lp`: the `kind` to send to `POST /launchpad/claim`.
    pub kind: String,
    /// `creator` or `partner`.
    pub role: String,
    pub quote_mint: String,
    /// Claimable quote, base units.
    pub quote_amount: String,
    /// Claimable tokens, base units (locked-LP fees are paid in both tokens of the AMM pool).
    pub base_amount: String,
    pub amm_pool: Option<String>,
    pub position: Option<String>,
}

impl From<index::read::Unclaimed> for FeeEntry {
    fn from(u: index::read::Unclaimed) -> Self {
        FeeEntry {
            pool: u.pool,
            mint: u.mint,
            kind: u.kind.into(),
            role: u.role.into(),
            quote_mint: u.quote_mint,
            quote_amount: u.quote_amount.to_string(),
            base_amount: u.base_amount.to_string(),
            amm_pool: u.amm_pool,
            position: u.position,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeesResponse {
    pub creator: String,
    /// One entry per pool and kind with something to claim.
    pub fees: Vec<FeeEntry>,
}

#[utoipa::path(
    get,
    path = "/launchpad/fees",
    params(FeesQuery),
    responses(
        (status = 200, body = FeesResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS or INVALID_ADDRESS"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn fees(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<FeesQuery>,
) -> Result<Json<FeesResponse>, ApiError> {
    let wallet = address("creator", q.creator.as_deref())?;
    let fees = state.store.unclaimed(&wallet).await?;
    Ok(Json(FeesResponse {
        creator: wallet.to_string(),
        fees: fees.into_iter().map(FeeEntry::from).collect(),
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(curve).layer(cache::layer(state, cache::policy::LIVE)))
        .routes(routes!(launches).layer(cache::layer(state, cache::policy::LISTING)))
        .routes(routes!(fees))
}
