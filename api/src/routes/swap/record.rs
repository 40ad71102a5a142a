//! `POST /swap/record`: a client records the swap it executed (any chain), for analytics and
//! attribution, checked against the transaction on its chain ([`super::verify`]). Idempotent on the
//! transaction hash.

use super::verify::{self, Verdict};
use super::verify_evm_record as multichain_record;
use crate::body::ApiJson;
use crate::chains::{self, ChainKind};
use crate::error::ApiError;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use utoipa::openapi::{ObjectBuilder, OneOfBuilder, RefOr, Schema, Type};
use utoipa::ToSchema;

/// A swap record. Its schema: one shape per chain family (chain keys, address and hash formats).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordRequest {
    pub chain_key: String,
    pub dex_id: String,
    pub token_in: String,
    pub token_out: String,
    pub amount_in: String,
    pub amount_out: String,
    #[serde(default)]
    pub protocol_fee: Option<String>,
    #[serde(default, deserialize_with = "crate::body::opt_u16")]
    pub fee_bps: Option<u16>,
    pub tx_hash: String,
    pub address: String,
    /// `confirmed`.
    #[serde(default = "confirmed")]
    pub status: String,
    /// `agent`.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub client_id: Option<String>,
}

fn confirmed() -> String {
    RECORD_STATUSES[0].into()
}

/// What a record's `status` can be (the first is the default).
pub const RECORD_STATUSES: [&str; 3] = ["confirmed", "pending", "failed"];
/// Most characters in a `dexId`.
pub const MAX_DEX_ID_CHARS: usize = 64;

impl utoipa::PartialSchema for RecordRequest {
    fn schema() -> RefOr<Schema> {
        use crate::chains::{address_of, chain_keys, hash_of};
        use crate::schema::{self, nullable, object, one_of};
        let amount = || schema::amount(0, u128::MAX);
        let text = || nullable(ObjectBuilder::new().schema_type(Type::String));
        [ChainKind::Solana, ChainKind::Evm]
            .into_iter()
            .fold(OneOfBuilder::new(), |variants, kind| {
                variants.item(object(vec![
                    ("chainKey", one_of(chain_keys(kind)).into(), true),
                    ("dexId", schema::text(1, MAX_DEX_ID_CHARS).into(), true),
                    ("tokenIn", address_of(kind), true),
                    ("tokenOut", address_of(kind), true),
                    ("amountIn", amount().into(), true),
                    ("amountOut", amount().into(), true),
                    ("protocolFee", nullable(amount()), false),
                    (
                        "feeBps",
                        nullable(schema::integer(0, u64::from(u16::MAX))),
                        false,
                    ),
                    ("txHash", hash_of(kind), true),
                    ("address", address_of(kind), true),
                    ("status", one_of(RECORD_STATUSES).into(), false),
                    ("source", text(), false),
                    ("clientId", text(), false),
                ]))
            })
            .into()
    }
}

impl ToSchema for RecordRequest {}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordResponse {
    pub tx_hash: String,
    pub recorded: bool,
    /// The hash was already recorded; the first record stands (unless it was unverified and this one
    /// verified: then this one replaced it).
    pub duplicate: bool,
    pub recorded_at: i64,
    /// The chain showed the stored record: the transaction landed, `address` signed (Solana) or sent (EVM)
    /// it, and it moved at least the recorded amounts. `false`: the node did not know the transaction yet
    /// (record it again later to verify it).
    pub verified: bool,
    /// The stored status: `failed` when the transaction failed on chain, `confirmed` when it succeeded,
    /// else what the record said.
    pub status: String,
    /// The stored amounts, base units: a verified record's are at most what the chain shows moved.
    pub amount_in: String,
    pub amount_out: String,
}

#[utoipa::path(
    post,
    path = "/swap/record",
    request_body = RecordRequest,
    responses(
        (status = 200, body = RecordResponse, description = "Recorded, or already recorded (idempotent on txHash)"),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_PARAMS (also: the transaction on chain contradicts the record: another signer or sender, other tokens, smaller amounts; nothing is stored), INVALID_ADDRESS, UNSUPPORTED_CHAIN"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "swap"
)]
pub async fn record(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<RecordRequest>,
) -> Result<Json<RecordResponse>, ApiError> {
    let clients = Clients::of(&headers);
    Ok(Json(record_swap(&state, req, clients).await?))
}

/// Who sent a record, as its headers say (each at most 128 characters).
#[derive(Debug, Clone, Default)]
pub struct Clients {
    pub id: Option<String>,
    pub name: Option<String>,
    pub source: Option<String>,
}

