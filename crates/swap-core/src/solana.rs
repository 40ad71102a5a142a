//! Building unsigned transactions for wallets, and relaying signed ones.

use anchor_lang::solana_program::instruction::Instruction;
use base64::Engine;
use solana_message::{v0, VersionedMessage};
use solana_pubkey::Pubkey;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signature::Signature;
use solana_transaction::versioned::VersionedTransaction;
use solana_transaction::{InstructionError, TransactionError};
use web::error::{ApiError, ErrorCode};

/// Compute units a transaction is simulated with before its limit is known (Solana's per-transaction maximum).
pub const MAX_COMPUTE_UNITS: u32 = 1_400_000;

/// The compute-unit limit of a build is what its simulation consumed plus this many percent (state can move
/// between build and landing: a curve's next trade, an account created meanwhile).
pub const COMPUTE_UNIT_MARGIN_PERCENT: u64 = 10;

/// How a build prices its compute units.
#[derive(Debug, Clone, Copy)]
pub struct FeePolicy {
    /// The percentile (0 to 100) of the recent prioritization fees of the accounts the transaction writes.
    pub percentile: u8,
    /// The most micro-lamports per compute unit a build offers.
    pub cap: u64,
}

/// A caller's priority: the percentile of recent fees to pay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum PriorityLevel {
    /// No priority fee.
    None,
    /// 25th percentile.
    Low,
    /// 50th percentile.
    Medium,
    /// 75th percentile.
    High,
    /// 95th percentile.
    VeryHigh,
}

impl PriorityLevel {
    pub fn percentile(self) -> u8 {
        match self {
            PriorityLevel::None => 0,
            PriorityLevel::Low => 25,
            PriorityLevel::Medium => 50,
            PriorityLevel::High => 75,
            PriorityLevel::VeryHigh => 95,
        }
    }
}

/// How long a built transaction can land: the blockhash it was built with, and the last block height at
/// which that blockhash is still accepted. Past it the transaction can never land (sign a new build); until
/// then a client may resend it.
#[derive(Debug, Clone, Default, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Lifetime {
    /// The transaction's recent blockhash (base58).
    pub blockhash: String,
    /// The last block height at which the blockhash is valid (`getLatestBlockhash`'s
    /// `lastValidBlockHeight`; compare with `getBlockHeight`).
    pub last_valid_block_height: u64,
}

/// A transaction compiled for a wallet: base64 of the unsigned v0 transaction, and its lifetime.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub transaction: String,
    pub lifetime: Lifetime,
}

/// A built transaction with its compute budget.
#[derive(Debug, Clone)]
pub struct Budgeted {
    /// Base64 of the unsigned v0 transaction.
    pub transaction: String,
    pub lifetime: Lifetime,
    /// What the simulation consumed.
    pub units_consumed: u64,
    /// The limit set: consumed plus [`COMPUTE_UNIT_MARGIN_PERCENT`].
    pub compute_unit_limit: u32,
    /// The price set, micro-lamports per compute unit.
    pub micro_lamports_per_unit: u64,
    pub signatures: u64,
}

impl Budgeted {
    /// The most the transaction pays in fees: 5,000 lamports a signature plus the priority fee at its limit.
    pub fn max_fee_lamports(&self) -> u64 {
        let priority = (u128::from(self.compute_unit_limit)
            * u128::from(self.micro_lamports_per_unit))
        .div_ceil(1_000_000);
        self.signatures
            .saturating_mul(5_000)
            .saturating_add(u64::try_from(priority).unwrap_or(u64::MAX))
    }
}

/// The value at `percentile` (nearest rank) of `fees`; 0 when there are none.
pub fn percentile(mut fees: Vec<u64>, percentile: u8) -> u64 {
    if fees.is_empty() {
        return 0;
    }
    fees.sort_unstable();
    let rank = (usize::from(percentile.min(100)) * fees.len()).div_ceil(100);
    fees[rank.saturating_sub(1).min(fees.len() - 1)]
}

/// The compute-unit price for a transaction writing `writable`: `policy.percentile` of the recent
/// prioritization fees of those accounts (`getRecentPrioritizationFees`), at most `policy.cap`. An RPC node
/// that cannot answer gives 0 (logged): the transaction still lands on an idle network.
pub async fn unit_price(rpc: &RpcClient, writable: &[Pubkey], policy: FeePolicy) -> u64 {
    if policy.percentile == 0 {
        return 0;
    }
    match rpc.get_recent_prioritization_fees(writable).await {
        Ok(fees) => percentile(
            fees.iter().map(|f| f.prioritization_fee).collect(),
            policy.percentile,
        )
        .min(policy.cap),
        Err(e) => {
            tracing::warn!("getRecentPrioritizationFees: {e}");
            0
        }
    }
}

