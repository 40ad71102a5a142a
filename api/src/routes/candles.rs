//! `GET /launchpad/candles/{mint}`: open/high/low/close and volume per interval, rolled up by the indexer
//! as it writes trades (one series across the curve and the AMM).

use super::trades::limit_param;
use crate::error::{address, ApiError};
use crate::extract::{ApiPath, ApiQuery};
use crate::http::cache;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use index::market::{self, Candle};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

/// Most candles one call returns.
pub const MAX_CANDLES: u32 = 1_000;

fn interval_schema() -> utoipa::openapi::Object {
    crate::extract::one_of_schema(market::INTERVALS.iter().map(|(n, _)| *n))
}
/// The latest `from` or `to` taken, unix seconds (far beyond any block time).
const MAX_TIME: i64 = u32::MAX as i64 * 16;

fn time_schema() -> utoipa::openapi::Object {
    crate::extract::integer_schema(0, MAX_TIME as u64)
}
fn limit_schema() -> utoipa::openapi::Object {
    crate::extract::integer_schema(1, u64::from(MAX_CANDLES))
}
fn fill_schema() -> utoipa::openapi::Object {
    crate::extract::one_of_schema(["true", "false"])
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CandlesQuery {
    /// `1s`, `15s`, `1m`, `5m`, `15m`, `1h`, `4h` or `1d`; default `1m`.
    #[param(schema_with = interval_schema)]
    pub interval: Option<String>,
    /// Unix seconds: only intervals that start at or after it.
    #[param(schema_with = time_schema)]
    pub from: Option<String>,
    /// Unix seconds: only intervals that start at or before it; default now.
    #[param(schema_with = time_schema)]
    pub to: Option<String>,
    /// 1 to 1000; default 300. The latest intervals of the window are kept.
    #[param(schema_with = limit_schema)]
    pub limit: Option<String>,
    /// `true`: empty intervals are returned with the previous close and zero volume; default `false`.
    #[param(schema_with = fill_schema)]
    pub fill: Option<String>,
}

/// One interval.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CandleEntry {
    /// Start of the interval, unix seconds (intervals align to the epoch, days to 00:00 UTC).
    pub time: i64,
    /// Prices: whole quote per whole token (18 decimals, rounded down), the spot price after each trade.
    pub open: String,
    pub high: String,
    pub low: String,
    pub close: String,
    /// Tokens traded, base units.
    pub volume_base: String,
    /// Quote traded (paid fee included, or received after the fee), base units.
    pub volume_quote: String,
    pub trades: u64,
}

impl From<Candle> for CandleEntry {
    fn from(c: Candle) -> Self {
        let p = curve::display::fixed_price_to_decimal;
        CandleEntry {
            time: c.start,
            open: p(c.open),
            high: p(c.high),
            low: p(c.low),
            close: p(c.close),
            volume_base: c.volume_base.to_string(),
            volume_quote: c.volume_quote.to_string(),
            trades: c.trades,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CandlesResponse {
    pub mint: String,
    pub interval: String,
    /// Oldest first.
    pub candles: Vec<CandleEntry>,
}

fn time_param(name: &str, value: Option<&str>) -> Result<Option<i64>, ApiError> {
    value
        .map(|v| {
            v.parse::<i64>()
                .ok()
                .filter(|t| (0..=MAX_TIME).contains(t))
                .ok_or_else(|| ApiError::invalid(format!("`{name}` must be unix seconds")))
        })
        .transpose()
}

#[utoipa::path(
    get,
    path = "/launchpad/candles/{mint}",
    params(crate::extract::MintPath, CandlesQuery),
    responses(
        (status = 200, body = CandlesResponse),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS or INVALID_PARAMS (interval, from after to, limit, fill)"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: no launch with this mint"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn candles(
    State(state): State<AppState>,
    ApiPath(mint): ApiPath<String>,
    ApiQuery(q): ApiQuery<CandlesQuery>,
) -> Result<Json<CandlesResponse>, ApiError> {
    let mint = address("mint", Some(&mint))?;
    let interval = q.interval.as_deref().unwrap_or("1m");
    let secs = market::interval_secs(interval).ok_or_else(|| {
        ApiError::invalid("`interval` must be one of 1s, 15s, 1m, 5m, 15m, 1h, 4h, 1d")
    })?;
    let limit = limit_param(q.limit.as_deref(), 300, MAX_CANDLES)?;
    let fill = match q.fill.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => return Err(ApiError::invalid("`fill` must be true or false")),
    };
    let from = time_param("from", q.from.as_deref())?;
    let to = time_param("to", q.to.as_deref())?.unwrap_or_else(|| state.now().max(0));
    if from.is_some_and(|f| f > to) {
        return Err(ApiError::invalid("`from` is after `to`"));
    }
    if state.store.launch(&mint).await?.is_none() {
        return Err(ApiError::not_found(format!("no launch with mint {mint}")));
    }
    let last = market::bucket(to, secs);
    // The first interval that starts at or after `from`.
    let first_allowed = from.map_or(i64::MIN, |f| {
        market::bucket(f.saturating_add(secs - 1), secs)
    });
    let candles = if fill {
        // Intervals that have not begun are not empty intervals: the filled series ends at the current one.
        let last = last.min(market::bucket(state.now().max(0), secs));
        let first = last
            .saturating_sub(i64::from(limit - 1).saturating_mul(secs))
            .max(first_allowed);
        let stored = state.store.candles(&mint, secs, first, last, limit).await?;
        let before = state.store.candle_before(&mint, secs, first).await?;
        market::fill(stored, before, first, last, secs)
    } else {
        state
            .store
            .candles(&mint, secs, first_allowed, last, limit)
            .await?
    };
    Ok(Json(CandlesResponse {
        mint: mint.to_string(),
        interval: interval.to_string(),
        candles: candles.into_iter().map(CandleEntry::from).collect(),
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(candles).layer(cache::layer(state, cache::policy::MARKET)))
}