impl Clients {
    pub fn of(headers: &HeaderMap) -> Clients {
        let header = |n: &str| {
            headers
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.chars().take(128).collect::<String>())
        };
        Clients {
            id: header("x-client-id"),
            name: header("x-client-name"),
            source: header("x-client-source"),
        }
    }
}

impl RecordRequest {
    /// The record's fields checked, each in its chain's format: the chain.
    pub fn validate(&self) -> Result<&'static chains::ChainInfo, ApiError> {
        let chain = chains::required_chain("chainKey", Some(&self.chain_key))?;
        chains::chain_address("tokenIn", chain, Some(&self.token_in))?;
        chains::chain_address("tokenOut", chain, Some(&self.token_out))?;
        chains::chain_address("address", chain, Some(&self.address))?;
        let tx_hash = self.tx_hash.trim();
        let valid_hash = match chain.kind {
            ChainKind::Solana => tx_hash.parse::<solana_signature::Signature>().is_ok(),
            ChainKind::Evm => tx_hash
                .strip_prefix("0x")
                .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())),
        };
        if !valid_hash {
            return Err(ApiError::invalid(format!(
                "`txHash` is not a {} transaction hash",
                chain.name
            )));
        }
        for (name, v) in [
            ("amountIn", &self.amount_in),
            ("amountOut", &self.amount_out),
        ] {
            v.parse::<u128>().map_err(|_| {
                ApiError::invalid(format!("`{name}` must be an integer in base units"))
            })?;
        }
        if let Some(f) = &self.protocol_fee {
            f.parse::<u128>()
                .map_err(|_| ApiError::invalid("`protocolFee` must be an integer in base units"))?;
        }
        if self.dex_id.is_empty() || self.dex_id.chars().count() > MAX_DEX_ID_CHARS {
            return Err(ApiError::invalid("`dexId` must be 1 to 64 characters"));
        }
        if !RECORD_STATUSES.contains(&self.status.as_str()) {
            return Err(ApiError::invalid(
                "`status` must be `confirmed`, `pending` or `failed`",
            ));
        }
        Ok(chain)
    }
}

/// What the chain says about the recorded transaction, asked on its chain.
async fn verdict(
    state: &AppState,
    chain: &chains::ChainInfo,
    req: &RecordRequest,
) -> Result<Verdict, ApiError> {
    let amount = |v: &str| v.parse::<u128>().unwrap_or(0);
    match chain.kind {
        ChainKind::Solana => {
            let claim = verify::Claim {
                address: &req.address,
                tx_hash: &req.tx_hash,
                token_in: &req.token_in,
                token_out: &req.token_out,
                amount_in: &req.amount_in,
                amount_out: &req.amount_out,
            };
            verify::solana(state, claim).await
        }
        ChainKind::Evm => {
            multichain_record(
                state,
                chain,
                &req.address,
                &req.tx_hash,
                (&req.token_in, &req.token_out),
                (amount(&req.amount_in), amount(&req.amount_out)),
            )
            .await
        }
    }
}

/// The record `req`, checked against its chain and stored (idempotent on its hash): what is kept.
pub async fn record_swap(
    state: &AppState,
    req: RecordRequest,
    clients: Clients,
) -> Result<RecordResponse, ApiError> {
    let chain = req.validate()?;
    let verdict = verdict(state, chain, &req).await?;
    let (status, amounts) = match verdict {
        Verdict::Verified(a, b) => ("confirmed".to_string(), Some((a, b))),
        Verdict::Failed => ("failed".to_string(), None),
        Verdict::Unverified => (req.status.clone(), None),
    };
    let now = state.now();
    let record = index::store::SwapRecord {
        tx_hash: req.tx_hash.trim().to_string(),
        chain_key: req.chain_key,
        dex_id: req.dex_id,
        token_in: req.token_in,
        token_out: req.token_out,
        amount_in: amounts.map_or(req.amount_in, |a| a.0.to_string()),
        amount_out: amounts.map_or(req.amount_out, |a| a.1.to_string()),
        protocol_fee: req.protocol_fee,
        fee_bps: req.fee_bps,
        address: req.address,
        status,
        verified: verdict != Verdict::Unverified,
        source: req.source,
        client_id: req.client_id.or(clients.id),
        client_name: clients.name,
        client_source: clients.source,
    };
    let kept = state.store.record_swap(&record, now).await?;
    Ok(RecordResponse {
        tx_hash: record.tx_hash,
        recorded: true,
        duplicate: kept.duplicate,
        recorded_at: kept.recorded_at,
        verified: kept.verified,
        status: kept.status,
        amount_in: kept.amount_in,
        amount_out: kept.amount_out,
    })
}
