//! `POST /swap/cross-chain/build`: the origin-chain transaction of a persisted quote and the ordered
//! `executionSteps` the wallet goes through (an exact ERC-20 approval when one is missing, the bridge
//! transaction, then polling status). Refused while the wallet has another transfer in flight.

use super::{CrossChainRequest, Validated};
use crate::evm::{EvmChains, EvmTransaction};
use crate::transfers::store::{self, QuoteRow};
use crate::Aggregator;
use alloy::primitives::{Address, U256};
use anchor_lang::solana_program::instruction::{AccountMeta, Instruction};
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use swap_core::chains::{self, ChainKind};
use swap_core::shapes::{invalid_route, quote_expired};
use utoipa::ToSchema;
use web::body::ApiJson;
use web::error::{ApiError, ErrorCode};
use web::json::Json;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrossChainBuildRequest {
    /// The quote request.
    pub request: CrossChainRequest,
    /// The quote returned (only its `quoteId` is read; the persisted quote is authoritative).
    #[schema(schema_with = quote_schema)]
    pub quote: Value,
}

/// An object with the quote's `quoteId` (any other field is ignored).
fn quote_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::Object)
        .property("quoteId", super::quote::quote_id_schema())
        .required("quoteId")
        .build()
}

/// One thing the wallet does, in order.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionStep {
    /// 1-based order.
    pub step: u32,
    /// `approve`, `bridge` (a bridge with any swaps around it) or `wait`.
    #[serde(rename = "type")]
    pub kind: String,
    pub chain_key: String,
    /// What the wallet signs: `evm-transaction`, `solana-transaction`, or `none` (nothing to sign).
    pub sign: String,
    pub description: String,
    /// EVM steps: the transaction to sign and send with the wallet's own RPC.
    pub transaction: Option<EvmTransaction>,
    /// Solana steps: base64 of an unsigned versioned transaction.
    pub solana_transaction: Option<String>,
}

/// The origin transaction (EVM fields at the top level, as in `/swap/build`, or `solanaTransaction`)
/// and every step.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrossChainBuild {
    pub quote_id: String,
    pub provider: String,
    pub from_chain_key: String,
    pub chain_id: Option<u64>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub data: Option<String>,
    pub value: Option<String>,
    /// Gas limit, decimal string; null when the bridge transaction waits on an approval first (it is
    /// simulated only once it can succeed: build again after approving to get it simulated).
    pub gas: Option<String>,
    pub solana_transaction: Option<String>,
    /// A Solana origin transaction this service assembled (Relay's instructions): its blockhash and the
    /// last block height it can land at. Null for EVM origins and for LI.FI's ready-made transactions (LI.FI
    /// chose their blockhash).
    pub blockhash: Option<String>,
    pub last_valid_block_height: Option<u64>,
    /// The origin transaction ran from the wallet with `eth_call` (EVM) or was simulated (Solana).
    pub simulated: bool,
    pub execution_steps: Vec<ExecutionStep>,
}

fn upstream_tx(provider: &str, what: &str) -> ApiError {
    crate::aggregators::http::malformed(provider, what)
}

/// The origin EVM transaction the provider quoted.
pub(super) fn evm_origin(q: &QuoteRow, chain_id: u64) -> Result<EvmTransaction, ApiError> {
    let t = match q.provider.as_str() {
        "lifi" => q.provider_quote["transactionRequest"].clone(),
        _ => relay_items(&q.provider_quote)
            .next()
            .map(|i| i["data"].clone())
            .ok_or_else(|| upstream_tx("Relay", "a deposit transaction"))?,
    };
    let text = |k: &str| t[k].as_str().map(str::to_string);
    Ok(EvmTransaction {
        chain_id,
        from: q.taker.clone(),
        to: text("to").ok_or_else(|| upstream_tx(&q.provider, "transaction `to`"))?,
        data: text("data").ok_or_else(|| upstream_tx(&q.provider, "transaction `data`"))?,
        value: crate::evm::quantity(&t["value"]),
        gas: None,
    })
}

