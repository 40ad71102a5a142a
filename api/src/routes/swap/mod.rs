//! Same-chain swaps: `POST /swap/quote`, `POST /swap/build`, `POST /swap/record`. The handlers read the
//! request's `chainKey` and hand over to the chain family: `solana` (own pools, Jupiter) or the EVM
//! aggregator ([`crate::multichain`]: KyberSwap, 0x). Route entries have one shape on every chain (`common`).

pub mod common;
pub mod record;
pub mod seal;
pub mod solana;
pub mod verify;

use crate::body::ApiJson;
use crate::chains::{self, ChainKind};
use crate::error::ApiError;
use crate::json::Json;
use crate::multichain;
use crate::AppState;
use axum::extract::State;
use common::{
    max_amount, BuildRequest, QuoteRequest, QuoteResponse, Route, HUMAN, MAX_SLIPPAGE_BPS,
};
use serde::Serialize;
use utoipa::openapi::{OneOfBuilder, RefOr, Schema};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// [`QuoteRequest`]'s schema is the swap area's: it names every chain family's keys and tokens.
impl utoipa::PartialSchema for QuoteRequest {
    fn schema() -> RefOr<Schema> {
        quote_request_schema()
    }
}

impl ToSchema for QuoteRequest {}

/// [`QuoteRequest`]'s schema: one shape per chain family (its chain keys, address format and largest
/// amount), with the amount in base units (`amountIn`), or in whole tokens (`amount`, `amountUnit`
/// `human`) of a token whose decimals the service knows on its own (each EVM chain's catalog and native
/// token, SOL; the USDC and launches it indexes are accepted too).
pub fn quote_request_schema() -> RefOr<Schema> {
    use crate::schema::{self, address_of, chain_keys, nullable, object, one_of, with_example};
    let mut variants = OneOfBuilder::new();
    for kind in [ChainKind::Solana, ChainKind::Evm] {
        let max = max_amount(kind);
        // Examples of two different tokens: SOL or the native token, and USDC.
        let (native, usdc) = match kind {
            ChainKind::Solana => (
                sdk::ids::NATIVE_MINT.to_string(),
                "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v".to_string(),
            ),
            ChainKind::Evm => (
                chains::EVM_NATIVE.to_string().to_lowercase(),
                "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48".to_string(),
            ),
        };
        let common = |keys: Vec<&str>, token_in: RefOr<Schema>| {
            vec![
                ("chainKey", one_of(keys).into(), true),
                ("tokenIn", token_in, true),
                ("tokenOut", with_example(address_of(kind), &usdc), true),
                (
                    "slippageBps",
                    nullable(
                        schema::integer(0, u64::from(MAX_SLIPPAGE_BPS))
                            .default(Some(common::DEFAULT_SLIPPAGE_BPS.into()))
                            .description(Some("Tolerance in basis points; default 50 (0.5%)")),
                    ),
                    false,
                ),
                ("taker", nullable(address_of(kind)), false),
            ]
        };
        let exact_in = || {
            (
                "swapMode",
                nullable(
                    one_of([common::SwapMode::EXACT_IN])
                        .description(Some("Default `ExactIn`: spend exactly the amount given")),
                ),
                false,
            )
        };
        let mut base_units = common(
            chain_keys(kind).collect(),
            with_example(address_of(kind), &native),
        );
        base_units.push(("amountIn", schema::amount(1, max).into(), true));
        base_units.push(exact_in());
        variants = variants.item(object(base_units));
        if kind == ChainKind::Solana {
            // Exactly `amountOut` of `tokenOut`, for at most the route's `maxAmountIn`.
            let mut exact_out = common(
                chain_keys(kind).collect(),
                with_example(address_of(kind), &native),
            );
            exact_out.push((
                "swapMode",
                one_of([common::SwapMode::EXACT_OUT]).into(),
                true,
            ));
            exact_out.push(("amountOut", schema::amount(1, max).into(), true));
            variants = variants.item(object(exact_out));
        }
        for (chain, tokens) in human_tokens(kind) {
            let decimals = tokens.iter().map(|(_, d)| *d).min().unwrap_or(0);
            let addresses: Vec<&str> = tokens.iter().map(|(a, _)| a.as_str()).collect();
            let mut human = common(vec![chain], one_of(addresses).into());
            human.push(("amount", schema::human_amount(decimals, max).into(), true));
            human.push(("amountUnit", one_of([HUMAN]).into(), true));
            human.push(exact_in());
            variants = variants.item(object(human));
        }
    }
    variants.into()
}

/// Per chain of `kind`, the tokens whose decimals the service knows without the index: (address, decimals).
fn human_tokens(kind: ChainKind) -> Vec<(&'static str, Vec<(String, u8)>)> {
    chains::CHAINS
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| {
            let tokens = match kind {
                ChainKind::Solana => vec![(sdk::ids::NATIVE_MINT.to_string(), c.native_decimals)],
                ChainKind::Evm => [chains::EVM_NATIVE, chains::EVM_NATIVE_ZERO]
                    .iter()
                    .map(|a| (a.to_checksum(None), c.native_decimals))
                    .chain(multichain::catalog(c.key).map(|t| (t.1.to_string(), t.4)))
                    .collect(),
            };
            (c.key, tokens)
        })
        .collect()
}

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
    multichain::verify_swap_record(state, chain, address, tx_hash, tokens, amounts).await
}

/// `ExactOut` is the launchpad's own pools' (both programs have `swap_exact_out`); the EVM aggregators and
/// Jupiter are asked exact in only.
fn exact_out_on_solana_only(chain: &chains::ChainInfo, req: &QuoteRequest) -> Result<(), ApiError> {
    let mode = common::SwapMode::of(req)?;
    if mode == common::SwapMode::ExactOut && chain.kind != ChainKind::Solana {
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
        ChainKind::Evm => multichain::swap_quote(&state, chain, &req).await?,
    };
    // Every route goes out sealed: a build trusts nothing of a route it cannot verify.
    for entry in std::iter::once(&mut quote.best).chain(quote.quotes.iter_mut()) {
        let content = serde_json::to_value(&entry.route).unwrap_or_default();
        entry.route = Route::Sealed(state.route_keys.seal(content));
    }
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
    Evm(Box<multichain::EvmBuild>),
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
        ChainKind::Evm => {
            BuildResponse::Evm(Box::new(multichain::swap_build(&state, chain, &req).await?))
        }
    }))
}
