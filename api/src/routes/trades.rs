//! `GET /launchpad/trades/{mint}`: a token's trades on the bonding curve and then the AMM, as one series,
//! newest first, paginated by cursor.

use crate::error::{address, ApiError};
use crate::extract::{ApiPath, ApiQuery};
use crate::http::cache;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

fn cursor_schema() -> utoipa::openapi::Object {
    crate::extract::pattern_schema(&format!("^[0-9]{{{}}}$", index::market::SEQ_DIGITS))
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

pub use index::market::TradeEntry;

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
        if !index::market::is_seq(b) {
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

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(trades).layer(cache::layer(state, cache::policy::LIVE)))
}
