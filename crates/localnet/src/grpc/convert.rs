use super::filter::{DataSlice, TxFacts};
use super::{cb, pb, ChainSlotStatus, UpdateOneof};
use crate::chain::TxRecord;
use solana_account::{AccountSharedData, ReadableAccount};
use solana_clock::Slot;
use solana_hash::Hash;
use solana_message::compiled_instruction::CompiledInstruction;
use solana_message::VersionedMessage;
use solana_pubkey::Pubkey;
use solana_signature::Signature;
use solana_transaction::versioned::VersionedTransaction;
use solana_transaction_error::TransactionError;
use solana_transaction_status::{
    InnerInstructions, Reward, RewardType, TransactionStatusMeta, TransactionTokenBalance,
};
use std::str::FromStr;
use yellowstone_grpc_proto::prost_types::Timestamp;

/// A `SubscribeUpdate` stamped now, carrying the names of the filters it matched.
pub(super) fn update(filters: Vec<String>, update: UpdateOneof) -> pb::SubscribeUpdate {
    pb::SubscribeUpdate {
        filters,
        update_oneof: Some(update),
        created_at: Some(Timestamp::from(std::time::SystemTime::now())),
    }
}

pub(super) fn slot_status(status: ChainSlotStatus) -> pb::SlotStatus {
    match status {
        ChainSlotStatus::Processed => pb::SlotStatus::SlotProcessed,
        ChainSlotStatus::Confirmed => pb::SlotStatus::SlotConfirmed,
        ChainSlotStatus::Finalized => pb::SlotStatus::SlotFinalized,
    }
}

pub(super) fn account_info(
    pubkey: &Pubkey,
    account: &AccountSharedData,
    write_version: u64,
    txn_signature: Option<&Signature>,
    slice: &DataSlice,
) -> pb::SubscribeUpdateAccountInfo {
    pb::SubscribeUpdateAccountInfo {
        pubkey: pubkey.to_bytes().to_vec(),
        lamports: account.lamports(),
        owner: account.owner().to_bytes().to_vec(),
        executable: account.executable(),
        rent_epoch: account.rent_epoch(),
        data: slice.apply(account.data()),
        write_version,
        txn_signature: txn_signature.map(|s| s.as_ref().to_vec()),
    }
}

/// Whether any instruction invokes the vote program (no votes are cast on this chain, but a client
/// can submit one).
pub(super) fn is_vote(tx: &VersionedTransaction) -> bool {
    let keys = tx.message.static_account_keys();
    tx.message
        .instructions()
        .iter()
        .any(|ix| keys.get(usize::from(ix.program_id_index)) == Some(&solana_sdk_ids::vote::id()))
}

/// What transaction filters look at, computed once per transaction.
pub(super) fn tx_facts(tx: &TxRecord) -> TxFacts {
    let pre = tx.meta.pre_token_balances.as_deref().unwrap_or_default();
    let post = tx.meta.post_token_balances.as_deref().unwrap_or_default();
    let owner = |b: &TransactionTokenBalance| Pubkey::from_str(&b.owner).ok();
    let token_owners = pre.iter().chain(post).filter_map(owner).collect();
    let mut changed_token_owners = Vec::new();
    for p in pre {
        match post.iter().find(|q| q.account_index == p.account_index) {
            // The token account was closed.
            None => changed_token_owners.extend(owner(p)),
            Some(q) if q.ui_token_amount.amount != p.ui_token_amount.amount => {
                changed_token_owners.extend(owner(q))
            }
            Some(_) => {}
        }
    }
    for q in post {
        // A token account created by the transaction with a balance.
        if !pre.iter().any(|p| p.account_index == q.account_index)
            && q.ui_token_amount.amount != "0"
        {
            changed_token_owners.extend(owner(q));
        }
    }
    TxFacts {
        signature: tx.signature,
        is_vote: is_vote(&tx.transaction),
        failed: tx.meta.status.is_err(),
        keys: tx.account_keys.iter().map(|(k, _)| *k).collect(),
        token_owners,
        changed_token_owners,
    }
}

pub(super) fn transaction_info(tx: &TxRecord) -> pb::SubscribeUpdateTransactionInfo {
    pb::SubscribeUpdateTransactionInfo {
        signature: tx.signature.as_ref().to_vec(),
        is_vote: is_vote(&tx.transaction),
        transaction: Some(transaction(&tx.transaction)),
        meta: Some(status_meta(&tx.meta)),
        index: tx.index,
    }
}

