//! `POST /launchpad/record`: a landed launch, checked against what was prepared and against the chain
//! (confirmed, signed by the creator, holding this mint's `create_launch`, its pool on chain), then listed.

use super::request::{Launch, LaunchRequest};
use crate::body::ApiJson;
use crate::error::{address, ApiError, ErrorCode};
use crate::json::Json;
use crate::state::AppState;
use anchor_lang::prelude::Pubkey;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchRecordRequest {
    #[serde(flatten)]
    pub launch: LaunchRequest,
    /// The mint (from prepare).
    #[schema(schema_with = crate::schema::solana_address)]
    pub token_address: String,
    /// The signature of the confirmed launch transaction.
    #[schema(schema_with = crate::schema::solana_signature)]
    pub deploy_tx_hash: String,
    /// From prepare.
    #[serde(rename = "metadataURI")]
    pub metadata_uri: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchRecordResponse {
    pub mint: String,
    pub pool: String,
    pub deploy_tx_hash: String,
    /// The token is on the discovery listing (`GET /launchpad/launches`).
    pub listed: bool,
    /// Unix seconds of the first record.
    pub recorded_at: i64,
}

#[utoipa::path(
    post,
    path = "/launchpad/record",
    operation_id = "launch_record",
    request_body = LaunchRecordRequest,
    responses(
        (status = 200, body = LaunchRecordResponse, description = "Recorded (idempotent: the same record answers the same)"),
        (status = 400, body = crate::error::ErrorBody, description = "validation codes of prepare, INVALID_SIGNATURE, TX_MISMATCH"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: not prepared by this service"),
        (status = 409, body = crate::error::ErrorBody, description = "NOT_CONFIRMED (retry once confirmed) or ALREADY_RECORDED (with another transaction)"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn record(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<LaunchRecordRequest>,
) -> Result<Json<LaunchRecordResponse>, ApiError> {
    Ok(Json(record_launch(&state, &req).await?))
}

/// The launch `req` records: answered again as first recorded when it was (idempotent), else checked
/// against its prepared launch and the chain, then marked recorded.
pub async fn record_launch(
    state: &AppState,
    req: &LaunchRecordRequest,
) -> Result<LaunchRecordResponse, ApiError> {
    let launch = req.launch.validate()?;
    let mint = address("tokenAddress", Some(&req.token_address))?;
    let signature: solana_signature::Signature =
        req.deploy_tx_hash.trim().parse().map_err(|_| {
            ApiError::new(
                ErrorCode::InvalidSignature,
                "`deployTxHash` is not a transaction signature",
            )
        })?;
    let row = state
        .store
        .prepared(&mint.to_string())
        .await?
        .ok_or_else(|| ApiError::not_found(format!("{mint} was not prepared by this service")))?;
    same_as_prepared(&row, req, &launch)?;
    let pool = sdk::pda::pool(&mint);
    let recorded = |deploy_tx_hash: String, recorded_at: i64| LaunchRecordResponse {
        mint: mint.to_string(),
        pool: pool.to_string(),
        deploy_tx_hash,
        listed: true,
        recorded_at,
    };
    if let (Some(sig), Some(at)) = (row.deploy_signature.clone(), row.recorded_at) {
        if sig == signature.to_string() {
            return Ok(recorded(sig, at));
        }
        return Err(ApiError::new(
            ErrorCode::AlreadyRecorded,
            format!("{mint} was recorded with transaction {sig}"),
        ));
    }
    deploy_landed(state, &signature, &mint, &launch.creator, &row.uri).await?;
    let now = state.now();
    state
        .store
        .mark_recorded(&mint.to_string(), &signature.to_string(), now)
        .await?;
    Ok(recorded(signature.to_string(), now))
}

/// The record describes the launch that was prepared, field for field: `TX_MISMATCH` naming the first
/// field that differs.
fn same_as_prepared(
    row: &index::store::PreparedRecord,
    req: &LaunchRecordRequest,
    launch: &Launch,
) -> Result<(), ApiError> {
    let link = |l: &Option<String>| l.clone().unwrap_or_default();
    let prepared: [(&str, String, String); 10] = [
        ("creator", row.creator.clone(), launch.creator.to_string()),
        ("metadataURI", row.uri.clone(), req.metadata_uri.clone()),
        ("name", row.name.clone(), req.launch.name.clone()),
        ("symbol", row.symbol.clone(), req.launch.symbol.clone()),
        (
            "description",
            row.description.clone(),
            req.launch.description.clone(),
        ),
        (
            "curvePreset",
            row.preset.clone(),
            launch.preset.name().to_string(),
        ),
        ("quote", row.quote.clone(), launch.quote.name().to_string()),
        (
            "website",
            link(&row.website),
            launch.website.clone().unwrap_or_default(),
        ),
        (
            "twitter",
            link(&row.twitter),
            launch.twitter.clone().unwrap_or_default(),
        ),
        (
            "telegram",
            link(&row.telegram),
            launch.telegram.clone().unwrap_or_default(),
        ),
    ];
    match prepared.iter().find(|(_, was, now)| was != now) {
        Some((field, _, _)) => Err(ApiError::new(
            ErrorCode::TxMismatch,
            format!("`{field}` differs from what prepare was given for this mint"),
        )),
        None => Ok(()),
    }
}

/// The deploy transaction landed as the launch of `mint` by `creator` with metadata `uri`: confirmed,
/// successful, holding that `create_launch`, and this mint's pool is on chain.
async fn deploy_landed(
    state: &AppState,
    signature: &solana_signature::Signature,
    mint: &Pubkey,
    creator: &Pubkey,
    uri: &str,
) -> Result<(), ApiError> {
    let status = crate::solana::signature_status(&state.rpc, signature).await?;
    match status {
        Some(s) if s.err.is_some() => {
            return Err(ApiError::new(
                ErrorCode::TxFailed,
                "the deploy transaction failed on chain",
            ))
        }
        Some(s)
            if s.satisfies_commitment(solana_commitment_config::CommitmentConfig::confirmed()) => {}
        _ => {
            return Err(ApiError::new(
                ErrorCode::NotConfirmed,
                "the deploy transaction is not confirmed yet; retry shortly",
            ))
        }
    }
    let tx = crate::solana::confirmed_transaction(&state.rpc, signature)
        .await
        .map_err(|e| {
            tracing::warn!("getTransaction {signature}: {e}");
            ApiError::unavailable("the deploy transaction cannot be read")
        })?;
    if !crate::chain::deploy::launches(&tx, mint, creator, uri)? {
        return Err(ApiError::new(ErrorCode::TxMismatch,
            "the transaction is not this mint's deploy: it has no launchpad `create_launch` of this mint by \
             this creator with the prepared metadata URI (e.g. a later buy)",
        ));
    }
    let pool_ok = match state.rpc.get_account(&sdk::pda::pool(mint)).await {
        Ok(a) => sdk::accounts::decode_pool(&a.data)
            .is_some_and(|p| p.base_mint == *mint && p.creator == *creator),
        Err(_) => false,
    };
    if !pool_ok {
        return Err(ApiError::new(
            ErrorCode::TxMismatch,
            "the transaction did not launch this mint for this creator",
        ));
    }
    Ok(())
}
