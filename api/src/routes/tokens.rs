//! `GET /launchpad/tokens/{mint}`: a token's page: metadata, links, status, price, market cap, all-time
//! high, and its rolling 24h market (from the indexer's stats row and hourly candles, never a scan of all
//! its trades).

use crate::error::{address, ApiError};
use crate::extract::ApiPath;
use crate::http::cache;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use index::market::{self, fixed_to_decimal, MARKET_CAP_DIGITS};
use index::read::{CurveState, HolderSummary};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

/// A token's links, as given at prepare or read from the launch's metadata URI (null when none).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Links {
    pub website: Option<String>,
    /// An `https://x.com/...` (or twitter.com) URL.
    pub twitter: Option<String>,
    /// An `https://t.me/...` URL.
    pub telegram: Option<String>,
}

/// A launch's shared creator fees, as the token view shows them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeeSharesSummary {
    /// Recipients with a share now, in order.
    pub recipients: Vec<crate::routes::fee_shares::FeeRecipientBody>,
    /// Final: the creator role can no longer change them.
    pub locked: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenResponse {
    pub mint: String,
    pub pool: String,
    pub config: String,
    /// The creator role's holder now (the launching wallet, or whoever it handed the role to: see
    /// `POST /launchpad/creator/propose`).
    pub creator: String,
    /// The wallet that launched the token.
    pub launched_by: String,
    /// The wallet the creator proposed to hand the creator role to, until it accepts (null: none).
    pub pending_creator: Option<String>,
    /// How the creator fees are shared (null: they are the creator role's); details and claimable amounts at
    /// `GET /launchpad/fee-shares/{pool}`.
    pub fee_shares: Option<FeeSharesSummary>,
    pub name: String,
    pub symbol: String,
    /// Whether this service prepared it (`POST /launchpad/prepare`, with the metadata URI the launch carries
    /// on chain); false for a launch built elsewhere, whose description, image and links are read from its
    /// metadata URI.
    pub prepared: bool,
    /// From prepare, or read from the launch's metadata URI; empty when it has none (or before it was read).
    pub description: String,
    /// The image's URL (content-addressed, served by this service), or null.
    pub image: Option<String>,
    /// The metadata JSON the mint's URI points to.
    pub metadata_uri: String,
    pub links: Links,
    /// `fair`, `shield` or `distribute`.
    pub preset: String,
    /// `sol` or `usdc`.
    pub quote: String,
    pub quote_mint: String,
    /// `bonding`, `complete` (graduated, migration pending) or `migrated`.
    pub status: String,
    /// Progress to graduation, basis points.
    pub progress_bps: u16,
    /// Where it trades now: `curve` (also while migration is pending) or `amm`.
    pub venue: String,
    /// Spot price on `venue`, whole quote per whole token (18 decimals, rounded down).
    pub price: String,
    /// The curve's spot price (frozen at graduation), as `price`.
    pub curve_price: String,
    /// Supply now, base units (every launch mints 10^15; migration may burn some).
    pub supply: String,
    /// `price` times the supply, whole quote (24 decimals, exact).
    pub market_cap: String,
    /// The highest price after any trade (18 decimals), or null before any trade.
    pub ath_price: Option<String>,
    /// `athPrice` times the supply now, whole quote (24 decimals), or null.
    pub ath_market_cap: Option<String>,
    /// Tokens traded in the rolling 24h window (the current hour and the 23 before it), base units.
    pub volume24h_base: String,
    /// Quote traded in the window, base units.
    pub volume24h_quote: String,
    /// Change of the price over the window in percent (two decimals, toward zero), from the last price
    /// before the window or, for a younger token, the price after its first trade; null without trades.
    pub price_change24h: Option<String>,
    pub trades24h: u64,
    /// Distinct wallets that traded in the window.
    pub traders24h: u64,
    /// Unix seconds.
    pub created_at: i64,
    /// When the curve completed (graduated), unix seconds, or null.
    pub completed_at: Option<i64>,
    /// When it migrated to the AMM, unix seconds, or null.
    pub migrated_at: Option<i64>,
    /// The latest trade, unix seconds, or null.
    pub last_trade_at: Option<i64>,
    /// `price` in dollars (18 decimals, rounded down), or null without a SOL/USD price (see `usd`).
    pub price_usd: Option<String>,
    /// `marketCap` in dollars (6 decimals, rounded down), or null.
    pub market_cap_usd: Option<String>,
    /// `volume24hQuote` in dollars (6 decimals, rounded down), or null.
    pub volume24h_usd: Option<String>,
    /// The SOL/USD price the USD values use (USDC counts as one dollar), with its age and whether it is
    /// stale; null before the indexer has seen the oracle.
    pub usd: Option<crate::prices::usd::UsdPrice>,
    /// Holder count, the 20 largest token accounts, the top 10's and the creator's share, snipers: as
    /// `GET /launchpad/tokens/{mint}/holders`.
    pub holders: HolderSummary,
}

