//! `POST /swap/submit-solana`: relays a wallet-signed transaction and reports whether it confirmed.

use crate::body::ApiJson;
use crate::chain::confirmations::Outcome;
use crate::error::{ApiError, ErrorCode};
use crate::http::admission::Refusal;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{Extensions, HeaderMap};
use serde::{Deserialize, Serialize};
use solana_transaction::TransactionError;
use std::time::{Duration, Instant};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// How long the relay then waits for the index to hold the transaction's slot before answering
/// `indexed: false` (the indexer commits a confirmed slot well within it when it keeps up).
pub const INDEX_WAIT: Duration = Duration::from_secs(3);

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
    /// Confirmed within the relay's wait, 30 s by default (false: still pending; poll the signature or
    /// re-build if the blockhash expired).
    pub confirmed: bool,
    /// The index already holds the transaction's slot (within 3 s of confirmation): a quote, curve, trade
    /// list or fee read made after this answer reflects the transaction. False while the index is behind:
    /// such a read may not see it yet (a quote made on the state before it can fail its slippage check).
    pub indexed: bool,
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

/// The programs the relay sends transactions of by default: this service's two, Jupiter's (its Solana
/// routes), and the ones a wallet's transaction around them uses.
pub fn default_relay_programs() -> Vec<solana_pubkey::Pubkey> {
    use solana_pubkey::Pubkey;
    vec![
        sdk::LAUNCHPAD_PROGRAM_ID,
        sdk::AMM_PROGRAM_ID,
        Pubkey::from_str_const("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"),
        Pubkey::from_str_const("ComputeBudget111111111111111111111111111111"),
        Pubkey::from_str_const("11111111111111111111111111111111"),
        Pubkey::from_str_const("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
        Pubkey::from_str_const("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"),
        Pubkey::from_str_const("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"),
        Pubkey::from_str_const("MemoSq4gqABAXKd9ZXPqgv3vEbDHw9aNBzQtyEy4KWd"),
        Pubkey::from_str_const("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo"),
    ]
}

/// Refuses a transaction calling a program the relay does not serve, before anything is sent.
fn check_programs(
    config: &crate::process::config::ApiConfig,
    tx: &solana_transaction::versioned::VersionedTransaction,
) -> Result<(), ApiError> {
    if config.relay_any_program {
        return Ok(());
    }
    let keys = tx.message.static_account_keys();
    let allowed = default_relay_programs();
    for ix in tx.message.instructions() {
        let program = keys.get(usize::from(ix.program_id_index));
        match program {
            Some(p) if allowed.contains(p) || config.relay_programs.contains(p) => {}
            _ => {
                return Err(ApiError::new(ErrorCode::ProgramNotAllowed,
                    format!(
                        "this relay sends transactions of this service's programs (and Jupiter's, Compute \
                         Budget, System, SPL Token, Token-2022, Associated Token Account, Memo); {} is not one: \
                         send it through your own RPC node",
                        program.map_or("an unknown program".to_string(), |p| p.to_string())
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// The most specific code for a refused send, naming our programs' errors.
fn send_error(
    tx: &solana_transaction::versioned::VersionedTransaction,
    e: &solana_rpc_client_api::client_error::Error,
) -> ApiError {
    let text = e.to_string();
    match e.get_transaction_error() {
        Some(TransactionError::BlockhashNotFound) => ApiError::new(
            ErrorCode::SolanaBlockhashExpired,
            "the transaction's blockhash expired: build it again and sign promptly",
        ),
        Some(err) => {
            let reason = crate::solana::explain(tx, &err).unwrap_or_else(|| err.to_string());
            ApiError::new(
                ErrorCode::SolanaSimulationFailed,
                format!("the transaction fails: {reason}"),
            )
        }
        None if text.contains("Blockhash not found") || text.contains("BlockhashNotFound") => {
            ApiError::new(
                ErrorCode::SolanaBlockhashExpired,
                "the transaction's blockhash expired: build it again and sign promptly",
            )
        }
        None => ApiError::new(
            ErrorCode::SolanaSubmitFailed,
            format!("sending failed: {text}"),
        ),
    }
}

#[utoipa::path(
    post,
    path = "/swap/submit-solana",
    request_body = SubmitRequest,
    responses(
        (status = 200, body = SubmitResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_PARAMS, NOT_SIGNED, BAD_SIGNATURE, PROGRAM_NOT_ALLOWED (an instruction calls a program this relay does not serve; nothing was sent)"),
        (status = 429, body = crate::error::ErrorBody, description = "RATE_LIMITED, or TOO_MANY_RELAYS: the client already waits on as many relayed transactions as it may (nothing was sent)"),
        (status = 503, body = crate::error::ErrorBody, description = "SOLANA_SUBMIT_FAILED, or more specific: SOLANA_BLOCKHASH_EXPIRED, SOLANA_SIMULATION_FAILED, SOLANA_TRANSACTION_FAILED; RELAY_BUSY: this replica waits on as many relayed transactions as it takes (nothing was sent)"),
    ),
    tag = "swap"
)]
pub async fn submit(
    State(state): State<AppState>,
    headers: HeaderMap,
    extensions: Extensions,
    ApiJson(req): ApiJson<SubmitRequest>,
) -> Result<Json<SubmitResponse>, ApiError> {
    let tx = crate::solana::signed_transaction(&req.signed_transaction)?;
    check_programs(&state.config, &tx)?;
    // Held until the answer: the relays a client, and the process, wait on at once are bounded.
    let client = crate::http::layers::client_of(&state.config, &headers, &extensions);
    let _permit = state.relays.admit(client).map_err(|refusal| {
        relayed(Relayed::RefusedByCap);
        match refusal {
        Refusal::PerClient => ApiError::new(ErrorCode::TooManyRelays,
            format!(
                "at most {} relayed transactions per client are awaited at once: wait for one to answer",
                state.config.relay_max_per_client
            ),
        ),
        Refusal::Full => ApiError::new(ErrorCode::RelayBusy,
            format!(
                "this replica awaits {} relayed transactions already: retry shortly (another replica may take it)",
                state.config.relay_max_in_flight
            ),
        ),
    }})?;
    let signature = match state.rpc.send_transaction(&tx).await {
        Ok(signature) => signature,
        // Sent before (a client retrying): report its outcome like a fresh send's.
        Err(e) if e.get_transaction_error() == Some(TransactionError::AlreadyProcessed) => {
            tx.signatures[0]
        }
        Err(e) => {
            relayed(Relayed::Rejected);
            return Err(send_error(&tx, &e));
        }
    };
    relayed(Relayed::Sent);
    let wait = Duration::from_secs(state.config.relay_confirm_wait_secs);
    let (confirmed, indexed) = match state.confirmations().wait(signature, wait).await {
        Outcome::Failed(err) => {
            relayed(Relayed::Failed);
            return Err(ApiError::new(
                ErrorCode::SolanaTransactionFailed,
                format!("transaction {signature} failed: {err}"),
            ));
        }
        // Read-your-writes: the trader's next quote is made on the state after this trade.
        Outcome::Confirmed { slot } => {
            relayed(Relayed::Confirmed);
            (true, indexed_by(&state, slot, INDEX_WAIT).await)
        }
        Outcome::Pending => {
            relayed(Relayed::Expired);
            (false, false)
        }
    };
    Ok(Json(SubmitResponse {
        signature: signature.to_string(),
        confirmed,
        indexed,
    }))
}

/// What became of a relayed transaction, as `relay_transactions_total{outcome}` counts it: refused before
/// sending (`refused_by_cap`: the client's or the replica's cap), refused by the node (`rejected`: preflight,
/// expired blockhash), `sent`, then one of `confirmed`, `failed` (landed and failed) or `expired` (not
/// confirmed within the relay's wait).
#[derive(Debug, Clone, Copy)]
enum Relayed {
    RefusedByCap,
    Rejected,
    Sent,
    Confirmed,
    Failed,
    Expired,
}

fn relayed(outcome: Relayed) {
    let outcome = match outcome {
        Relayed::RefusedByCap => "refused_by_cap",
        Relayed::Rejected => "rejected",
        Relayed::Sent => "sent",
        Relayed::Confirmed => "confirmed",
        Relayed::Failed => "failed",
        Relayed::Expired => "expired",
    };
    metrics::counter!("relay_transactions_total", "outcome" => outcome).increment(1);
}

/// Whether the index holds `slot` within `wait` (polled; the in-process indexer's count is read from
/// memory, else the stored cursor).
async fn indexed_by(state: &AppState, slot: u64, wait: Duration) -> bool {
    let start = Instant::now();
    loop {
        if state.indexed_slot().await.is_some_and(|s| s >= slot) {
            return true;
        }
        if start.elapsed() >= wait {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(submit))
}
