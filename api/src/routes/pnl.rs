//! `GET /launchpad/wallets/{address}/pnl` and `GET /launchpad/wallets/{address}/pnl/{mint}`: a wallet's
//! profit and loss per launched token, from its indexed trades (curve and AMM): tokens held, cost basis by
//! average cost (fees included), average entry, realized and unrealized PnL in the quote token and in USD,
//! first buy time. The method and its rounding are [`index::pnl`]'s.

use super::launchpad::Paging;
use crate::error::{address, ApiError};
use crate::extract::{ApiPath, ApiQuery};
use crate::http::cache;
use crate::json::Json;
use crate::prices::usd::{SolUsd, UsdPrice};
use crate::state::AppState;
use anchor_lang::prelude::Pubkey;
use axum::extract::State;
use index::pnl::{signed_decimal, UsdFigures};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

/// A wallet's position in one launched token. Quote figures are base units of the quote token, signed
/// where they can be negative, each the exact value rounded toward zero once; USD figures are dollars with
/// 6 decimals, the exact quote figure times the SOL/USD rate rounded toward zero (null without a rate).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PositionEntry {
    pub mint: String,
    pub name: String,
    pub symbol: String,
    /// `sol` or `usdc`.
    pub quote: String,
    pub quote_mint: String,
    pub quote_decimals: u8,
    /// Tokens held now (the chain's balance), base units (6 decimals).
    pub tokens: String,
    /// Tokens bought and sold by trades, base units.
    pub bought: String,
    pub sold: String,
    /// Quote paid for the buys (fees included) and received for the sells (after fees).
    pub paid: String,
    pub received: String,
    pub buys: u64,
    pub sells: u64,
    /// Cost of the tokens held by average cost (fees included; tokens that arrived by transfer at zero).
    pub cost_basis: String,
    /// Cost basis per token held, whole quote per whole token (18 decimals); null when none are held.
    pub average_entry: Option<String>,
    /// Where the token trades now: `curve` or `amm`.
    pub venue: String,
    /// Spot price on `venue`, whole quote per whole token (18 decimals, rounded down).
    pub price: String,
    /// `tokens` at `price` (rounded down).
    pub value: String,
    /// Received by sells minus the average cost of the tokens sold.
    pub realized: String,
    /// `value` minus `costBasis`.
    pub unrealized: String,
    /// `realized` plus `unrealized` (rounded once).
    pub total: String,
    pub cost_basis_usd: Option<String>,
    /// `averageEntry` in dollars (18 decimals, rounded down).
    pub average_entry_usd: Option<String>,
    pub value_usd: Option<String>,
    pub realized_usd: Option<String>,
    pub unrealized_usd: Option<String>,
    pub total_usd: Option<String>,
    /// Block time of the first buy, unix seconds; null when the wallet never bought.
    pub first_buy_at: Option<i64>,
}

/// A wallet's positions, one per launched token it traded or holds, by mint.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WalletPnlResponse {
    pub address: String,
    pub positions: Vec<PositionEntry>,
    /// Tokens the wallet traded or holds (all pages).
    pub total: u64,
    pub limit: u32,
    pub offset: u64,
    /// The SOL/USD price the USD figures used; null without one.
    pub usd: Option<UsdPrice>,
}

/// A wallet's position in one token.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenPnlResponse {
    pub address: String,
    pub position: PositionEntry,
    pub usd: Option<UsdPrice>,
}

