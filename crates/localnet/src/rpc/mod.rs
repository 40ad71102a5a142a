//! Solana JSON-RPC 2.0 over HTTP: the methods wallets, the API, the indexer and common clients use, with the
//! response shapes of `solana-rpc-client-api` so that standard clients parse them unchanged.
//!
//! Two local extensions, namespaced `localnet_`: `localnet_mintUsdc(owner, amount)` mints the local USDC to a
//! wallet, `localnet_advanceClock(seconds)` moves the chain clock forward (for time-based fee schedules), and
//! `localnet_info()` says which mints, programs and partner this chain runs with, and
//! `localnet_setSolUsd(price, age?)` writes the SOL/USD price account (`price` in 10^-8 dollars, published
//! `age` seconds ago; the localnet moves it again at its next tick unless started without a mover).

use crate::chain::SharedChain;
use crate::token::is_token_account;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::{prelude::BASE64_STANDARD, Engine};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use solana_account::{AccountSharedData, ReadableAccount};
use solana_account_decoder::parse_account_data::{
    AccountAdditionalDataV3, SplTokenAdditionalDataV2,
};
use solana_account_decoder::parse_token::token_amount_to_ui_amount_v3;
use solana_account_decoder::{encode_ui_account, UiAccount, UiAccountEncoding, UiDataSliceConfig};
use solana_commitment_config::CommitmentLevel;
use solana_hash::Hash;
use solana_keypair::Keypair;
use solana_pubkey::Pubkey;
use solana_rpc_client_api::config::{
    EncodingConfig, RpcAccountInfoConfig, RpcBlockConfig, RpcContextConfig,
    RpcProgramAccountsConfig, RpcSendTransactionConfig, RpcSignatureStatusConfig,
    RpcSignaturesForAddressConfig, RpcSimulateTransactionConfig, RpcTokenAccountsFilter,
    RpcTransactionConfig,
};
use solana_rpc_client_api::filter::RpcFilterType;
use solana_rpc_client_api::response::{
    Response as RpcResponse, RpcBlockhash, RpcConfirmedTransactionStatusWithSignature,
    RpcKeyedAccount, RpcResponseContext, RpcSimulateTransactionResult, RpcVersionInfo,
};
use solana_signature::Signature;
use solana_signer::Signer;
use solana_transaction::versioned::VersionedTransaction;
use solana_transaction_error::TransactionError;
use solana_transaction_status::{
    ConfirmedTransactionWithStatusMeta, TransactionConfirmationStatus, TransactionStatus,
    TransactionWithStatusMeta, UiCompiledInstruction, UiInnerInstructions, UiInstruction,
    UiTransactionEncoding, VersionedTransactionWithStatusMeta,
};
use std::str::FromStr;
use std::sync::Arc;

mod methods;
use methods::*;

/// JSON-RPC and Solana error codes.
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// `sendTransaction` preflight (simulation) failed; `data` holds the simulation result.
    pub const SEND_TRANSACTION_PREFLIGHT_FAILURE: i64 = -32002;
    pub const TRANSACTION_SIGNATURE_VERIFICATION_FAILURE: i64 = -32003;
    pub const UNSUPPORTED_TRANSACTION_VERSION: i64 = -32015;
}

/// Largest serialized transaction (the packet size), and its encoded lengths.
const PACKET_DATA_SIZE: usize = 1232;
const MAX_BASE58_TX: usize = 1683;
const MAX_BASE64_TX: usize = 1644;
/// Largest request body accepted.
const MAX_BODY_BYTES: usize = 256 * 1024;

/// Keys the chain holds for its local extensions.
pub struct LocalAuthorities {
    pub usdc_mint: Pubkey,
    pub usdc_authority: Keypair,
    pub partner: Pubkey,
    pub admin: Pubkey,
}

#[derive(Clone)]
pub struct RpcState {
    pub chain: SharedChain,
    pub local: Arc<LocalAuthorities>,
}

#[derive(Debug)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    fn internal(e: impl std::fmt::Display) -> Self {
        Self::new(codes::INTERNAL_ERROR, format!("Internal error: {e}"))
    }
}

type RpcResult = Result<Value, RpcError>;

