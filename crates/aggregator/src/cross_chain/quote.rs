//! `POST /swap/cross-chain/quote`: a composite quote (swap, bridge, swap) from LI.FI, or from Relay when
//! LI.FI has no route or fails. The quote is persisted under its `quoteId`.

use super::{provider_token, CrossChainRequest, Validated};
use crate::aggregators::{lifi, relay};
use crate::transfers::store::{self, QuoteRow};
use crate::Aggregator;
use axum::extract::State;
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;
use web::body::ApiJson;
use web::error::{ApiError, ErrorCode};
use web::json::Json;

/// A cross-chain quote stays buildable this long.
pub const CROSS_CHAIN_QUOTE_TTL_SECS: i64 = 120;

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenInfo {
    pub chain_key: String,
    pub address: String,
    pub symbol: Option<String>,
    pub decimals: Option<u8>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CostEntry {
    /// `fee` (bridge, relayer, protocol, integrator) or `gas`.
    pub kind: String,
    pub name: String,
    /// Base units of `token`.
    pub amount: String,
    pub token: Option<TokenInfo>,
    pub amount_usd: Option<String>,
    /// Already taken out of `amountOut` (true), or paid on top by the wallet (false).
    pub included: bool,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteStep {
    /// `swap`, `bridge` or `approve`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The bridge or exchange.
    pub tool: String,
    pub from_chain_key: String,
    pub to_chain_key: String,
}

/// A composite cross-chain quote.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrossChainQuote {
    /// Send it back to build, and poll status by it.
    pub quote_id: String,
    /// `lifi` or `relay` (the fallback).
    pub provider: String,
    pub from_chain_key: String,
    pub to_chain_key: String,
    pub token_in: String,
    pub amount_in: String,
    /// The token that arrives, which may be a bridged representation with other decimals than
    /// `tokenIn`.
    pub to_token: TokenInfo,
    /// Net amount of `toToken` received on the destination chain, base units.
    pub amount_out: String,
    /// The least received within the slippage tolerance, base units.
    pub min_amount_out: String,
    pub fees: Vec<CostEntry>,
    pub estimated_duration_seconds: Option<u64>,
    pub steps: Vec<RouteStep>,
    /// EVM origin with an ERC-20 `tokenIn`: the address to approve for `amountIn`.
    pub approval_address: Option<String>,
    pub taker: String,
    pub recipient: String,
    pub slippage_bps: u16,
    pub expires_at: i64,
}

/// A new quote's id: `xq_` and 32 hex digits.
fn new_quote_id() -> String {
    format!("xq_{:032x}", rand::random::<u128>())
}

/// The schema of a quote id, as [`new_quote_id`] writes them.
pub fn quote_id_schema() -> utoipa::openapi::Object {
    web::schema::text(35, 35)
        .pattern(Some("^xq_[0-9a-f]{32}$"))
        .build()
}

fn no_cross_chain_route(why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NoCrossChainRoute,
        format!("no bridge route for this transfer: {why}"),
    )
}

fn token_info(chain_key: &str, v: &Value, fallback_address: &str) -> TokenInfo {
    TokenInfo {
        chain_key: chain_key.to_string(),
        address: v["address"]
            .as_str()
            .unwrap_or(fallback_address)
            .to_string(),
        symbol: v["symbol"].as_str().map(str::to_string),
        decimals: v["decimals"].as_u64().and_then(|d| u8::try_from(d).ok()),
    }
}

fn chain_key_of_lifi(id: Option<u64>) -> String {
    id.and_then(lifi::chain)
        .map_or_else(|| "unknown".to_string(), |c| c.key.to_string())
}

fn lifi_costs(estimate: &Value) -> Vec<CostEntry> {
    let cost = |kind: &str, c: &Value, name: &str| CostEntry {
        kind: kind.into(),
        name: name.to_string(),
        amount: c["amount"].as_str().unwrap_or("0").to_string(),
        token: Some(token_info(
            &chain_key_of_lifi(c["token"]["chainId"].as_u64()),
            &c["token"],
            "",
        )),
        amount_usd: c["amountUSD"].as_str().map(str::to_string),
        included: c["included"].as_bool().unwrap_or(kind == "fee"),
    };
    let fees = estimate["feeCosts"].as_array().into_iter().flatten();
    let gas = estimate["gasCosts"].as_array().into_iter().flatten();
    fees.map(|c| cost("fee", c, c["name"].as_str().unwrap_or("fee")))
        .chain(gas.map(|c| cost("gas", c, c["type"].as_str().unwrap_or("gas"))))
        .collect()
}

