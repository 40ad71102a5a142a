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

/// Decimals of a token account's mint.
fn token_decimals(chain: &crate::Chain, account: &AccountSharedData) -> Option<u8> {
    let mint = Pubkey::try_from(account.data().get(..32)?).ok()?;
    chain.get_account(&mint)?.data().get(44).copied()
}

fn encode_account(
    chain: &crate::Chain,
    key: &Pubkey,
    account: &AccountSharedData,
    config: &RpcAccountInfoConfig,
) -> Result<UiAccount, RpcError> {
    let encoding = config.encoding.unwrap_or(UiAccountEncoding::Binary);
    let slice: Option<UiDataSliceConfig> = config.data_slice;
    if matches!(
        encoding,
        UiAccountEncoding::Binary | UiAccountEncoding::Base58
    ) {
        let len = slice
            .map(|s| s.length.min(account.data().len().saturating_sub(s.offset)))
            .unwrap_or(account.data().len());
        if len > 128 {
            return Err(RpcError::invalid_params(
                "Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.",
            ));
        }
    }
    let additional = if encoding == UiAccountEncoding::JsonParsed && is_token_account(account) {
        token_decimals(chain, account).map(|decimals| AccountAdditionalDataV3 {
            spl_token_additional_data: Some(SplTokenAdditionalDataV2 {
                decimals,
                ..Default::default()
            }),
        })
    } else {
        None
    };
    Ok(encode_ui_account(key, account, encoding, additional, slice))
}

fn filter_matches(f: &RpcFilterType, account: &AccountSharedData) -> bool {
    match f {
        RpcFilterType::DataSize(n) => account.data().len() as u64 == *n,
        RpcFilterType::Memcmp(m) => m.bytes_match(account.data()),
        RpcFilterType::TokenAccountState => is_token_account(account),
    }
}

/// Decodes a transaction parameter in `encoding` (base58 when not given, as the Solana RPC does).
fn decode_transaction(
    s: &str,
    encoding: Option<UiTransactionEncoding>,
) -> Result<VersionedTransaction, RpcError> {
    let bytes = match encoding.unwrap_or(UiTransactionEncoding::Base58) {
        UiTransactionEncoding::Base58 => {
            if s.len() > MAX_BASE58_TX {
                return Err(RpcError::invalid_params(format!("base58 encoded transaction too large: {} bytes (max: encoded/raw {MAX_BASE58_TX}/{PACKET_DATA_SIZE})", s.len())));
            }
            bs58::decode(s)
                .into_vec()
                .map_err(|e| RpcError::invalid_params(format!("invalid base58 encoding: {e}")))?
        }
        UiTransactionEncoding::Base64 => {
            if s.len() > MAX_BASE64_TX {
                return Err(RpcError::invalid_params(format!("base64 encoded transaction too large: {} bytes (max: encoded/raw {MAX_BASE64_TX}/{PACKET_DATA_SIZE})", s.len())));
            }
            BASE64_STANDARD
                .decode(s)
                .map_err(|e| RpcError::invalid_params(format!("invalid base64 encoding: {e}")))?
        }
        other => {
            return Err(RpcError::invalid_params(format!(
                "unsupported encoding: {other}. Supported encodings: base58, base64"
            )))
        }
    };
    if bytes.len() > PACKET_DATA_SIZE {
        return Err(RpcError::invalid_params(format!(
            "decoded transaction too large: {} bytes (max: {PACKET_DATA_SIZE} bytes)",
            bytes.len()
        )));
    }
    let tx: VersionedTransaction = bincode::deserialize(&bytes).map_err(|e| {
        RpcError::invalid_params(format!("failed to deserialize VersionedTransaction: {e}"))
    })?;
    tx.sanitize()
        .map_err(|e| RpcError::invalid_params(format!("invalid transaction: {e}")))?;
    Ok(tx)
}