fn offset_schema() -> utoipa::openapi::Object {
    crate::extract::integer_schema(0, i64::MAX as u64)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PnlQuery {
    /// Tokens a page, 1 to 100; default 20.
    #[param(schema_with = super::trades::page_limit_schema)]
    pub limit: Option<String>,
    /// Default 0.
    #[param(schema_with = offset_schema)]
    pub offset: Option<String>,
}

/// `wallet`'s position in `mint`, priced now; `None` when no launch has this mint.
async fn entry(
    state: &AppState,
    usd: Option<&SolUsd>,
    wallet: &Pubkey,
    mint: &Pubkey,
) -> Result<Option<PositionEntry>, ApiError> {
    let (Some(launch), Some(c)) = (state.store.launch(mint).await?, state.curve(mint).await?)
    else {
        return Ok(None);
    };
    let p = state.store.wallet_position(wallet, mint).await?;
    let (venue, price) = state.store.spot_price(&c).await?;
    let qd = c.config.quote_decimals;
    let td = curve::constants::TOKEN_DECIMALS;
    let held = u64::try_from(p.held).unwrap_or(u64::MAX);
    let value = curve::display::value_at_fixed_price(held, td, price, qd).unwrap_or(0);
    let f = p.figures(value);
    let average = p.average_entry(td, qd);
    let in_usd = usd
        .and_then(|u| u.rate_of(&launch.quote))
        .and_then(|r| p.usd_figures(value, r, qd));
    let dollars = |pick: fn(&UsdFigures) -> i128| {
        in_usd
            .as_ref()
            .map(|u| signed_decimal(pick(u), index::usd::USD_DIGITS))
    };
    Ok(Some(PositionEntry {
        mint: mint.to_string(),
        name: launch.name,
        symbol: launch.symbol,
        quote: launch.quote.clone(),
        quote_mint: launch.quote_mint,
        quote_decimals: qd,
        tokens: p.held.to_string(),
        bought: p.bought.to_string(),
        sold: p.sold.to_string(),
        paid: p.paid.to_string(),
        received: p.received.to_string(),
        buys: p.buys,
        sells: p.sells,
        cost_basis: f.cost_basis.to_string(),
        average_entry: average.map(curve::display::fixed_price_to_decimal),
        venue: venue.name().into(),
        price: curve::display::fixed_price_to_decimal(price),
        value: value.to_string(),
        realized: f.realized.to_string(),
        unrealized: f.unrealized.to_string(),
        total: f.total.to_string(),
        cost_basis_usd: dollars(|u| u.cost_basis),
        average_entry_usd: average.and_then(|a| usd?.price(&launch.quote, a)),
        value_usd: dollars(|u| u.value),
        realized_usd: dollars(|u| u.realized),
        unrealized_usd: dollars(|u| u.unrealized),
        total_usd: dollars(|u| u.total),
        first_buy_at: p.first_buy,
    }))
}

#[utoipa::path(
    get,
    path = "/launchpad/wallets/{address}/pnl",
    params(crate::extract::AddressPath, PnlQuery),
    responses(
        (status = 200, body = WalletPnlResponse),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS or INVALID_PARAMS (limit, offset)"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn wallet_pnl(
    State(state): State<AppState>,
    ApiPath(wallet): ApiPath<String>,
    ApiQuery(q): ApiQuery<PnlQuery>,
) -> Result<Json<WalletPnlResponse>, ApiError> {
    let wallet = address("address", Some(&wallet))?;
    let (limit, offset) = Paging {
        limit: q.limit,
        offset: q.offset,
    }
    .parse()?;
    let usd = crate::prices::usd::sol_usd(&state).await?;
    let (mints, total) = state.store.pnl_mints(&wallet, limit, offset).await?;
    let mut positions = Vec::with_capacity(mints.len());
    for mint in &mints {
        if let Some(e) = entry(&state, usd.as_ref(), &wallet, mint).await? {
            positions.push(e);
        }
    }
    Ok(Json(WalletPnlResponse {
        address: wallet.to_string(),
        positions,
        total,
        limit,
        offset,
        usd: usd.map(|u| u.price),
    }))
}

#[utoipa::path(
    get,
    path = "/launchpad/wallets/{address}/pnl/{mint}",
    params(crate::extract::AddressPath, crate::extract::MintPath),
    responses(
        (status = 200, body = TokenPnlResponse),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: no launch with this mint"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn token_pnl(
    State(state): State<AppState>,
    ApiPath((wallet, mint)): ApiPath<(String, String)>,
) -> Result<Json<TokenPnlResponse>, ApiError> {
    let wallet = address("address", Some(&wallet))?;
    let mint = address("mint", Some(&mint))?;
    let usd = crate::prices::usd::sol_usd(&state).await?;
    let position = entry(&state, usd.as_ref(), &wallet, &mint)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no launch with mint {mint}")))?;
    Ok(Json(TokenPnlResponse {
        address: wallet.to_string(),
        position,
        usd: usd.map(|u| u.price),
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(wallet_pnl).layer(cache::layer(state, cache::policy::LIVE)))
        .routes(routes!(token_pnl).layer(cache::layer(state, cache::policy::LIVE)))
}