fn lifi_steps(raw: &Value) -> Vec<RouteStep> {
    let steps = raw["includedSteps"].as_array().cloned().unwrap_or_default();
    let steps = if steps.is_empty() {
        vec![raw.clone()]
    } else {
        steps
    };
    steps
        .iter()
        .map(|s| RouteStep {
            kind: match s["type"].as_str() {
                Some("swap") => "swap",
                _ => "bridge",
            }
            .into(),
            tool: s["tool"].as_str().unwrap_or_default().to_string(),
            from_chain_key: chain_key_of_lifi(s["action"]["fromChainId"].as_u64()),
            to_chain_key: chain_key_of_lifi(s["action"]["toChainId"].as_u64()),
        })
        .collect()
}

fn relay_costs(raw: &Value) -> Vec<CostEntry> {
    let Some(fees) = raw["fees"].as_object() else {
        return vec![];
    };
    fees.iter()
        .filter(|(_, f)| f["amount"].as_str().is_some_and(|a| a != "0"))
        .map(|(name, f)| {
            let chain = f["currency"]["chainId"]
                .as_u64()
                .and_then(relay::chain)
                .map_or("unknown", |c| c.key);
            CostEntry {
                kind: if name == "gas" { "gas" } else { "fee" }.into(),
                name: name.clone(),
                amount: f["amount"].as_str().unwrap_or("0").to_string(),
                token: Some(token_info(chain, &f["currency"], "")),
                amount_usd: f["amountUsd"].as_str().map(str::to_string),
                // Relay's relayer fees come out of the output; origin gas is paid by the wallet.
                included: name != "gas",
            }
        })
        .collect()
}

