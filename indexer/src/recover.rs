//! Gap recovery: the transactions of both programs in slots the stream can no longer replay, from the RPC
//! node's transaction history, as the stream's own transaction updates (so the one decoder and the one
//! write path handle them, and a recovered event is the row a streamed one would be).
//!
//! `getSignaturesForAddress` on each program, newest first, paged back with `before` until a page reaches
//! the last fully indexed slot; `getBlock` (signatures only) of each slot that holds one of them, for the
//! transaction's position in its block (the stream's transaction index, which orders the market series);
//! then `getTransaction` (base64, `maxSupportedTransactionVersion` 0) for each. The blocks and the
//! transactions are asked for `concurrency` at a time, within a request rate ([`Budget`]), and handed on in
//! chain order as they arrive: memory holds the signature list and at most `2 x concurrency` answers.

use anchor_lang::prelude::Pubkey;
use futures::{Stream, StreamExt, TryStreamExt};
use solana_commitment_config::CommitmentConfig;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_rpc_client::rpc_client::GetConfirmedSignaturesForAddress2Config;
use solana_rpc_client_api::config::{RpcBlockConfig, RpcTransactionConfig};
use solana_signature::Signature;
use solana_transaction_status_client_types::{
    option_serializer::OptionSerializer, EncodedConfirmedTransactionWithStatusMeta,
    TransactionDetails, UiInstruction, UiTransactionEncoding, UiTransactionTokenBalance,
};
use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use yellowstone_grpc_proto::prelude::{
    CompiledInstruction, InnerInstruction, InnerInstructions, Message, MessageAddressTableLookup,
    MessageHeader, SubscribeUpdateTransaction, SubscribeUpdateTransactionInfo, Transaction,
    TransactionError, TransactionStatusMeta,
};

/// Most signatures one `getSignaturesForAddress` call returns.
const PAGE: usize = 1_000;

