//! Building unsigned transactions for wallets, and relaying signed ones.

use crate::error::ApiError;
use anchor_lang::solana_program::instruction::Instruction;
use axum::http::StatusCode;
use base64::Engine;
use solana_message::{v0, VersionedMessage};
use solana_pubkey::Pubkey;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signature::Signature;
use solana_transaction::versioned::VersionedTransaction;
use solana_transaction::{InstructionError, TransactionError};

/// Compute units requested by transactions the API builds (launch with metadata and a first buy, migration).
pub const COMPUTE_UNIT_LIMIT: u32 = 600_000;

/// An unsigned v0 transaction paid by `payer` with a fresh blockhash, base64-encoded for the wallet.
pub async fn unsigned_transaction(
    rpc: &RpcClient,
    payer: &Pubkey,
    instructions: &[Instruction],
) -> Result<String, ApiError> {
    let mut ixs = vec![
        solana_compute_budget_interface::ComputeBudgetInstruction::set_compute_unit_limit(
            COMPUTE_UNIT_LIMIT,
        ),
    ];
    ixs.extend_from_slice(instructions);
    compile(rpc, payer, &ixs, &[]).await
}

/// An unsigned v0 transaction of exactly `instructions` (they bring their own compute budget), using the
/// address lookup tables `tables` (read from chain).
pub async fn unsigned_transaction_with_tables(
    rpc: &RpcClient,
    payer: &Pubkey,
    instructions: &[Instruction],
    tables: &[Pubkey],
) -> Result<String, ApiError> {
    let mut accounts = Vec::new();
    if !tables.is_empty() {
        let found = rpc
            .get_multiple_accounts(tables)
            .await
            .map_err(|_| ApiError::unavailable("the Solana RPC node is unreachable"))?;
        for (key, account) in tables.iter().zip(found) {
            let account = account.ok_or_else(|| {
                ApiError::unavailable(format!("address lookup table {key} not found"))
            })?;
            let table =
                solana_address_lookup_table_interface::state::AddressLookupTable::deserialize(
                    &account.data,
                )
                .map_err(|e| ApiError::unavailable(format!("address lookup table {key}: {e}")))?;
            accounts.push(solana_message::AddressLookupTableAccount {
                key: *key,
                addresses: table.addresses.to_vec(),
            });
        }
    }
    compile(rpc, payer, instructions, &accounts).await
}

async fn compile(
    rpc: &RpcClient,
    payer: &Pubkey,
    ixs: &[Instruction],
    tables: &[solana_message::AddressLookupTableAccount],
) -> Result<String, ApiError> {
    let blockhash = rpc.get_latest_blockhash().await.map_err(|e| {
        tracing::warn!("getLatestBlockhash: {e}");
        ApiError::unavailable("the Solana RPC node is unreachable")
    })?;
    let message = v0::Message::try_compile(payer, ixs, tables, blockhash)
        .map_err(|e| ApiError::invalid(format!("the transaction cannot be built: {e}")))?;
    let message = VersionedMessage::V0(message);
    let signers = message.header().num_required_signatures as usize;
    let tx = VersionedTransaction {
        signatures: vec![Signature::default(); signers],
        message,
    };
    let bytes = bincode::serialize(&tx)
        .map_err(|e| ApiError::invalid(format!("the transaction cannot be serialized: {e}")))?;
    if bytes.len() > 1232 {
        return Err(ApiError::invalid(
            "the transaction exceeds Solana's 1232-byte packet limit",
        ));
    }
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// A signed transaction from its base64 form, checked to carry every required signature.
pub fn signed_transaction(b64: &str) -> Result<VersionedTransaction, ApiError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|_| ApiError::invalid("`signedTransaction` is not base64"))?;
    let tx: VersionedTransaction = bincode::deserialize(&bytes).map_err(|_| {
        ApiError::invalid("`signedTransaction` is not a serialized Solana transaction")
    })?;
    let required = tx.message.header().num_required_signatures as usize;
    if tx.signatures.len() != required || tx.signatures.iter().any(|s| *s == Signature::default()) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "NOT_SIGNED",
            "the transaction is missing signatures: sign it with the wallet first",
        ));
    }
    if !tx.verify_with_results().iter().all(|ok| *ok) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "BAD_SIGNATURE",
            "a signature does not match the transaction",
        ));
    }
    Ok(tx)
}

