//! Yellowstone gRPC (`geyser.Geyser`, as defined by `yellowstone-grpc-proto` 14.0.1) over the chain.
//!
//! Indexers and bots written against a Yellowstone (Dragon's Mouth) endpoint connect to the localnet
//! unchanged: same service, same messages, same filter semantics as a validator running the Yellowstone
//! geyser plugin. The source is the chain's [`ChainEvent`] broadcast instead of a geyser plugin.
//!
//! The file has three parts:
//! - `filter`: a `SubscribeRequest` checked into filters once, then pure matching functions (which filter
//!   names an account, transaction, slot or block matches; account data slicing);
//! - `convert`: Solana types to the proto messages (the proto crate has no conversion helpers);
//! - the service: the unary methods, and `Subscribe`, which runs one task per stream.
//!
//! Commitment on this single node: a slot's accounts and transactions are emitted as they are processed;
//! when the slot closes the chain emits its block meta, then `confirmed` and `finalized` together. A
//! subscription at `confirmed` or `finalized` buffers a slot's account, transaction and block updates and
//! releases them when the slot reaches that commitment, just before that slot status update (so a client
//! that sees "slot S confirmed" already has everything of S).

use crate::chain::{Chain, ChainEvent, SharedChain, SlotStatus as ChainSlotStatus, Stamped};
use anyhow::Context as _;
use solana_account::ReadableAccount;
use solana_clock::Slot;
use solana_hash::Hash;
use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::{Arc, MutexGuard};
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream};
use tokio_stream::StreamExt as _;
use tonic::codec::CompressionEncoding;
use tonic::{Request, Response, Status, Streaming};
use yellowstone_grpc_proto::geyser as pb;
use yellowstone_grpc_proto::geyser::geyser_server::{Geyser, GeyserServer};
use yellowstone_grpc_proto::geyser::subscribe_update::UpdateOneof;
use yellowstone_grpc_proto::solana::storage::confirmed_block as cb;

use self::filter::{AccountView, BlockFilter, Filters};

/// How often a subscription gets a `SubscribeUpdatePing`: Yellowstone servers ping every 15 s so that
/// proxies and load balancers keep quiet streams open, and clients use it to detect dead streams.
pub const PING_INTERVAL: Duration = Duration::from_secs(15);

/// Largest message accepted or sent. An account update carries the whole account (up to 10 MiB of
/// data) and a request can carry large cuckoo filters, so the limit is far above tonic's 4 MiB default.
pub const MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// Version reported by `GetVersion`.
pub const VERSION: &str = concat!("localnet-", env!("CARGO_PKG_VERSION"));

/// Updates queued per stream before its task waits for the client to read (backpressure). While the
/// task waits, the chain's broadcast buffer holds new events; a client too slow for that buffer gets its
/// stream ended with `DATA_LOSS`, never a silent gap.
const STREAM_QUEUE: usize = 4_096;

fn invalid(message: impl Into<String>) -> Status {
    Status::invalid_argument(message)
}

fn lock(chain: &SharedChain) -> Result<MutexGuard<'_, Chain>, Status> {
    chain
        .lock()
        .map_err(|_| Status::internal("the chain lock is poisoned (a chain operation panicked)"))
}

fn level_of(status: ChainSlotStatus) -> pb::CommitmentLevel {
    match status {
        ChainSlotStatus::Processed => pb::CommitmentLevel::Processed,
        ChainSlotStatus::Confirmed => pb::CommitmentLevel::Confirmed,
        ChainSlotStatus::Finalized => pb::CommitmentLevel::Finalized,
    }
}

/// A request's commitment: absent means processed (the Yellowstone default); unknown values are refused.
fn parse_commitment(commitment: Option<i32>) -> Result<pb::CommitmentLevel, Status> {
    match commitment {
        None => Ok(pb::CommitmentLevel::Processed),
        Some(v) => pb::CommitmentLevel::try_from(v).map_err(|_| {
            invalid(format!(
                "commitment: unknown level {v} (expected 0 processed, 1 confirmed, 2 finalized)"
            ))
        }),
    }
}

// ---------------------------------------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------------------------------------

/// Subscription filters. A request is checked once into these types (malformed input is refused with
/// `INVALID_ARGUMENT` before anything streams), so matching an event is cheap and cannot fail.
///
/// Semantics follow Yellowstone: inside one named filter the criteria are ANDed and an empty criterion
/// means "any"; an update is sent when at least one named filter matches, and carries the names of all
/// the filters that matched.
mod filter {
    use super::{invalid, parse_commitment, pb, ChainSlotStatus};
    use solana_pubkey::Pubkey;
    use solana_signature::Signature;
    use std::collections::{HashMap, HashSet};
    use std::str::FromStr;
    use tonic::Status;
    use yellowstone_grpc_proto::cuckoo::CuckooFilter;
    use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter::Filter as AccountsFilterKind;
    use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter_lamports::Cmp as LamportsCmp;
    use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter_memcmp::Data as MemcmpData;

    /// A probabilistic key set sent by clients tracking many accounts. The proto crate's
    /// `CompressedAccountFilterSet` builds these over the raw 32 key bytes, so they are matched that way.
    pub(super) type KeyCuckoo = CuckooFilter<[u8; 32]>;

    /// Bytes per cuckoo bucket on the wire: 4 entries of 16-bit fingerprints.
    const CUCKOO_BUCKET_BYTES: usize = 8;

    /// SPL Token account layout, for `token_account_state`: 165 bytes, `state` at byte 108 (0 uninitialized,
    /// 1 initialized, 2 frozen). Token-2022 accounts with extensions are longer and carry their account type
    /// (2 = account) at byte 165; a 355-byte account is a multisig.
    const TOKEN_ACCOUNT_LEN: usize = 165;
    const TOKEN_ACCOUNT_STATE_OFFSET: usize = 108;
    const TOKEN_MULTISIG_LEN: usize = 355;
    const TOKEN_2022_ACCOUNT_TYPE_ACCOUNT: u8 = 2;

    /// Whether `data` is an initialized SPL Token or Token-2022 token account.
    pub(super) fn is_token_account_data(data: &[u8]) -> bool {
        let initialized = matches!(data.get(TOKEN_ACCOUNT_STATE_OFFSET), Some(1 | 2));
        match data.len() {
            TOKEN_ACCOUNT_LEN => initialized,
            TOKEN_MULTISIG_LEN => false,
            len if len > TOKEN_ACCOUNT_LEN => {
                initialized && data.get(TOKEN_ACCOUNT_LEN) == Some(&TOKEN_2022_ACCOUNT_TYPE_ACCOUNT)
            }
            _ => false,
        }
    }

    /// `accounts_data_slice`: which parts of account data to send, to save bandwidth on large accounts.
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub(super) struct DataSlice(Vec<(usize, usize)>);

    impl DataSlice {
        pub(super) fn parse(
            slices: &[pb::SubscribeRequestAccountsDataSlice],
        ) -> Result<Self, Status> {
            let mut out = Vec::with_capacity(slices.len());
            for (i, s) in slices.iter().enumerate() {
                let offset = usize::try_from(s.offset).map_err(|_| {
                    invalid(format!(
                        "accounts_data_slice[{i}]: offset {} is too large",
                        s.offset
                    ))
                })?;
                let length = usize::try_from(s.length).map_err(|_| {
                    invalid(format!(
                        "accounts_data_slice[{i}]: length {} is too large",
                        s.length
                    ))
                })?;
                if offset.checked_add(length).is_none() {
                    return Err(invalid(format!(
                        "accounts_data_slice[{i}]: offset + length overflows"
                    )));
                }
                out.push((offset, length));
            }
            Ok(Self(out))
        }

        /// No slices: the whole data. Otherwise each slice in request order, clipped to the data (a slice
        /// past the end contributes nothing), concatenated.
        pub(super) fn apply(&self, data: &[u8]) -> Vec<u8> {
            if self.0.is_empty() {
                return data.to_vec();
            }
            let mut out = Vec::new();
            for &(offset, length) in &self.0 {
                let start = offset.min(data.len());
                let end = offset.saturating_add(length).min(data.len());
                if let Some(part) = data.get(start..end) {
                    out.extend_from_slice(part);
                }
            }
            out
        }
    }