pub(super) fn transaction_status(tx: &TxRecord) -> pb::SubscribeUpdateTransactionStatus {
    pb::SubscribeUpdateTransactionStatus {
        slot: tx.slot,
        signature: tx.signature.as_ref().to_vec(),
        is_vote: is_vote(&tx.transaction),
        index: tx.index,
        err: tx.meta.status.as_ref().err().map(transaction_error),
        bank_id: 0,
    }
}

pub(super) fn transaction(tx: &VersionedTransaction) -> cb::Transaction {
    cb::Transaction {
        signatures: tx.signatures.iter().map(|s| s.as_ref().to_vec()).collect(),
        message: Some(message(&tx.message)),
    }
}

fn compiled_instruction(ix: &CompiledInstruction) -> cb::CompiledInstruction {
    cb::CompiledInstruction {
        program_id_index: u32::from(ix.program_id_index),
        accounts: ix.accounts.clone(),
        data: ix.data.clone(),
    }
}

pub(super) fn message(m: &VersionedMessage) -> cb::Message {
    let header = m.header();
    cb::Message {
        header: Some(cb::MessageHeader {
            num_required_signatures: u32::from(header.num_required_signatures),
            num_readonly_signed_accounts: u32::from(header.num_readonly_signed_accounts),
            num_readonly_unsigned_accounts: u32::from(header.num_readonly_unsigned_accounts),
        }),
        account_keys: m
            .static_account_keys()
            .iter()
            .map(|k| k.to_bytes().to_vec())
            .collect(),
        recent_blockhash: m.recent_blockhash().to_bytes().to_vec(),
        instructions: m.instructions().iter().map(compiled_instruction).collect(),
        versioned: matches!(m, VersionedMessage::V0(_)),
        address_table_lookups: m
            .address_table_lookups()
            .unwrap_or_default()
            .iter()
            .map(|l| cb::MessageAddressTableLookup {
                account_key: l.account_key.to_bytes().to_vec(),
                writable_indexes: l.writable_indexes.clone(),
                readonly_indexes: l.readonly_indexes.clone(),
            })
            .collect(),
        config: None,
    }
}

/// The error as the bincode-serialized `TransactionError`, the encoding Solana's own storage protos
/// (and every Yellowstone client) use.
pub(super) fn transaction_error(err: &TransactionError) -> cb::TransactionError {
    let bytes = bincode::serialize(err).unwrap_or_else(|e| {
        tracing::error!("serializing transaction error {err:?}: {e}");
        Vec::new()
    });
    cb::TransactionError { err: bytes }
}

fn inner_instructions(i: &InnerInstructions) -> cb::InnerInstructions {
    cb::InnerInstructions {
        index: u32::from(i.index),
        instructions: i
            .instructions
            .iter()
            .map(|inner| cb::InnerInstruction {
                program_id_index: u32::from(inner.instruction.program_id_index),
                accounts: inner.instruction.accounts.clone(),
                data: inner.instruction.data.clone(),
                stack_height: inner.stack_height,
            })
            .collect(),
    }
}

fn token_balance(b: &TransactionTokenBalance) -> cb::TokenBalance {
    cb::TokenBalance {
        account_index: u32::from(b.account_index),
        mint: b.mint.clone(),
        ui_token_amount: Some(cb::UiTokenAmount {
            ui_amount: b.ui_token_amount.ui_amount.unwrap_or_default(),
            decimals: u32::from(b.ui_token_amount.decimals),
            amount: b.ui_token_amount.amount.clone(),
            ui_amount_string: b.ui_token_amount.ui_amount_string.clone(),
        }),
        owner: b.owner.clone(),
        program_id: b.program_id.clone(),
    }
}

fn reward(r: &Reward) -> cb::Reward {
    let reward_type = match r.reward_type {
        None => cb::RewardType::Unspecified,
        Some(RewardType::Fee) => cb::RewardType::Fee,
        Some(RewardType::Rent) => cb::RewardType::Rent,
        Some(RewardType::Staking) => cb::RewardType::Staking,
        Some(RewardType::Voting) => cb::RewardType::Voting,
    };
    cb::Reward {
        pubkey: r.pubkey.clone(),
        lamports: r.lamports,
        post_balance: r.post_balance,
        reward_type: reward_type as i32,
        commission: r.commission.map(|c| c.to_string()).unwrap_or_default(),
        commission_bps: String::new(),
    }
}