/// Relay's transaction items other than approvals (we build the exact approval ourselves).
fn relay_items(raw: &Value) -> impl Iterator<Item = &Value> {
    raw["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["id"].as_str() != Some("approve") && s["kind"].as_str() != Some("signature"))
        .flat_map(|s| s["items"].as_array().into_iter().flatten())
}

/// The origin Solana transaction: LI.FI gives it serialized; Relay gives instructions, assembled here
/// into a v0 transaction with its lookup tables.
async fn solana_origin(
    state: &Aggregator,
    q: &QuoteRow,
) -> Result<(String, Option<swap_core::solana::Lifetime>), ApiError> {
    if q.provider == "lifi" {
        return q.provider_quote["transactionRequest"]["data"]
            .as_str()
            .map(|tx| (tx.to_string(), None))
            .ok_or_else(|| upstream_tx("LI.FI", "a Solana transaction"));
    }
    let payer: anchor_lang::prelude::Pubkey = q
        .taker
        .parse()
        .map_err(|_| ApiError::invalid("`taker` is not a Solana address"))?;
    let key = |s: &Value| {
        s.as_str()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| upstream_tx("Relay", "a valid instruction key"))
    };
    let mut instructions = Vec::new();
    let mut tables = Vec::new();
    for item in relay_items(&q.provider_quote) {
        for ix in item["data"]["instructions"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let accounts = ix["keys"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|k| {
                    Ok(AccountMeta {
                        pubkey: key(&k["pubkey"])?,
                        is_signer: k["isSigner"].as_bool().unwrap_or(false),
                        is_writable: k["isWritable"].as_bool().unwrap_or(false),
                    })
                })
                .collect::<Result<Vec<_>, ApiError>>()?;
            let data = ix["data"].as_str().unwrap_or_default();
            instructions.push(Instruction {
                program_id: key(&ix["programId"])?,
                accounts,
                data: alloy::primitives::hex::decode(data)
                    .map_err(|_| upstream_tx("Relay", "hex instruction data"))?,
            });
        }
        for t in item["data"]["addressLookupTableAddresses"]
            .as_array()
            .into_iter()
            .flatten()
        {
            tables.push(key(t)?);
        }
    }
    if instructions.is_empty() {
        return Err(upstream_tx("Relay", "Solana instructions"));
    }
    swap_core::solana::unsigned_transaction_with_tables(&state.rpc, &payer, &instructions, &tables)
        .await
        .map(|c| (c.transaction, Some(c.lifetime)))
}

fn wait_step(q: &QuoteRow) -> ExecutionStep {
    ExecutionStep {
        step: 0,
        kind: "wait".into(),
        chain_key: q.to_chain.clone(),
        sign: "none".into(),
        description: format!(
            "Poll GET /swap/cross-chain/status/{}?originChainKey={}&originTxHash=<the bridge transaction's \
             hash>&toChainKey={} until `status` is `done` or `failed` (usually a few minutes, up to about \
             fifteen). Keep native gas on both chains; start no other bridge meanwhile.",
            q.quote_id, q.from_chain, q.to_chain
        ),
        transaction: None,
        solana_transaction: None,
    }
}

fn check_request(q: &QuoteRow, v: &Validated) -> Result<(), ApiError> {
    let same = q.from_chain == v.from.key
        && q.to_chain == v.to.key
        && q.token_in == v.token_in
        && q.token_out == v.token_out
        && q.amount_in == v.amount_in.to_string()
        && q.taker == v.taker
        && q.recipient == v.recipient;
    if same {
        Ok(())
    } else {
        Err(invalid_route(
            "`quote` was made for another request: send the request the quote answered",
        ))
    }
}

#[utoipa::path(
    post,
    path = "/swap/cross-chain/build",
    operation_id = "cross_chain_build",
    request_body = CrossChainBuildRequest,
    responses(
        (status = 200, body = CrossChainBuild),
        (status = 400, body = web::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ROUTE, QUOTE_EXPIRED, SAME_CHAIN, INVALID_ADDRESS"),
        (status = 404, body = web::error::ErrorBody, description = "NOT_FOUND: unknown quoteId"),
        (status = 409, body = web::error::ErrorBody, description = "BRIDGE_IN_FLIGHT: the wallet's previous transfer has not settled"),
        (status = 422, body = web::error::ErrorBody, description = "SIMULATION_FAILED, INSUFFICIENT_BALANCE"),
    ),
    tag = "cross-chain"
)]
pub async fn build(
    State(state): State<Aggregator>,
    ApiJson(req): ApiJson<CrossChainBuildRequest>,
) -> Result<Json<CrossChainBuild>, ApiError> {
    let v = super::validate(&req.request)?;
    let quote_id = req.quote["quoteId"]
        .as_str()
        .ok_or_else(|| ApiError::missing("quote.quoteId"))?;
    let q = store::quote(&state.store, quote_id).await?.ok_or_else(|| {
        ApiError::not_found(format!("no cross-chain quote `{quote_id}`: quote again"))
    })?;
    check_request(&q, &v)?;
    if q.expires_at < state.now() {
        return Err(quote_expired());
    }
    let now = state.now();
    store::expire_unrecognized(
        &state.store,
        &q.taker,
        now.saturating_sub(state.config.cross_chain_expiry_secs),
        now,
    )
    .await?;
    if let Some(other) = store::in_flight(&state.store, &q.taker, &q.quote_id).await? {
        return Err(ApiError::new(ErrorCode::BridgeInFlight,
            format!(
                "this wallet's transfer `{other}` has not settled: poll GET /swap/cross-chain/status/{other} \
                 until it is done or failed before starting another bridge"
            ),
        ));
    }
    let mut build = match v.from.kind {
        ChainKind::Evm => evm_build(&state, &v, &q).await?,
        ChainKind::Solana => solana_build(&state, &v, &q).await?,
    };
    build.execution_steps.push(wait_step(&q));
    for (i, s) in build.execution_steps.iter_mut().enumerate() {
        s.step = i as u32 + 1;
    }
    store::mark_built(&state.store, &q.quote_id, state.now()).await?;
    Ok(Json(build))
}

