//! The chain: a `solana-runtime` bank running the launchpad and AMM natively next to the real SPL programs.
//!
//! One linear fork. A slot closes when its timer fires or right after a transaction is processed, whichever
//! comes first; closing freezes the bank (a new blockhash), and on a single node a frozen slot is confirmed
//! and finalized at once. Every committed transaction is kept (for `getTransaction` and signature statuses),
//! and every change is broadcast as a [`ChainEvent`] and kept for the last `keep_slots` slots so that
//! subscribers can replay from a recent slot.

use anyhow::{anyhow, Context as _};
use solana_account::AccountSharedData;
use solana_clock::{Clock, Slot};
use solana_hash::Hash;
use solana_keypair::Keypair;
use solana_message::{v0::LoadedAddresses, SanitizedMessage, VersionedMessage};
use solana_program_runtime::{
    invoke_context::BuiltinFunctionWithContext, loaded_programs::ProgramCacheEntry,
};
use solana_pubkey::Pubkey;
use solana_runtime::bank::{Bank, TransactionSimulationResult};
use solana_runtime::bank_forks::BankForks;
use solana_runtime::genesis_utils::{create_genesis_config_with_leader_ex, GenesisConfigInfo};
use solana_runtime::runtime_config::RuntimeConfig;
use solana_signature::Signature;
use solana_signer::Signer;
use solana_transaction::versioned::VersionedTransaction;
use solana_transaction_error::TransactionError;
use solana_transaction_status::{InnerInstruction, InnerInstructions, TransactionStatusMeta};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::broadcast;

mod transactions;
use transactions::compute_unit_price;

/// How many slots a blockhash stays valid (as on mainnet).
pub const MAX_BLOCKHASH_AGE_SLOTS: u64 = 150;

/// Every this many slots the chain moves its rooted slots out of the accounts write cache and drops the
/// account versions newer slots superseded (see [`Chain::clean_accounts`]). Each slot rewrites the
/// `SlotHistory` (128 KiB), `SlotHashes`, `RecentBlockhashes` and `Clock` sysvars, about 154 KiB, so the
/// cache peaks near 10 MiB between two rounds; at the idle rate of 2.5 slots a second a round runs every
/// 26 seconds (a validator's background service cleans every 50 seconds).
pub const ACCOUNTS_CLEAN_INTERVAL_SLOTS: u64 = 64;

/// Commitment of a slot status update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SlotStatus {
    Processed,
    Confirmed,
    Finalized,
}

/// A committed transaction, as kept for `getTransaction` and streamed to subscribers.
#[derive(Debug, Clone)]
pub struct TxRecord {
    pub slot: Slot,
    pub index: u64,
    pub signature: Signature,
    pub transaction: VersionedTransaction,
    pub meta: TransactionStatusMeta,
    pub block_time: i64,
    /// Account keys of the message in order, and whether each is writable.
    pub account_keys: Vec<(Pubkey, bool)>,
}

/// Something that happened on the chain.
#[derive(Debug, Clone)]
pub enum ChainEvent {
    Account {
        slot: Slot,
        pubkey: Pubkey,
        account: AccountSharedData,
        write_version: u64,
        txn_signature: Option<Signature>,
    },
    Transaction(Arc<TxRecord>),
    Slot {
        slot: Slot,
        parent: Option<Slot>,
        status: SlotStatus,
    },
    BlockMeta {
        slot: Slot,
        parent_slot: Slot,
        blockhash: Hash,
        parent_blockhash: Hash,
        block_time: i64,
        block_height: u64,
        executed_transaction_count: u64,
    },
}

impl ChainEvent {
    pub fn slot(&self) -> Slot {
        match self {
            ChainEvent::Account { slot, .. }
            | ChainEvent::Slot { slot, .. }
            | ChainEvent::BlockMeta { slot, .. } => *slot,
            ChainEvent::Transaction(t) => t.slot,
        }
    }
}

/// An event with its position in the chain's event sequence (strictly increasing, no gaps).
#[derive(Debug, Clone)]
pub struct Stamped {
    pub seq: u64,
    pub event: ChainEvent,
}

/// The chain shared between the servers. Locks are held briefly; nothing awaits while holding one.
pub type SharedChain = Arc<std::sync::Mutex<Chain>>;

/// A native program to load: its id, its name, and its `processor!` entry.
pub struct NativeProgram {
    pub id: Pubkey,
    pub name: &'static str,
    pub entry: BuiltinFunctionWithContext,
}