/// Simulates a built transaction (signatures not checked, blockhash replaced) and refuses it when it would
/// fail; returns the compute units it used.
/// A landed transaction at `confirmed`, base64-encoded, legacy or v0.
pub async fn confirmed_transaction(
    rpc: &RpcClient,
    signature: &Signature,
) -> solana_rpc_client_api::client_error::Result<
    solana_transaction_status_client_types::EncodedConfirmedTransactionWithStatusMeta,
> {
    rpc.get_transaction_with_config(
        signature,
        solana_rpc_client_api::config::RpcTransactionConfig {
            encoding: Some(solana_transaction_status_client_types::UiTransactionEncoding::Base64),
            commitment: Some(solana_commitment_config::CommitmentConfig::confirmed()),
            max_supported_transaction_version: Some(0),
        },
    )
    .await
}

/// One of our programs' errors, as its IDL names it.
struct ProgramError {
    program: String,
    name: String,
    msg: String,
}

/// Our programs' errors by (program, code), read from the committed IDLs.
static PROGRAM_ERRORS: std::sync::LazyLock<std::collections::HashMap<(Pubkey, u32), ProgramError>> =
    std::sync::LazyLock::new(|| {
        let mut errors = std::collections::HashMap::new();
        for idl in [
            include_str!("../../idl/launchpad.json"),
            include_str!("../../idl/amm.json"),
        ] {
            let idl: serde_json::Value =
                serde_json::from_str(idl).expect("the committed IDL is JSON");
            let program: Pubkey = idl["address"]
                .as_str()
                .and_then(|a| a.parse().ok())
                .expect("the IDL names its program");
            let name = idl["metadata"]["name"].as_str().unwrap_or("program");
            for e in idl["errors"].as_array().into_iter().flatten() {
                if let (Some(code), Some(error)) = (e["code"].as_u64(), e["name"].as_str()) {
                    errors.insert(
                        (program, code as u32),
                        ProgramError {
                            program: name.to_string(),
                            name: error.to_string(),
                            msg: e["msg"].as_str().unwrap_or_default().to_string(),
                        },
                    );
                }
            }
        }
        errors
    });

/// Names a failed instruction's error when it is one of our programs' (`launchpad error SlippageExceeded
/// (6014): ...`), from the transaction that failed.
pub fn explain(tx: &VersionedTransaction, err: &TransactionError) -> Option<String> {
    let TransactionError::InstructionError(index, InstructionError::Custom(code)) = err else {
        return None;
    };
    let ix = tx.message.instructions().get(usize::from(*index))?;
    let program = tx
        .message
        .static_account_keys()
        .get(usize::from(ix.program_id_index))?;
    let e = PROGRAM_ERRORS.get(&(*program, *code))?;
    Some(format!(
        "{} error {} ({code}): {}",
        e.program, e.name, e.msg
    ))
}

pub async fn simulate(rpc: &RpcClient, b64: &str) -> Result<Option<u64>, ApiError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| ApiError::invalid(format!("build: {e}")))?;
    let tx: VersionedTransaction =
        bincode::deserialize(&bytes).map_err(|e| ApiError::invalid(format!("build: {e}")))?;
    let result = rpc
        .simulate_transaction_with_config(
            &tx,
            solana_rpc_client_api::config::RpcSimulateTransactionConfig {
                sig_verify: false,
                replace_recent_blockhash: true,
                commitment: Some(solana_commitment_config::CommitmentConfig::confirmed()),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| {
            tracing::warn!("simulateTransaction: {e}");
            ApiError::unavailable("the Solana RPC node could not simulate the transaction")
        })?
        .value;
    if let Some(err) = result.err {
        let err = TransactionError::from(err);
        let reason = explain(&tx, &err).unwrap_or_else(|| err.to_string());
        let logs = result.logs.unwrap_or_default();
        let tail: Vec<&String> = logs.iter().rev().take(4).collect();
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "SIMULATION_FAILED",
            format!(
                "the transaction would fail ({reason}); last logs: {}",
                tail.into_iter()
                    .rev()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
        ));
    }
    Ok(result.units_consumed)
}