/// A transaction's token balances from `getTransaction` as the stream's protobuf carries them.
fn token_balances(
    list: OptionSerializer<Vec<UiTransactionTokenBalance>>,
) -> Vec<yellowstone_grpc_proto::prelude::TokenBalance> {
    let text = |s: OptionSerializer<String>| match s {
        OptionSerializer::Some(s) => s,
        _ => String::new(),
    };
    match list {
        OptionSerializer::Some(list) => list
            .into_iter()
            .map(|b| yellowstone_grpc_proto::prelude::TokenBalance {
                account_index: u32::from(b.account_index),
                mint: b.mint,
                ui_token_amount: Some(yellowstone_grpc_proto::prelude::UiTokenAmount {
                    ui_amount: b.ui_token_amount.ui_amount.unwrap_or_default(),
                    decimals: u32::from(b.ui_token_amount.decimals),
                    amount: b.ui_token_amount.amount,
                    ui_amount_string: b.ui_token_amount.ui_amount_string,
                }),
                owner: text(b.owner),
                program_id: text(b.program_id),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// How a recovery may use the RPC node: requests in flight at once, and requests a second (`None`: as fast
/// as the node answers). Counts what it spent.
pub struct Budget {
    pub concurrency: usize,
    limiter: Option<governor::DefaultDirectRateLimiter>,
    /// JSON-RPC calls made.
    pub calls: AtomicU64,
    /// Slots whose block the node no longer had: their transactions carry index 0.
    pub unordered_slots: AtomicU64,
}

impl Budget {
    /// `per_second` 0: no rate limit. `concurrency` 0 is taken as 1.
    pub fn new(concurrency: usize, per_second: u32) -> Budget {
        Budget {
            concurrency: concurrency.max(1),
            limiter: NonZeroU32::new(per_second)
                .map(|r| governor::RateLimiter::direct(governor::Quota::per_second(r))),
            calls: AtomicU64::new(0),
            unordered_slots: AtomicU64::new(0),
        }
    }

    /// Waits for the rate limit's next request and counts it.
    pub(crate) async fn call(&self) {
        if let Some(l) = &self.limiter {
            l.until_ready().await;
        }
        self.calls.fetch_add(1, Relaxed);
    }
}

/// The successful transactions of either program in slots `after < slot < before`, as stream updates read
/// at `commitment` (confirmed or finalized, as the stream): how many, and the stream of them, oldest first.
pub async fn transactions<'a>(
    rpc: &'a RpcClient,
    commitment: CommitmentConfig,
    after: u64,
    before: u64,
    budget: &'a Budget,
) -> anyhow::Result<(
    usize,
    impl Stream<Item = anyhow::Result<SubscribeUpdateTransaction>> + 'a,
)> {
    let mut by_slot: BTreeMap<u64, BTreeSet<Signature>> = BTreeMap::new();
    let (launchpad, amm) = futures::try_join!(
        signatures(rpc, commitment, &launchpad::ID, after, budget),
        signatures(rpc, commitment, &amm::ID, after, budget),
    )?;
    for (slot, signature) in launchpad.into_iter().chain(amm) {
        if slot < before {
            by_slot.entry(slot).or_default().insert(signature);
        }
    }
    let count = by_slot.values().map(BTreeSet::len).sum();
    let n = budget.concurrency;
    let stream = futures::stream::iter(by_slot)
        .map(move |(slot, ours)| async move {
            let order = block_order(rpc, commitment, slot, budget).await?;
            if order.is_none() {
                budget.unordered_slots.fetch_add(1, Relaxed);
            }
            let mut indexed: Vec<(u64, Signature)> = ours
                .into_iter()
                .map(|s| {
                    let index = order
                        .as_ref()
                        .and_then(|o| o.iter().position(|b| *b == s))
                        .unwrap_or(0) as u64;
                    (index, s)
                })
                .collect();
            indexed.sort();
            anyhow::Ok(futures::stream::iter(indexed.into_iter().map(anyhow::Ok)))
        })
        .buffered(n)
        .try_flatten()
        .map_ok(move |(index, signature)| async move {
            budget.call().await;
            let tx = rpc
                .get_transaction_with_config(
                    &signature,
                    RpcTransactionConfig {
                        encoding: Some(UiTransactionEncoding::Base64),
                        commitment: Some(commitment),
                        max_supported_transaction_version: Some(0),
                    },
                )
                .await?;
            update(index, tx)
        })
        .try_buffered(n);
    Ok((count, stream))
}

/// The successful transactions that name `program` in slots after `after`, newest first.
async fn signatures(
    rpc: &RpcClient,
    commitment: CommitmentConfig,
    program: &Pubkey,
    after: u64,
    budget: &Budget,
) -> anyhow::Result<Vec<(u64, Signature)>> {
    let mut out = Vec::new();
    let mut before = None;
    loop {
        budget.call().await;
        let page = rpc
            .get_signatures_for_address_with_config(
                program,
                GetConfirmedSignaturesForAddress2Config {
                    before,
                    until: None,
                    limit: Some(PAGE),
                    commitment: Some(commitment),
                },
            )
            .await?;
        let full = page.len() == PAGE;
        for s in &page {
            if s.slot <= after {
                return Ok(out);
            }
            let signature: Signature = s.signature.parse()?;
            before = Some(signature);
            if s.err.is_none() {
                out.push((s.slot, signature));
            }
        }
        if !full {
            return Ok(out);
        }
    }
}

/// The signatures of a slot's block in block order (a transaction's position is the stream's transaction
/// index), or `None` when the node no longer has the block.
async fn block_order(
    rpc: &RpcClient,
    commitment: CommitmentConfig,
    slot: u64,
    budget: &Budget,
) -> anyhow::Result<Option<Vec<Signature>>> {
    budget.call().await;
    let block = rpc
        .get_block_with_config(
            slot,
            RpcBlockConfig {
                encoding: Some(UiTransactionEncoding::Base64),
                transaction_details: Some(TransactionDetails::Signatures),
                rewards: Some(false),
                commitment: Some(commitment),
                max_supported_transaction_version: Some(0),
            },
        )
        .await;
    match block {
        Ok(b) => Ok(Some(
            b.signatures
                .unwrap_or_default()
                .iter()
                .map(|s| s.parse())
                .collect::<Result<_, _>>()?,
        )),
        Err(e) if missing_block(&e) => {
            tracing::warn!(
                "recovery: the RPC node no longer has block {slot} ({e}): its transactions get index 0"
            );
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Whether an error says the node has no block for the slot (skipped, or beyond its history).
fn missing_block(e: &solana_rpc_client_api::client_error::Error) -> bool {
    use solana_rpc_client_api::custom_error::{
        JSON_RPC_SERVER_ERROR_BLOCK_NOT_AVAILABLE,
        JSON_RPC_SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED, JSON_RPC_SERVER_ERROR_SLOT_SKIPPED,
    };
    use solana_rpc_client_api::{client_error::ErrorKind, request::RpcError};
    matches!(
        e.kind(),
        ErrorKind::RpcError(RpcError::RpcResponseError { code, .. })
            if [
                JSON_RPC_SERVER_ERROR_BLOCK_NOT_AVAILABLE,
                JSON_RPC_SERVER_ERROR_SLOT_SKIPPED,
                JSON_RPC_SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED,
            ]
            .contains(code)
    )
}

fn keys(list: &[String]) -> anyhow::Result<Vec<Vec<u8>>> {
    list.iter()
        .map(|k| Ok(k.parse::<Pubkey>()?.to_bytes().to_vec()))
        .collect()
}

/// A `getTransaction` answer as the stream's transaction update at `index` in its slot: the message, the
/// loaded addresses and the inner instructions exactly; of the status, whether it failed.
pub fn update(
    index: u64,
    tx: EncodedConfirmedTransactionWithStatusMeta,
) -> anyhow::Result<SubscribeUpdateTransaction> {
    use anyhow::Context;
    let versioned = tx
        .transaction
        .transaction
        .decode()
        .context("getTransaction: the transaction does not decode")?;
    let meta = tx
        .transaction
        .meta
        .context("getTransaction: no status meta")?;
    let signature = versioned
        .signatures
        .first()
        .context("getTransaction: no signature")?
        .as_ref()
        .to_vec();
    let m = &versioned.message;
    let header = m.header();
    let message = Message {
        header: Some(MessageHeader {
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
        instructions: m
            .instructions()
            .iter()
            .map(|ix| CompiledInstruction {
                program_id_index: u32::from(ix.program_id_index),
                accounts: ix.accounts.clone(),
                data: ix.data.clone(),
            })
            .collect(),
        versioned: !matches!(m, solana_message::VersionedMessage::Legacy(_)),
        address_table_lookups: m
            .address_table_lookups()
            .unwrap_or_default()
            .iter()
            .map(|l| MessageAddressTableLookup {
                account_key: l.account_key.to_bytes().to_vec(),
                writable_indexes: l.writable_indexes.clone(),
                readonly_indexes: l.readonly_indexes.clone(),
            })
            .collect(),
        ..Default::default()
    };
    let (loaded_writable, loaded_readonly) = match meta.loaded_addresses {
        OptionSerializer::Some(l) => (keys(&l.writable)?, keys(&l.readonly)?),
        _ => (Vec::new(), Vec::new()),
    };
    let mut inner = Vec::new();
    if let OptionSerializer::Some(groups) = meta.inner_instructions {
        for g in groups {
            let mut instructions = Vec::with_capacity(g.instructions.len());
            for ix in g.instructions {
                // Base64 encoding answers compiled instructions only; anything else would shift the
                // inner positions that key the events.
                let UiInstruction::Compiled(c) = ix else {
                    anyhow::bail!("getTransaction: an inner instruction is not compiled");
                };
                instructions.push(InnerInstruction {
                    program_id_index: u32::from(c.program_id_index),
                    accounts: c.accounts,
                    data: bs58::decode(&c.data)
                        .into_vec()
                        .context("getTransaction: inner instruction data is not base58")?,
                    stack_height: c.stack_height,
                });
            }
            inner.push(InnerInstructions {
                index: u32::from(g.index),
                instructions,
            });
        }
    }
    Ok(SubscribeUpdateTransaction {
        transaction: Some(SubscribeUpdateTransactionInfo {
            signature: signature.clone(),
            is_vote: false,
            transaction: Some(Transaction {
                signatures: versioned
                    .signatures
                    .iter()
                    .map(|s| s.as_ref().to_vec())
                    .collect(),
                message: Some(message),
            }),
            meta: Some(TransactionStatusMeta {
                err: meta.err.map(|_| TransactionError { err: Vec::new() }),
                fee: meta.fee,
                pre_balances: meta.pre_balances,
                post_balances: meta.post_balances,
                inner_instructions: inner,
                inner_instructions_none: false,
                loaded_writable_addresses: loaded_writable,
                loaded_readonly_addresses: loaded_readonly,
                // As the stream carries them: the trader's balance before a trade is read from them.
                pre_token_balances: token_balances(meta.pre_token_balances),
                post_token_balances: token_balances(meta.post_token_balances),
                ..Default::default()
            }),
            index,
        }),
        slot: tx.slot,
        ..Default::default()
    })
}