pub fn router(state: RpcState) -> Router {
    let pubsub = Router::new()
        .route("/", get(crate::pubsub::upgrade))
        .with_state(state.chain.clone());
    Router::new()
        .route("/", post(handle))
        .route("/health", get(|| async { "ok" }))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
        .merge(pubsub)
}

/// Serves until `shutdown` resolves.
pub async fn serve_with_listener(
    state: RpcState,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}

async fn handle(State(state): State<RpcState>, body: Bytes) -> Response {
    let parsed: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(_) => {
            return reply(error_object(
                Value::Null,
                RpcError::new(codes::PARSE_ERROR, "Parse error"),
            ))
        }
    };
    match parsed {
        Value::Array(calls) if calls.is_empty() => reply(error_object(
            Value::Null,
            RpcError::new(codes::INVALID_REQUEST, "Invalid request"),
        )),
        Value::Array(calls) => {
            let mut out = Vec::with_capacity(calls.len());
            for call in calls {
                out.push(one(&state, call).await);
            }
            reply(Value::Array(out))
        }
        call => reply(one(&state, call).await),
    }
}

fn reply(v: Value) -> Response {
    (StatusCode::OK, Json(v)).into_response()
}

fn error_object(id: Value, e: RpcError) -> Value {
    let mut error = json!({ "code": e.code, "message": e.message });
    if let Some(data) = e.data {
        error["data"] = data;
    }
    json!({ "jsonrpc": "2.0", "error": error, "id": id })
}

async fn one(state: &RpcState, call: Value) -> Value {
    let id = call.get("id").cloned().unwrap_or(Value::Null);
    let (Some(method), true) = (
        call.get("method").and_then(Value::as_str),
        call.get("jsonrpc").and_then(Value::as_str) == Some("2.0"),
    ) else {
        return error_object(id, RpcError::new(codes::INVALID_REQUEST, "Invalid request"));
    };
    let params = match call.get("params") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => {
            return error_object(
                id,
                RpcError::invalid_params("Invalid params: expected an array"),
            )
        }
    };
    let state = state.clone();
    let method = method.to_string();
    // Bank work is synchronous; keep it off the async workers.
    let result = tokio::task::spawn_blocking(move || dispatch(&state, &method, &params))
        .await
        .unwrap_or_else(|e| Err(RpcError::internal(e)));
    match result {
        Ok(v) => json!({ "jsonrpc": "2.0", "result": v, "id": id }),
        Err(e) => error_object(id, e),
    }
}

fn param<T: DeserializeOwned>(params: &[Value], i: usize, what: &str) -> Result<T, RpcError> {
    let v = params
        .get(i)
        .ok_or_else(|| RpcError::invalid_params(format!("Invalid params: missing {what}")))?;
    serde_json::from_value(v.clone())
        .map_err(|e| RpcError::invalid_params(format!("Invalid params: {what}: {e}")))
}

fn opt_param<T: DeserializeOwned>(
    params: &[Value],
    i: usize,
    what: &str,
) -> Result<Option<T>, RpcError> {
    match params.get(i) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => param(params, i, what).map(Some),
    }
}

fn pubkey(s: &str) -> Result<Pubkey, RpcError> {
    Pubkey::from_str(s).map_err(|_| {
        RpcError::invalid_params(format!("Invalid param: {s:?} is not a valid pubkey"))
    })
}

fn to_value<T: serde::Serialize>(v: T) -> RpcResult {
    serde_json::to_value(v).map_err(RpcError::internal)
}

fn context(slot: u64) -> RpcResponseContext {
    RpcResponseContext::new(slot)
}

fn with_context<T: serde::Serialize>(slot: u64, value: T) -> RpcResult {
    to_value(RpcResponse {
        context: context(slot),
        value,
    })
}

/// Refuses commitments this chain cannot answer below (`getTransaction` needs at least confirmed).
fn at_least_confirmed(
    c: Option<solana_commitment_config::CommitmentConfig>,
) -> Result<(), RpcError> {
    if c.is_some_and(|c| c.commitment == CommitmentLevel::Processed) {
        return Err(RpcError::invalid_params(
            "Method does not support commitment below `confirmed`",
        ));
    }
    Ok(())
}