/// Token accounts the token view lists.
pub const TOP_HOLDERS: u32 = 20;

/// The public URL of a stored image.
pub fn image_url(state: &AppState, hash: &str) -> String {
    format!(
        "{}/launchpad/images/{hash}",
        state.config.base_url().trim_end_matches('/')
    )
}

#[utoipa::path(
    get,
    path = "/launchpad/tokens/{mint}",
    params(crate::extract::MintPath),
    responses(
        (status = 200, body = TokenResponse),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: no launch with this mint"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn token(
    State(state): State<AppState>,
    ApiPath(mint): ApiPath<String>,
) -> Result<Json<TokenResponse>, ApiError> {
    let mint = address("mint", Some(&mint))?;
    Ok(Json(token_view(&state, &mint).await?))
}

/// A token's market figures as the token view renders them.
struct MarketView {
    venue: String,
    price: String,
    curve_price: String,
    supply: String,
    market_cap: String,
    ath_price: Option<String>,
    ath_market_cap: Option<String>,
    volume24h_base: String,
    volume24h_quote: String,
    price_change24h: Option<String>,
    trades24h: u64,
    traders24h: u64,
    last_trade_at: Option<i64>,
    price_usd: Option<String>,
    market_cap_usd: Option<String>,
    volume24h_usd: Option<String>,
    usd: Option<crate::prices::usd::UsdPrice>,
}

/// The launch's price, market cap, all-time high and rolling 24h market, in its quote and in dollars.
async fn market_view(
    state: &AppState,
    mint: &sdk::Pubkey,
    quote: &str,
    c: &CurveState,
) -> Result<MarketView, ApiError> {
    let (venue, price) = state.store.spot_price(c).await?;
    let (_, curve_price) = market::spot_price(&c.pool, &c.config, None);
    let supply = market::supply(&c.pool);
    let stats = state.store.launch_stats(mint).await?;
    let activity = state
        .store
        .activity(mint, index::market::window_start(state.now()))
        .await?;
    let last_trade_at = stats.as_ref().and_then(|s| s.last_trade_time);
    let ath = stats
        .as_ref()
        .map(|s| s.ath_price)
        .filter(|_| last_trade_at.is_some());
    let cap = |p: u128| fixed_to_decimal(market::market_cap(p, supply), MARKET_CAP_DIGITS);
    let usd = crate::prices::usd::sol_usd(state).await?;
    let in_usd =
        |f: &dyn Fn(&crate::prices::usd::SolUsd) -> Option<String>| usd.as_ref().and_then(f);
    let price_digits = curve::display::PRICE_DIGITS;
    Ok(MarketView {
        venue: venue.name().into(),
        price: fixed_to_decimal(price, price_digits),
        curve_price: fixed_to_decimal(curve_price, price_digits),
        supply: supply.to_string(),
        market_cap: cap(price),
        ath_price: ath.map(|p| fixed_to_decimal(p, price_digits)),
        ath_market_cap: ath.map(cap),
        volume24h_base: activity.volume_base.to_string(),
        volume24h_quote: activity.volume_quote.to_string(),
        price_change24h: activity
            .reference_price
            .and_then(|r| market::change_percent(r, price)),
        trades24h: activity.trades,
        traders24h: activity.traders,
        last_trade_at,
        price_usd: in_usd(&|u| u.price(quote, price)),
        market_cap_usd: in_usd(&|u| u.market_cap(quote, market::market_cap(price, supply))),
        volume24h_usd: in_usd(&|u| u.amount(quote, activity.volume_quote)),
        usd: usd.map(|u| u.price),
    })
}

