//! `GET /swap/allowance`: how much of `token` the `owner` lets `spender` move, read from the chain
//! (ERC-20 `allowance`) over the chain's RPC. EVM chains only: Solana has no approvals.

use crate::Aggregator;
use alloy::primitives::U256;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use swap_core::chains::{self, ChainKind};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};
use web::error::{ApiError, ErrorCode};
use web::extract::ApiQuery;
use web::json::Json;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AllowanceQuery {
    pub chain_key: Option<String>,
    pub token: Option<String>,
    pub owner: Option<String>,
    pub spender: Option<String>,
}

impl IntoParams for AllowanceQuery {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        use swap_core::chains::chain_keys;
        use utoipa::openapi::path::ParameterIn::Query;
        use web::extract::param;
        use web::schema::{evm_address, one_of};
        vec![
            param(
                Query,
                "chainKey",
                true,
                "An EVM chain",
                one_of(chain_keys(ChainKind::Evm)),
            ),
            param(
                Query,
                "token",
                true,
                "The ERC-20 token (the native token needs no approval)",
                evm_address(),
            ),
            param(Query, "owner", true, "The wallet", evm_address()),
            param(
                Query,
                "spender",
                true,
                "The address that moves the tokens (a route's `spender`)",
                evm_address(),
            ),
        ]
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AllowanceResponse {
    /// Base units, decimal string. The native token reports the largest uint256: it needs no approval.
    pub allowance: String,
    pub token: String,
    pub owner: String,
    pub spender: String,
    pub chain_key: String,
    /// `token` is the chain's native token.
    pub native: bool,
}

#[utoipa::path(
    get,
    path = "/swap/allowance",
    params(AllowanceQuery),
    responses(
        (status = 200, body = AllowanceResponse),
        (status = 400, body = web::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS, INVALID_PARAMS (not an ERC-20), UNSUPPORTED_CHAIN (Solana has no approvals)"),
        (status = 503, body = web::error::ErrorBody, description = "UNAVAILABLE: the chain's RPC node"),
    ),
    tag = "swap"
)]
pub async fn allowance(
    State(state): State<Aggregator>,
    ApiQuery(q): ApiQuery<AllowanceQuery>,
) -> Result<Json<AllowanceResponse>, ApiError> {
    let chain = chains::required_chain("chainKey", q.chain_key.as_deref())?;
    if chain.kind == ChainKind::Solana {
        return Err(ApiError::new(
            ErrorCode::UnsupportedChain,
            "allowances exist on EVM chains only: Solana swaps need no approval",
        ));
    }
    let token = chains::evm_address("token", chain, q.token.as_deref())?;
    let owner = chains::evm_address("owner", chain, q.owner.as_deref())?;
    let spender = chains::evm_address("spender", chain, q.spender.as_deref())?;
    let native = chains::is_evm_native(&token);
    let allowance = if native {
        U256::MAX
    } else {
        state.evm.allowance(chain, token, owner, spender).await?
    };
    Ok(Json(AllowanceResponse {
        allowance: allowance.to_string(),
        token: token.to_checksum(None),
        owner: owner.to_checksum(None),
        spender: spender.to_checksum(None),
        chain_key: chain.key.into(),
        native,
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Aggregator: axum::extract::FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(allowance))
}
