//! `GET /launchpad/trades/{mint}`: a token's trades on the bonding curve and then the AMM, as one series,
//! newest first, paginated by cursor.

use crate::error::{address, ApiError};
use crate::extract::{ApiPath, ApiQuery};
use crate::AppState;
use axum::extract::State;
use axum::Json;
use indexer::market::MarketTrade;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

fn cursor_schema() -> utoipa::openapi::Object {
    crate::extract::pattern_schema(&format!("^[0-9]{{{}}}$", indexer::market::SEQ_DIGITS))
}
/// The most entries one page of a listing endpoint returns.
pub const MAX_PAGE: u32 = 100;

/// The OpenAPI schema of a page's `limit` (1 to [`MAX_PAGE`]).
pub fn page_limit_schema() -> utoipa::openapi::Object {
    crate::extract::integer_schema(1, u64::from(MAX_PAGE))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TradesQuery {
    /// A `cursor` from an earlier page: trades older than it.
    #[param(schema_with = cursor_schema)]
    pub before: Option<String>,
    /// 1 to 100; default 50.
    #[param(schema_with = page_limit_schema)]
    pub limit: Option<String>,
    /// Only this wallet's trades.
    #[param(schema_with = crate::extract::address_schema)]
    pub wallet: Option<String>,
}

/// One trade.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TradeEntry {
    pub signature: String,
    pub slot: u64,
    /// Block time, unix seconds.
    pub time: i64,
    /// `curve` (the bonding curve) or `amm` (the pool the curve migrated into).
    pub venue: String,
    pub pool: String,
    /// `buy` (quote in, tokens out) or `sell`.
    pub side: String,
    pub wallet: String,
    /// What the wallet paid, base units of the input token (a buy's fee included, its refund excluded).
    pub amount_in: String,
    /// What the wallet received, base units of the output token (after the fee).
    pub amount_out: String,
    /// Tokens bought or sold, base units.
    pub base_amount: String,
    /// Quote paid or received, base units.
    pub quote_amount: String,
    pub fee: String,
    /// `quote` or `base`: the token the fee was taken in.
    pub fee_token: String,
    /// Spot price after the trade, whole quote per whole token (18 decimals, rounded down).
    pub price_after: String,
    /// Pass as `before` to get the trades older than this one.
    pub cursor: String,
}

impl From<MarketTrade> for TradeEntry {
    fn from(t: MarketTrade) -> Self {
        TradeEntry {
            signature: t.signature,
            slot: t.slot,
            time: t.time,
            venue: t.venue.name().into(),
            pool: t.pool,
            side: t.side.into(),
            wallet: t.wallet,
            amount_in: t.amount_in.to_string(),
            amount_out: t.amount_out.to_string(),
            base_amount: t.base_amount.to_string(),
            quote_amount: t.quote_amount.to_string(),
            fee: t.fee.to_string(),
            fee_token: t.fee_token.into(),
            price_after: curve::display::fixed_price_to_decimal(t.price),
            cursor: t.seq,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TradesResponse {
    pub mint: String,
    /// Newest first.
    pub trades: Vec<TradeEntry>,
    /// The `before` of the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// `limit` of a browse query: 1 to `max`, `default` when absent.
pub fn limit_param(value: Option<&str>, default: u32, max: u32) -> Result<u32, ApiError> {
    match value {
        None => Ok(default),
        Some(l) => l
            .parse::<u32>()
            .ok()
            .filter(|l| (1..=max).contains(l))
            .ok_or_else(|| {
                ApiError::invalid(format!("`limit` must be an integer from 1 to {max}"))
            }),
    }
}

#[utoipa::path(
    get,
    path = "/launchpad/trades/{mint}",
    params(crate::extract::MintPath, TradesQuery),
    responses(
        (status = 200, body = TradesResponse),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS or INVALID_PARAMS (limit, cursor)"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: no launch with this mint"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn trades(
    State(state): State<AppState>,
    ApiPath(mint): ApiPath<String>,
    ApiQuery(q): ApiQuery<TradesQuery>,
) -> Result<Json<TradesResponse>, ApiError> {
    let mint = address("mint", Some(&mint))?;
    let limit = limit_param(q.limit.as_deref(), 50, MAX_PAGE)?;
    let wallet = match q.wallet.as_deref() {
        Some(w) => Some(address("wallet", Some(w))?),
        None => None,
    };
    if let Some(b) = q.before.as_deref() {
        if !indexer::market::is_seq(b) {
            return Err(ApiError::invalid(
                "`before` is not a cursor this API returned",
            ));
        }
    }
    if state.store.launch(&mint).await?.is_none() {
        return Err(ApiError::not_found(format!("no launch with mint {mint}")));
    }
    // One more than the page tells whether another page follows (`nextCursor` is null on the last one).
    let mut trades = state
        .store
        .market_trades(Some(&mint), wallet.as_ref(), q.before.as_deref(), limit + 1)
        .await?;
    let more = trades.len() > limit as usize;
    trades.truncate(limit as usize);
    let next_cursor = more.then(|| trades.last().map(|t| t.seq.clone())).flatten();
    Ok(Json(TradesResponse {
        mint: mint.to_string(),
        trades: trades.into_iter().map(TradeEntry::from).collect(),
        next_cursor,
    }))
}