/// An unsigned v0 transaction paid by `payer` with a fresh blockhash, base64-encoded for the wallet, with a
/// compute budget: simulated first (a transaction that would fail is `SIMULATION_FAILED`), its limit what the
/// simulation consumed plus [`COMPUTE_UNIT_MARGIN_PERCENT`], its price from [`unit_price`].
pub async fn unsigned_transaction(
    rpc: &RpcClient,
    payer: &Pubkey,
    instructions: &[Instruction],
    policy: FeePolicy,
) -> Result<Budgeted, ApiError> {
    use solana_compute_budget_interface::ComputeBudgetInstruction as Budget;
    let with_budget = |limit: u32, price: u64| {
        let mut ixs = vec![
            Budget::set_compute_unit_limit(limit),
            Budget::set_compute_unit_price(price),
        ];
        ixs.extend_from_slice(instructions);
        ixs
    };
    let draft = compile(rpc, payer, &with_budget(MAX_COMPUTE_UNITS, 0), &[]).await?;
    let consumed = simulate(rpc, &draft.transaction)
        .await?
        .unwrap_or(u64::from(MAX_COMPUTE_UNITS));
    let limit = consumed
        .saturating_add(consumed * COMPUTE_UNIT_MARGIN_PERCENT / 100)
        .min(u64::from(MAX_COMPUTE_UNITS)) as u32;
    let mut writable: Vec<Pubkey> = instructions
        .iter()
        .flat_map(|ix| {
            ix.accounts
                .iter()
                .filter(|a| a.is_writable)
                .map(|a| a.pubkey)
        })
        .collect();
    writable.sort_unstable();
    writable.dedup();
    writable.truncate(128);
    let price = unit_price(rpc, &writable, policy).await;
    let Compiled {
        transaction,
        lifetime,
    } = compile(rpc, payer, &with_budget(limit, price), &[]).await?;
    let signatures = instructions
        .iter()
        .flat_map(|ix| ix.accounts.iter().filter(|a| a.is_signer).map(|a| a.pubkey))
        .chain(std::iter::once(*payer))
        .collect::<std::collections::BTreeSet<_>>()
        .len() as u64;
    Ok(Budgeted {
        transaction,
        lifetime,
        units_consumed: consumed,
        compute_unit_limit: limit,
        micro_lamports_per_unit: price,
        signatures,
    })
}

/// An unsigned v0 transaction of exactly `instructions` (they bring their own compute budget), using the
/// address lookup tables `tables` (read from chain).
pub async fn unsigned_transaction_with_tables(
    rpc: &RpcClient,
    payer: &Pubkey,
    instructions: &[Instruction],
    tables: &[Pubkey],
) -> Result<Compiled, ApiError> {
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
) -> Result<Compiled, ApiError> {
    let (blockhash, last_valid_block_height) = rpc
        .get_latest_blockhash_with_commitment(rpc.commitment())
        .await
        .map_err(|e| {
            tracing::warn!(
                "getLatestBlockhash: {}",
                ops::redact::redact(&e.to_string())
            );
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
    if bytes.len() > PACKET_DATA_SIZE {
        return Err(ApiError::invalid(
            "the transaction exceeds Solana's 1232-byte packet limit",
        ));
    }
    Ok(Compiled {
        transaction: base64::engine::general_purpose::STANDARD.encode(bytes),
        lifetime: Lifetime {
            blockhash: blockhash.to_string(),
            last_valid_block_height,
        },
    })
}

/// The most bytes a serialized transaction can have (one network packet).
pub const PACKET_DATA_SIZE: usize = 1232;

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
            ErrorCode::NotSigned,
            "the transaction is missing signatures: sign it with the wallet first",
        ));
    }
    if !tx.verify_with_results().iter().all(|ok| *ok) {
        return Err(ApiError::new(
            ErrorCode::BadSignature,
            "a signature does not match the transaction",
        ));
    }
    Ok(tx)
}

/// Simulates a built transaction (signatures not checked, blockhash replaced) and refuses it when it would
/// fail; returns the compute units it used.
/// The status of `signature` (`None`: the node does not know it); `UNAVAILABLE` when the node cannot be asked.
pub async fn signature_status(
    rpc: &RpcClient,
    signature: &Signature,
) -> Result<Option<solana_transaction_status_client_types::TransactionStatus>, ApiError> {
    Ok(rpc
        .get_signature_statuses(&[*signature])
        .await
        .map_err(|_| ApiError::unavailable("the Solana RPC node is unreachable"))?
        .value
        .into_iter()
        .next()
        .flatten())
}

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
            include_str!("../../../idl/launchpad.json"),
            include_str!("../../../idl/amm.json"),
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
            ErrorCode::SimulationFailed,
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

