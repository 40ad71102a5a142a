//! `GET /swap/cross-chain/status/{quoteId}`: where a transfer stands, in the one state machine of
//! [`crate::transfers`]. The first call with `originTxHash` starts following the transfer; every poll
//! asks the provider (until a terminal state) and persists each transition.

use crate::aggregators::lifi::chain_id as lifi_chain_id;
use crate::transfers::{self, store, Status};
use crate::Aggregator;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use swap_core::chains::{self, ChainKind};
use utoipa::{IntoParams, ToSchema};
use web::error::{ApiError, ErrorCode};
use web::extract::{ApiPath, ApiQuery};
use web::json::Json;

pub struct QuotePath;

impl IntoParams for QuotePath {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![web::extract::path_param(
            "quoteId",
            "From the cross-chain quote",
            super::quote::quote_id_schema(),
        )]
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct StatusQuery {
    /// Must match the quote's origin chain when given.
    #[param(schema_with = chain_key_schema)]
    pub origin_chain_key: Option<String>,
    /// The origin (bridge) transaction's hash (a signature on Solana); required on the first poll.
    #[param(schema_with = origin_hash_schema)]
    pub origin_tx_hash: Option<String>,
    /// Must match the quote's destination chain when given.
    #[param(schema_with = chain_key_schema)]
    pub to_chain_key: Option<String>,
}

fn chain_key_schema() -> utoipa::openapi::Object {
    web::schema::one_of(chains::CHAINS.iter().map(|c| c.key)).build()
}

fn origin_hash_schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    utoipa::openapi::schema::AnyOfBuilder::new()
        .item(swap_core::chains::hash_of(ChainKind::Solana))
        .item(swap_core::chains::hash_of(ChainKind::Evm))
        .into()
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Transition {
    pub status: Status,
    pub substatus: String,
    /// Unix seconds.
    pub at: i64,
}

/// A transfer's status.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransferStatus {
    pub quote_id: String,
    pub provider: String,
    /// `pending`, `done` or `failed`.
    pub status: Status,
    /// `pending`: WAIT_SOURCE_CONFIRMATIONS, WAIT_DESTINATION_TRANSACTION, REFUND_IN_PROGRESS,
    /// BRIDGE_NOT_AVAILABLE, CHAIN_NOT_AVAILABLE, UNKNOWN or DELAYED; `done`: COMPLETED, PARTIAL or
    /// REFUNDED; `failed`: the provider's reason (e.g. SLIPPAGE_EXCEEDED) or INVALID_TRANSACTION.
    pub substatus: String,
    /// Pending past the delay threshold (15 min by default): late, not lost; keep polling.
    pub delayed: bool,
    /// `done` or `failed`: the state will not change again.
    pub terminal: bool,
    /// The wallet may start another bridge (the transfer is done or failed).
    pub can_start_another: bool,
    pub message: Option<String>,
    pub origin_chain_key: String,
    pub origin_tx_hash: String,
    pub to_chain_key: String,
    pub destination_tx_hash: Option<String>,
    /// Base units of the received token, when the provider reports it.
    pub amount_received: Option<String>,
    pub started_at: i64,
    pub updated_at: i64,
    pub elapsed_seconds: i64,
    /// The provider could not be asked this time; the state is the last one seen.
    pub stale: bool,
    /// Every transition, oldest first.
    pub history: Vec<Transition>,
}

fn valid_hash(kind: ChainKind, hash: &str) -> bool {
    match kind {
        ChainKind::Solana => hash.parse::<solana_signature::Signature>().is_ok(),
        ChainKind::Evm => hash
            .strip_prefix("0x")
            .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())),
    }
}

