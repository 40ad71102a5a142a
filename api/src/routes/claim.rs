//! `POST /launchpad/claim`: an unsigned transaction that pays a creator's or the partner's fees.

use crate::body::ApiJson;
use crate::error::{address, ApiError};
use crate::json::Json;
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimRequest {
    /// The claiming wallet: the launch's creator, or the partner.
    #[schema(schema_with = crate::schema::solana_address)]
    pub creator: String,
    /// The launchpad pool.
    #[schema(schema_with = crate::schema::solana_address)]
    pub pool: String,
    /// `trading`, `surplus` or `locked-lp`.
    #[schema(schema_with = kind_schema)]
    pub kind: String,
}

/// What a claim can take.
pub const CLAIM_KINDS: [&str; 3] = ["trading", "surplus", "locked-lp"];

fn kind_schema() -> utoipa::openapi::Object {
    crate::schema::one_of(CLAIM_KINDS).build()
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimResponse {
    /// Base64 of an unsigned v0 transaction for the wallet to sign and post to `/swap/submit-solana`.
    pub solana_transaction: String,
    pub kind: String,
    /// `creator` or `partner`.
    pub role: String,
    pub pool: String,
    /// What the claim pays as of the index's latest state, base units.
    pub quote_amount: String,
    pub base_amount: String,
    #[serde(flatten)]
    pub lifetime: crate::solana::Lifetime,
}

#[utoipa::path(
    post,
    path = "/launchpad/claim",
    request_body = ClaimRequest,
    responses(
        (status = 200, body = ClaimResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS, INVALID_KIND"),
        (status = 403, body = crate::error::ErrorBody, description = "NOT_ENTITLED: the wallet is neither the creator nor the partner"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: unknown pool"),
        (status = 409, body = crate::error::ErrorBody, description = "NOTHING_TO_CLAIM"),
        (status = 422, body = crate::error::ErrorBody, description = "SIMULATION_FAILED: the claim would fail"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn claim(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ClaimRequest>,
) -> Result<Json<ClaimResponse>, ApiError> {
    let wallet = address("creator", Some(&req.creator))?;
    let pool = address("pool", Some(&req.pool))?;
    let Some(kind) = CLAIM_KINDS.into_iter().find(|k| *k == req.kind) else {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "INVALID_KIND",
            "`kind` must be `trading`, `surplus` or `locked-lp`",
        ));
    };
    let curve = state
        .store
        .curve_by_pool(&pool)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no launchpad pool {pool}")))?;
    let partner = curve.config.partner;
    if wallet != curve.pool.creator && wallet != partner {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "NOT_ENTITLED",
            "only the launch's creator or the partner can claim from this pool",
        ));
    }
    let owed = state
        .store
        .unclaimed(&wallet)
        .await?
        .into_iter()
        .find(|u| u.pool == pool.to_string() && u.kind == kind)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::CONFLICT,
                "NOTHING_TO_CLAIM",
                format!("{wallet} has no {kind} fees to claim from this pool"),
            )
        })?;
    let keys = LaunchKeys::new(
        curve.pool.creator,
        curve.pool.config,
        curve.pool.quote_mint,
        curve.pool.base_mint,
    );
    let quote_account =
        sdk::associated_token_address(&wallet, &keys.quote_mint, &keys.quote_token_program);
    let quote_ata = lix::create_ata_idempotent(
        &wallet,
        &wallet,
        &keys.quote_mint,
        &keys.quote_token_program,
    );
    let mut ixs = match kind {
        "trading" => vec![
            quote_ata,
            lix::claim_trading_fee(&keys, &wallet, &quote_account),
        ],
        "surplus" => vec![
            quote_ata,
            lix::claim_surplus(&keys, &wallet, &quote_account),
        ],
        _ => {
            let amm = keys.amm_keys();
            let position = if owed.role == "creator" {
                keys.creator_position()
            } else {
                keys.partner_position()
            };
            vec![
                lix::create_ata_idempotent(&wallet, &wallet, &amm.mint_a, &amm.token_program_a),
                lix::create_ata_idempotent(&wallet, &wallet, &amm.mint_b, &amm.token_program_b),
                lix::claim_locked_lp_fee(&keys, &wallet, &position),
            ]
        }
    };
    if keys.quote_mint == sdk::ids::NATIVE_MINT {
        // Paid in SOL: the claim arrives as SOL, not in a wrapped-SOL account the wallet pays rent for.
        ixs.push(lix::unwrap_sol(&wallet));
    }
    let built =
        crate::solana::unsigned_transaction(&state.rpc, &wallet, &ixs, state.fee_policy(None))
            .await?;
    Ok(Json(ClaimResponse {
        solana_transaction: built.transaction,
        lifetime: built.lifetime,
        kind: kind.into(),
        role: owed.role.into(),
        pool: pool.to_string(),
        quote_amount: owed.quote_amount.to_string(),
        base_amount: owed.base_amount.to_string(),
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(claim))
}