fn simulation_result(
    chain: &crate::Chain,
    sim: solana_runtime::bank::TransactionSimulationResult,
    accounts: Option<(Vec<Pubkey>, UiAccountEncoding)>,
    inner: bool,
    replacement: Option<RpcBlockhash>,
) -> Result<RpcSimulateTransactionResult, RpcError> {
    let accounts = match accounts {
        None => None,
        Some((keys, encoding)) => {
            let config = RpcAccountInfoConfig {
                encoding: Some(encoding),
                ..Default::default()
            };
            let mut out = Vec::with_capacity(keys.len());
            for key in keys {
                let post = sim
                    .post_simulation_accounts
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, a)| a.clone());
                let account = post
                    .or_else(|| chain.get_account(&key))
                    .filter(|a| a.lamports() > 0);
                out.push(
                    account
                        .map(|a| encode_account(chain, &key, &a, &config))
                        .transpose()?,
                );
            }
            Some(out)
        }
    };
    let inner_instructions = if inner {
        sim.inner_instructions.map(|list| {
            list.into_iter()
                .enumerate()
                .filter(|(_, l)| !l.is_empty())
                .map(|(index, l)| UiInnerInstructions {
                    index: index as u8,
                    instructions: l
                        .iter()
                        .map(|i| {
                            UiInstruction::Compiled(UiCompiledInstruction::from(
                                &i.instruction,
                                Some(u32::from(i.stack_height)),
                            ))
                        })
                        .collect(),
                })
                .collect()
        })
    } else {
        None
    };
    Ok(RpcSimulateTransactionResult {
        err: sim.result.err().map(Into::into),
        logs: Some(sim.logs),
        accounts,
        units_consumed: Some(sim.units_consumed),
        loaded_accounts_data_size: Some(sim.loaded_accounts_data_size),
        return_data: sim.return_data.map(Into::into),
        inner_instructions,
        replacement_blockhash: replacement,
        fee: sim.fee,
        pre_balances: sim.pre_balances,
        post_balances: sim.post_balances,
        pre_token_balances: None,
        post_token_balances: None,
        loaded_addresses: None,
    })
}

fn simulate(state: &RpcState, p: &[Value]) -> RpcResult {
    let s: String = param(p, 0, "transaction")?;
    let config: RpcSimulateTransactionConfig = opt_param(p, 1, "config")?.unwrap_or_default();
    if config.sig_verify && config.replace_recent_blockhash {
        return Err(RpcError::invalid_params(
            "sigVerify may not be used with replaceRecentBlockhash",
        ));
    }
    let mut tx = decode_transaction(&s, config.encoding)?;
    let accounts = match config.accounts {
        None => None,
        Some(a) => {
            let keys = a
                .addresses
                .iter()
                .map(|k| pubkey(k))
                .collect::<Result<Vec<_>, _>>()?;
            Some((keys, a.encoding.unwrap_or(UiAccountEncoding::Base64)))
        }
    };
    let chain = state
        .chain
        .lock()
        .map_err(|_| RpcError::internal("chain lock poisoned"))?;
    let replacement = if config.replace_recent_blockhash {
        let (hash, last_valid_block_height) = chain.latest_blockhash();
        tx.message.set_recent_blockhash(hash);
        Some(RpcBlockhash {
            blockhash: hash.to_string(),
            last_valid_block_height,
        })
    } else {
        None
    };
    let sim = match chain.simulate(tx, config.sig_verify) {
        Ok(sim) => sim,
        Err(TransactionError::SignatureFailure) => {
            return Err(RpcError::new(
                codes::TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
                "Transaction signature verification failure",
            ))
        }
        Err(e) => {
            return Err(RpcError::invalid_params(format!(
                "invalid transaction: {e}"
            )))
        }
    };
    let result = simulation_result(
        &chain,
        sim,
        accounts,
        config.inner_instructions,
        replacement,
    )?;
    with_context(chain.slot(), result)
}

fn send(state: &RpcState, p: &[Value]) -> RpcResult {
    let s: String = param(p, 0, "transaction")?;
    let config: RpcSendTransactionConfig = opt_param(p, 1, "config")?.unwrap_or_default();
    let tx = decode_transaction(&s, config.encoding)?;
    let mut chain = state
        .chain
        .lock()
        .map_err(|_| RpcError::internal("chain lock poisoned"))?;
    if !config.skip_preflight {
        let sim = match chain.simulate(tx.clone(), true) {
            Ok(sim) => sim,
            Err(TransactionError::SignatureFailure) => {
                return Err(RpcError::new(
                    codes::TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
                    "Transaction signature verification failure",
                ))
            }
            Err(e) => {
                return Err(RpcError {
                    code: codes::SEND_TRANSACTION_PREFLIGHT_FAILURE,
                    message: format!("Transaction simulation failed: {e}"),
                    data: Some(
                        serde_json::to_value(RpcSimulateTransactionResult {
                            err: Some(e.into()),
                            ..empty_sim()
                        })
                        .map_err(RpcError::internal)?,
                    ),
                })
            }
        };
        if let Err(e) = &sim.result {
            let message = format!("Transaction simulation failed: {e}");
            let data = simulation_result(&chain, sim, None, false, None)?;
            return Err(RpcError {
                code: codes::SEND_TRANSACTION_PREFLIGHT_FAILURE,
                message,
                data: Some(serde_json::to_value(data).map_err(RpcError::internal)?),
            });
        }
    }
    match chain.process(tx) {
        Ok(record) => Ok(json!(record.signature.to_string())),
        Err(TransactionError::SignatureFailure) => Err(RpcError::new(
            codes::TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
            "Transaction signature verification failure",
        )),
        Err(e) => Err(RpcError {
            code: codes::SEND_TRANSACTION_PREFLIGHT_FAILURE,
            message: format!("Transaction failed: {e}"),
            data: Some(
                serde_json::to_value(RpcSimulateTransactionResult {
                    err: Some(e.into()),
                    ..empty_sim()
                })
                .map_err(RpcError::internal)?,
            ),
        }),
    }
}