/// What a slot looked like when it closed.
#[derive(Debug, Clone)]
pub struct SlotRecord {
    pub slot: Slot,
    pub parent: Slot,
    pub blockhash: Hash,
    pub parent_blockhash: Hash,
    pub block_height: u64,
    pub block_time: i64,
    pub signatures: Vec<Signature>,
}

pub struct Chain {
    forks: Arc<RwLock<BankForks>>,
    bank: Arc<Bank>,
    faucet: Keypair,
    genesis_hash: Hash,
    /// Every committed transaction, for the life of the process (the indexer's gap recovery reads them past
    /// `keep_slots`). With `by_address`, what grows with use besides the accounts: about 6 KB a trade.
    txs: HashMap<Signature, Arc<TxRecord>>,
    /// Per address, the signatures of the transactions that name it (static or loaded keys), oldest first.
    by_address: HashMap<Pubkey, Vec<Signature>>,
    slots: BTreeMap<Slot, SlotRecord>,
    current_signatures: Vec<Signature>,
    events: broadcast::Sender<Arc<Stamped>>,
    history: VecDeque<Arc<Stamped>>,
    seq: u64,
    keep_slots: u64,
    write_version: u64,
    /// Seconds added to wall time for the chain's clock (the advance-clock extension).
    clock_offset: i64,
    /// The chain clock of the newest bank (it never goes backwards).
    last_unix_timestamp: i64,
}

fn wall_clock() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Installs solana-program-test's syscall stubs, which native programs need for CPIs and sysvars. The
/// stubs are installed once per process by the first program-test bank, so one is started and dropped.
fn install_native_syscall_stubs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let _ = solana_program_test::ProgramTest::default().start().await;
        });
    });
}

impl Chain {
    /// A fresh chain at slot 1 with `programs` loaded natively, the bundled SPL programs, and a faucet
    /// holding most of the genesis supply.
    pub fn new(programs: Vec<NativeProgram>, keep_slots: u64) -> anyhow::Result<Self> {
        install_native_syscall_stubs();
        let rent = solana_rent::Rent::default();
        let faucet = Keypair::new();
        let validator = Pubkey::new_unique();
        let GenesisConfigInfo { genesis_config, .. } = {
            let mut feature_set = agave_feature_set::FeatureSet::all_enabled();
            // Keep the feature set a program-test bank runs with.
            let _ = &mut feature_set;
            let genesis = create_genesis_config_with_leader_ex(
                500_000_000 * solana_native_token::LAMPORTS_PER_SOL,
                &faucet.pubkey(),
                &validator,
                &Pubkey::new_unique(),
                &Pubkey::new_unique(),
                None,
                rent.minimum_balance(4_000) + 1_000_000 * solana_native_token::LAMPORTS_PER_SOL,
                42,
                solana_fee_calculator::FeeRateGovernor {
                    lamports_per_signature: 5_000,
                    ..Default::default()
                },
                rent.clone(),
                solana_cluster_type::ClusterType::Development,
                &feature_set,
                vec![],
            );
            GenesisConfigInfo {
                genesis_config: genesis,
                mint_keypair: faucet.insecure_clone(),
                voting_keypair: Keypair::new(),
                validator_pubkey: validator,
            }
        };
        let bank = Bank::new_from_genesis(
            &genesis_config,
            Arc::new(RuntimeConfig::default()),
            Vec::default(),
            None,
            solana_accounts_db::accounts_db::ACCOUNTS_DB_CONFIG_FOR_TESTING,
            None,
            None,
            Arc::default(),
            None,
            None,
        );
        for (id, account) in solana_program_binaries::spl_programs(&rent).iter() {
            bank.store_account(id, account);
        }
        for p in programs {
            bank.add_builtin(
                p.id,
                p.name,
                ProgramCacheEntry::new_builtin(0, p.name.len(), p.entry),
            );
        }
        bank.set_capitalization_for_tests(bank.calculate_capitalization_for_tests());
        let genesis_hash = genesis_config.hash();
        let bank = Arc::new(bank);
        bank.fill_bank_with_ticks_for_tests();
        bank.freeze();
        // Fees go to the faucet: a collector that is not a System account makes the bank burn them and warn.
        let child = Bank::new_from_parent(bank.clone(), &faucet.pubkey(), 1);
        let forks = BankForks::new_rw_arc(child);
        let bank = forks
            .read()
            .map_err(|_| anyhow!("bank forks poisoned"))?
            .working_bank();
        let (events, _) = broadcast::channel(65_536);
        let mut chain = Chain {
            forks,
            bank,
            faucet,
            genesis_hash,
            txs: HashMap::new(),
            by_address: HashMap::new(),
            slots: BTreeMap::new(),
            current_signatures: Vec::new(),
            events,
            history: VecDeque::new(),
            seq: 0,
            keep_slots,
            write_version: 0,
            clock_offset: 0,
            last_unix_timestamp: 0,
        };
        chain.set_clock();
        Ok(chain)
    }