/// A fetched transaction, decoded, with every account key in the order its instructions and balances index
/// them: the static keys, then the lookup tables' writable and read-only ones. `None` when it cannot be
/// decoded.
pub fn account_keys(
    tx: &solana_transaction_status_client_types::EncodedConfirmedTransactionWithStatusMeta,
) -> Option<(VersionedTransaction, Vec<Pubkey>)> {
    use solana_transaction_status_client_types::option_serializer::OptionSerializer;
    let decoded = tx.transaction.transaction.decode()?;
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
    Some((decoded, keys))
}

#[cfg(test)]
mod tests {
    #[test]
    fn percentiles_by_nearest_rank() {
        use super::percentile;
        assert_eq!(percentile(vec![], 50), 0);
        let fees: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(percentile(fees.clone(), 0), 1);
        assert_eq!(percentile(fees.clone(), 50), 50);
        assert_eq!(percentile(fees.clone(), 75), 75);
        assert_eq!(percentile(fees.clone(), 100), 100);
        assert_eq!(percentile(vec![0, 0, 0, 7_000], 75), 0);
        assert_eq!(percentile(vec![0, 0, 0, 7_000], 95), 7_000);
    }

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
            explain(&failing(sdk::LAUNCHPAD_PROGRAM_ID), &err).as_deref(),
            Some("launchpad error Unauthorized (6000): Signer is not the admin")
        );
        assert!(explain(&failing(sdk::AMM_PROGRAM_ID), &err)
            .unwrap()
            .starts_with("amm error "));
        // Another program's code, or an error that is not a custom one, is left as the runtime says it.
        assert_eq!(explain(&failing(Pubkey::new_unique()), &err), None);
        let other = TransactionError::InstructionError(0, InstructionError::InvalidAccountData);
        assert_eq!(explain(&failing(sdk::LAUNCHPAD_PROGRAM_ID), &other), None);
    }

    /// Random-input fuzzing of the signed-transaction reader (`scripts/fuzz` runs it with many more cases).
    mod fuzz {
        use super::super::signed_transaction;
        use base64::Engine as _;
        use proptest::collection::vec;
        use proptest::prelude::*;
        use solana_signer::Signer;

        /// One signed transaction for every case (signing is most of a case's time in a debug build).
        fn signed() -> Vec<u8> {
            static SIGNED: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
            SIGNED.get_or_init(sign).clone()
        }

        fn sign() -> Vec<u8> {
            let payer = solana_keypair::Keypair::new();
            let ix = solana_transaction::Instruction::new_with_bytes(
                sdk::LAUNCHPAD_PROGRAM_ID,
                &[1, 2, 3],
                vec![],
            );
            let tx = solana_transaction::Transaction::new_signed_with_payer(
                &[ix],
                Some(&payer.pubkey()),
                &[&payer],
                solana_transaction::Hash::new_unique(),
            );
            bincode::serialize(&tx).unwrap()
        }

        proptest! {
            /// Any text: refused or read, never a panic.
            #[test]
            fn fuzz_any_text_is_refused_or_read(text in ".{0,200}", bytes in vec(any::<u8>(), 0..1300)) {
                let _ = signed_transaction(&text);
                let _ = signed_transaction(&base64::engine::general_purpose::STANDARD.encode(&bytes));
            }

            /// A signed transaction with bytes changed, cut or added: refused, unless it still reads as the
            /// very transaction that was signed.
            #[test]
            fn fuzz_a_changed_transaction_is_refused(
                at in any::<prop::sample::Index>(),
                by in 1u8..,
                cut in any::<prop::sample::Index>(),
                extra in vec(any::<u8>(), 0..8),
                how in 0u8..3,
            ) {
                let original = signed();
                let mut bytes = original.clone();
                match how {
                    0 => { let i = at.index(bytes.len()); bytes[i] ^= by; }
                    1 => bytes.truncate(cut.index(bytes.len())),
                    _ => bytes.extend(extra),
                }
                let read = signed_transaction(&base64::engine::general_purpose::STANDARD.encode(&bytes));
                if let Ok(tx) = read {
                    prop_assert_eq!(bincode::serialize(&tx).unwrap(), original);
                }
            }
        }
    }
}
