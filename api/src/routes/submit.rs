//! `POST /swap/submit-solana`: relays a wallet-signed transaction and reports whether it confirmed.

use crate::body::ApiJson;
use crate::error::ApiError;
use crate::json::Json;
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use solana_transaction::TransactionError;
use std::time::{Duration, Instant};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// How long the relay waits for confirmation before answering `confirmed: false`.
pub const CONFIRM_WAIT: Duration = Duration::from_secs(30);

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubmitRequest {
    /// Base64 of the signed, serialized transaction.
    #[schema(schema_with = signed_transaction_schema)]
    pub signed_transaction: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubmitResponse {
    pub signature: String,
    /// Confirmed within 30 s (false: still pending; poll the signature or re-build if the blockhash expired).
    pub confirmed: bool,
}

/// Base64 of at most a packet (what a transaction can be), with its padding.
fn signed_transaction_schema() -> utoipa::openapi::Object {
    let max = crate::solana::PACKET_DATA_SIZE.div_ceil(3) * 4;
    crate::schema::text(4, max)
        .pattern(Some(
            "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
        ))
        .build()
}

fn submit_failed(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, code, message)
}

/// The most specific code for a refused send, naming our programs' errors.
fn send_error(
    tx: &solana_transaction::versioned::VersionedTransaction,
    e: &solana_rpc_client_api::client_error::Error,
) -> ApiError {
    let text = e.to_string();
    match e.get_transaction_error() {
        Some(TransactionError::BlockhashNotFound) => submit_failed(
            "SOLANA_BLOCKHASH_EXPIRED",
            "the transaction's blockhash expired: build it again and sign promptly",
        ),
        Some(err) => {
            let reason = crate::solana::explain(tx, &err).unwrap_or_else(|| err.to_string());
            submit_failed(
                "SOLANA_SIMULATION_FAILED",
                format!("the transaction fails: {reason}"),
            )
        }
        None if text.contains("Blockhash not found") || text.contains("BlockhashNotFound") => {
            submit_failed(
                "SOLANA_BLOCKHASH_EXPIRED",
                "the transaction's blockhash expired: build it again and sign promptly",
            )
        }
        None => submit_failed("SOLANA_SUBMIT_FAILED", format!("sending failed: {text}")),
    }
}

#[utoipa::path(
    post,
    path = "/swap/submit-solana",
    request_body = SubmitRequest,
    responses(
        (status = 200, body = SubmitResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_PARAMS, NOT_SIGNED, BAD_SIGNATURE"),
        (status = 503, body = crate::error::ErrorBody, description = "SOLANA_SUBMIT_FAILED, or more specific: SOLANA_BLOCKHASH_EXPIRED, SOLANA_SIMULATION_FAILED, SOLANA_TRANSACTION_FAILED"),
    ),
    tag = "swap"
)]
pub async fn submit(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<SubmitRequest>,
) -> Result<Json<SubmitResponse>, ApiError> {
    let tx = crate::solana::signed_transaction(&req.signed_transaction)?;
    let signature = match state.rpc.send_transaction(&tx).await {
        Ok(signature) => signature,
        // Sent before (a client retrying): report its outcome like a fresh send's.
        Err(e) if e.get_transaction_error() == Some(TransactionError::AlreadyProcessed) => {
            tx.signatures[0]
        }
        Err(e) => return Err(send_error(&tx, &e)),
    };
    let start = Instant::now();
    while start.elapsed() < CONFIRM_WAIT {
        if let Ok(r) = state.rpc.get_signature_statuses(&[signature]).await {
            if let Some(Some(s)) = r.value.first() {
                if let Some(err) = &s.err {
                    return Err(submit_failed(
                        "SOLANA_TRANSACTION_FAILED",
                        format!("transaction {signature} failed: {err}"),
                    ));
                }
                if s.satisfies_commitment(solana_commitment_config::CommitmentConfig::confirmed()) {
                    return Ok(Json(SubmitResponse {
                        signature: signature.to_string(),
                        confirmed: true,
                    }));
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(Json(SubmitResponse {
        signature: signature.to_string(),
        confirmed: false,
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(submit))
}