    /// A live receiver of every future event. Taken together with [`Chain::history_from`] under one lock,
    /// the two join without a gap: drop live events whose `seq` the history already had.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Stamped>> {
        self.events.subscribe()
    }

    /// Events kept for replay, oldest first, from `from_slot` on.
    pub fn history_from(&self, from_slot: Slot) -> Vec<Arc<Stamped>> {
        self.history
            .iter()
            .filter(|e| e.event.slot() >= from_slot)
            .cloned()
            .collect()
    }

    /// The oldest slot a subscriber can replay from.
    pub fn first_replayable_slot(&self) -> Slot {
        self.history
            .front()
            .map(|e| e.event.slot())
            .unwrap_or_else(|| self.bank.slot())
    }

    /// Writes an account outside any transaction (what an oracle's off-chain poster looks like from here:
    /// the account changes, and subscribers see the write like any other).
    pub fn set_account(&mut self, pubkey: Pubkey, account: AccountSharedData) {
        self.bank.store_account(&pubkey, &account);
        self.write_version += 1;
        self.emit(ChainEvent::Account {
            slot: self.bank.slot(),
            pubkey,
            account,
            write_version: self.write_version,
            txn_signature: None,
        });
    }

    /// Sequence number of the last event emitted.
    pub fn last_seq(&self) -> u64 {
        self.seq
    }

    fn emit(&mut self, event: ChainEvent) {
        self.seq += 1;
        let stamped = Arc::new(Stamped {
            seq: self.seq,
            event,
        });
        self.history.push_back(stamped.clone());
        let _ = self.events.send(stamped);
    }

    fn prune_history(&mut self) {
        let keep_from = self.bank.slot().saturating_sub(self.keep_slots);
        while self
            .history
            .front()
            .is_some_and(|e| e.event.slot() < keep_from)
        {
            self.history.pop_front();
        }
        let slot_floor = self
            .bank
            .slot()
            .saturating_sub(self.keep_slots.max(MAX_BLOCKHASH_AGE_SLOTS * 4));
        self.slots.retain(|s, _| *s >= slot_floor);
    }

    pub fn faucet(&self) -> &Keypair {
        &self.faucet
    }

    pub fn genesis_hash(&self) -> Hash {
        self.genesis_hash
    }

    pub fn bank(&self) -> &Arc<Bank> {
        &self.bank
    }

    pub fn slot(&self) -> Slot {
        self.bank.slot()
    }

    pub fn block_height(&self) -> u64 {
        self.bank.block_height()
    }

    pub fn latest_blockhash(&self) -> (Hash, u64) {
        let hash = self.bank.last_blockhash();
        let last_valid = self
            .bank
            .get_blockhash_last_valid_block_height(&hash)
            .unwrap_or(self.bank.block_height() + MAX_BLOCKHASH_AGE_SLOTS);
        (hash, last_valid)
    }

    pub fn is_blockhash_valid(&self, hash: &Hash) -> bool {
        self.bank.is_blockhash_valid(hash)
    }

    pub fn clock(&self) -> Clock {
        self.bank.clock()
    }

    pub fn get_account(&self, pubkey: &Pubkey) -> Option<AccountSharedData> {
        self.bank.get_account(pubkey)
    }

    /// Every account owned by `owner`.
    pub fn program_accounts(&self, owner: &Pubkey) -> Vec<(Pubkey, AccountSharedData)> {
        self.bank
            .get_program_accounts(
                owner,
                &solana_accounts_db::accounts_index::ScanConfig::default(),
            )
            .unwrap_or_default()
    }

    /// `getRecentPrioritizationFees` as a validator answers it: for each of the last 150 closed slots, the
    /// compute-unit price (micro-lamports) that landed in it, for `accounts` the highest of the block's
    /// lowest price and each account's lowest price among the transactions that write it (0 where none
    /// did). Failed transactions do not count; a transaction without `SetComputeUnitPrice` paid 0.
    pub fn prioritization_fees(&self, accounts: &[Pubkey]) -> Vec<(Slot, u64)> {
        self.slots
            .values()
            .rev()
            .take(150)
            .map(|record| {
                let landed: Vec<&TxRecord> = record
                    .signatures
                    .iter()
                    .filter_map(|s| self.txs.get(s))
                    .filter(|t| t.meta.status.is_ok())
                    .map(|t| &**t)
                    .collect();
                let block_min = landed
                    .iter()
                    .map(|t| compute_unit_price(&t.transaction))
                    .min()
                    .unwrap_or(0);
                let accounts_min = accounts
                    .iter()
                    .filter_map(|a| {
                        landed
                            .iter()
                            .filter(|t| t.account_keys.iter().any(|(k, w)| *w && k == a))
                            .map(|t| compute_unit_price(&t.transaction))
                            .min()
                    })
                    .max()
                    .unwrap_or(0);
                (record.slot, block_min.max(accounts_min))
            })
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect()
    }

    pub fn transaction(&self, signature: &Signature) -> Option<Arc<TxRecord>> {
        self.txs.get(signature).cloned()
    }

    pub fn slot_record(&self, slot: Slot) -> Option<&SlotRecord> {
        self.slots.get(&slot)
    }

    /// `getSignaturesForAddress` as a validator answers it: the transactions that name `address` (failed
    /// ones too), newest first, starting after `before` (nothing when `before` is unknown) and stopping
    /// before `until`, at most `limit`.
    pub fn signatures_for_address(
        &self,
        address: &Pubkey,
        before: Option<&Signature>,
        until: Option<&Signature>,
        limit: usize,
    ) -> Vec<Arc<TxRecord>> {
        let Some(list) = self.by_address.get(address) else {
            return Vec::new();
        };
        let end = match before {
            None => list.len(),
            Some(b) => match list.iter().rposition(|s| s == b) {
                Some(i) => i,
                None => return Vec::new(),
            },
        };
        list[..end]
            .iter()
            .rev()
            .take_while(|s| Some(*s) != until)
            .take(limit)
            .filter_map(|s| self.txs.get(s).cloned())
            .collect()
    }

    /// A closed slot's block (its transactions in order, failed ones included), while the chain keeps it.
    pub fn block(&self, slot: Slot) -> Option<solana_transaction_status::VersionedConfirmedBlock> {
        let record = self.slots.get(&slot)?;
        Some(solana_transaction_status::VersionedConfirmedBlock {
            previous_blockhash: record.parent_blockhash.to_string(),
            blockhash: record.blockhash.to_string(),
            parent_slot: record.parent,
            transactions: record
                .signatures
                .iter()
                .filter_map(|s| self.txs.get(s))
                .map(
                    |t| solana_transaction_status::VersionedTransactionWithStatusMeta {
                        transaction: t.transaction.clone(),
                        meta: t.meta.clone(),
                    },
                )
                .collect(),
            rewards: Vec::new(),
            num_partitions: None,
            block_time: Some(record.block_time),
            block_height: Some(record.block_height),
        })
    }

    /// Sets the chain clock to wall time plus the offset, never backwards. (The bank's own estimate,
    /// genesis time plus 400 ms per slot, runs ahead of wall time here because a slot closes after every
    /// transaction, so it is overridden on every new bank.)
    fn set_clock(&mut self) {
        let mut clock = self.bank.clock();
        let now = wall_clock()
            .saturating_add(self.clock_offset)
            .max(self.last_unix_timestamp);
        self.last_unix_timestamp = now;
        if clock.unix_timestamp != now {
            clock.unix_timestamp = now;
            self.bank.set_sysvar_for_tests(&clock);
        }
    }

    /// Moves the clock forward by `seconds` (for fee schedules that depend on time since launch).
    pub fn advance_clock(&mut self, seconds: i64) {
        self.clock_offset = self.clock_offset.saturating_add(seconds.max(0));
        self.set_clock();
    }

    /// Closes the current slot and opens the next one.
    pub fn advance_slot(&mut self) -> anyhow::Result<()> {
        let bank = self.bank.clone();
        let parent_blockhash = bank.last_blockhash();
        bank.fill_bank_with_ticks_for_tests();
        bank.freeze();
        let slot = bank.slot();
        let record = SlotRecord {
            slot,
            parent: bank.parent_slot(),
            blockhash: bank.last_blockhash(),
            parent_blockhash,
            block_height: bank.block_height(),
            block_time: bank.clock().unix_timestamp,
            signatures: std::mem::take(&mut self.current_signatures),
        };
        self.emit(ChainEvent::BlockMeta {
            slot,
            parent_slot: record.parent,
            blockhash: record.blockhash,
            parent_blockhash,
            block_time: record.block_time,
            block_height: record.block_height,
            executed_transaction_count: record.signatures.len() as u64,
        });
        for status in [SlotStatus::Confirmed, SlotStatus::Finalized] {
            self.emit(ChainEvent::Slot {
                slot,
                parent: Some(record.parent),
                status,
            });
        }
        self.slots.insert(slot, record);
        let child = Bank::new_from_parent(bank.clone(), &self.faucet.pubkey(), slot + 1);
        {
            let mut forks = self
                .forks
                .write()
                .map_err(|_| anyhow!("bank forks poisoned"))?;
            forks.insert(child);
            forks.set_root(slot, None, Some(slot));
            self.bank = forks.working_bank();
        }
        // What replay does after every new root, once the forks are unlocked (the program cache reads them
        // to tell forks apart): drop cached program versions no fork can reach any more.
        bank.prune_program_cache(slot, bank.epoch());
        if slot.is_multiple_of(ACCOUNTS_CLEAN_INTERVAL_SLOTS) {
            Self::clean_accounts(&bank);
        }
        self.set_clock();
        self.emit(ChainEvent::Slot {
            slot: slot + 1,
            parent: Some(slot),
            status: SlotStatus::Processed,
        });
        self.prune_history();
        Ok(())
    }

    /// The accounts housekeeping a validator's `AccountsBackgroundService` does behind
    /// `BankForks::set_root`, which this chain has no thread for: without it nothing ever leaves the
    /// accounts write cache (it flushes by itself only past 15 GB), so every rooted slot's sysvar writes
    /// stay in memory for good, about 24 MiB a minute on an idle chain.
    ///
    /// Flushes the rooted slots up to `root` into account storage (temporary files; only the newest
    /// version of each account is written), then cleans up to the slot before `root` as the service does:
    /// superseded versions leave the index, and storages left without a live account are deleted along with
    /// their slots. Storages that are mostly dead are then rewritten smaller. Runs under the chain's lock, as
    /// everything that reads a bank does, so no scan is in flight (10 to 40 ms in a debug build).
    fn clean_accounts(root: &Bank) {
        root.force_flush_accounts_cache();
        root.rc.accounts.accounts_db.clean_accounts(
            Some(root.slot().saturating_sub(1)),
            false,
            root.epoch_schedule(),
        );
        root.shrink_candidate_slots();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use solana_account::ReadableAccount;

    /// Idle slots leave at most one clean interval of slots in the accounts write cache and no dead
    /// storages behind, while accounts written before a clean keep their state and the programs still run.
    #[test]
    fn rooted_slots_leave_the_accounts_write_cache() {
        let mut chain = Chain::new(crate::native_programs(), 100).expect("chain");
        let wallet = Pubkey::new_unique();
        chain.airdrop(&wallet, 1_000_000_000).expect("airdrop");
        for _ in 0..3 * ACCOUNTS_CLEAN_INTERVAL_SLOTS {
            chain.advance_slot().expect("slot");
        }
        let db = &chain.bank().rc.accounts.accounts_db;
        let cached_slots = db.accounts_cache.num_slots() as u64;
        assert!(
            cached_slots <= ACCOUNTS_CLEAN_INTERVAL_SLOTS + 1,
            "{cached_slots} slots in the write cache"
        );
        // Live accounts sit in a handful of storages (genesis, the airdrop, the newest sysvars): every
        // storage of the rooted idle slots died and was deleted.
        let storages = db.storage.get_if(|_, _| true).len();
        assert!(storages < 10, "{storages} account storages");
        assert_eq!(
            chain.get_account(&wallet).map(|a| a.lamports()),
            Some(1_000_000_000)
        );
        // The launchpad (native, behind the upgradeable loader) and SPL Token (SBF) still run once the
        // program cache has been pruned.
        let boot = crate::bootstrap::bootstrap(&mut chain).expect("bootstrap after cleaning");
        let usdc_owner = chain.get_account(&boot.usdc_mint).map(|a| *a.owner());
        assert_eq!(usdc_owner, Some(sdk::ids::TOKEN_PROGRAM));
    }
}