/// An EVM origin: the exact approval when the allowance is short (the bridge transaction is simulated
/// only once it can succeed), else the bridge transaction simulated with its gas.
async fn evm_build(
    state: &Aggregator,
    v: &Validated,
    q: &QuoteRow,
) -> Result<CrossChainBuild, ApiError> {
    let chain_id = v.from.chain_id.unwrap_or_default();
    let mut tx = evm_origin(q, chain_id)?;
    let invalid =
        |what: &str| ApiError::invalid(format!("the quote's {what} is not an EVM address"));
    let taker: Address = q.taker.parse().map_err(|_| invalid("taker"))?;
    let token_in: Address = q.token_in.parse().map_err(|_| invalid("tokenIn"))?;
    let amount = U256::from(v.amount_in);
    let balance = state.evm.balance(v.from, token_in, taker).await?;
    if balance < amount {
        return Err(ApiError::new(
            ErrorCode::InsufficientBalance,
            format!(
                "the wallet holds {balance} base units of tokenIn; the transfer needs {amount}"
            ),
        ));
    }
    let spender = q.quote["approvalAddress"]
        .as_str()
        .and_then(|s| s.parse::<Address>().ok())
        .or_else(|| tx.to.parse().ok());
    let short = match (chains::is_evm_native(&token_in), spender) {
        (false, Some(spender)) => {
            state
                .evm
                .allowance(v.from, token_in, taker, spender)
                .await?
                < amount
        }
        _ => false,
    };
    let mut steps = Vec::new();
    match (short, spender) {
        (true, Some(spender)) => steps.push(ExecutionStep {
            step: 0,
            kind: "approve".into(),
            chain_key: v.from.key.into(),
            sign: "evm-transaction".into(),
            description: format!(
                "Approve exactly {amount} base units of {} to {spender} (ERC-20 approve), and wait for it \
                 to confirm.",
                q.token_in
            ),
            transaction: Some(EvmTransaction {
                chain_id,
                from: q.taker.clone(),
                to: token_in.to_checksum(None),
                data: EvmChains::approve_calldata(spender, amount),
                value: "0".into(),
                gas: None,
            }),
            solana_transaction: None,
        }),
        _ => tx.gas = Some(state.evm.simulate(v.from, &tx).await?.limit.to_string()),
    }
    steps.push(ExecutionStep {
        step: 0,
        kind: "bridge".into(),
        chain_key: v.from.key.into(),
        sign: "evm-transaction".into(),
        description: bridge_description(q),
        transaction: Some(tx.clone()),
        solana_transaction: None,
    });
    Ok(CrossChainBuild {
        quote_id: q.quote_id.clone(),
        provider: q.provider.clone(),
        from_chain_key: v.from.key.into(),
        chain_id: Some(chain_id),
        simulated: tx.gas.is_some(),
        from: Some(tx.from),
        to: Some(tx.to),
        data: Some(tx.data),
        value: Some(tx.value),
        gas: tx.gas,
        solana_transaction: None,
        blockhash: None,
        last_valid_block_height: None,
        execution_steps: steps,
    })
}

/// A Solana origin: one transaction, simulated when the RPC node can.
async fn solana_build(
    state: &Aggregator,
    v: &Validated,
    q: &QuoteRow,
) -> Result<CrossChainBuild, ApiError> {
    let (tx, lifetime) = solana_origin(state, q).await?;
    let simulated = swap_core::solana::simulate(&state.rpc, &tx).await.is_ok();
    Ok(CrossChainBuild {
        quote_id: q.quote_id.clone(),
        provider: q.provider.clone(),
        from_chain_key: v.from.key.into(),
        chain_id: None,
        from: Some(q.taker.clone()),
        to: None,
        data: None,
        value: None,
        gas: None,
        solana_transaction: Some(tx.clone()),
        blockhash: lifetime.as_ref().map(|l| l.blockhash.clone()),
        last_valid_block_height: lifetime.map(|l| l.last_valid_block_height),
        simulated,
        execution_steps: vec![ExecutionStep {
            step: 0,
            kind: "bridge".into(),
            chain_key: v.from.key.into(),
            sign: "solana-transaction".into(),
            description: format!(
                "{} Sign promptly (it carries a recent blockhash) and send it with your own RPC or POST \
                 /swap/submit-solana.",
                bridge_description(q)
            ),
            transaction: None,
            solana_transaction: Some(tx),
        }],
    })
}

fn bridge_description(q: &QuoteRow) -> String {
    let via = q.quote["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            format!(
                "{} via {}",
                s["type"].as_str().unwrap_or("bridge"),
                s["tool"].as_str().unwrap_or("?")
            )
        })
        .collect::<Vec<_>>()
        .join(", then ");
    format!(
        "Send the bridge transaction on {} ({via}); {} receives at least {} base units of {} on {}.",
        q.from_chain,
        q.recipient,
        q.quote["minAmountOut"].as_str().unwrap_or("?"),
        q.quote["toToken"]["address"].as_str().unwrap_or(&q.token_out),
        q.to_chain
    )
}