fn empty_sim() -> RpcSimulateTransactionResult {
    RpcSimulateTransactionResult {
        err: None,
        logs: None,
        accounts: None,
        units_consumed: None,
        loaded_accounts_data_size: None,
        return_data: None,
        inner_instructions: None,
        replacement_blockhash: None,
        fee: None,
        pre_balances: None,
        post_balances: None,
        pre_token_balances: None,
        post_token_balances: None,
        loaded_addresses: None,
    }
}

/// The config parameter at `i`: an object, or (older clients) just the encoding.
fn config_or_encoding<T: EncodingConfig + Default + DeserializeOwned>(
    p: &[Value],
    i: usize,
) -> Result<T, RpcError> {
    match p.get(i) {
        Some(Value::String(_)) => Ok(T::new_with_encoding(&Some(param(p, i, "encoding")?))),
        _ => Ok(opt_param(p, i, "config")?.unwrap_or_default()),
    }
}

fn get_transaction(state: &RpcState, p: &[Value]) -> RpcResult {
    let s: String = param(p, 0, "signature")?;
    let sig = Signature::from_str(&s).map_err(|_| {
        RpcError::invalid_params(format!("Invalid param: {s:?} is not a signature"))
    })?;
    let config: RpcTransactionConfig = config_or_encoding(p, 1)?;
    at_least_confirmed(config.commitment)?;
    let encoding = config.encoding.unwrap_or(UiTransactionEncoding::Json);
    let chain = state
        .chain
        .lock()
        .map_err(|_| RpcError::internal("chain lock poisoned"))?;
    let Some(record) = chain.transaction(&sig) else {
        return Ok(Value::Null);
    };
    let confirmed = ConfirmedTransactionWithStatusMeta {
        slot: record.slot,
        tx_with_meta: TransactionWithStatusMeta::Complete(VersionedTransactionWithStatusMeta {
            transaction: record.transaction.clone(),
            meta: record.meta.clone(),
        }),
        block_time: Some(record.block_time),
    };
    match confirmed.encode(encoding, config.max_supported_transaction_version) {
        Ok(encoded) => to_value(encoded),
        Err(solana_transaction_status::EncodeError::UnsupportedTransactionVersion(v)) => Err(RpcError::new(
            codes::UNSUPPORTED_TRANSACTION_VERSION,
            format!("Transaction version ({v}) is not supported by the requesting client. Please try the request again with the following configuration parameter: \"maxSupportedTransactionVersion\": {v}"),
        )),
    }
}

/// Most signatures one `getSignaturesForAddress` call returns (a validator's limit).
const MAX_SIGNATURES_PER_CALL: usize = 1000;

fn signature_param(s: &str, what: &str) -> Result<Signature, RpcError> {
    Signature::from_str(s).map_err(|_| RpcError::invalid_params(format!("Invalid param: {what}")))
}

