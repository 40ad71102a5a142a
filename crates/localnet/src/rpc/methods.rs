//! The methods that take more than a line of `dispatch`: accounts in the requested encoding, transactions
//! decoded, simulated and sent, their history (`getTransaction`, `getSignaturesForAddress`, `getBlock`), and
//! the local USDC mint.

use super::*;

/// Decimals of a token account's mint.
pub(super) fn token_decimals(chain: &crate::Chain, account: &AccountSharedData) -> Option<u8> {
    let mint = Pubkey::try_from(account.data().get(..32)?).ok()?;
    chain.get_account(&mint)?.data().get(44).copied()
}

pub(super) fn encode_account(
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

pub(super) fn filter_matches(f: &RpcFilterType, account: &AccountSharedData) -> bool {
    match f {
        RpcFilterType::DataSize(n) => account.data().len() as u64 == *n,
        RpcFilterType::Memcmp(m) => m.bytes_match(account.data()),
        RpcFilterType::TokenAccountState => is_token_account(account),
    }
}

/// Decodes a transaction parameter in `encoding` (base58 when not given, as the Solana RPC does).
pub(super) fn decode_transaction(
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

pub(super) fn simulation_result(
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

pub(super) fn simulate(state: &RpcState, p: &[Value]) -> RpcResult {
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

pub(super) fn send(state: &RpcState, p: &[Value]) -> RpcResult {
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

pub(super) fn empty_sim() -> RpcSimulateTransactionResult {
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
pub(super) fn config_or_encoding<T: EncodingConfig + Default + DeserializeOwned>(
    p: &[Value],
    i: usize,
) -> Result<T, RpcError> {
    match p.get(i) {
        Some(Value::String(_)) => Ok(T::new_with_encoding(&Some(param(p, i, "encoding")?))),
        _ => Ok(opt_param(p, i, "config")?.unwrap_or_default()),
    }
}

pub(super) fn get_transaction(state: &RpcState, p: &[Value]) -> RpcResult {
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
pub(super) const MAX_SIGNATURES_PER_CALL: usize = 1000;

pub(super) fn signature_param(s: &str, what: &str) -> Result<Signature, RpcError> {
    Signature::from_str(s).map_err(|_| RpcError::invalid_params(format!("Invalid param: {what}")))
}

/// `getSignaturesForAddress(address, {before, until, limit, commitment})`: newest first, as a validator.
pub(super) fn signatures_for_address(state: &RpcState, p: &[Value]) -> RpcResult {
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
pub(super) fn get_block(state: &RpcState, p: &[Value]) -> RpcResult {
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

pub(super) fn mint_usdc(state: &RpcState, owner: &Pubkey, amount: u64) -> RpcResult {
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