/// Refuses to follow `hash` unless the origin chain has it: `ORIGIN_NOT_FOUND` (409, nothing bound; poll
/// again once it is sent) when the chain does not know it, `TX_MISMATCH` (400) when it was not sent by the
/// quote's taker, or, from an EVM chain, not to the bridge contract the build returned.
async fn origin_on_chain(
    state: &Aggregator,
    q: &store::QuoteRow,
    from: &chains::ChainInfo,
    hash: &str,
) -> Result<(), ApiError> {
    let not_found = || {
        ApiError::new(
            ErrorCode::OriginNotFound,
            format!(
                "{} does not know transaction {hash} yet: poll again once it is sent",
                from.name
            ),
        )
    };
    let mismatch = |what: &str| {
        ApiError::new(
            ErrorCode::TxMismatch,
            format!("transaction {hash} is not this quote's transfer: {what}"),
        )
    };
    match from.kind {
        ChainKind::Evm => {
            let parsed = hash
                .parse()
                .map_err(|_| ApiError::invalid("`originTxHash` is not a transaction hash"))?;
            let (sender, to) = state
                .evm
                .transaction(from, parsed)
                .await?
                .ok_or_else(not_found)?;
            let bridge = super::build::evm_origin(q, from.chain_id.unwrap_or_default())?.to;
            if q.taker.parse::<alloy::primitives::Address>().ok() != Some(sender) {
                return Err(mismatch("it was not sent by the quote's taker"));
            }
            if bridge.parse::<alloy::primitives::Address>().ok() != to {
                return Err(mismatch("it was not sent to the bridge the build returned"));
            }
        }
        ChainKind::Solana => {
            let signature: solana_signature::Signature = hash
                .parse()
                .map_err(|_| ApiError::invalid("`originTxHash` is not a transaction signature"))?;
            if swap_core::solana::signature_status(&state.rpc, &signature)
                .await?
                .is_none()
            {
                return Err(not_found());
            }
            let tx = swap_core::solana::confirmed_transaction(&state.rpc, &signature)
                .await
                .map_err(|_| not_found())?;
            let payer = tx
                .transaction
                .transaction
                .decode()
                .and_then(|t| t.message.static_account_keys().first().copied());
            if payer.map(|p| p.to_string()) != Some(q.taker.clone()) {
                return Err(mismatch("it was not paid for by the quote's taker"));
            }
        }
    }
    Ok(())
}

/// What the provider says now, in the state machine (`Err` when it cannot be asked).
async fn ask_provider(
    state: &Aggregator,
    q: &store::QuoteRow,
    origin_tx_hash: &str,
) -> Result<store::Observation, ApiError> {
    let (from, to) = (chains::chain(&q.from_chain), chains::chain(&q.to_chain));
    let (Some(from), Some(to)) = (from, to) else {
        return Err(ApiError::invalid("the quote names an unknown chain"));
    };
    match q.provider.as_str() {
        "lifi" => {
            let lifi = state
                .lifi
                .as_ref()
                .ok_or_else(|| ApiError::unavailable("LI.FI is not configured on this service"))?;
            let bridge = q.provider_ref.as_deref().unwrap_or_default();
            let s = lifi
                .status(
                    origin_tx_hash,
                    lifi_chain_id(from),
                    lifi_chain_id(to),
                    bridge,
                )
                .await?;
            Ok(store::Observation {
                state: transfers::from_lifi(&s.status, s.substatus.as_deref()),
                destination_tx_hash: s.destination_tx_hash,
                amount_received: s.amount_received,
                message: s.message,
            })
        }
        _ => {
            let relay = state
                .relay
                .as_ref()
                .ok_or_else(|| ApiError::unavailable("Relay is not configured on this service"))?;
            let id = q
                .provider_ref
                .as_deref()
                .ok_or_else(|| ApiError::invalid("the Relay quote has no requestId"))?;
            let s = relay.status(id).await?;
            Ok(store::Observation {
                state: transfers::from_relay(&s.status),
                destination_tx_hash: s.destination_tx_hash,
                amount_received: None,
                message: None,
            })
        }
    }
}

