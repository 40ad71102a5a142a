//! `POST /launchpad/creator/propose` and `POST /launchpad/creator/accept`: unsigned transactions of the creator
//! role's two-step handover (the programs' `propose_creator` and `accept_creator`). Once accepted, every
//! creator claim (trading fees already accrued included, surplus, the locked position's AMM fees) is the new
//! holder's: `GET /launchpad/fees` lists them under its address and `POST /launchpad/claim` builds them.

use crate::body::ApiJson;
use crate::error::{address, ApiError, ErrorCode};
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProposeCreatorRequest {
    /// The launchpad pool.
    #[schema(schema_with = crate::schema::solana_address)]
    pub pool: String,
    /// The creator now (signs).
    #[schema(schema_with = crate::schema::solana_address)]
    pub creator: String,
    /// The wallet to hand the role to (a team wallet, a multisig). Nothing changes until it accepts.
    #[schema(schema_with = crate::schema::solana_address)]
    pub new_creator: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcceptCreatorRequest {
    /// The launchpad pool.
    #[schema(schema_with = crate::schema::solana_address)]
    pub pool: String,
    /// The proposed wallet (signs).
    #[schema(schema_with = crate::schema::solana_address)]
    pub new_creator: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatorTxResponse {
    /// Base64 of an unsigned v0 transaction for the signer to sign and post to `/swap/submit-solana`.
    pub solana_transaction: String,
    pub pool: String,
    /// The creator before the handover.
    pub creator: String,
    /// The wallet the role goes to.
    pub new_creator: String,
    #[serde(flatten)]
    pub lifetime: crate::solana::Lifetime,
}

/// The pool as indexed, and its launch keys.
pub(crate) async fn pool_of(
    state: &AppState,
    pool: &sdk::Pubkey,
) -> Result<(index::read::CurveState, LaunchKeys), ApiError> {
    let curve = state
        .store
        .curve_by_pool(pool)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no launchpad pool {pool}")))?;
    let keys = LaunchKeys::new(
        curve.pool.creator,
        curve.pool.config,
        curve.pool.quote_mint,
        curve.pool.base_mint,
    );
    Ok((curve, keys))
}

#[utoipa::path(
    post,
    path = "/launchpad/creator/propose",
    request_body = ProposeCreatorRequest,
    responses(
        (status = 200, body = CreatorTxResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS, INVALID_PARAMS (the creator itself)"),
        (status = 403, body = crate::error::ErrorBody, description = "NOT_ENTITLED: the signer is not the pool's creator"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: unknown pool"),
        (status = 422, body = crate::error::ErrorBody, description = "SIMULATION_FAILED"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn propose(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ProposeCreatorRequest>,
) -> Result<Json<CreatorTxResponse>, ApiError> {
    let pool = address("pool", Some(&req.pool))?;
    let creator = address("creator", Some(&req.creator))?;
    let new_creator = address("newCreator", Some(&req.new_creator))?;
    let (curve, keys) = pool_of(&state, &pool).await?;
    if creator != curve.pool.creator {
        return Err(ApiError::new(
            ErrorCode::NotEntitled,
            format!("{creator} is not this pool's creator"),
        ));
    }
    if new_creator == creator {
        return Err(ApiError::invalid("`newCreator` is already the creator"));
    }
    let ix = lix::propose_creator(&keys, &creator, &new_creator);
    let built =
        crate::solana::unsigned_transaction(&state.rpc, &creator, &[ix], state.fee_policy(None))
            .await?;
    Ok(Json(CreatorTxResponse {
        solana_transaction: built.transaction,
        pool: pool.to_string(),
        creator: creator.to_string(),
        new_creator: new_creator.to_string(),
        lifetime: built.lifetime,
    }))
}

#[utoipa::path(
    post,
    path = "/launchpad/creator/accept",
    request_body = AcceptCreatorRequest,
    responses(
        (status = 200, body = CreatorTxResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: unknown pool"),
        (status = 409, body = crate::error::ErrorBody, description = "NOT_PROPOSED: the creator has not proposed this wallet (as the index has it)"),
        (status = 422, body = crate::error::ErrorBody, description = "SIMULATION_FAILED"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn accept(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<AcceptCreatorRequest>,
) -> Result<Json<CreatorTxResponse>, ApiError> {
    let pool = address("pool", Some(&req.pool))?;
    let new_creator = address("newCreator", Some(&req.new_creator))?;
    let (curve, keys) = pool_of(&state, &pool).await?;
    if curve.pool.pending_creator != new_creator {
        return Err(ApiError::new(
            ErrorCode::NotProposed,
            format!("the creator of this pool has not proposed {new_creator}"),
        ));
    }
    let ix = lix::accept_creator(&keys, &new_creator);
    let built = crate::solana::unsigned_transaction(
        &state.rpc,
        &new_creator,
        &[ix],
        state.fee_policy(None),
    )
    .await?;
    Ok(Json(CreatorTxResponse {
        solana_transaction: built.transaction,
        pool: pool.to_string(),
        creator: curve.pool.creator.to_string(),
        new_creator: new_creator.to_string(),
        lifetime: built.lifetime,
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(propose))
        .routes(routes!(accept))
}
