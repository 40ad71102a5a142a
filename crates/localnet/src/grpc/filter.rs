use super::{invalid, parse_commitment, pb, ChainSlotStatus};
pub(super) use crate::token::is_token_account_data;
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

/// `accounts_data_slice`: which parts of account data to send, to save bandwidth on large accounts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct DataSlice(Vec<(usize, usize)>);

impl DataSlice {
    pub(super) fn parse(slices: &[pb::SubscribeRequestAccountsDataSlice]) -> Result<Self, Status> {
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
            None => Err(invalid(format!(
                "{what}: empty filter (expected memcmp, datasize, token_account_state or lamports)"
            ))),
            Some(AccountsFilterKind::Memcmp(m)) => {
                let offset = usize::try_from(m.offset).map_err(|_| {
                    invalid(format!("{what}: memcmp offset {} is too large", m.offset))
                })?;
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
                            .map_err(|e| {
                                invalid(format!("{what}: memcmp base64 data {s:?}: {e}"))
                            })?
                    }
                };
                if offset.checked_add(bytes.len()).is_none() {
                    return Err(invalid(format!(
                        "{what}: memcmp offset + data length overflows"
                    )));
                }
                Ok(Self::Memcmp { offset, bytes })
            }
            Some(AccountsFilterKind::Datasize(n)) => Ok(Self::DataSize(*n)),
            Some(AccountsFilterKind::TokenAccountState(true)) => Ok(Self::TokenAccountState),
            Some(AccountsFilterKind::TokenAccountState(false)) => Err(invalid(format!(
                "{what}: token_account_state can only be true"
            ))),
            Some(AccountsFilterKind::Lamports(l)) => match l.cmp {
                None => Err(invalid(format!(
                    "{what}: lamports without a comparison (eq, ne, lt or gt)"
                ))),
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
            Pubkey::from_str(s).map_err(|_| invalid(format!("{what}: {s:?} is not a valid pubkey")))
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
            Some(pb::TokenAccountExpansionControlFlag::BalanceChanged) => &tx.changed_token_owners,
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
    pub(super) fn matches(&self, status: ChainSlotStatus, commitment: pb::CommitmentLevel) -> bool {
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
            return Err(Status::unimplemented(
                "entry subscriptions are not supported: the localnet does not record PoH entries",
            ));
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