    /// The parts of an account update that account filters look at.
    pub(super) struct AccountView<'a> {
        pub pubkey: &'a Pubkey,
        pub owner: &'a Pubkey,
        pub lamports: u64,
        pub data: &'a [u8],
        pub has_txn_signature: bool,
    }

    /// One entry of `SubscribeRequestFilterAccounts.filters`.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub(super) enum DataFilter {
        Memcmp { offset: usize, bytes: Vec<u8> },
        DataSize(u64),
        TokenAccountState,
        Lamports(LamportsCmp),
    }

    impl DataFilter {
        fn parse(what: &str, f: &pb::SubscribeRequestFilterAccountsFilter) -> Result<Self, Status> {
            match &f.filter {
                None => Err(invalid(format!("{what}: empty filter (expected memcmp, datasize, token_account_state or lamports)"))),
                Some(AccountsFilterKind::Memcmp(m)) => {
                    let offset =
                        usize::try_from(m.offset).map_err(|_| invalid(format!("{what}: memcmp offset {} is too large", m.offset)))?;
                    let bytes = match &m.data {
                        None => return Err(invalid(format!("{what}: memcmp without data"))),
                        Some(MemcmpData::Bytes(b)) => b.clone(),
                        Some(MemcmpData::Base58(s)) => bs58::decode(s)
                            .into_vec()
                            .map_err(|e| invalid(format!("{what}: memcmp base58 data {s:?}: {e}")))?,
                        Some(MemcmpData::Base64(s)) => {
                            use base64::Engine as _;
                            base64::engine::general_purpose::STANDARD
                                .decode(s)
                                .map_err(|e| invalid(format!("{what}: memcmp base64 data {s:?}: {e}")))?
                        }
                    };
                    if offset.checked_add(bytes.len()).is_none() {
                        return Err(invalid(format!("{what}: memcmp offset + data length overflows")));
                    }
                    Ok(Self::Memcmp { offset, bytes })
                }
                Some(AccountsFilterKind::Datasize(n)) => Ok(Self::DataSize(*n)),
                Some(AccountsFilterKind::TokenAccountState(true)) => Ok(Self::TokenAccountState),
                Some(AccountsFilterKind::TokenAccountState(false)) => {
                    Err(invalid(format!("{what}: token_account_state can only be true")))
                }
                Some(AccountsFilterKind::Lamports(l)) => match l.cmp {
                    None => Err(invalid(format!("{what}: lamports without a comparison (eq, ne, lt or gt)"))),
                    Some(cmp) => Ok(Self::Lamports(cmp)),
                },
            }
        }

        pub(super) fn matches(&self, a: &AccountView<'_>) -> bool {
            match self {
                Self::Memcmp { offset, bytes } => offset
                    .checked_add(bytes.len())
                    .and_then(|end| a.data.get(*offset..end))
                    .is_some_and(|window| window == bytes.as_slice()),
                Self::DataSize(n) => u64::try_from(a.data.len()).is_ok_and(|len| len == *n),
                Self::TokenAccountState => is_token_account_data(a.data),
                Self::Lamports(LamportsCmp::Eq(v)) => a.lamports == *v,
                Self::Lamports(LamportsCmp::Ne(v)) => a.lamports != *v,
                Self::Lamports(LamportsCmp::Lt(v)) => a.lamports < *v,
                Self::Lamports(LamportsCmp::Gt(v)) => a.lamports > *v,
            }
        }
    }

    fn pubkeys(what: &str, list: &[String]) -> Result<HashSet<Pubkey>, Status> {
        list.iter()
            .map(|s| {
                Pubkey::from_str(s)
                    .map_err(|_| invalid(format!("{what}: {s:?} is not a valid pubkey")))
            })
            .collect()
    }

    fn cuckoo(what: &str, f: Option<&pb::CuckooFilter>) -> Result<Option<KeyCuckoo>, Status> {
        let Some(f) = f else { return Ok(None) };
        if f.hash_algorithm != pb::CuckooHashAlgorithm::SipHash as i32 {
            return Err(invalid(format!(
                "{what}: unsupported cuckoo hash algorithm {}",
                f.hash_algorithm
            )));
        }
        // Bucket indexes are hash bits masked by the bucket count, so the count must be a power of two.
        let buckets = f.data.len() / CUCKOO_BUCKET_BYTES;
        if !f.data.len().is_multiple_of(CUCKOO_BUCKET_BYTES) || !buckets.is_power_of_two() {
            return Err(invalid(format!(
                "{what}: cuckoo filter data of {} bytes is not a power-of-two number of {CUCKOO_BUCKET_BYTES}-byte buckets",
                f.data.len()
            )));
        }
        Ok(Some(KeyCuckoo::from(f)))
    }

    /// One named `accounts` filter.
    pub(super) struct AccountFilter {
        accounts: HashSet<Pubkey>,
        accounts_cuckoo: Option<KeyCuckoo>,
        owners: HashSet<Pubkey>,
        data: Vec<DataFilter>,
        nonempty_txn_signature: Option<bool>,
    }

    impl AccountFilter {
        pub(super) fn parse(
            name: &str,
            f: &pb::SubscribeRequestFilterAccounts,
        ) -> Result<Self, Status> {
            let data = f
                .filters
                .iter()
                .enumerate()
                .map(|(i, d)| DataFilter::parse(&format!("accounts.{name}.filters[{i}]"), d))
                .collect::<Result<_, _>>()?;
            Ok(Self {
                accounts: pubkeys(&format!("accounts.{name}.account"), &f.account)?,
                accounts_cuckoo: cuckoo(
                    &format!("accounts.{name}.cuckoo_accounts_filter"),
                    f.cuckoo_accounts_filter.as_ref(),
                )?,
                owners: pubkeys(&format!("accounts.{name}.owner"), &f.owner)?,
                data,
                nonempty_txn_signature: f.nonempty_txn_signature,
            })
        }

        /// The account list (and cuckoo filter) and the owner list each restrict when given; every data
        /// filter must pass.
        pub(super) fn matches(&self, a: &AccountView<'_>) -> bool {
            let by_key = (self.accounts.is_empty() && self.accounts_cuckoo.is_none())
                || self.accounts.contains(a.pubkey)
                || self
                    .accounts_cuckoo
                    .as_ref()
                    .is_some_and(|c| c.contains(&a.pubkey.to_bytes()));
            let by_owner = self.owners.is_empty() || self.owners.contains(a.owner);
            let by_signature = self
                .nonempty_txn_signature
                .is_none_or(|want| want == a.has_txn_signature);
            by_key && by_owner && by_signature && self.data.iter().all(|d| d.matches(a))
        }
    }

    /// The parts of a transaction that transaction filters look at.
    #[derive(Debug, Clone, Default)]
    pub(super) struct TxFacts {
        pub signature: Signature,
        pub is_vote: bool,
        pub failed: bool,
        /// Static and loaded account keys.
        pub keys: Vec<Pubkey>,
        /// Owners of the pre and post token balances (for `token_accounts: ALL`).
        pub token_owners: Vec<Pubkey>,
        /// Owners whose token balance changed or whose token account closed (`token_accounts: BALANCE_CHANGED`).
        pub changed_token_owners: Vec<Pubkey>,
    }

    /// One named `transactions` (or `transactions_status`) filter.
    pub(super) struct TxFilter {
        vote: Option<bool>,
        failed: Option<bool>,
        signature: Option<Signature>,
        include: HashSet<Pubkey>,
        include_cuckoo: Option<KeyCuckoo>,
        exclude: HashSet<Pubkey>,
        required: HashSet<Pubkey>,
        token_accounts: Option<pb::TokenAccountExpansionControlFlag>,
    }

    impl TxFilter {
        pub(super) fn parse(
            what: &str,
            f: &pb::SubscribeRequestFilterTransactions,
        ) -> Result<Self, Status> {
            let signature = f
                .signature
                .as_deref()
                .map(|s| {
                    Signature::from_str(s).map_err(|_| {
                        invalid(format!("{what}.signature: {s:?} is not a valid signature"))
                    })
                })
                .transpose()?;
            let token_accounts = f
                .token_accounts
                .map(|v| {
                    pb::TokenAccountExpansionControlFlag::try_from(v)
                        .map_err(|_| invalid(format!("{what}.token_accounts: unknown value {v}")))
                })
                .transpose()?;
            Ok(Self {
                vote: f.vote,
                failed: f.failed,
                signature,
                include: pubkeys(&format!("{what}.account_include"), &f.account_include)?,
                include_cuckoo: cuckoo(
                    &format!("{what}.cuckoo_account_include"),
                    f.cuckoo_account_include.as_ref(),
                )?,
                exclude: pubkeys(&format!("{what}.account_exclude"), &f.account_exclude)?,
                required: pubkeys(&format!("{what}.account_required"), &f.account_required)?,
                token_accounts,
            })
        }

        /// `vote`, `failed` and `signature` restrict when given; `account_include` needs one of its keys in
        /// the transaction, `account_exclude` none, `account_required` all. With `token_accounts`, the
        /// owners of the transaction's token balances count as its keys too.
        pub(super) fn matches(&self, tx: &TxFacts) -> bool {
            if self.vote.is_some_and(|v| v != tx.is_vote)
                || self.failed.is_some_and(|f| f != tx.failed)
                || self.signature.is_some_and(|s| s != tx.signature)
            {
                return false;
            }
            let expanded: &[Pubkey] = match self.token_accounts {
                None => &[],
                Some(pb::TokenAccountExpansionControlFlag::All) => &tx.token_owners,
                Some(pb::TokenAccountExpansionControlFlag::BalanceChanged) => {
                    &tx.changed_token_owners
                }
            };
            let keys = || tx.keys.iter().chain(expanded);
            let included = (self.include.is_empty() && self.include_cuckoo.is_none())
                || keys().any(|k| {
                    self.include.contains(k)
                        || self
                            .include_cuckoo
                            .as_ref()
                            .is_some_and(|c| c.contains(&k.to_bytes()))
                });
            let excluded = keys().any(|k| self.exclude.contains(k));
            let required = self.required.iter().all(|r| keys().any(|k| k == r));
            included && !excluded && required
        }
    }

    /// One named `slots` filter.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) struct SlotFilter {
        by_commitment: bool,
    }

    impl SlotFilter {
        /// `filter_by_commitment`: only the status equal to the subscription's commitment; otherwise all.
        pub(super) fn matches(
            &self,
            status: ChainSlotStatus,
            commitment: pb::CommitmentLevel,
        ) -> bool {
            !self.by_commitment || super::level_of(status) == commitment
        }
    }

    /// One named `blocks` filter.
    pub(super) struct BlockFilter {
        include: HashSet<Pubkey>,
        include_cuckoo: Option<KeyCuckoo>,
        pub include_transactions: bool,
        pub include_accounts: bool,
    }

    impl BlockFilter {
        fn parse(name: &str, f: &pb::SubscribeRequestFilterBlocks) -> Result<Self, Status> {
            Ok(Self {
                include: pubkeys(
                    &format!("blocks.{name}.account_include"),
                    &f.account_include,
                )?,
                include_cuckoo: cuckoo(
                    &format!("blocks.{name}.cuckoo_account_include"),
                    f.cuckoo_account_include.as_ref(),
                )?,
                include_transactions: f.include_transactions.unwrap_or(true),
                include_accounts: f.include_accounts.unwrap_or(true),
            })
        }

        fn includes_key(&self, k: &Pubkey) -> bool {
            self.include.contains(k)
                || self
                    .include_cuckoo
                    .as_ref()
                    .is_some_and(|c| c.contains(&k.to_bytes()))
        }

        fn unrestricted(&self) -> bool {
            self.include.is_empty() && self.include_cuckoo.is_none()
        }

        /// Without `account_include` every transaction of the block; otherwise those touching one of them.
        pub(super) fn includes_transaction(&self, keys: &[Pubkey]) -> bool {
            self.unrestricted() || keys.iter().any(|k| self.includes_key(k))
        }

        /// Without `account_include` every account update of the block; otherwise those of listed accounts.
        pub(super) fn includes_account(&self, pubkey: &Pubkey) -> bool {
            self.unrestricted() || self.includes_key(pubkey)
        }
    }

    /// Everything one `SubscribeRequest` asks for. Named filters are kept sorted by name so that the
    /// `filters` of every update come in a stable order.
    #[derive(Default)]
    pub(super) struct Filters {
        pub accounts: Vec<(String, AccountFilter)>,
        pub transactions: Vec<(String, TxFilter)>,
        pub transactions_status: Vec<(String, TxFilter)>,
        pub slots: Vec<(String, SlotFilter)>,
        pub blocks: Vec<(String, BlockFilter)>,
        pub blocks_meta: Vec<String>,
        pub commitment: pb::CommitmentLevel,
        pub data_slice: DataSlice,
    }

    fn named<F, T>(
        map: &HashMap<String, F>,
        parse: impl Fn(&str, &F) -> Result<T, Status>,
    ) -> Result<Vec<(String, T)>, Status> {
        let mut out = map
            .iter()
            .map(|(name, f)| Ok((name.clone(), parse(name, f)?)))
            .collect::<Result<Vec<_>, Status>>()?;
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// A request that only answers a server ping (or pings the server): it must not replace the filters,
    /// or a client keeping its stream alive would unsubscribe itself.
    pub(super) fn is_ping_only(req: &pb::SubscribeRequest) -> bool {
        req.ping.is_some()
            && req.accounts.is_empty()
            && req.slots.is_empty()
            && req.transactions.is_empty()
            && req.transactions_status.is_empty()
            && req.blocks.is_empty()
            && req.blocks_meta.is_empty()
            && req.entry.is_empty()
            && req.block_footer.is_empty()
            && req.commitment.is_none()
            && req.accounts_data_slice.is_empty()
            && req.from_slot.is_none()
    }

    impl Filters {
        pub(super) fn parse(req: &pb::SubscribeRequest) -> Result<Self, Status> {
            if !req.entry.is_empty() {
                return Err(Status::unimplemented("entry subscriptions are not supported: the localnet does not record PoH entries"));
            }
            if !req.block_footer.is_empty() {
                return Err(Status::unimplemented(
                    "block_footer subscriptions are not supported: the localnet produces no Alpenglow block footers",
                ));
            }
            let mut blocks_meta: Vec<String> = req.blocks_meta.keys().cloned().collect();
            blocks_meta.sort();
            Ok(Self {
                accounts: named(&req.accounts, AccountFilter::parse)?,
                transactions: named(&req.transactions, |name, f| {
                    TxFilter::parse(&format!("transactions.{name}"), f)
                })?,
                transactions_status: named(&req.transactions_status, |name, f| {
                    TxFilter::parse(&format!("transactions_status.{name}"), f)
                })?,
                slots: named(&req.slots, |_, f| {
                    Ok(SlotFilter {
                        by_commitment: f.filter_by_commitment.unwrap_or(false),
                    })
                })?,
                blocks: named(&req.blocks, BlockFilter::parse)?,
                blocks_meta,
                commitment: parse_commitment(req.commitment)?,
                data_slice: DataSlice::parse(&req.accounts_data_slice)?,
            })
        }

        pub(super) fn accounts_matching(&self, a: &AccountView<'_>) -> Vec<String> {
            self.accounts
                .iter()
                .filter(|(_, f)| f.matches(a))
                .map(|(n, _)| n.clone())
                .collect()
        }

        pub(super) fn transactions_matching(&self, tx: &TxFacts) -> Vec<String> {
            self.transactions
                .iter()
                .filter(|(_, f)| f.matches(tx))
                .map(|(n, _)| n.clone())
                .collect()
        }

        pub(super) fn transaction_statuses_matching(&self, tx: &TxFacts) -> Vec<String> {
            self.transactions_status
                .iter()
                .filter(|(_, f)| f.matches(tx))
                .map(|(n, _)| n.clone())
                .collect()
        }

        pub(super) fn slots_matching(&self, status: ChainSlotStatus) -> Vec<String> {
            self.slots
                .iter()
                .filter(|(_, f)| f.matches(status, self.commitment))
                .map(|(n, _)| n.clone())
                .collect()
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Conversions: Solana types to proto messages
// ---------------------------------------------------------------------------------------------------------

/// Solana types to the Yellowstone and `solana.storage.ConfirmedBlock` proto messages, field for field as
/// the Yellowstone plugin fills them, so that clients' own proto-to-Solana conversions round-trip.
mod convert {
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
        tx.message.instructions().iter().any(|ix| {
            keys.get(usize::from(ix.program_id_index)) == Some(&solana_sdk_ids::vote::id())
        })
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
}

// ---------------------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------------------

/// The `geyser.Geyser` service over a shared chain.
#[derive(Clone)]
pub struct GeyserService {
    chain: SharedChain,
    /// Turns true when the server shuts down. Subscriptions never end on their own, and a graceful
    /// shutdown waits for open streams, so they watch this to end theirs.
    closing: watch::Receiver<bool>,
}

impl GeyserService {
    /// A service whose streams end only when their clients leave (embed it with [`geyser_server`]).
    pub fn new(chain: SharedChain) -> Self {
        let (_, closing) = watch::channel(false);
        GeyserService { chain, closing }
    }

    fn with_closing(chain: SharedChain, closing: watch::Receiver<bool>) -> Self {
        GeyserService { chain, closing }
    }
}

/// The service wrapped for tonic, configured as Yellowstone deployments are: large messages, and
/// gzip/zstd compression when the client asks for it.
pub fn geyser_server(chain: SharedChain) -> GeyserServer<GeyserService> {
    configure(GeyserServer::new(GeyserService::new(chain)))
}

fn configure(server: GeyserServer<GeyserService>) -> GeyserServer<GeyserService> {
    server
        .max_decoding_message_size(MAX_MESSAGE_SIZE)
        .max_encoding_message_size(MAX_MESSAGE_SIZE)
        .accept_compressed(CompressionEncoding::Gzip)
        .accept_compressed(CompressionEncoding::Zstd)
        .send_compressed(CompressionEncoding::Gzip)
        .send_compressed(CompressionEncoding::Zstd)
}

/// Binds `addr` and serves until `shutdown` resolves.
pub async fn serve(
    chain: SharedChain,
    addr: SocketAddr,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding the Yellowstone gRPC listener on {addr}"))?;
    serve_with_listener(chain, listener, shutdown).await
}

/// Serves on an already bound listener (tests bind port 0 first to learn the port) until `shutdown`
/// resolves.
pub async fn serve_with_listener(
    chain: SharedChain,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    if let Ok(addr) = listener.local_addr() {
        tracing::info!("Yellowstone gRPC listening on {addr}");
    }
    // Updates are small and latency matters more than packet count.
    let incoming = TcpListenerStream::new(listener).map(|conn| {
        if let Ok(stream) = &conn {
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!("gRPC connection: setting TCP_NODELAY: {e}");
            }
        }
        conn
    });
    let (closing_tx, closing) = watch::channel(false);
    let signal = async move {
        shutdown.await;
        // Ends the open subscriptions, so that the graceful shutdown does not wait on them forever.
        closing_tx.send_replace(true);
    };
    tonic::transport::Server::builder()
        .add_service(configure(GeyserServer::new(GeyserService::with_closing(
            chain, closing,
        ))))
        .serve_with_incoming_shutdown(incoming, signal)
        .await
        .context("Yellowstone gRPC server")?;
    Ok(())
}

#[tonic::async_trait]
impl Geyser for GeyserService {
    type SubscribeStream = ReceiverStream<Result<pb::SubscribeUpdate, Status>>;

    async fn subscribe(
        &self,
        request: Request<Streaming<pb::SubscribeRequest>>,
    ) -> Result<Response<Self::SubscribeStream>, Status> {
        let (out, rx) = mpsc::channel(STREAM_QUEUE);
        let subscription = Subscription::new(self.chain.clone(), out);
        tokio::spawn(subscription.run(request.into_inner(), self.closing.clone()));
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type SubscribeDeshredStream = tokio_stream::Empty<Result<pb::SubscribeUpdateDeshred, Status>>;

    async fn subscribe_deshred(
        &self,
        _request: Request<Streaming<pb::SubscribeDeshredRequest>>,
    ) -> Result<Response<Self::SubscribeDeshredStream>, Status> {
        Err(Status::unimplemented(
            "SubscribeDeshred is not supported: the localnet has no shreds (transactions execute as they arrive)",
        ))
    }

    type SubscribeGossipStream = tokio_stream::Empty<Result<pb::SubscribeUpdateGossip, Status>>;

    async fn subscribe_gossip(
        &self,
        _request: Request<pb::SubscribeGossipRequest>,
    ) -> Result<Response<Self::SubscribeGossipStream>, Status> {
        Err(Status::unimplemented(
            "SubscribeGossip is not supported: the localnet is a single node without gossip",
        ))
    }

    /// The oldest slot `from_slot` can replay from.
    async fn subscribe_replay_info(
        &self,
        _request: Request<pb::SubscribeReplayInfoRequest>,
    ) -> Result<Response<pb::SubscribeReplayInfoResponse>, Status> {
        let first_available = lock(&self.chain)?.first_replayable_slot();
        Ok(Response::new(pb::SubscribeReplayInfoResponse {
            first_available: Some(first_available),
        }))
    }

    async fn ping(
        &self,
        request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PongResponse>, Status> {
        Ok(Response::new(pb::PongResponse {
            count: request.into_inner().count,
        }))
    }

    // Commitment on the unary methods: a slot's bank is frozen, confirmed and finalized in one step and the
    // working bank carries the last frozen blockhash, so every level sees the same tip. The level is still
    // checked so that a bad value is refused as on a real endpoint.

    async fn get_latest_blockhash(
        &self,
        request: Request<pb::GetLatestBlockhashRequest>,
    ) -> Result<Response<pb::GetLatestBlockhashResponse>, Status> {
        parse_commitment(request.into_inner().commitment)?;
        let (slot, (hash, last_valid_block_height)) = {
            let chain = lock(&self.chain)?;
            (chain.slot(), chain.latest_blockhash())
        };
        Ok(Response::new(pb::GetLatestBlockhashResponse {
            slot,
            blockhash: hash.to_string(),
            last_valid_block_height,
        }))
    }

    async fn get_block_height(
        &self,
        request: Request<pb::GetBlockHeightRequest>,
    ) -> Result<Response<pb::GetBlockHeightResponse>, Status> {
        parse_commitment(request.into_inner().commitment)?;
        let block_height = lock(&self.chain)?.block_height();
        Ok(Response::new(pb::GetBlockHeightResponse { block_height }))
    }

    async fn get_slot(
        &self,
        request: Request<pb::GetSlotRequest>,
    ) -> Result<Response<pb::GetSlotResponse>, Status> {
        parse_commitment(request.into_inner().commitment)?;
        let slot = lock(&self.chain)?.slot();
        Ok(Response::new(pb::GetSlotResponse { slot }))
    }

    async fn is_blockhash_valid(
        &self,
        request: Request<pb::IsBlockhashValidRequest>,
    ) -> Result<Response<pb::IsBlockhashValidResponse>, Status> {
        let request = request.into_inner();
        parse_commitment(request.commitment)?;
        let hash = Hash::from_str(&request.blockhash).map_err(|_| {
            invalid(format!(
                "blockhash: {:?} is not a valid base58 hash",
                request.blockhash
            ))
        })?;
        let (slot, valid) = {
            let chain = lock(&self.chain)?;
            (chain.slot(), chain.is_blockhash_valid(&hash))
        };
        Ok(Response::new(pb::IsBlockhashValidResponse { slot, valid }))
    }

    async fn get_version(
        &self,
        _request: Request<pb::GetVersionRequest>,
    ) -> Result<Response<pb::GetVersionResponse>, Status> {
        let version =
            serde_json::json!({ "version": VERSION, "proto": "yellowstone-grpc-proto 14.0.1" })
                .to_string();
        Ok(Response::new(pb::GetVersionResponse { version }))
    }
}

// ---------------------------------------------------------------------------------------------------------
// One Subscribe stream
// ---------------------------------------------------------------------------------------------------------

/// Something to send once its slot reaches the subscription's commitment.
enum Item {
    /// An account, transaction or block meta event.
    Event(Arc<Stamped>),
    /// A whole block: its meta event and the account and transaction events of its slot.
    Block {
        meta: Arc<Stamped>,
        events: Vec<Arc<Stamped>>,
    },
}

impl Item {
    fn slot(&self) -> Slot {
        match self {
            Item::Event(e) | Item::Block { meta: e, .. } => e.event.slot(),
        }
    }
}

/// Why a stream ends.
enum Stop {
    /// The client went away: nothing more to send.
    ClientGone,
    /// End the stream with this status.
    Fail(Status),
}

impl From<Status> for Stop {
    fn from(status: Status) -> Self {
        Stop::Fail(status)
    }
}

/// What woke the stream task.
enum Step {
    Request(Option<Result<Box<pb::SubscribeRequest>, Status>>),
    Keepalive,
    Live(Result<Arc<Stamped>, RecvError>),
}

/// Resolves when the server shuts down; never when there is no server to shut down (sender dropped).
async fn server_closing(closing: &mut watch::Receiver<bool>) {
    if closing.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Waits for the next live chain event; never resolves before the stream has subscribed to the chain.
async fn next_live(
    live: &mut Option<broadcast::Receiver<Arc<Stamped>>>,
) -> Result<Arc<Stamped>, RecvError> {
    match live {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// The state of one `Subscribe` stream, run by its own task.
///
/// The stream subscribes to the chain when the first request with filters arrives (so that `from_slot`
/// can replay history joined to the live feed under one lock). Every event goes through `on_event`,
/// whether replayed or live, so the commitment buffering and block assembly behave the same for both.
struct Subscription {
    chain: SharedChain,
    out: mpsc::Sender<Result<pb::SubscribeUpdate, Status>>,
    filters: Filters,
    live: Option<broadcast::Receiver<Arc<Stamped>>>,
    /// The `from_slot` the stream started with; events of earlier slots are not sent.
    from_slot: Option<Slot>,
    /// Sequence number of the last replayed event: live events up to it were already handled.
    replayed_through: u64,
    /// Account and transaction events of slots whose block meta has not arrived yet, to assemble blocks.
    /// A slot's events are emitted under one chain lock, so a stream never starts in the middle of one.
    open: BTreeMap<Slot, Vec<Arc<Stamped>>>,
    /// Updates waiting for their slot to reach the subscription's commitment.
    pending: BTreeMap<Slot, Vec<Item>>,
    confirmed: Option<Slot>,
    finalized: Option<Slot>,
}

impl Subscription {
    fn new(chain: SharedChain, out: mpsc::Sender<Result<pb::SubscribeUpdate, Status>>) -> Self {
        Subscription {
            chain,
            out,
            filters: Filters::default(),
            live: None,
            from_slot: None,
            replayed_through: 0,
            open: BTreeMap::new(),
            pending: BTreeMap::new(),
            confirmed: None,
            finalized: None,
        }
    }

    async fn run(
        mut self,
        mut requests: Streaming<pb::SubscribeRequest>,
        mut closing: watch::Receiver<bool>,
    ) {
        let first_ping = Instant::now()
            .checked_add(PING_INTERVAL)
            .unwrap_or_else(Instant::now);
        let mut keepalive = tokio::time::interval_at(first_ping, PING_INTERVAL);
        keepalive.set_missed_tick_behavior(MissedTickBehavior::Delay);
        // After the client half-closes its request stream, updates keep flowing with the last filters.
        let mut reading = true;
        let stop = loop {
            let step = tokio::select! {
                biased;
                () = self.out.closed() => break Stop::ClientGone,
                () = server_closing(&mut closing) => break Stop::Fail(Status::unavailable("the server is shutting down")),
                request = requests.next(), if reading => Step::Request(request.map(|r| r.map(Box::new))),
                _ = keepalive.tick() => Step::Keepalive,
                event = next_live(&mut self.live) => Step::Live(event),
            };
            let result = match step {
                Step::Request(Some(Ok(request))) => self.on_request(*request).await,
                Step::Request(Some(Err(status))) => {
                    tracing::debug!("gRPC subscription: request stream failed: {status}");
                    Err(Stop::ClientGone)
                }
                Step::Request(None) => {
                    reading = false;
                    Ok(())
                }
                Step::Keepalive => {
                    self.send(convert::update(
                        Vec::new(),
                        UpdateOneof::Ping(pb::SubscribeUpdatePing {}),
                    ))
                    .await
                }
                Step::Live(Ok(event)) if event.seq <= self.replayed_through => Ok(()),
                Step::Live(Ok(event)) => self.on_event(event).await,
                Step::Live(Err(RecvError::Lagged(missed))) => {
                    Err(Stop::Fail(Status::data_loss(format!(
                        "the subscription fell behind the chain and {missed} events were dropped; \
                     resubscribe with from_slot to replay what was missed"
                    ))))
                }
                Step::Live(Err(RecvError::Closed)) => {
                    Err(Stop::Fail(Status::unavailable("the chain stopped")))
                }
            };
            if let Err(stop) = result {
                break stop;
            }
        };
        if let Stop::Fail(status) = stop {
            tracing::debug!("gRPC subscription ended: {status}");
            // The client may be gone already; nothing else to tell it.
            let _ = self.out.send(Err(status)).await;
        }
    }

    async fn send(&self, update: pb::SubscribeUpdate) -> Result<(), Stop> {
        self.out
            .send(Ok(update))
            .await
            .map_err(|_| Stop::ClientGone)
    }

    /// Answers a ping, then (unless the request is only a ping) replaces the filters, and starts the
    /// stream on the first request with filters.
    async fn on_request(&mut self, request: pb::SubscribeRequest) -> Result<(), Stop> {
        if let Some(ping) = &request.ping {
            self.send(convert::update(
                Vec::new(),
                UpdateOneof::Pong(pb::SubscribeUpdatePong { id: ping.id }),
            ))
            .await?;
        }
        if filter::is_ping_only(&request) {
            return Ok(());
        }
        let filters = Filters::parse(&request)?;
        let started = self.live.is_some();
        if started && request.from_slot.is_some() && request.from_slot != self.from_slot {
            return Err(invalid(
                "from_slot can only be set by the request that starts a subscription; open a new stream to replay",
            )
            .into());
        }
        let previous = std::mem::replace(&mut self.filters, filters).commitment;
        if !started {
            self.start(request.from_slot).await
        } else if previous != self.filters.commitment {
            // What the new commitment already allows goes out now.
            self.release(self.reached_slot()).await
        } else {
            Ok(())
        }
    }

    /// Subscribes to the chain, replaying history first when `from_slot` asks for it. History and the live
    /// receiver are taken under one lock so that they join without a gap or a duplicate.
    async fn start(&mut self, from_slot: Option<Slot>) -> Result<(), Stop> {
        let (history, live) = {
            let chain = lock(&self.chain)?;
            match from_slot {
                None => (Vec::new(), chain.subscribe()),
                Some(from) => {
                    let oldest = chain.first_replayable_slot();
                    if from < oldest {
                        return Err(invalid(format!(
                            "from_slot {from} is not available: the oldest slot that can be replayed is {oldest}"
                        ))
                        .into());
                    }
                    (chain.history_from(from), chain.subscribe())
                }
            }
        };
        tracing::debug!(
            "gRPC subscription started (from_slot {from_slot:?}, {} events to replay)",
            history.len()
        );
        self.live = Some(live);
        self.from_slot = from_slot;
        self.replayed_through = history.last().map_or(0, |e| e.seq);
        for event in history {
            self.on_event(event).await?;
        }
        Ok(())
    }

    async fn on_event(&mut self, event: Arc<Stamped>) -> Result<(), Stop> {
        let slot = event.event.slot();
        if self.from_slot.is_some_and(|from| slot < from) {
            return Ok(());
        }
        match &event.event {
            ChainEvent::Account { .. } | ChainEvent::Transaction(_) => {
                self.open.entry(slot).or_default().push(Arc::clone(&event));
                self.route(Item::Event(event)).await
            }
            ChainEvent::BlockMeta { .. } => {
                let closed: Vec<Slot> = self.open.range(..=slot).map(|(s, _)| *s).collect();
                let events = closed
                    .into_iter()
                    .filter_map(|s| self.open.remove(&s))
                    .flatten()
                    .collect();
                self.route(Item::Event(Arc::clone(&event))).await?;
                self.route(Item::Block {
                    meta: event,
                    events,
                })
                .await
            }
            ChainEvent::Slot {
                slot,
                parent,
                status,
            } => {
                let (slot, parent, status) = (*slot, *parent, *status);
                if status >= ChainSlotStatus::Confirmed {
                    self.confirmed = self.confirmed.max(Some(slot));
                }
                if status == ChainSlotStatus::Finalized {
                    self.finalized = self.finalized.max(Some(slot));
                }
                if status != ChainSlotStatus::Processed
                    && level_of(status) == self.filters.commitment
                {
                    self.release(Some(slot)).await?;
                }
                let names = self.filters.slots_matching(status);
                if names.is_empty() {
                    return Ok(());
                }
                let update = pb::SubscribeUpdateSlot {
                    slot,
                    parent,
                    status: convert::slot_status(status) as i32,
                    dead_error: None,
                    bank_id: None,
                };
                self.send(convert::update(names, UpdateOneof::Slot(update)))
                    .await
            }
        }
    }

    /// The highest slot at the subscription's commitment (processed: everything).
    fn reached_slot(&self) -> Option<Slot> {
        match self.filters.commitment {
            pb::CommitmentLevel::Processed => Some(Slot::MAX),
            pb::CommitmentLevel::Confirmed => self.confirmed,
            pb::CommitmentLevel::Finalized => self.finalized,
        }
    }

    async fn route(&mut self, item: Item) -> Result<(), Stop> {
        let slot = item.slot();
        if self.reached_slot().is_some_and(|reached| slot <= reached) {
            self.emit(&item).await
        } else {
            self.pending.entry(slot).or_default().push(item);
            Ok(())
        }
    }

    /// Sends the buffered updates of every slot up to `through`, oldest first.
    async fn release(&mut self, through: Option<Slot>) -> Result<(), Stop> {
        let Some(through) = through else {
            return Ok(());
        };
        let slots: Vec<Slot> = self.pending.range(..=through).map(|(s, _)| *s).collect();
        for slot in slots {
            for item in self.pending.remove(&slot).unwrap_or_default() {
                self.emit(&item).await?;
            }
        }
        Ok(())
    }

    async fn emit(&self, item: &Item) -> Result<(), Stop> {
        for update in self.updates_for(item) {
            self.send(update).await?;
        }
        Ok(())
    }

    /// The updates an item produces under the current filters (none when no filter matches).
    fn updates_for(&self, item: &Item) -> Vec<pb::SubscribeUpdate> {
        let f = &self.filters;
        let mut out = Vec::new();
        match item {
            Item::Event(event) => match &event.event {
                ChainEvent::Account {
                    slot,
                    pubkey,
                    account,
                    write_version,
                    txn_signature,
                } => {
                    let view = AccountView {
                        pubkey,
                        owner: account.owner(),
                        lamports: account.lamports(),
                        data: account.data(),
                        has_txn_signature: txn_signature.is_some(),
                    };
                    let names = f.accounts_matching(&view);
                    if !names.is_empty() {
                        let info = convert::account_info(
                            pubkey,
                            account,
                            *write_version,
                            txn_signature.as_ref(),
                            &f.data_slice,
                        );
                        let update = pb::SubscribeUpdateAccount {
                            account: Some(info),
                            slot: *slot,
                            is_startup: false,
                            bank_id: None,
                        };
                        out.push(convert::update(names, UpdateOneof::Account(update)));
                    }
                }
                ChainEvent::Transaction(tx) => {
                    let facts = convert::tx_facts(tx);
                    let names = f.transactions_matching(&facts);
                    if !names.is_empty() {
                        let update = pb::SubscribeUpdateTransaction {
                            transaction: Some(convert::transaction_info(tx)),
                            slot: tx.slot,
                            bank_id: 0,
                        };
                        out.push(convert::update(names, UpdateOneof::Transaction(update)));
                    }
                    let names = f.transaction_statuses_matching(&facts);
                    if !names.is_empty() {
                        out.push(convert::update(
                            names,
                            UpdateOneof::TransactionStatus(convert::transaction_status(tx)),
                        ));
                    }
                }
                ChainEvent::BlockMeta { .. } => {
                    if let Some(info) = block_info(&event.event) {
                        if !f.blocks_meta.is_empty() {
                            out.push(convert::update(
                                f.blocks_meta.clone(),
                                UpdateOneof::BlockMeta(convert::block_meta(&info)),
                            ));
                        }
                    }
                }
                // Slot statuses are sent as they arrive, never buffered.
                ChainEvent::Slot { .. } => {}
            },
            Item::Block { meta, events } => {
                if let Some(info) = block_info(&meta.event) {
                    for (name, filter) in &f.blocks {
                        let block = self.block_for(filter, &info, events);
                        out.push(convert::update(
                            vec![name.clone()],
                            UpdateOneof::Block(block),
                        ));
                    }
                }
            }
        }
        out
    }

    /// A block as one `blocks` filter selects it. Each filter gets its own update because their
    /// `account_include` lists select different contents.
    fn block_for(
        &self,
        filter: &BlockFilter,
        info: &convert::BlockInfo,
        events: &[Arc<Stamped>],
    ) -> pb::SubscribeUpdateBlock {
        let mut transactions = Vec::new();
        let mut accounts = Vec::new();
        let mut updated_account_count: u64 = 0;
        for event in events {
            match &event.event {
                ChainEvent::Account {
                    pubkey,
                    account,
                    write_version,
                    txn_signature,
                    ..
                } => {
                    updated_account_count = updated_account_count.saturating_add(1);
                    if filter.include_accounts && filter.includes_account(pubkey) {
                        accounts.push(convert::account_info(
                            pubkey,
                            account,
                            *write_version,
                            txn_signature.as_ref(),
                            &self.filters.data_slice,
                        ));
                    }
                }
                ChainEvent::Transaction(tx) => {
                    let keys: Vec<_> = tx.account_keys.iter().map(|(k, _)| *k).collect();
                    if filter.include_transactions && filter.includes_transaction(&keys) {
                        transactions.push(convert::transaction_info(tx));
                    }
                }
                ChainEvent::Slot { .. } | ChainEvent::BlockMeta { .. } => {}
            }
        }
        convert::block(info, transactions, accounts, updated_account_count)
    }
}

fn block_info(event: &ChainEvent) -> Option<convert::BlockInfo> {
    match event {
        ChainEvent::BlockMeta {
            slot,
            parent_slot,
            blockhash,
            parent_blockhash,
            block_time,
            block_height,
            executed_transaction_count,
        } => Some(convert::BlockInfo {
            slot: *slot,
            parent_slot: *parent_slot,
            blockhash: *blockhash,
            parent_blockhash: *parent_blockhash,
            block_time: *block_time,
            block_height: *block_height,
            executed_transaction_count: *executed_transaction_count,
        }),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::filter::{is_token_account_data, AccountView, DataSlice, Filters, TxFacts};
    use super::*;
    use solana_pubkey::Pubkey;
    use solana_signature::Signature;
    use std::collections::HashMap;
    use yellowstone_grpc_proto::cuckoo::CuckooFilter;
    use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter::Filter as Kind;
    use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter_lamports::Cmp;
    use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter_memcmp::Data;

    fn key(b: u8) -> Pubkey {
        Pubkey::new_from_array([b; 32])
    }

    fn accounts_request(
        filters: Vec<(&str, pb::SubscribeRequestFilterAccounts)>,
    ) -> pb::SubscribeRequest {
        pb::SubscribeRequest {
            accounts: filters
                .into_iter()
                .map(|(n, f)| (n.to_string(), f))
                .collect(),
            ..Default::default()
        }
    }

    fn account_filters(filters: Vec<(&str, pb::SubscribeRequestFilterAccounts)>) -> Filters {
        Filters::parse(&accounts_request(filters))
            .unwrap_or_else(|e| panic!("filters refused: {e}"))
    }

    fn data_filter(kind: Kind) -> pb::SubscribeRequestFilterAccountsFilter {
        pb::SubscribeRequestFilterAccountsFilter { filter: Some(kind) }
    }

    fn memcmp(offset: u64, data: Data) -> pb::SubscribeRequestFilterAccountsFilter {
        data_filter(Kind::Memcmp(
            pb::SubscribeRequestFilterAccountsFilterMemcmp {
                offset,
                data: Some(data),
            },
        ))
    }

    fn view<'a>(
        pubkey: &'a Pubkey,
        owner: &'a Pubkey,
        lamports: u64,
        data: &'a [u8],
    ) -> AccountView<'a> {
        AccountView {
            pubkey,
            owner,
            lamports,
            data,
            has_txn_signature: true,
        }
    }

    #[test]
    fn empty_account_filter_matches_everything() {
        let f = account_filters(vec![("all", Default::default())]);
        assert_eq!(
            f.accounts_matching(&view(&key(1), &key(2), 5, b"")),
            vec!["all"]
        );
    }

    #[test]
    fn account_and_owner_lists_restrict_together() {
        let f = account_filters(vec![
            (
                "by_key",
                pb::SubscribeRequestFilterAccounts {
                    account: vec![key(1).to_string(), key(3).to_string()],
                    ..Default::default()
                },
            ),
            (
                "by_owner",
                pb::SubscribeRequestFilterAccounts {
                    owner: vec![key(9).to_string()],
                    ..Default::default()
                },
            ),
            (
                "both",
                pb::SubscribeRequestFilterAccounts {
                    account: vec![key(1).to_string()],
                    owner: vec![key(9).to_string()],
                    ..Default::default()
                },
            ),
        ]);
        assert_eq!(
            f.accounts_matching(&view(&key(1), &key(9), 0, b"")),
            vec!["both", "by_key", "by_owner"]
        );
        assert_eq!(
            f.accounts_matching(&view(&key(1), &key(8), 0, b"")),
            vec!["by_key"]
        );
        assert_eq!(
            f.accounts_matching(&view(&key(2), &key(9), 0, b"")),
            vec!["by_owner"]
        );
        assert!(f
            .accounts_matching(&view(&key(2), &key(8), 0, b""))
            .is_empty());
    }

    #[test]
    fn memcmp_in_bytes_base58_and_base64() {
        let data = [0u8, 1, 2, 3, 4, 5, 6, 7];
        let cases = [
            (memcmp(2, Data::Bytes(vec![2, 3, 4])), true),
            (
                memcmp(2, Data::Base58(bs58::encode([2u8, 3, 4]).into_string())),
                true,
            ),
            (memcmp(6, Data::Base64("Bgc=".into())), true),
            (memcmp(0, Data::Bytes(vec![1])), false),
            // Past the end of the data: no match, no panic.
            (memcmp(7, Data::Bytes(vec![7, 8])), false),
            (memcmp(u64::from(u32::MAX), Data::Bytes(vec![0])), false),
            // Empty data always matches.
            (memcmp(8, Data::Bytes(vec![])), true),
        ];
        for (i, (filter, expected)) in cases.into_iter().enumerate() {
            let f = account_filters(vec![(
                "m",
                pb::SubscribeRequestFilterAccounts {
                    filters: vec![filter],
                    ..Default::default()
                },
            )]);
            let matched = !f
                .accounts_matching(&view(&key(1), &key(2), 0, &data))
                .is_empty();
            assert_eq!(matched, expected, "case {i}");
        }
    }

    #[test]
    fn datasize_lamports_and_all_filters_anded() {
        let f = account_filters(vec![(
            "f",
            pb::SubscribeRequestFilterAccounts {
                filters: vec![
                    data_filter(Kind::Datasize(4)),
                    data_filter(Kind::Lamports(
                        pb::SubscribeRequestFilterAccountsFilterLamports {
                            cmp: Some(Cmp::Gt(10)),
                        },
                    )),
                    memcmp(0, Data::Bytes(vec![9])),
                ],
                ..Default::default()
            },
        )]);
        let matches = |lamports, data: &[u8]| {
            !f.accounts_matching(&view(&key(1), &key(2), lamports, data))
                .is_empty()
        };
        assert!(matches(11, &[9, 0, 0, 0]));
        assert!(!matches(10, &[9, 0, 0, 0]), "lamports not > 10");
        assert!(!matches(11, &[9, 0, 0]), "datasize 3");
        assert!(!matches(11, &[8, 0, 0, 0]), "memcmp");

        for (cmp, lamports, expected) in [
            (Cmp::Eq(5), 5, true),
            (Cmp::Eq(5), 6, false),
            (Cmp::Ne(5), 6, true),
            (Cmp::Lt(5), 4, true),
            (Cmp::Lt(5), 5, false),
        ] {
            let f = account_filters(vec![(
                "l",
                pb::SubscribeRequestFilterAccounts {
                    filters: vec![data_filter(Kind::Lamports(
                        pb::SubscribeRequestFilterAccountsFilterLamports { cmp: Some(cmp) },
                    ))],
                    ..Default::default()
                },
            )]);
            assert_eq!(
                !f.accounts_matching(&view(&key(1), &key(2), lamports, b""))
                    .is_empty(),
                expected,
                "{cmp:?} {lamports}"
            );
        }
    }

    #[test]
    fn token_account_state() {
        let mut token = vec![0u8; 165];
        assert!(!is_token_account_data(&token), "uninitialized");
        token[108] = 1;
        assert!(is_token_account_data(&token));
        token[108] = 2;
        assert!(is_token_account_data(&token), "frozen");
        token[108] = 3;
        assert!(!is_token_account_data(&token), "invalid state");
        token[108] = 1;
        let mut extended = token.clone();
        extended.extend_from_slice(&[2, 0, 0]);
        assert!(
            is_token_account_data(&extended),
            "token-2022 account with extensions"
        );
        extended[165] = 1;
        assert!(!is_token_account_data(&extended), "token-2022 mint");
        assert!(!is_token_account_data(&token[..82]), "a mint");

        let f = account_filters(vec![(
            "t",
            pb::SubscribeRequestFilterAccounts {
                filters: vec![data_filter(Kind::TokenAccountState(true))],
                ..Default::default()
            },
        )]);
        assert_eq!(
            f.accounts_matching(&view(&key(1), &key(2), 0, &token)),
            vec!["t"]
        );
    }

    #[test]
    fn nonempty_txn_signature() {
        let f = account_filters(vec![(
            "tx",
            pb::SubscribeRequestFilterAccounts {
                nonempty_txn_signature: Some(true),
                ..Default::default()
            },
        )]);
        let (account, owner) = (key(1), key(2));
        let mut v = view(&account, &owner, 0, b"");
        assert_eq!(f.accounts_matching(&v), vec!["tx"]);
        v.has_txn_signature = false;
        assert!(f.accounts_matching(&v).is_empty());
    }

    #[test]
    fn cuckoo_account_filter() {
        let mut cuckoo = CuckooFilter::<[u8; 32]>::with_capacity(16).expect("cuckoo filter");
        cuckoo.insert(&key(7).to_bytes()).expect("insert");
        let f = account_filters(vec![(
            "c",
            pb::SubscribeRequestFilterAccounts {
                cuckoo_accounts_filter: Some(pb::CuckooFilter::from(&cuckoo)),
                ..Default::default()
            },
        )]);
        assert_eq!(
            f.accounts_matching(&view(&key(7), &key(2), 0, b"")),
            vec!["c"]
        );
        assert!(f
            .accounts_matching(&view(&key(8), &key(2), 0, b""))
            .is_empty());
    }

    #[test]
    fn malformed_filters_are_invalid_arguments() {
        let bad = [
            accounts_request(vec![(
                "a",
                pb::SubscribeRequestFilterAccounts {
                    account: vec!["not a key".into()],
                    ..Default::default()
                },
            )]),
            accounts_request(vec![(
                "a",
                pb::SubscribeRequestFilterAccounts {
                    owner: vec!["111".into()],
                    ..Default::default()
                },
            )]),
            accounts_request(vec![(
                "a",
                pb::SubscribeRequestFilterAccounts {
                    filters: vec![memcmp(0, Data::Base58("0OIl".into()))],
                    ..Default::default()
                },
            )]),
            accounts_request(vec![(
                "a",
                pb::SubscribeRequestFilterAccounts {
                    filters: vec![memcmp(0, Data::Base64("!!".into()))],
                    ..Default::default()
                },
            )]),
            accounts_request(vec![(
                "a",
                pb::SubscribeRequestFilterAccounts {
                    filters: vec![data_filter(Kind::TokenAccountState(false))],
                    ..Default::default()
                },
            )]),
            accounts_request(vec![(
                "a",
                pb::SubscribeRequestFilterAccounts {
                    filters: vec![pb::SubscribeRequestFilterAccountsFilter { filter: None }],
                    ..Default::default()
                },
            )]),
            accounts_request(vec![(
                "a",
                pb::SubscribeRequestFilterAccounts {
                    cuckoo_accounts_filter: Some(pb::CuckooFilter {
                        data: vec![0; 24],
                        ..Default::default()
                    }),
                    ..Default::default()
                },
            )]),
            pb::SubscribeRequest {
                transactions: HashMap::from([(
                    "t".to_string(),
                    pb::SubscribeRequestFilterTransactions {
                        signature: Some("nope".into()),
                        ..Default::default()
                    },
                )]),
                ..Default::default()
            },
            pb::SubscribeRequest {
                transactions: HashMap::from([(
                    "t".to_string(),
                    pb::SubscribeRequestFilterTransactions {
                        account_required: vec!["x".into()],
                        ..Default::default()
                    },
                )]),
                ..Default::default()
            },
            pb::SubscribeRequest {
                commitment: Some(7),
                ..Default::default()
            },
            pb::SubscribeRequest {
                accounts_data_slice: vec![pb::SubscribeRequestAccountsDataSlice {
                    offset: u64::MAX,
                    length: 2,
                }],
                ..Default::default()
            },
        ];
        for (i, request) in bad.iter().enumerate() {
            match Filters::parse(request) {
                Ok(_) => panic!("case {i} accepted"),
                Err(status) => {
                    assert_eq!(
                        status.code(),
                        tonic::Code::InvalidArgument,
                        "case {i}: {status}"
                    );
                    assert!(!status.message().is_empty());
                }
            }
        }
        let entries = pb::SubscribeRequest {
            entry: HashMap::from([("e".to_string(), pb::SubscribeRequestFilterEntry::default())]),
            ..Default::default()
        };
        assert_eq!(
            Filters::parse(&entries).err().map(|s| s.code()),
            Some(tonic::Code::Unimplemented)
        );
    }

    fn tx_filters(filters: Vec<(&str, pb::SubscribeRequestFilterTransactions)>) -> Filters {
        Filters::parse(&pb::SubscribeRequest {
            transactions: filters
                .into_iter()
                .map(|(n, f)| (n.to_string(), f))
                .collect(),
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("filters refused: {e}"))
    }

    fn tx(keys: &[u8]) -> TxFacts {
        TxFacts {
            signature: Signature::from([1u8; 64]),
            keys: keys.iter().map(|b| key(*b)).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn account_include_exclude_required() {
        let s = |keys: &[u8]| keys.iter().map(|b| key(*b).to_string()).collect::<Vec<_>>();
        let f = tx_filters(vec![
            (
                "include",
                pb::SubscribeRequestFilterTransactions {
                    account_include: s(&[1, 2]),
                    ..Default::default()
                },
            ),
            (
                "exclude",
                pb::SubscribeRequestFilterTransactions {
                    account_exclude: s(&[3]),
                    ..Default::default()
                },
            ),
            (
                "required",
                pb::SubscribeRequestFilterTransactions {
                    account_required: s(&[1, 4]),
                    ..Default::default()
                },
            ),
            (
                "combined",
                pb::SubscribeRequestFilterTransactions {
                    account_include: s(&[1]),
                    account_exclude: s(&[3]),
                    account_required: s(&[4]),
                    ..Default::default()
                },
            ),
        ]);
        assert_eq!(
            f.transactions_matching(&tx(&[1, 4])),
            vec!["combined", "exclude", "include", "required"]
        );
        assert_eq!(
            f.transactions_matching(&tx(&[2])),
            vec!["exclude", "include"]
        );
        assert_eq!(
            f.transactions_matching(&tx(&[1, 3, 4])),
            vec!["include", "required"]
        );
        assert!(f.transactions_matching(&tx(&[3])).is_empty());
        assert_eq!(f.transactions_matching(&tx(&[5])), vec!["exclude"]);
    }

    #[test]
    fn vote_failed_and_signature() {
        let sig = Signature::from([1u8; 64]);
        let f = tx_filters(vec![
            ("all", Default::default()),
            (
                "ok_non_vote",
                pb::SubscribeRequestFilterTransactions {
                    vote: Some(false),
                    failed: Some(false),
                    ..Default::default()
                },
            ),
            (
                "failed",
                pb::SubscribeRequestFilterTransactions {
                    failed: Some(true),
                    ..Default::default()
                },
            ),
            (
                "vote",
                pb::SubscribeRequestFilterTransactions {
                    vote: Some(true),
                    ..Default::default()
                },
            ),
            (
                "sig",
                pb::SubscribeRequestFilterTransactions {
                    signature: Some(sig.to_string()),
                    ..Default::default()
                },
            ),
            (
                "other_sig",
                pb::SubscribeRequestFilterTransactions {
                    signature: Some(Signature::from([2u8; 64]).to_string()),
                    ..Default::default()
                },
            ),
        ]);
        let ok = tx(&[1]);
        assert_eq!(
            f.transactions_matching(&ok),
            vec!["all", "ok_non_vote", "sig"]
        );
        let failed = TxFacts {
            failed: true,
            ..tx(&[1])
        };
        assert_eq!(
            f.transactions_matching(&failed),
            vec!["all", "failed", "sig"]
        );
        let vote = TxFacts {
            is_vote: true,
            ..tx(&[1])
        };
        assert_eq!(f.transactions_matching(&vote), vec!["all", "sig", "vote"]);
    }

    #[test]
    fn token_account_expansion() {
        let f = tx_filters(vec![
            (
                "plain",
                pb::SubscribeRequestFilterTransactions {
                    account_include: vec![key(9).to_string()],
                    ..Default::default()
                },
            ),
            (
                "all",
                pb::SubscribeRequestFilterTransactions {
                    account_include: vec![key(9).to_string()],
                    token_accounts: Some(pb::TokenAccountExpansionControlFlag::All as i32),
                    ..Default::default()
                },
            ),
            (
                "changed",
                pb::SubscribeRequestFilterTransactions {
                    account_include: vec![key(9).to_string()],
                    token_accounts: Some(
                        pb::TokenAccountExpansionControlFlag::BalanceChanged as i32,
                    ),
                    ..Default::default()
                },
            ),
        ]);
        let holds = TxFacts {
            token_owners: vec![key(9)],
            ..tx(&[1])
        };
        assert_eq!(f.transactions_matching(&holds), vec!["all"]);
        let changed = TxFacts {
            token_owners: vec![key(9)],
            changed_token_owners: vec![key(9)],
            ..tx(&[1])
        };
        assert_eq!(f.transactions_matching(&changed), vec!["all", "changed"]);
    }

    #[test]
    fn slots_by_commitment() {
        let f = Filters::parse(&pb::SubscribeRequest {
            slots: HashMap::from([
                (
                    "every".to_string(),
                    pb::SubscribeRequestFilterSlots::default(),
                ),
                (
                    "at_commitment".to_string(),
                    pb::SubscribeRequestFilterSlots {
                        filter_by_commitment: Some(true),
                        ..Default::default()
                    },
                ),
            ]),
            commitment: Some(pb::CommitmentLevel::Confirmed as i32),
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(f.slots_matching(ChainSlotStatus::Processed), vec!["every"]);
        assert_eq!(
            f.slots_matching(ChainSlotStatus::Confirmed),
            vec!["at_commitment", "every"]
        );
        assert_eq!(f.slots_matching(ChainSlotStatus::Finalized), vec!["every"]);
    }

    #[test]
    fn data_slices() {
        let data: Vec<u8> = (0..10).collect();
        let slice = |s: &[(u64, u64)]| {
            DataSlice::parse(
                &s.iter()
                    .map(|&(offset, length)| pb::SubscribeRequestAccountsDataSlice {
                        offset,
                        length,
                    })
                    .collect::<Vec<_>>(),
            )
            .unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(slice(&[]).apply(&data), data, "no slices: whole data");
        assert_eq!(slice(&[(2, 3)]).apply(&data), vec![2, 3, 4]);
        assert_eq!(
            slice(&[(0, 2), (8, 2)]).apply(&data),
            vec![0, 1, 8, 9],
            "concatenated"
        );
        assert_eq!(
            slice(&[(8, 5)]).apply(&data),
            vec![8, 9],
            "clipped at the end"
        );
        assert_eq!(
            slice(&[(20, 5)]).apply(&data),
            Vec::<u8>::new(),
            "past the end"
        );
        assert_eq!(
            slice(&[(3, 0)]).apply(&data),
            Vec::<u8>::new(),
            "zero length"
        );
        assert!(DataSlice::parse(&[pb::SubscribeRequestAccountsDataSlice {
            offset: u64::MAX,
            length: 1
        }])
        .is_err());
    }

    #[test]
    fn ping_only_requests_keep_filters() {
        let ping = Some(pb::SubscribeRequestPing { id: 1 });
        assert!(filter::is_ping_only(&pb::SubscribeRequest {
            ping,
            ..Default::default()
        }));
        assert!(!filter::is_ping_only(&pb::SubscribeRequest::default()));
        let with_filter = pb::SubscribeRequest {
            ping,
            blocks_meta: HashMap::from([(
                "m".to_string(),
                pb::SubscribeRequestFilterBlocksMeta {},
            )]),
            ..Default::default()
        };
        assert!(!filter::is_ping_only(&with_filter));
    }

    #[test]
    fn transaction_error_is_bincode() {
        let err = solana_transaction_error::TransactionError::InsufficientFundsForRent {
            account_index: 3,
        };
        let encoded = convert::transaction_error(&err);
        let decoded: solana_transaction_error::TransactionError =
            bincode::deserialize(&encoded.err).expect("bincode");
        assert_eq!(decoded, err);
    }

    // End to end: a real chain behind a real server, through the generated client.

    mod end_to_end {
        use super::*;
        use solana_signer::Signer as _;
        use std::sync::Mutex;
        use yellowstone_grpc_proto::geyser::geyser_client::GeyserClient;

        const WAIT: Duration = Duration::from_secs(20);

        struct Harness {
            chain: SharedChain,
            client: GeyserClient<tonic::transport::Channel>,
            stop: Option<tokio::sync::oneshot::Sender<()>>,
            server: tokio::task::JoinHandle<anyhow::Result<()>>,
        }

        impl Harness {
            async fn start(chain: SharedChain) -> Harness {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                let addr = listener.local_addr().expect("addr");
                let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
                let server = tokio::spawn(serve_with_listener(chain.clone(), listener, async {
                    let _ = stopped.await;
                }));
                let client = GeyserClient::connect(format!("http://{addr}"))
                    .await
                    .expect("connect");
                Harness {
                    chain,
                    client,
                    stop: Some(stop),
                    server,
                }
            }

            async fn subscribe(
                &mut self,
                request: pb::SubscribeRequest,
            ) -> (
                mpsc::Sender<pb::SubscribeRequest>,
                Streaming<pb::SubscribeUpdate>,
            ) {
                let (tx, rx) = mpsc::channel(16);
                tx.send(request).await.expect("queue request");
                let updates = self
                    .client
                    .subscribe(ReceiverStream::new(rx))
                    .await
                    .expect("subscribe")
                    .into_inner();
                (tx, updates)
            }

            async fn shutdown(mut self) {
                if let Some(stop) = self.stop.take() {
                    let _ = stop.send(());
                }
                drop(self.client);
                let result = tokio::time::timeout(WAIT, self.server)
                    .await
                    .expect("server stops")
                    .expect("server task");
                result.expect("server result");
            }
        }

        fn new_chain() -> SharedChain {
            Arc::new(Mutex::new(
                crate::chain::Chain::new(Vec::new(), 64).expect("chain"),
            ))
        }

        async fn next(
            updates: &mut Streaming<pb::SubscribeUpdate>,
        ) -> Result<pb::SubscribeUpdate, Status> {
            match tokio::time::timeout(WAIT, updates.message())
                .await
                .expect("an update in time")
            {
                Ok(Some(u)) => Ok(u),
                Ok(None) => panic!("stream ended"),
                Err(status) => Err(status),
            }
        }

        /// Sends a ping and waits for its pong: after it, the server has handled every earlier request.
        async fn sync(
            requests: &mpsc::Sender<pb::SubscribeRequest>,
            updates: &mut Streaming<pb::SubscribeUpdate>,
            id: i32,
        ) {
            requests
                .send(pb::SubscribeRequest {
                    ping: Some(pb::SubscribeRequestPing { id }),
                    ..Default::default()
                })
                .await
                .expect("ping");
            loop {
                if let Some(UpdateOneof::Pong(p)) =
                    next(updates).await.expect("update").update_oneof
                {
                    assert_eq!(p.id, id);
                    return;
                }
            }
        }

        fn runtime() -> tokio::runtime::Runtime {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime")
        }

        #[test]
        fn unary_methods() {
            // The chain starts its own runtime once per process: create it outside ours.
            let chain = new_chain();
            runtime().block_on(async {
                let mut h = Harness::start(chain).await;
                assert_eq!(
                    h.client
                        .ping(pb::PingRequest { count: 7 })
                        .await
                        .expect("ping")
                        .into_inner()
                        .count,
                    7
                );
                let (slot, hash, height) = {
                    let chain = h.chain.lock().expect("lock");
                    (
                        chain.slot(),
                        chain.latest_blockhash().0,
                        chain.block_height(),
                    )
                };
                let latest = h
                    .client
                    .get_latest_blockhash(pb::GetLatestBlockhashRequest {
                        commitment: Some(pb::CommitmentLevel::Finalized as i32),
                    })
                    .await
                    .expect("latest blockhash")
                    .into_inner();
                assert_eq!(
                    (latest.slot, latest.blockhash.clone()),
                    (slot, hash.to_string())
                );
                assert!(latest.last_valid_block_height > height);
                let got = h
                    .client
                    .get_slot(pb::GetSlotRequest::default())
                    .await
                    .expect("slot")
                    .into_inner()
                    .slot;
                assert_eq!(got, slot);
                let got = h
                    .client
                    .get_block_height(pb::GetBlockHeightRequest::default())
                    .await
                    .expect("height")
                    .into_inner();
                assert_eq!(got.block_height, height);
                let valid = h
                    .client
                    .is_blockhash_valid(pb::IsBlockhashValidRequest {
                        blockhash: latest.blockhash,
                        commitment: None,
                    })
                    .await
                    .expect("valid")
                    .into_inner();
                assert!(valid.valid);
                let unknown = h
                    .client
                    .is_blockhash_valid(pb::IsBlockhashValidRequest {
                        blockhash: Hash::new_unique().to_string(),
                        commitment: None,
                    })
                    .await
                    .expect("valid")
                    .into_inner();
                assert!(!unknown.valid);
                let bad = h
                    .client
                    .is_blockhash_valid(pb::IsBlockhashValidRequest {
                        blockhash: "xyz0".into(),
                        commitment: None,
                    })
                    .await
                    .expect_err("bad hash");
                assert_eq!(bad.code(), tonic::Code::InvalidArgument);
                let bad = h
                    .client
                    .get_slot(pb::GetSlotRequest {
                        commitment: Some(9),
                    })
                    .await
                    .expect_err("bad commitment");
                assert_eq!(bad.code(), tonic::Code::InvalidArgument);
                let version = h
                    .client
                    .get_version(pb::GetVersionRequest {})
                    .await
                    .expect("version")
                    .into_inner()
                    .version;
                let version: serde_json::Value = serde_json::from_str(&version).expect("json");
                assert_eq!(version["version"], VERSION);
                let gossip = h
                    .client
                    .subscribe_gossip(pb::SubscribeGossipRequest {})
                    .await
                    .expect_err("gossip");
                assert_eq!(gossip.code(), tonic::Code::Unimplemented);
                h.shutdown().await;
            });
        }

        #[test]
        fn subscribe_live_confirmed_and_replay() {
            let chain = new_chain();
            runtime().block_on(async {
                let mut h = Harness::start(chain).await;
                let wallet = solana_keypair::Keypair::new().pubkey();
                let faucet = h.chain.lock().expect("lock").faucet().pubkey();
                let request = pb::SubscribeRequest {
                    accounts: HashMap::from([(
                        "wallet".to_string(),
                        pb::SubscribeRequestFilterAccounts {
                            account: vec![wallet.to_string()],
                            ..Default::default()
                        },
                    )]),
                    transactions: HashMap::from([(
                        "to_wallet".to_string(),
                        pb::SubscribeRequestFilterTransactions {
                            account_include: vec![wallet.to_string()],
                            ..Default::default()
                        },
                    )]),
                    slots: HashMap::from([(
                        "slots".to_string(),
                        pb::SubscribeRequestFilterSlots {
                            filter_by_commitment: Some(true),
                            ..Default::default()
                        },
                    )]),
                    blocks_meta: HashMap::from([(
                        "meta".to_string(),
                        pb::SubscribeRequestFilterBlocksMeta {},
                    )]),
                    commitment: Some(pb::CommitmentLevel::Confirmed as i32),
                    accounts_data_slice: vec![pb::SubscribeRequestAccountsDataSlice {
                        offset: 0,
                        length: 0,
                    }],
                    ..Default::default()
                };
                let (requests, mut updates) = h.subscribe(request).await;
                sync(&requests, &mut updates, 1).await;

                let signature = h
                    .chain
                    .lock()
                    .expect("lock")
                    .airdrop(&wallet, 1_000_000_000)
                    .expect("airdrop");
                let slot = h
                    .chain
                    .lock()
                    .expect("lock")
                    .transaction(&signature)
                    .expect("recorded")
                    .slot;

                // At confirmed: the slot's account and transaction, its block meta, then its confirmed status.
                let u = next(&mut updates).await.expect("account");
                assert_eq!(u.filters, vec!["wallet"]);
                assert!(u.created_at.is_some());
                let Some(UpdateOneof::Account(a)) = u.update_oneof else {
                    panic!("expected an account, got {u:?}")
                };
                let info = a.account.expect("account info");
                assert_eq!(
                    (a.slot, info.pubkey.as_slice(), info.lamports),
                    (slot, wallet.as_ref(), 1_000_000_000)
                );
                assert_eq!(info.txn_signature.as_deref(), Some(signature.as_ref()));
                assert!(info.data.is_empty());

                let u = next(&mut updates).await.expect("transaction");
                assert_eq!(u.filters, vec!["to_wallet"]);
                let Some(UpdateOneof::Transaction(t)) = u.update_oneof else {
                    panic!("expected a transaction, got {u:?}")
                };
                let info = t.transaction.expect("transaction info");
                assert_eq!(
                    (t.slot, info.signature.as_slice(), info.is_vote),
                    (slot, signature.as_ref(), false)
                );
                let meta = info.meta.expect("meta");
                assert!(meta.err.is_none());
                assert_eq!(meta.fee, 5_000);
                assert!(!meta.log_messages_none && !meta.log_messages.is_empty());
                let message = info
                    .transaction
                    .expect("transaction")
                    .message
                    .expect("message");
                assert_eq!(
                    message.account_keys.first().map(Vec::as_slice),
                    Some(faucet.as_ref())
                );

                let u = next(&mut updates).await.expect("block meta");
                assert_eq!(u.filters, vec!["meta"]);
                let Some(UpdateOneof::BlockMeta(m)) = u.update_oneof else {
                    panic!("expected a block meta, got {u:?}")
                };
                assert_eq!((m.slot, m.executed_transaction_count), (slot, 1));
                let record = h
                    .chain
                    .lock()
                    .expect("lock")
                    .slot_record(slot)
                    .cloned()
                    .expect("slot record");
                assert_eq!(m.blockhash, record.blockhash.to_string());
                assert_eq!(
                    m.block_height,
                    Some(cb::BlockHeight {
                        block_height: record.block_height
                    })
                );

                let u = next(&mut updates).await.expect("slot");
                assert_eq!(u.filters, vec!["slots"]);
                let Some(UpdateOneof::Slot(s)) = u.update_oneof else {
                    panic!("expected a slot, got {u:?}")
                };
                assert_eq!(
                    (s.slot, s.status),
                    (slot, pb::SlotStatus::SlotConfirmed as i32)
                );

                // Replacing the filters: only processed slot statuses from now on.
                requests
                    .send(pb::SubscribeRequest {
                        slots: HashMap::from([(
                            "processed".to_string(),
                            pb::SubscribeRequestFilterSlots {
                                filter_by_commitment: Some(true),
                                ..Default::default()
                            },
                        )]),
                        ..Default::default()
                    })
                    .await
                    .expect("replace filters");
                sync(&requests, &mut updates, 2).await;
                let next_slot = {
                    let mut chain = h.chain.lock().expect("lock");
                    chain.advance_slot().expect("advance");
                    chain.slot()
                };
                let u = next(&mut updates).await.expect("slot");
                assert_eq!(u.filters, vec!["processed"]);
                let Some(UpdateOneof::Slot(s)) = u.update_oneof else {
                    panic!("expected a slot, got {u:?}")
                };
                assert_eq!(
                    (s.slot, s.status),
                    (next_slot, pb::SlotStatus::SlotProcessed as i32)
                );

                // A later from_slot is refused and ends the stream.
                requests
                    .send(pb::SubscribeRequest {
                        from_slot: Some(slot),
                        blocks_meta: HashMap::from([(
                            "m".to_string(),
                            pb::SubscribeRequestFilterBlocksMeta {},
                        )]),
                        ..Default::default()
                    })
                    .await
                    .expect("send");
                let status = loop {
                    match next(&mut updates).await {
                        Ok(_) => continue,
                        Err(status) => break status,
                    }
                };
                assert_eq!(status.code(), tonic::Code::InvalidArgument);

                // Replay: history from the airdrop's slot, then live, without duplicates.
                let replay = pb::SubscribeRequest {
                    accounts: HashMap::from([(
                        "wallet".to_string(),
                        pb::SubscribeRequestFilterAccounts {
                            account: vec![wallet.to_string()],
                            ..Default::default()
                        },
                    )]),
                    transactions_status: HashMap::from([(
                        "statuses".to_string(),
                        Default::default(),
                    )]),
                    blocks: HashMap::from([(
                        "blocks".to_string(),
                        pb::SubscribeRequestFilterBlocks {
                            account_include: vec![wallet.to_string()],
                            ..Default::default()
                        },
                    )]),
                    from_slot: Some(slot),
                    ..Default::default()
                };
                let (requests, mut updates) = h.subscribe(replay).await;
                let u = next(&mut updates).await.expect("replayed account");
                let Some(UpdateOneof::Account(a)) = u.update_oneof else {
                    panic!("expected an account, got {u:?}")
                };
                assert_eq!(a.slot, slot);
                let u = next(&mut updates).await.expect("replayed status");
                let Some(UpdateOneof::TransactionStatus(t)) = u.update_oneof else {
                    panic!("expected a status, got {u:?}")
                };
                assert_eq!(t.signature.as_slice(), signature.as_ref());
                let u = next(&mut updates).await.expect("replayed block");
                let Some(UpdateOneof::Block(b)) = u.update_oneof else {
                    panic!("expected a block, got {u:?}")
                };
                assert_eq!(
                    (b.slot, b.transactions.len(), b.accounts.len()),
                    (slot, 1, 1)
                );
                assert_eq!(b.accounts[0].pubkey.as_slice(), wallet.as_ref());
                assert!(b.updated_account_count >= 2, "faucet and wallet");
                sync(&requests, &mut updates, 3).await;
                let second = h
                    .chain
                    .lock()
                    .expect("lock")
                    .airdrop(&wallet, 5)
                    .expect("airdrop");
                let u = next(&mut updates).await.expect("live account");
                let Some(UpdateOneof::Account(a)) = u.update_oneof else {
                    panic!("expected an account, got {u:?}")
                };
                assert_eq!(
                    a.account.expect("info").txn_signature.as_deref(),
                    Some(second.as_ref())
                );

                // A slot older than the history is refused, saying which is the oldest.
                let oldest = h.chain.lock().expect("lock").first_replayable_slot();
                let too_old = oldest.checked_sub(1).expect("history starts after slot 0");
                let (_requests, mut updates) = h
                    .subscribe(pb::SubscribeRequest {
                        slots: HashMap::from([("s".to_string(), Default::default())]),
                        from_slot: Some(too_old),
                        ..Default::default()
                    })
                    .await;
                let status = next(&mut updates).await.expect_err("too old");
                assert_eq!(status.code(), tonic::Code::InvalidArgument);
                assert!(
                    status
                        .message()
                        .contains(&format!("oldest slot that can be replayed is {oldest}")),
                    "{status}"
                );
                let info = h
                    .client
                    .subscribe_replay_info(pb::SubscribeReplayInfoRequest {})
                    .await
                    .expect("replay info");
                assert_eq!(info.into_inner().first_available, Some(oldest));

                // A malformed filter is refused.
                let (_requests, mut updates) = h
                    .subscribe(accounts_request(vec![(
                        "bad",
                        pb::SubscribeRequestFilterAccounts {
                            owner: vec!["not-a-key".into()],
                            ..Default::default()
                        },
                    )]))
                    .await;
                let status = next(&mut updates).await.expect_err("malformed");
                assert_eq!(status.code(), tonic::Code::InvalidArgument);
                assert!(status.message().contains("not-a-key"), "{status}");
                h.shutdown().await;
            });
        }
    }
}