/// The launch's shared creator fees, or `None` when they are the creator role's.
async fn fee_shares_summary(
    state: &AppState,
    pool: &sdk::Pubkey,
) -> Result<Option<FeeSharesSummary>, ApiError> {
    Ok(state
        .store
        .fee_shares(pool)
        .await?
        .map(|s| FeeSharesSummary {
            recipients: sdk::shares::recipients(&s)
                .into_iter()
                .map(
                    |(wallet, bps)| crate::routes::fee_shares::FeeRecipientBody {
                        wallet: wallet.to_string(),
                        bps,
                    },
                )
                .collect(),
            locked: s.locked,
        }))
}

/// The token view of `mint`: its launch row, curve, metadata, holders, fee shares and market.
async fn token_view(state: &AppState, mint: &sdk::Pubkey) -> Result<TokenResponse, ApiError> {
    let not_found = || ApiError::not_found(format!("no launch with mint {mint}"));
    let launch = state.store.launch(mint).await?.ok_or_else(not_found)?;
    let c = state.curve(mint).await?.ok_or_else(not_found)?;
    let m = market_view(state, mint, &launch.quote, &c).await?;
    let details = state.store.launch_details(mint).await?.unwrap_or_default();
    let holders = state
        .store
        .holder_summary(mint, TOP_HOLDERS)
        .await?
        .ok_or_else(not_found)?;
    let pool_address: sdk::Pubkey = launch.pool.parse().map_err(|_| not_found())?;
    let fee_shares = fee_shares_summary(state, &pool_address).await?;
    let when = |t: i64| (t > 0).then_some(t);
    Ok(TokenResponse {
        mint: mint.to_string(),
        pool: launch.pool,
        config: launch.config,
        creator: c.pool.creator.to_string(),
        launched_by: launch.creator,
        pending_creator: (c.pool.pending_creator != sdk::Pubkey::default())
            .then(|| c.pool.pending_creator.to_string()),
        fee_shares,
        name: launch.name,
        symbol: launch.symbol,
        prepared: details.prepared,
        description: details.description,
        image: details.image_hash.as_deref().map(|h| image_url(state, h)),
        metadata_uri: launch.uri,
        links: Links {
            website: details.website,
            twitter: details.twitter,
            telegram: details.telegram,
        },
        preset: launch.preset,
        quote: launch.quote,
        quote_mint: launch.quote_mint,
        status: market::status_name(c.pool.status).into(),
        progress_bps: c.progress_bps(),
        venue: m.venue,
        price: m.price,
        curve_price: m.curve_price,
        supply: m.supply,
        market_cap: m.market_cap,
        ath_price: m.ath_price,
        ath_market_cap: m.ath_market_cap,
        volume24h_base: m.volume24h_base,
        volume24h_quote: m.volume24h_quote,
        price_change24h: m.price_change24h,
        trades24h: m.trades24h,
        traders24h: m.traders24h,
        created_at: launch.created_at,
        completed_at: when(c.pool.complete_timestamp),
        migrated_at: when(c.pool.migrate_timestamp),
        last_trade_at: m.last_trade_at,
        price_usd: m.price_usd,
        market_cap_usd: m.market_cap_usd,
        volume24h_usd: m.volume24h_usd,
        usd: m.usd,
        holders,
    })
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(token).layer(cache::layer(state, cache::policy::MARKET)))
}