/// `getSignaturesForAddress(address, {before, until, limit, commitment})`: newest first, as a validator.
fn signatures_for_address(state: &RpcState, p: &[Value]) -> RpcResult {
    let address = pubkey(&param::<String>(p, 0, "address")?)?;
    let config: RpcSignaturesForAddressConfig = opt_param(p, 1, "config")?.unwrap_or_default();
    at_least_confirmed(config.commitment)?;
    let limit = config.limit.unwrap_or(MAX_SIGNATURES_PER_CALL);
    if limit == 0 || limit > MAX_SIGNATURES_PER_CALL {
        return Err(RpcError::invalid_params(format!(
            "Invalid limit; max {MAX_SIGNATURES_PER_CALL}"
        )));
    }
    let before = config
        .before
        .as_deref()
        .map(|s| signature_param(s, "before"))
        .transpose()?;
    let until = config
        .until
        .as_deref()
        .map(|s| signature_param(s, "until"))
        .transpose()?;
    let chain = state
        .chain
        .lock()
        .map_err(|_| RpcError::internal("chain lock poisoned"))?;
    let found = chain.signatures_for_address(&address, before.as_ref(), until.as_ref(), limit);
    to_value(
        found
            .iter()
            .map(|t| RpcConfirmedTransactionStatusWithSignature {
                signature: t.signature.to_string(),
                slot: t.slot,
                err: t.meta.status.clone().err().map(Into::into),
                memo: None,
                block_time: Some(t.block_time),
                confirmation_status: Some(TransactionConfirmationStatus::Finalized),
            })
            .collect::<Vec<_>>(),
    )
}

/// `getBlock(slot, config)`: a closed slot's transactions in block order, in the requested detail
/// (`full`, `accounts`, `signatures` or `none`), while the chain keeps the slot.
fn get_block(state: &RpcState, p: &[Value]) -> RpcResult {
    use solana_transaction_status::{BlockEncodingOptions, ConfirmedBlock, TransactionDetails};
    let slot: u64 = param(p, 0, "slot")?;
    let config: RpcBlockConfig = config_or_encoding(p, 1)?;
    at_least_confirmed(config.commitment)?;
    let chain = state
        .chain
        .lock()
        .map_err(|_| RpcError::internal("chain lock poisoned"))?;
    let Some(block) = chain.block(slot) else {
        return Err(if slot >= chain.slot() {
            RpcError::new(
                solana_rpc_client_api::custom_error::JSON_RPC_SERVER_ERROR_BLOCK_NOT_AVAILABLE,
                format!("Block not available for slot {slot}"),
            )
        } else {
            RpcError::new(
                solana_rpc_client_api::custom_error::JSON_RPC_SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED,
                format!("Slot {slot} was skipped, or missing in long-term storage"),
            )
        });
    };
    let options = BlockEncodingOptions {
        transaction_details: config
            .transaction_details
            .unwrap_or(TransactionDetails::Full),
        show_rewards: config.rewards.unwrap_or(true),
        max_supported_transaction_version: config.max_supported_transaction_version,
    };
    match ConfirmedBlock::from(block).encode_with_options(
        config.encoding.unwrap_or(UiTransactionEncoding::Json),
        options,
    ) {
        Ok(encoded) => to_value(encoded),
        Err(solana_transaction_status::EncodeError::UnsupportedTransactionVersion(v)) => Err(RpcError::new(
            codes::UNSUPPORTED_TRANSACTION_VERSION,
            format!("Transaction version ({v}) is not supported by the requesting client. Please try the request again with the following configuration parameter: \"maxSupportedTransactionVersion\": {v}"),
        )),
    }
}

fn mint_usdc(state: &RpcState, owner: &Pubkey, amount: u64) -> RpcResult {
    let local = &state.local;
    let mut chain = state
        .chain
        .lock()
        .map_err(|_| RpcError::internal("chain lock poisoned"))?;
    let payer = chain.faucet().insecure_clone();
    let ata = sdk::associated_token_address(owner, &local.usdc_mint, &anchor_spl::token::ID);
    let ixs = [
        sdk::launchpad_ix::create_ata_idempotent(
            &payer.pubkey(),
            owner,
            &local.usdc_mint,
            &anchor_spl::token::ID,
        ),
        anchor_spl::token::spl_token::instruction::mint_to(
            &anchor_spl::token::ID,
            &local.usdc_mint,
            &ata,
            &local.usdc_authority.pubkey(),
            &[],
            amount,
        )
        .map_err(RpcError::internal)?,
    ];
    let (blockhash, _) = chain.latest_blockhash();
    let tx = solana_transaction::Transaction::new_signed_with_payer(
        &ixs,
        Some(&payer.pubkey()),
        &[&payer, &local.usdc_authority],
        blockhash,
    );
    let record = chain
        .process(VersionedTransaction::from(tx))
        .map_err(|e| RpcError::new(codes::INTERNAL_ERROR, format!("mint failed: {e}")))?;
    record
        .meta
        .status
        .clone()
        .map_err(|e| RpcError::new(codes::INTERNAL_ERROR, format!("mint failed: {e}")))?;
    Ok(
        json!({ "signature": record.signature.to_string(), "tokenAccount": ata.to_string(), "mint": local.usdc_mint.to_string() }),
    )
}
