//! Same-chain swaps: `POST /swap/quote`, `POST /swap/build`, `POST /swap/record`. The handlers read the
//! request's `chainKey` and hand over to the chain family: `solana` (own pools, Jupiter) or the EVM
//! aggregator (the `aggregator` crate: KyberSwap, 0x). Route entries have one shape on every chain
//! (`swap_core::shapes`).

pub mod record;
pub mod seal;
pub mod solana;
pub mod verify;

use crate::body::ApiJson;
use crate::chains::{self, ChainKind};
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use serde::Serialize;
use swap_core::shapes::{self, BuildRequest, QuoteRequest, QuoteResponse, Route};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(quote))
        .routes(routes!(build))
        .routes(routes!(record::record))
}

/// `POST /swap/record` on an EVM chain: the record against the transaction's receipt.
pub(crate) async fn verify_evm_record(
    state: &AppState,
    chain: &chains::ChainInfo,
    address: &str,
    tx_hash: &str,
    tokens: (&str, &str),
    amounts: (u128, u128),
) -> Result<verify::Verdict, ApiError> {
    aggregator::verify_swap_record(&state.aggregator, chain, address, tx_hash, tokens, amounts)
        .await
}

/// `ExactOut` is the launchpad's own pools' (both programs have `swap_exact_out`); the EVM aggregators and
/// Jupiter are asked exact in only.
fn exact_out_on_solana_only(chain: &chains::ChainInfo, req: &QuoteRequest) -> Result<(), ApiError> {
    let mode = shapes::SwapMode::of(req)?;
    if mode == shapes::SwapMode::ExactOut && chain.kind != ChainKind::Solana {
        return Err(ApiError::invalid(
            "`swapMode` `ExactOut` is available on Solana (the launchpad's own pools) only",
        ));
    }
    Ok(())
}

/// The chain a swap request names.
fn chain_of(req: &QuoteRequest) -> Result<&'static chains::ChainInfo, ApiError> {
    chains::required_chain("chainKey", req.chain_key.as_deref())
}

#[utoipa::path(
    post,
    path = "/swap/quote",
    request_body = QuoteRequest,
    responses(
        (status = 200, body = QuoteResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, SAME_TOKEN, INVALID_PARAMS, INVALID_ADDRESS, UNSUPPORTED_CHAIN"),
        (status = 404, body = crate::error::ErrorBody, description = "NO_ROUTE: no executable route for the pair and amount"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE, UPSTREAM_RATE_LIMITED"),
    ),
    tag = "swap"
)]
pub async fn quote(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<QuoteRequest>,
) -> Result<Json<QuoteResponse>, ApiError> {
    let chain = chain_of(&req)?;
    exact_out_on_solana_only(chain, &req)?;
    let mut quote = match chain.kind {
        ChainKind::Solana => solana::quote(&state, &req).await?,
        ChainKind::Evm => aggregator::swap_quote(&state.aggregator, chain, &req).await?,
    };
    // Every route goes out sealed: a build trusts nothing of a route it cannot verify. `best` is the first
    // entry's copy on every venue: its seal is that entry's (it was sealed twice).
    let best_is_first = quote
        .quotes
        .first()
        .is_some_and(|first| first.route == quote.best.route);
    for entry in quote.quotes.iter_mut() {
        let content = serde_json::to_value(&entry.route).unwrap_or_default();
        entry.route = Route::Sealed(state.route_keys.seal(content));
    }
    quote.best.route = match quote.quotes.first() {
        Some(first) if best_is_first => first.route.clone(),
        _ => {
            let content = serde_json::to_value(&quote.best.route).unwrap_or_default();
            Route::Sealed(state.route_keys.seal(content))
        }
    };
    if let Route::Sealed(best) = &quote.best.route {
        quote.expires_at = best["expiresAt"].as_i64().unwrap_or(quote.expires_at);
    }
    Ok(Json(quote))
}

/// A built swap: a Solana transaction, or EVM fields at the top level (there is no `evm` key).
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum BuildResponse {
    Solana(solana::SolanaBuild),
    Evm(Box<aggregator::EvmBuild>),
}

#[utoipa::path(
    post,
    path = "/swap/build",
    request_body = BuildRequest,
    responses(
        (status = 200, body = BuildResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_PARAMS, INVALID_ROUTE, QUOTE_EXPIRED"),
        (status = 409, body = crate::error::ErrorBody, description = "ROUTE_STALE: the token left the route's venue since the quote (a curve route after graduation): quote again"),
        (status = 422, body = crate::error::ErrorBody, description = "SIMULATION_FAILED, INSUFFICIENT_BALANCE, INSUFFICIENT_ALLOWANCE: the transaction would fail"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "swap"
)]
pub async fn build(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<BuildRequest>,
) -> Result<Json<BuildResponse>, ApiError> {
    let chain = chain_of(&req.request)?;
    exact_out_on_solana_only(chain, &req.request)?;
    // The route as this service quoted it, or INVALID_ROUTE (a whole route entry is accepted too).
    let sealed = req.route.get("route").unwrap_or(&req.route);
    let req = BuildRequest {
        route: state.route_keys.open(sealed)?,
        ..req
    };
    Ok(Json(match chain.kind {
        ChainKind::Solana => BuildResponse::Solana(solana::build(&state, &req).await?),
        ChainKind::Evm => BuildResponse::Evm(Box::new(
            aggregator::swap_build(&state.aggregator, chain, &req).await?,
        )),
    }))
}