#[utoipa::path(
    get,
    path = "/swap/cross-chain/status/{quoteId}",
    params(QuotePath, StatusQuery),
    responses(
        (status = 200, body = TransferStatus),
        (status = 400, body = web::error::ErrorBody, description = "MISSING_PARAMS (originTxHash on the first poll), INVALID_PARAMS"),
        (status = 404, body = web::error::ErrorBody, description = "NOT_FOUND: unknown quoteId"),
    ),
    tag = "cross-chain"
)]
pub async fn status(
    State(state): State<Aggregator>,
    ApiPath(quote_id): ApiPath<String>,
    ApiQuery(params): ApiQuery<StatusQuery>,
) -> Result<Json<TransferStatus>, ApiError> {
    let q = store::quote(&state.store, &quote_id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no cross-chain quote `{quote_id}`")))?;
    for (field, given, expected) in [
        ("originChainKey", &params.origin_chain_key, &q.from_chain),
        ("toChainKey", &params.to_chain_key, &q.to_chain),
    ] {
        if given.as_deref().is_some_and(|g| g.trim() != expected) {
            return Err(ApiError::invalid(format!(
                "`{field}` does not match the quote (`{expected}`)"
            )));
        }
    }
    let from =
        chains::chain(&q.from_chain).ok_or_else(|| ApiError::invalid("unknown origin chain"))?;
    let hash = params
        .origin_tx_hash
        .as_deref()
        .map(str::trim)
        .filter(|h| !h.is_empty());
    if let Some(h) = hash {
        if !valid_hash(from.kind, h) {
            return Err(ApiError::invalid(format!(
                "`originTxHash` is not a {} transaction hash",
                from.name
            )));
        }
    }
    let now = state.now();
    let transfer = match store::transfer(&state.store, &quote_id).await? {
        Some(t) => {
            if hash.is_some_and(|h| h != t.origin_tx_hash) {
                return Err(ApiError::invalid(format!(
                    "this quote's transfer is already followed with origin transaction {}",
                    t.origin_tx_hash
                )));
            }
            t
        }
        None => {
            let hash = hash.ok_or_else(|| ApiError::missing("originTxHash"))?;
            // Bound only once found on the origin chain, sent by the taker to the bridge.
            origin_on_chain(&state, &q, from, hash).await?;
            let first = transfers::from_lifi("NOT_FOUND", None);
            store::start_transfer(&state.store, &q, hash, &first, now).await?;
            store::transfer(&state.store, &quote_id)
                .await?
                .ok_or_else(|| ApiError::unavailable("the transfer was not saved; retry"))?
        }
    };
    let mut stale = false;
    if !transfer.state.status.is_terminal() {
        let mut seen = match ask_provider(&state, &q, &transfer.origin_tx_hash).await {
            Ok(seen) => seen,
            Err(e) => {
                tracing::warn!(quote_id, "status poll failed: {}", e.message);
                stale = true;
                store::Observation {
                    state: transfer.state.clone(),
                    destination_tx_hash: None,
                    amount_received: None,
                    message: transfer.message.clone(),
                }
            }
        };
        // Late is late even when the provider cannot be asked.
        seen.state = transfers::with_delay(
            seen.state,
            transfer.started_at,
            now,
            state.config.cross_chain_delay_secs,
        );
        let recognized = !transfers::unrecognized(&seen.state.substatus)
            || store::recognized(&state.store, &quote_id).await?;
        seen.state = transfers::with_expiry(
            seen.state,
            recognized,
            transfer.started_at,
            now,
            state.config.cross_chain_expiry_secs,
        );
        if seen.state.substatus == transfers::EXPIRED {
            seen = store::Observation::expired();
        }
        if !stale || seen.state != transfer.state {
            store::record_poll(&state.store, &quote_id, &seen, now).await?;
        }
    }
    let t = store::transfer(&state.store, &quote_id)
        .await?
        .ok_or_else(|| ApiError::unavailable("the transfer was not found; retry"))?;
    let history = store::history(&state.store, &quote_id)
        .await?
        .into_iter()
        .map(|(status, substatus, at)| Transition {
            status: Status::parse(&status).unwrap_or(Status::Pending),
            substatus,
            at,
        })
        .collect();
    Ok(Json(TransferStatus {
        quote_id: q.quote_id.clone(),
        provider: q.provider.clone(),
        status: t.state.status,
        delayed: t.state.substatus == transfers::DELAYED,
        terminal: t.state.status.is_terminal(),
        can_start_another: !transfers::in_flight(t.state.status),
        substatus: t.state.substatus,
        message: t.message,
        origin_chain_key: q.from_chain.clone(),
        origin_tx_hash: t.origin_tx_hash,
        to_chain_key: q.to_chain.clone(),
        destination_tx_hash: t.destination_tx_hash,
        amount_received: t.amount_received,
        started_at: t.started_at,
        updated_at: t.updated_at,
        elapsed_seconds: now - t.started_at,
        stale,
        history,
    }))
}