/// `None` lists become empty lists plus their `*_none` flag, as in Solana's storage protos, so that
/// "not recorded" and "recorded, empty" stay distinct.
pub(super) fn status_meta(meta: &TransactionStatusMeta) -> cb::TransactionStatusMeta {
    let token_balances = |list: &Option<Vec<TransactionTokenBalance>>| {
        list.as_deref()
            .unwrap_or_default()
            .iter()
            .map(token_balance)
            .collect()
    };
    cb::TransactionStatusMeta {
        err: meta.status.as_ref().err().map(transaction_error),
        fee: meta.fee,
        pre_balances: meta.pre_balances.clone(),
        post_balances: meta.post_balances.clone(),
        inner_instructions: meta
            .inner_instructions
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(inner_instructions)
            .collect(),
        inner_instructions_none: meta.inner_instructions.is_none(),
        log_messages: meta.log_messages.clone().unwrap_or_default(),
        log_messages_none: meta.log_messages.is_none(),
        pre_token_balances: token_balances(&meta.pre_token_balances),
        post_token_balances: token_balances(&meta.post_token_balances),
        rewards: meta
            .rewards
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(reward)
            .collect(),
        loaded_writable_addresses: meta
            .loaded_addresses
            .writable
            .iter()
            .map(|k| k.to_bytes().to_vec())
            .collect(),
        loaded_readonly_addresses: meta
            .loaded_addresses
            .readonly
            .iter()
            .map(|k| k.to_bytes().to_vec())
            .collect(),
        return_data: meta.return_data.as_ref().map(|r| cb::ReturnData {
            program_id: r.program_id.to_bytes().to_vec(),
            data: r.data.clone(),
        }),
        return_data_none: meta.return_data.is_none(),
        compute_units_consumed: meta.compute_units_consumed,
        cost_units: meta.cost_units,
    }
}

/// A closed slot, as the chain's `BlockMeta` event describes it.
pub(super) struct BlockInfo {
    pub slot: Slot,
    pub parent_slot: Slot,
    pub blockhash: Hash,
    pub parent_blockhash: Hash,
    pub block_time: i64,
    pub block_height: u64,
    pub executed_transaction_count: u64,
}

/// No rewards are paid on this chain: an empty list rather than `None`, as a validator reports a
/// block without rewards.
fn no_rewards() -> Option<cb::Rewards> {
    Some(cb::Rewards {
        rewards: Vec::new(),
        num_partitions: None,
    })
}

pub(super) fn block_meta(b: &BlockInfo) -> pb::SubscribeUpdateBlockMeta {
    pb::SubscribeUpdateBlockMeta {
        slot: b.slot,
        blockhash: b.blockhash.to_string(),
        rewards: no_rewards(),
        block_time: Some(cb::UnixTimestamp {
            timestamp: b.block_time,
        }),
        block_height: Some(cb::BlockHeight {
            block_height: b.block_height,
        }),
        parent_slot: b.parent_slot,
        parent_blockhash: b.parent_blockhash.to_string(),
        executed_transaction_count: b.executed_transaction_count,
        entries_count: 0,
        bank_id: 0,
    }
}

/// A block without entries (the chain records none); transactions and accounts as selected by the
/// caller.
pub(super) fn block(
    b: &BlockInfo,
    transactions: Vec<pb::SubscribeUpdateTransactionInfo>,
    accounts: Vec<pb::SubscribeUpdateAccountInfo>,
    updated_account_count: u64,
) -> pb::SubscribeUpdateBlock {
    pb::SubscribeUpdateBlock {
        slot: b.slot,
        blockhash: b.blockhash.to_string(),
        rewards: no_rewards(),
        block_time: Some(cb::UnixTimestamp {
            timestamp: b.block_time,
        }),
        block_height: Some(cb::BlockHeight {
            block_height: b.block_height,
        }),
        parent_slot: b.parent_slot,
        parent_blockhash: b.parent_blockhash.to_string(),
        executed_transaction_count: b.executed_transaction_count,
        transactions,
        updated_account_count,
        accounts,
        entries_count: 0,
        entries: Vec::new(),
        bank_id: 0,
    }
}