fn relay_steps(v: &Validated, raw: &Value) -> Vec<RouteStep> {
    raw["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["id"].as_str() != Some("approve"))
        .map(|s| RouteStep {
            kind: match s["id"].as_str() {
                Some("swap") => "swap",
                _ => "bridge",
            }
            .into(),
            tool: "relay".into(),
            from_chain_key: v.from.key.into(),
            to_chain_key: v.to.key.into(),
        })
        .collect()
}

async fn from_lifi(
    state: &Aggregator,
    v: &Validated,
) -> Result<Option<(CrossChainQuote, QuoteRow)>, ApiError> {
    let Some(lifi) = &state.lifi else {
        return Ok(None);
    };
    let (from_token, to_token) = (
        provider_token(v.from, &v.token_in),
        provider_token(v.to, &v.token_out),
    );
    let Some(q) = lifi
        .quote(&lifi::QuoteParams {
            from_chain: lifi::chain_id(v.from),
            to_chain: lifi::chain_id(v.to),
            from_token: &from_token,
            to_token: &to_token,
            from_amount: v.amount_in,
            from_address: &v.taker,
            to_address: &v.recipient,
            slippage_bps: v.slippage_bps,
        })
        .await?
    else {
        return Ok(None);
    };
    let quote = CrossChainQuote {
        to_token: token_info(v.to.key, &q.to_token, &v.token_out),
        amount_out: q.to_amount.to_string(),
        min_amount_out: q.to_amount_min.to_string(),
        fees: lifi_costs(&q.raw["estimate"]),
        estimated_duration_seconds: q.duration_secs,
        steps: lifi_steps(&q.raw),
        approval_address: q.approval_address.clone().filter(|_| v.origin_erc20()),
        ..skeleton(v, "lifi")
    };
    let provider_ref = Some(q.tool.clone());
    Ok(Some((quote, row(v, "lifi", provider_ref, q.raw))))
}

async fn from_relay(
    state: &Aggregator,
    v: &Validated,
) -> Result<Option<(CrossChainQuote, QuoteRow)>, ApiError> {
    let Some(relay) = &state.relay else {
        return Ok(None);
    };
    let (from_token, to_token) = (
        provider_token(v.from, &v.token_in),
        provider_token(v.to, &v.token_out),
    );
    let Some(q) = relay
        .quote(&relay::QuoteParams {
            user: &v.taker,
            recipient: &v.recipient,
            origin_chain_id: relay::chain_id(v.from),
            destination_chain_id: relay::chain_id(v.to),
            origin_currency: &from_token,
            destination_currency: &to_token,
            amount: v.amount_in,
            slippage_bps: v.slippage_bps,
        })
        .await?
    else {
        return Ok(None);
    };
    // Relay's deposit goes to the address its first transaction calls; approvals are for that address.
    let approval = q.raw["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["id"].as_str() != Some("approve"))
        .find_map(|s| s["items"][0]["data"]["to"].as_str())
        .map(str::to_string);
    let quote = CrossChainQuote {
        to_token: token_info(v.to.key, &q.currency_out, &v.token_out),
        amount_out: q.amount_out.to_string(),
        min_amount_out: q.min_amount_out.to_string(),
        fees: relay_costs(&q.raw),
        estimated_duration_seconds: q.time_estimate_secs,
        steps: relay_steps(v, &q.raw),
        approval_address: approval.filter(|_| v.origin_erc20()),
        ..skeleton(v, "relay")
    };
    Ok(Some((quote, row(v, "relay", q.request_id.clone(), q.raw))))
}

/// What every quote says of the request, before the provider's numbers are filled in.
fn skeleton(v: &Validated, provider: &str) -> CrossChainQuote {
    CrossChainQuote {
        quote_id: String::new(),
        provider: provider.into(),
        from_chain_key: v.from.key.into(),
        to_chain_key: v.to.key.into(),
        token_in: v.token_in.clone(),
        amount_in: v.amount_in.to_string(),
        to_token: token_info(v.to.key, &Value::Null, &v.token_out),
        amount_out: "0".into(),
        min_amount_out: "0".into(),
        fees: vec![],
        estimated_duration_seconds: None,
        steps: vec![],
        approval_address: None,
        taker: v.taker.clone(),
        recipient: v.recipient.clone(),
        slippage_bps: v.slippage_bps,
        expires_at: 0,
    }
}

fn row(v: &Validated, provider: &str, provider_ref: Option<String>, raw: Value) -> QuoteRow {
    QuoteRow {
        quote_id: String::new(),
        provider: provider.into(),
        from_chain: v.from.key.into(),
        to_chain: v.to.key.into(),
        token_in: v.token_in.clone(),
        token_out: v.token_out.clone(),
        amount_in: v.amount_in.to_string(),
        taker: v.taker.clone(),
        recipient: v.recipient.clone(),
        provider_ref,
        provider_quote: raw,
        quote: Value::Null,
        expires_at: 0,
    }
}

#[utoipa::path(
    post,
    path = "/swap/cross-chain/quote",
    operation_id = "cross_chain_quote",
    request_body = CrossChainRequest,
    responses(
        (status = 200, body = CrossChainQuote, description = "A quote; follow its transfer at the status link",
            links(
                ("status" = (
                    operation_id = "status",
                    parameters(
                        ("quoteId" = "$response.body#/quoteId"),
                        ("originChainKey" = "$request.body#/fromChainKey"),
                        ("toChainKey" = "$request.body#/toChainKey")
                    ),
                    description = "The transfer of this quote (poll with `originTxHash` once the origin transaction is sent)"
                ))
            )
        ),
        (status = 400, body = web::error::ErrorBody, description = "MISSING_PARAMS, SAME_CHAIN, INVALID_ADDRESS (e.g. a destination wallet in the wrong format), INVALID_PARAMS, UNSUPPORTED_CHAIN"),
        (status = 503, body = web::error::ErrorBody, description = "NO_CROSS_CHAIN_ROUTE: neither LI.FI nor Relay has a route"),
    ),
    tag = "cross-chain"
)]
pub async fn quote(
    State(state): State<Aggregator>,
    ApiJson(req): ApiJson<CrossChainRequest>,
) -> Result<Json<CrossChainQuote>, ApiError> {
    let v = super::validate(&req)?;
    let mut why = Vec::new();
    let mut found = None;
    match from_lifi(&state, &v).await {
        Ok(Some(q)) => found = Some(q),
        Ok(None) => why.push("LI.FI has no route".to_string()),
        Err(e) => why.push(format!("LI.FI failed ({})", e.message)),
    }
    if found.is_none() {
        match from_relay(&state, &v).await {
            Ok(Some(q)) => found = Some(q),
            Ok(None) => why.push("Relay has no route".to_string()),
            Err(e) => why.push(format!("Relay failed ({})", e.message)),
        }
    }
    let Some((mut quote, mut row)) = found else {
        if state.lifi.is_none() && state.relay.is_none() {
            return Err(no_cross_chain_route(
                "no bridge aggregator is configured on this service",
            ));
        }
        return Err(no_cross_chain_route(&why.join("; ")));
    };
    let now = state.now();
    quote.quote_id = new_quote_id();
    quote.expires_at = now + CROSS_CHAIN_QUOTE_TTL_SECS;
    row.quote_id = quote.quote_id.clone();
    row.expires_at = quote.expires_at;
    row.quote = serde_json::to_value(&quote).unwrap_or(json!({}));
    store::insert_quote(&state.store, &row, now).await?;
    Ok(Json(quote))
}