fn dispatch(state: &RpcState, method: &str, p: &[Value]) -> RpcResult {
    let lock = || {
        state
            .chain
            .lock()
            .map_err(|_| RpcError::internal("chain lock poisoned"))
    };
    match method {
        "getHealth" => Ok(json!("ok")),
        "getVersion" => to_value(RpcVersionInfo {
            solana_core: "3.1.12".into(),
            feature_set: Some(0),
        }),
        "getGenesisHash" => Ok(json!(lock()?.genesis_hash().to_string())),
        "getIdentity" => Ok(json!({ "identity": state.local.admin.to_string() })),
        "getSlot" => {
            let _: Option<RpcContextConfig> = opt_param(p, 0, "config")?;
            Ok(json!(lock()?.slot()))
        }
        "getBlockHeight" => {
            let _: Option<RpcContextConfig> = opt_param(p, 0, "config")?;
            Ok(json!(lock()?.block_height()))
        }
        "getEpochInfo" => {
            let chain = lock()?;
            let bank = chain.bank();
            let (epoch, slot_index) = bank.get_epoch_and_slot_index(bank.slot());
            Ok(json!({
                "absoluteSlot": bank.slot(),
                "blockHeight": bank.block_height(),
                "epoch": epoch,
                "slotIndex": slot_index,
                "slotsInEpoch": bank.get_slots_in_epoch(epoch),
                "transactionCount": bank.transaction_count(),
            }))
        }
        "getLatestBlockhash" => {
            let chain = lock()?;
            let (hash, last_valid_block_height) = chain.latest_blockhash();
            with_context(
                chain.slot(),
                RpcBlockhash {
                    blockhash: hash.to_string(),
                    last_valid_block_height,
                },
            )
        }
        "isBlockhashValid" => {
            let s: String = param(p, 0, "blockhash")?;
            let hash = Hash::from_str(&s)
                .map_err(|_| RpcError::invalid_params("Invalid param: blockhash"))?;
            let chain = lock()?;
            with_context(chain.slot(), chain.is_blockhash_valid(&hash))
        }
        "getBalance" => {
            let key = pubkey(&param::<String>(p, 0, "pubkey")?)?;
            let chain = lock()?;
            let lamports = chain.get_account(&key).map(|a| a.lamports()).unwrap_or(0);
            with_context(chain.slot(), lamports)
        }
        "getAccountInfo" => {
            let key = pubkey(&param::<String>(p, 0, "pubkey")?)?;
            let config: RpcAccountInfoConfig = opt_param(p, 1, "config")?.unwrap_or_default();
            let chain = lock()?;
            let account = chain.get_account(&key).filter(|a| a.lamports() > 0);
            let ui = account
                .map(|a| encode_account(&chain, &key, &a, &config))
                .transpose()?;
            with_context(chain.slot(), ui)
        }
        "getMultipleAccounts" => {
            let keys: Vec<String> = param(p, 0, "pubkeys")?;
            if keys.len() > 100 {
                return Err(RpcError::invalid_params(
                    "Too many inputs provided; max 100",
                ));
            }
            let config: RpcAccountInfoConfig = opt_param(p, 1, "config")?.unwrap_or_default();
            let chain = lock()?;
            let mut out = Vec::with_capacity(keys.len());
            for k in keys {
                let key = pubkey(&k)?;
                let account = chain.get_account(&key).filter(|a| a.lamports() > 0);
                out.push(
                    account
                        .map(|a| encode_account(&chain, &key, &a, &config))
                        .transpose()?,
                );
            }
            with_context(chain.slot(), out)
        }
        "getProgramAccounts" => {
            let program = pubkey(&param::<String>(p, 0, "program id")?)?;
            let config: RpcProgramAccountsConfig = opt_param(p, 1, "config")?.unwrap_or_default();
            let filters = config.filters.unwrap_or_default();
            for f in &filters {
                f.verify()
                    .map_err(|e| RpcError::invalid_params(format!("Invalid param: {e}")))?;
            }
            let chain = lock()?;
            let mut out = Vec::new();
            for (key, account) in chain.program_accounts(&program) {
                if filters.iter().all(|f| filter_matches(f, &account)) {
                    out.push(RpcKeyedAccount {
                        pubkey: key.to_string(),
                        account: encode_account(&chain, &key, &account, &config.account_config)?,
                    });
                }
            }
            if config.with_context.unwrap_or(false) {
                with_context(chain.slot(), out)
            } else {
                to_value(out)
            }
        }
        "getTokenAccountsByOwner" => {
            let owner = pubkey(&param::<String>(p, 0, "owner")?)?;
            let filter: RpcTokenAccountsFilter = param(p, 1, "filter (mint or programId)")?;
            let config: RpcAccountInfoConfig = opt_param(p, 2, "config")?.unwrap_or_default();
            let (mint, programs) = match filter {
                RpcTokenAccountsFilter::Mint(m) => (
                    Some(pubkey(&m)?),
                    vec![anchor_spl::token::ID, anchor_spl::token_2022::ID],
                ),
                RpcTokenAccountsFilter::ProgramId(id) => {
                    let id = pubkey(&id)?;
                    if id != anchor_spl::token::ID && id != anchor_spl::token_2022::ID {
                        return Err(RpcError::invalid_params(
                            "Invalid param: unrecognized Token program id",
                        ));
                    }
                    (None, vec![id])
                }
            };
            let chain = lock()?;
            let mut out = Vec::new();
            for program in programs {
                for (key, account) in chain.program_accounts(&program) {
                    let d = account.data();
                    if d.len() < 165
                        || d[32..64] != owner.to_bytes()
                        || mint.is_some_and(|m| d[..32] != m.to_bytes())
                    {
                        continue;
                    }
                    out.push(RpcKeyedAccount {
                        pubkey: key.to_string(),
                        account: encode_account(&chain, &key, &account, &config)?,
                    });
                }
            }
            with_context(chain.slot(), out)
        }
        "getTokenAccountBalance" => {
            let key = pubkey(&param::<String>(p, 0, "token account")?)?;
            let chain = lock()?;
            let account = chain
                .get_account(&key)
                .filter(is_token_account)
                .ok_or_else(|| RpcError::invalid_params("Invalid param: not a Token account"))?;
            let amount = u64::from_le_bytes(
                account.data()[64..72]
                    .try_into()
                    .map_err(RpcError::internal)?,
            );
            let decimals = token_decimals(&chain, &account).unwrap_or(0);
            let ui = token_amount_to_ui_amount_v3(
                amount,
                &SplTokenAdditionalDataV2 {
                    decimals,
                    ..Default::default()
                },
            );
            with_context(chain.slot(), ui)
        }
        "getMinimumBalanceForRentExemption" => {
            let len: usize = param(p, 0, "data length")?;
            Ok(json!(lock()?.minimum_balance(len)))
        }
        "getFeeForMessage" => {
            let s: String = param(p, 0, "message")?;
            let bytes = BASE64_STANDARD
                .decode(&s)
                .map_err(|_| RpcError::invalid_params("Invalid param: message is not base64"))?;
            let message: solana_message::VersionedMessage =
                bincode::deserialize(&bytes).map_err(|_| {
                    RpcError::invalid_params("Invalid param: message does not deserialize")
                })?;
            let chain = lock()?;
            let fee = if chain.is_blockhash_valid(message.recent_blockhash()) {
                chain
                    .fee_for_message(message)
                    .map_err(|e| RpcError::invalid_params(format!("Invalid param: {e}")))?
            } else {
                None
            };
            with_context(chain.slot(), fee)
        }
        "requestAirdrop" => {
            let key = pubkey(&param::<String>(p, 0, "pubkey")?)?;
            let lamports: u64 = param(p, 1, "lamports")?;
            if lamports == 0 {
                return Err(RpcError::invalid_params(
                    "Invalid param: lamports must be positive",
                ));
            }
            let sig = lock()?.airdrop(&key, lamports).map_err(|e| {
                RpcError::new(codes::INTERNAL_ERROR, format!("airdrop failed: {e}"))
            })?;
            Ok(json!(sig.to_string()))
        }
        "simulateTransaction" => simulate(state, p),
        "getRecentPrioritizationFees" => {
            let accounts: Vec<String> = opt_param(p, 0, "accounts")?.unwrap_or_default();
            if accounts.len() > 128 {
                return Err(RpcError::invalid_params(
                    "Too many inputs provided; max 128",
                ));
            }
            let accounts = accounts
                .iter()
                .map(|a| pubkey(a))
                .collect::<Result<Vec<_>, _>>()?;
            let fees = lock()?.prioritization_fees(&accounts);
            Ok(json!(fees
                .into_iter()
                .map(|(slot, fee)| json!({ "slot": slot, "prioritizationFee": fee }))
                .collect::<Vec<_>>()))
        }
        "sendTransaction" => send(state, p),
        "getSignatureStatuses" => {
            let sigs: Vec<String> = param(p, 0, "signatures")?;
            if sigs.len() > 256 {
                return Err(RpcError::invalid_params(
                    "Too many inputs provided; max 256",
                ));
            }
            let _: Option<RpcSignatureStatusConfig> = opt_param(p, 1, "config")?;
            let chain = lock()?;
            let mut out = Vec::with_capacity(sigs.len());
            for s in sigs {
                let sig = Signature::from_str(&s).map_err(|_| {
                    RpcError::invalid_params(format!("Invalid param: {s:?} is not a signature"))
                })?;
                out.push(
                    chain
                        .signature_status(&sig)
                        .map(|(slot, status)| TransactionStatus {
                            slot,
                            confirmations: None,
                            err: status.clone().err(),
                            status,
                            confirmation_status: Some(TransactionConfirmationStatus::Finalized),
                        }),
                );
            }
            with_context(chain.slot(), out)
        }
        "getTransaction" => get_transaction(state, p),
        "getSignaturesForAddress" => signatures_for_address(state, p),
        "getBlock" => get_block(state, p),
        "localnet_info" => {
            let chain = lock()?;
            Ok(json!({
                "launchpadProgram": launchpad::ID.to_string(),
                "ammProgram": amm::ID.to_string(),
                "usdcMint": state.local.usdc_mint.to_string(),
                "nativeMint": sdk::ids::NATIVE_MINT.to_string(),
                "partner": state.local.partner.to_string(),
                "admin": state.local.admin.to_string(),
                "slot": chain.slot(),
                "unixTimestamp": chain.clock().unix_timestamp,
            }))
        }
        "localnet_advanceClock" => {
            let seconds: i64 = param(p, 0, "seconds")?;
            if !(0..=10 * 365 * 24 * 3600).contains(&seconds) {
                return Err(RpcError::invalid_params(
                    "Invalid param: seconds must be 0 to 10 years",
                ));
            }
            let mut chain = lock()?;
            chain.advance_clock(seconds);
            chain.advance_slot().map_err(RpcError::internal)?;
            Ok(json!({ "unixTimestamp": chain.clock().unix_timestamp, "slot": chain.slot() }))
        }
        "localnet_setSolUsd" => {
            let price: i64 = param(p, 0, "price (10^-8 dollars)")?;
            let age: i64 = opt_param(p, 1, "age (seconds)")?.unwrap_or(0);
            if price <= 0 || !(0..=365 * 24 * 3600).contains(&age) {
                return Err(RpcError::invalid_params(
                    "Invalid param: price must be positive and age 0 to a year",
                ));
            }
            let mut chain = lock()?;
            let publish_time = chain.clock().unix_timestamp - age;
            crate::oracle::set_sol_usd(&mut chain, price, publish_time);
            Ok(
                json!({ "account": sdk::oracle::SOL_USD_PRICE_ACCOUNT.to_string(), "publishTime": publish_time, "slot": chain.slot() }),
            )
        }
        "localnet_mintUsdc" => {
            let owner = pubkey(&param::<String>(p, 0, "owner")?)?;
            let amount: u64 = param(p, 1, "amount (base units)")?;
            if amount == 0 {
                return Err(RpcError::invalid_params(
                    "Invalid param: amount must be positive",
                ));
            }
            mint_usdc(state, &owner, amount)
        }
        _ => Err(RpcError::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )),
    }
}