/// Signs with the operator's own key (the keeper's) and waits for confirmation. Never used for users.
pub async fn send_and_confirm(
    rpc: &RpcClient,
    instructions: &[Instruction],
    signer: &solana_keypair::Keypair,
) -> anyhow::Result<Signature> {
    use solana_signer::Signer;
    let blockhash = rpc.get_latest_blockhash().await?;
    let tx = solana_transaction::Transaction::new_signed_with_payer(
        instructions,
        Some(&signer.pubkey()),
        &[signer],
        blockhash,
    );
    Ok(rpc.send_and_confirm_transaction(&tx).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failing(program: Pubkey) -> VersionedTransaction {
        let payer = Pubkey::new_unique();
        let ix = Instruction::new_with_bytes(program, &[], vec![]);
        let message = v0::Message::try_compile(&payer, &[ix], &[], Default::default()).unwrap();
        VersionedTransaction {
            signatures: vec![Signature::default()],
            message: VersionedMessage::V0(message),
        }
    }

    #[test]
    fn our_programs_errors_are_named_from_their_idls() {
        let err = TransactionError::InstructionError(0, InstructionError::Custom(6000));
        assert_eq!(
            explain(&failing(launchpad::ID), &err).as_deref(),
            Some("launchpad error Unauthorized (6000): Signer is not the admin")
        );
        assert!(explain(&failing(sdk::AMM_PROGRAM_ID), &err)
            .unwrap()
            .starts_with("amm error "));
        // Another program's code, or an error that is not a custom one, is left as the runtime says it.
        assert_eq!(explain(&failing(Pubkey::new_unique()), &err), None);
        let other = TransactionError::InstructionError(0, InstructionError::InvalidAccountData);
        assert_eq!(explain(&failing(launchpad::ID), &other), None);
    }
}

/// Whether the landed transaction `tx` holds the launchpad program's `create_launch` (by its Anchor
/// discriminator, as a top-level instruction) of `mint` by `creator` with metadata `uri`: its accounts at
/// the positions the program's `CreateLaunch` accounts give `creator` and `mint`, resolved through the
/// transaction's address lookup tables. `UNAVAILABLE` when the transaction cannot be decoded.
pub fn launches(
    tx: &solana_transaction_status_client_types::EncodedConfirmedTransactionWithStatusMeta,
    mint: &Pubkey,
    creator: &Pubkey,
    uri: &str,
) -> Result<bool, ApiError> {
    use anchor_lang::{AnchorDeserialize, Discriminator, ToAccountMetas};
    use solana_transaction_status_client_types::option_serializer::OptionSerializer;
    let decoded = tx
        .transaction
        .transaction
        .decode()
        .ok_or_else(|| ApiError::unavailable("the deploy transaction cannot be decoded"))?;
    let mut keys: Vec<Pubkey> = decoded.message.static_account_keys().to_vec();
    if let Some(OptionSerializer::Some(loaded)) =
        tx.transaction.meta.as_ref().map(|m| &m.loaded_addresses)
    {
        keys.extend(
            loaded
                .writable
                .iter()
                .chain(&loaded.readonly)
                .filter_map(|k| k.parse::<Pubkey>().ok()),
        );
    }
    // Where `creator` and `mint` sit among `create_launch`'s accounts, from the program's own type.
    let (creator_at, mint_at) = {
        let (c, m) = (Pubkey::new_unique(), Pubkey::new_unique());
        let metas = launchpad::accounts::CreateLaunch {
            creator: c,
            config: Pubkey::default(),
            mint_authority: Pubkey::default(),
            mint: m,
            pool: Pubkey::default(),
            base_vault: Pubkey::default(),
            quote_mint: Pubkey::default(),
            quote_vault: Pubkey::default(),
            base_token_program: Pubkey::default(),
            quote_token_program: Pubkey::default(),
            system_program: Pubkey::default(),
            event_authority: Pubkey::default(),
            program: Pubkey::default(),
        }
        .to_account_metas(None);
        let at = |k: Pubkey| metas.iter().position(|a| a.pubkey == k);
        (at(c), at(m))
    };
    let (Some(creator_at), Some(mint_at)) = (creator_at, mint_at) else {
        return Ok(false);
    };
    let key = |ix: &solana_message::compiled_instruction::CompiledInstruction, at: usize| {
        ix.accounts
            .get(at)
            .and_then(|i| keys.get(usize::from(*i)))
            .copied()
    };
    Ok(decoded.message.instructions().iter().any(|ix| {
        keys.get(usize::from(ix.program_id_index)) == Some(&launchpad::ID)
            && ix
                .data
                .strip_prefix(launchpad::instruction::CreateLaunch::DISCRIMINATOR)
                .and_then(|args| {
                    launchpad::instruction::CreateLaunch::deserialize(&mut &args[..]).ok()
                })
                .is_some_and(|c| c.args.uri == uri)
            && key(ix, creator_at) == Some(*creator)
            && key(ix, mint_at) == Some(*mint)
    }))
}
