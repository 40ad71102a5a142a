//! The pipeline: source (Yellowstone subscription) -> decode -> process -> store.
//!
//! One task reads the stream and writes batches. The cursor (the last slot whose updates are all committed)
//! is written in the same transaction as the batch that completes it, so a restart, a dropped connection
//! or a database outage resumes from `from_slot = cursor` and loses nothing; the replayed overlap is
//! harmless because account writes only move forward and event writes are idempotent.

use crate::backfill;
use crate::config::{Commitment, IndexerConfig};
use crate::decode::{decode_account_update, decode_transaction_update, DecodeError};
use crate::metrics::{Metrics, Role};
use anchor_lang::prelude::Pubkey;
use futures::{SinkExt, StreamExt};
use index::market::Market;
use index::model::*;
use index::store::lease::{Lease, LeaseKind};
use index::store::{Backend, Store};
use sdk::accounts::Config;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use sqlx::Row;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use yellowstone_grpc_client::GeyserGrpcClient;
use yellowstone_grpc_proto::prelude::{
    subscribe_request_filter_accounts_filter::Filter as AccountsFilter,
    subscribe_request_filter_accounts_filter_lamports::Cmp as LamportsCmp,
    subscribe_update::UpdateOneof, CommitmentLevel, SlotStatus, SubscribeRequest,
    SubscribeRequestFilterAccounts, SubscribeRequestFilterAccountsFilter,
    SubscribeRequestFilterAccountsFilterLamports, SubscribeRequestFilterSlots,
    SubscribeRequestFilterTransactions, SubscribeRequestPing, SubscribeUpdate,
    SubscribeUpdateTransaction,
};

/// The subscription: accounts owned by either program; the SOL/USD price account (for USD values); initialized Token-2022 token accounts (the holders:
/// kept only for launched mints, the rest dropped before the database) and closed accounts (owned by the
/// system program with no lamports: how a closed token account shows, see docs/indexer.md); successful
/// transactions that mention either program; and every slot status (for the cursor, the lag metric and dead
/// forks).
pub fn subscribe_request(commitment: Commitment, from_slot: Option<u64>) -> SubscribeRequest {
    let programs = vec![launchpad::ID.to_string(), amm::ID.to_string()];
    let filter = |f| SubscribeRequestFilterAccountsFilter { filter: Some(f) };
    SubscribeRequest {
        accounts: HashMap::from([
            (
                "programs".to_string(),
                SubscribeRequestFilterAccounts {
                    owner: programs.clone(),
                    ..Default::default()
                },
            ),
            (
                "token-accounts".to_string(),
                SubscribeRequestFilterAccounts {
                    owner: vec![sdk::ids::TOKEN_2022_PROGRAM.to_string()],
                    filters: vec![filter(AccountsFilter::TokenAccountState(true))],
                    ..Default::default()
                },
            ),
            (
                "oracle".to_string(),
                SubscribeRequestFilterAccounts {
                    account: vec![sdk::oracle::SOL_USD_PRICE_ACCOUNT.to_string()],
                    owner: vec![sdk::oracle::PYTH_RECEIVER_PROGRAM.to_string()],
                    ..Default::default()
                },
            ),
            (
                "closed-accounts".to_string(),
                SubscribeRequestFilterAccounts {
                    owner: vec![sdk::ids::SYSTEM_PROGRAM.to_string()],
                    filters: vec![filter(AccountsFilter::Lamports(
                        SubscribeRequestFilterAccountsFilterLamports {
                            cmp: Some(LamportsCmp::Eq(0)),
                        },
                    ))],
                    ..Default::default()
                },
            ),
        ]),
        transactions: HashMap::from([(
            "programs".to_string(),
            SubscribeRequestFilterTransactions {
                vote: Some(false),
                failed: Some(false),
                account_include: programs,
                ..Default::default()
            },
        )]),
        slots: HashMap::from([(
            "slots".to_string(),
            SubscribeRequestFilterSlots {
                filter_by_commitment: Some(false),
                ..Default::default()
            },
        )]),
        commitment: Some(level(commitment) as i32),
        from_slot,
        ..Default::default()
    }
}

fn level(c: Commitment) -> CommitmentLevel {
    match c {
        Commitment::Confirmed => CommitmentLevel::Confirmed,
        Commitment::Finalized => CommitmentLevel::Finalized,
    }
}

fn slot_status_of(c: Commitment) -> SlotStatus {
    match c {
        Commitment::Confirmed => SlotStatus::SlotConfirmed,
        Commitment::Finalized => SlotStatus::SlotFinalized,
    }
}

/// Decode and process: turns updates into batches of changes and writes them. Usable without a stream
/// (the benchmark feeds it a generated one).
pub struct Processor {
    store: Store,
    metrics: Arc<Metrics>,
    commitment: Commitment,
    batch_size: usize,
    batch: Vec<Change>,
    batch_started: Option<Instant>,
    /// The cursor to write with the next batch.
    cursor: Option<u64>,
    configs: HashMap<Pubkey, Config>,
    /// The launch each pool trades (curve pools and the AMM pools they migrated into): the one cache
    /// trades are priced from.
    markets: HashMap<Pubkey, Market>,
    /// Pools the index knew no launch of, since the last batch was written (asked again after it).
    unknown_markets: std::collections::HashSet<Pubkey>,
    /// Launched mints and their launchpad pools: token accounts of other mints are dropped here.
    launches: HashMap<Pubkey, Pubkey>,
    /// Token-account writes whose mint is not (yet) a known launch: a launch's first token accounts are
    /// written in the transaction whose event announces it, so they wait until their slot completes.
    held: Vec<TokenAccountWrite>,
    /// The writer's lease the batches are written under (none in tests and benchmarks that write alone).
    lease: Option<SharedLease>,
}

/// The writer's lease, shared by the indexer's sessions and their processor.
pub type SharedLease = Arc<tokio::sync::Mutex<Lease>>;

impl Processor {
    /// A processor over `store`, with the configs already indexed loaded.
    pub async fn new(
        store: Store,
        metrics: Arc<Metrics>,
        commitment: Commitment,
        batch_size: usize,
    ) -> Result<Processor, sqlx::Error> {
        let mut configs = HashMap::new();
        for row in sqlx::query("SELECT address, data FROM configs")
            .fetch_all(store.pool())
            .await?
        {
            let address: String = row.get(0);
            let data: Vec<u8> = row.get(1);
            if let (Ok(a), Some(c)) = (
                address.parse::<Pubkey>(),
                sdk::accounts::decode_config(&data),
            ) {
                configs.insert(a, c);
            }
        }
        let launches = store.launch_pools().await?.into_iter().collect();
        Ok(Processor {
            store,
            metrics,
            commitment,
            batch_size: batch_size.max(1),
            batch: Vec::new(),
            batch_started: None,
            cursor: None,
            configs,
            markets: HashMap::new(),
            unknown_markets: Default::default(),
            launches,
            held: Vec::new(),
            lease: None,
        })
    }

    /// This processor writing under `lease` (see [`index::store::lease`]).
    pub fn with_lease(self, lease: SharedLease) -> Processor {
        Processor {
            lease: Some(lease),
            ..self
        }
    }

    /// Whether the lease this processor writes under was lost (it must stop writing).
    pub async fn lease_lost(&self) -> bool {
        match &self.lease {
            Some(l) => l.lock().await.is_lost(),
            None => false,
        }
    }

    pub fn pending(&self) -> usize {
        self.batch.len()
    }

    /// When the open batch must be written at the latest.
    pub fn deadline(&self, wait: Duration) -> Option<Instant> {
        self.batch_started.map(|t| t + wait)
    }

    fn failed(&self, e: DecodeError) {
        Metrics::bump(&self.metrics.decode_failures, 1);
        tracing::warn!("decode: {e}");
    }

    fn push(&mut self, change: Change) {
        if self.batch.is_empty() {
            self.batch_started = Some(Instant::now());
        }
        self.batch.push(change);
    }

    /// Adds changes that are not from the stream (a backfill) of slots up to `slot`. The cursor stays
    /// where it is until [`Processor::set_cursor`].
    pub fn push_changes(&mut self, changes: Vec<Change>, slot: u64) {
        for change in changes {
            match self.enrich(change) {
                Change::TokenAccount(w) => self.token_account(*w),
                change => self.push(change),
            }
        }
        self.release_held(slot);
    }

    /// The cursor to store with the next batch (after a backfill and a gap's recovery).
    pub fn set_cursor(&mut self, slot: u64) {
        self.cursor = Some(slot);
    }

    /// Fills what a change needs from the caches (pool progress) and feeds the caches.
    fn enrich(&mut self, change: Change) -> Change {
        match change {
            Change::Account(mut w) => {
                match &w.state {
                    AccountState::Config(c) => {
                        self.configs.insert(w.address, (**c).clone());
                    }
                    AccountState::Pool(p) => {
                        if let Some(c) = self.configs.get(&p.config) {
                            w.progress_bps = Some(sdk::quote::progress_bps(c, p));
                            let market = Market {
                                mint: p.base_mint,
                                quote_mint: p.quote_mint,
                                quote_decimals: c.quote_decimals,
                            };
                            self.markets.insert(w.address, market);
                            if p.amm_pool != Pubkey::default() {
                                self.markets.insert(p.amm_pool, market);
                            }
                        }
                        self.launched(p.base_mint, w.address);
                    }
                    _ => {}
                }
                Change::Account(w)
            }
            Change::Event(Event::Launch(l)) => {
                if let Some(q) = curve::QuoteAsset::from_name(&l.quote) {
                    let market = Market {
                        mint: l.mint,
                        quote_mint: l.quote_mint,
                        quote_decimals: q.decimals(),
                    };
                    self.markets.insert(l.pool, market);
                }
                self.launched(l.mint, l.pool);
                Change::Event(Event::Launch(l))
            }
            Change::Event(Event::Migrate(k, m)) => {
                if let Some(market) = self.markets.get(&m.pool).copied() {
                    self.markets.insert(m.amm_pool, market);
                }
                Change::Event(Event::Migrate(k, m))
            }
            other => other,
        }
    }

    /// Learns a launch, and releases the token-account writes of its mint that were waiting for it.
    fn launched(&mut self, mint: Pubkey, pool: Pubkey) {
        if self.launches.insert(mint, pool).is_some() {
            return;
        }
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|w| w.balance.is_some_and(|b| b.mint == mint));
        self.held = waiting;
        for w in ready {
            self.token_account(w);
        }
    }

    /// A token-account write: kept (vault labelled) when its mint is a launch, held until its slot
    /// completes when not yet, closings passed on for the store to match against what it indexes.
    fn token_account(&mut self, mut w: TokenAccountWrite) {
        match &mut w.balance {
            Some(b) => match self.launches.get(&b.mint) {
                Some(pool) => {
                    b.vault = crate::decode::is_vault(&w.address, b, pool);
                    metrics::counter!("indexer_token_account_updates_total", "outcome" => "kept")
                        .increment(1);
                    self.push(Change::TokenAccount(Box::new(w)));
                }
                None => self.held.push(w),
            },
            None => {
                metrics::counter!("indexer_token_account_updates_total", "outcome" => "closed")
                    .increment(1);
                self.push(Change::TokenAccount(Box::new(w)));
            }
        }
    }

    /// Drops the held token-account writes of slots up to `slot`, now complete: not a launch's.
    fn release_held(&mut self, slot: u64) {
        let before = self.held.len();
        self.held.retain(|w| w.version.slot > slot);
        metrics::counter!("indexer_token_account_updates_total", "outcome" => "dropped")
            .increment((before - self.held.len()) as u64);
    }

    /// The launch `pool` trades: from the cache, else from the index.
    async fn market_of(&mut self, pool: Pubkey) -> Result<Option<Market>, sqlx::Error> {
        if let Some(m) = self.markets.get(&pool) {
            return Ok(Some(*m));
        }
        if self.unknown_markets.contains(&pool) {
            return Ok(None);
        }
        let m = self.store.market_of_pool(&pool).await?;
        match m {
            Some(m) => {
                self.markets.insert(pool, m);
            }
            None => {
                self.unknown_markets.insert(pool);
            }
        }
        Ok(m)
    }

    /// Prices a trade once, as it is decoded: its place in its launch's market series.
    async fn priced(&mut self, event: Event) -> Result<Event, sqlx::Error> {
        Ok(match event {
            Event::Trade(mut t) => {
                match self.market_of(t.event.pool).await? {
                    Some(m) => t.market = Some(m.curve_trade(&t.key, &t.event)),
                    None => tracing::warn!(
                        "trade {} of an unknown launch pool {}",
                        t.key.signature,
                        t.event.pool
                    ),
                }
                Event::Trade(t)
            }
            Event::Amm(key, a, _) => {
                let market = match a.as_ref() {
                    // Not a launch's pool: not part of any launch's market.
                    sdk::events::AmmEvent::Swap(s) => self
                        .market_of(s.pool)
                        .await?
                        .map(|m| Box::new(m.amm_trade(&key, s))),
                    _ => None,
                };
                Event::Amm(key, a, market)
            }
            other => other,
        })
    }

    /// Takes one transaction (streamed, or recovered from history after a gap): its events; `Ok(true)`
    /// when the batch is full.
    pub async fn transaction(
        &mut self,
        t: &SubscribeUpdateTransaction,
    ) -> Result<bool, sqlx::Error> {
        let (events, errors) = decode_transaction_update(t);
        for e in errors {
            self.failed(e);
        }
        Metrics::bump(&self.metrics.events, events.len() as u64);
        for event in events {
            // The cache learns of launches and migrations before the trades after them are priced.
            let change = self.enrich(Change::Event(event));
            let change = match change {
                Change::Event(e) => Change::Event(self.priced(e).await?),
                other => other,
            };
            self.push(change);
        }
        Ok(self.batch.len() >= self.batch_size)
    }

    /// Takes one update; `Ok(true)` when the batch should be written now (a slot boundary at the
    /// stream's commitment, or a full batch).
    pub async fn process(&mut self, update: &SubscribeUpdate) -> Result<bool, sqlx::Error> {
        match &update.update_oneof {
            Some(UpdateOneof::Account(a)) => {
                Metrics::bump(&self.metrics.account_updates, 1);
                match decode_account_update(a) {
                    Ok(Some(Change::TokenAccount(w))) => self.token_account(*w),
                    Ok(Some(change)) => {
                        let change = self.enrich(change);
                        self.push(change);
                    }
                    Ok(None) => {}
                    Err(e) => self.failed(e),
                }
            }
            Some(UpdateOneof::Transaction(t)) => return self.transaction(t).await,
            Some(UpdateOneof::Slot(s)) => {
                Metrics::raise(&self.metrics.tip_slot, s.slot);
                let status = SlotStatus::try_from(s.status).ok();
                if status == Some(SlotStatus::SlotDead) {
                    // A fork that died: at confirmed or finalized the server sent none of its data.
                    Metrics::bump(&self.metrics.dead_slots, 1);
                    return Ok(false);
                }
                if status == Some(slot_status_of(self.commitment)) {
                    self.release_held(s.slot);
                    self.cursor = Some(self.cursor.map_or(s.slot, |c| c.max(s.slot)));
                    return Ok(true);
                }
            }
            _ => {}
        }
        Ok(self.batch.len() >= self.batch_size)
    }

    /// Writes the open batch and the cursor in one transaction. On failure nothing is written and the
    /// batch stays, to be retried.
    pub async fn flush(&mut self) -> Result<(), sqlx::Error> {
        if self.batch.is_empty() && self.cursor.is_none() {
            return Ok(());
        }
        let writing = Instant::now();
        match &self.lease {
            Some(lease) => {
                let mut lease = lease.lock().await;
                self.store
                    .apply_leased(&mut lease, &self.batch, self.cursor)
                    .await?
            }
            None => self.store.apply(&self.batch, self.cursor).await?,
        }
        // Latency of a batch: the database write, and the time its first change waited until committed.
        metrics::histogram!("indexer_batch_write_seconds").record(writing.elapsed().as_secs_f64());
        if let Some(started) = self.batch_started {
            metrics::histogram!("indexer_batch_latency_seconds")
                .record(started.elapsed().as_secs_f64());
        }
        Metrics::bump(&self.metrics.committed_batches, 1);
        Metrics::bump(&self.metrics.committed_changes, self.batch.len() as u64);
        if let Some(c) = self.cursor.take() {
            self.metrics.cursor_to(c);
        }
        self.batch.clear();
        self.batch_started = None;
        self.unknown_markets.clear();
        Ok(())
    }

    /// Forgets the open batch (the stream will replay it from the stored cursor).
    pub fn discard(&mut self) {
        self.batch.clear();
        self.held.clear();
        self.batch_started = None;
        self.cursor = None;
    }
}

/// How a session with the gRPC server ended.
enum End {
    Shutdown,
    /// The connection or subscription failed; reconnect. `gap` when the server cannot replay from the
    /// cursor.
    Lost {
        reason: String,
        gap: bool,
    },
}

/// Slots kept between the oldest slot the server can replay and where a post-backfill subscription
/// starts, so that the server dropping slots meanwhile does not turn into a second gap.
const REPLAY_MARGIN: u64 = 10;

/// Where to stream from after a backfill taken at `snapshot_slot`: as early as the server still replays
/// (the trades in that window are recoverable), but never past the snapshot. A server whose oldest slot is
/// the chain's first has dropped nothing yet, so its whole history replays without a margin.
fn replay_start(first_available: Option<u64>, snapshot_slot: u64) -> u64 {
    let start = match first_available {
        None => snapshot_slot,
        Some(oldest) if oldest <= 1 => oldest,
        Some(oldest) => oldest.saturating_add(REPLAY_MARGIN),
    };
    start.min(snapshot_slot)
}

/// How often a standby tries to take the writer's lease (the takeover delay after the active one goes).
pub const LEASE_RETRY: Duration = Duration::from_secs(1);

/// The indexer: runs sessions until shut down, reconnecting with capped exponential backoff.
pub struct Indexer {
    config: IndexerConfig,
    store: Store,
    rpc: RpcClient,
    metrics: Arc<Metrics>,
}

impl Indexer {
    pub fn new(config: IndexerConfig, store: Store) -> Indexer {
        let commitment = match config.commitment {
            Commitment::Confirmed => solana_commitment_config::CommitmentConfig::confirmed(),
            Commitment::Finalized => solana_commitment_config::CommitmentConfig::finalized(),
        };
        let rpc = RpcClient::new_with_commitment(config.rpc_url.clone(), commitment);
        let metrics = Metrics::default();
        metrics.stall_after_ms.store(
            config.stream_idle_secs.saturating_mul(1000),
            std::sync::atomic::Ordering::Relaxed,
        );
        // The writer prunes what the retention no longer keeps.
        let store = store.with_retention(index::store::retention::Retention {
            trades_secs: config.trade_retention.0,
            ..config.candle_retention.clone()
        });
        Indexer {
            config,
            store,
            rpc,
            metrics: Arc::new(metrics),
        }
    }

    pub fn metrics(&self) -> Arc<Metrics> {
        self.metrics.clone()
    }

    /// Reads the chain's slot from the RPC node every [`CHAIN_SLOT_EVERY`] until shutdown, so that the
    /// chain slot less the committed cursor is the index's true lag (`indexer_chain_lag_slots`), whatever
    /// the stream says.
    fn watch_chain_slot(&self, mut shutdown: watch::Receiver<bool>) {
        let rpc =
            RpcClient::new_with_commitment(self.config.rpc_url.clone(), self.rpc.commitment());
        let metrics = self.metrics.clone();
        tokio::spawn(async move {
            loop {
                if let Ok(slot) = rpc.get_slot().await {
                    Metrics::raise(&metrics.chain_slot, slot);
                }
                tokio::select! {
                    _ = tokio::time::sleep(CHAIN_SLOT_EVERY) => {}
                    _ = stopped(&mut shutdown) => return,
                }
            }
        });
    }

    /// Runs until `shutdown` turns true. Errors of the network or the database are retried, never fatal.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        self.watch_chain_slot(shutdown.clone());
        loop {
            let Some(lease) = self.take_lease(&mut shutdown).await else {
                return;
            };
            let lease = Arc::new(tokio::sync::Mutex::new(lease));
            self.write(&mut shutdown, &lease).await;
            if !lease.lock().await.is_lost() {
                return;
            }
        }
    }

    /// Takes the writer's lease, waiting as the standby while another indexer holds it. `None` on shutdown,
    /// or when a SQLite database already has its writer.
    async fn take_lease(&self, shutdown: &mut watch::Receiver<bool>) -> Option<Lease> {
        let mut waiting = false;
        loop {
            match self.store.try_lease(LeaseKind::Indexer).await {
                Ok(Some(lease)) => {
                    self.metrics.set_role(Role::Active);
                    tracing::info!("indexer: holding the writer's lease");
                    return Some(lease);
                }
                Ok(None) if self.store.backend() == Backend::Sqlite => {
                    let reason = format!(
                        "another indexer is writing this SQLite database (it holds {}); SQLite takes one \
                         writer: stop that one first, or use PostgreSQL for a standby",
                        self.store.lock_file(LeaseKind::Indexer).display()
                    );
                    tracing::error!("indexer: {reason}");
                    self.metrics.set_last_error(Some(reason));
                    self.metrics.set_role(Role::Refused);
                    return None;
                }
                Ok(None) => {
                    if !waiting {
                        tracing::info!(
                            "indexer: standby: another indexer holds the writer's lease; taking over when it goes"
                        );
                    }
                    waiting = true;
                    self.metrics.set_role(Role::Standby);
                }
                Err(e) => {
                    Metrics::bump(&self.metrics.db_errors, 1);
                    tracing::warn!("indexer: taking the writer's lease: {e}");
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(LEASE_RETRY) => {}
                _ = stopped(shutdown) => return None,
            }
        }
    }

    /// Runs sessions under `lease` until shut down or the lease is lost, reconnecting with capped
    /// exponential backoff.
    async fn write(&self, shutdown: &mut watch::Receiver<bool>, lease: &SharedLease) {
        let mut shutdown = shutdown.clone();
        let mut backoff = self.config.backoff();
        let mut force_backfill = false;
        loop {
            if *shutdown.borrow() || lease.lock().await.is_lost() {
                return;
            }
            let progress_before = self
                .metrics
                .committed_batches
                .load(std::sync::atomic::Ordering::Relaxed);
            let end = self.session(&mut shutdown, force_backfill, lease).await;
            self.metrics
                .connected
                .store(0, std::sync::atomic::Ordering::Relaxed);
            match end {
                Ok(End::Shutdown) => return,
                Ok(End::Lost { reason, gap }) => {
                    force_backfill = gap;
                    tracing::warn!("indexer: stream lost ({reason}); reconnecting");
                    self.metrics.set_last_error(Some(reason));
                }
                Err(e) => {
                    force_backfill = false;
                    let reason = explain(&e);
                    tracing::error!("indexer: {reason}; reconnecting");
                    self.metrics.set_last_error(Some(reason));
                }
            }
            Metrics::bump(&self.metrics.reconnects, 1);
            if self
                .metrics
                .committed_batches
                .load(std::sync::atomic::Ordering::Relaxed)
                > progress_before
            {
                backoff = self.config.backoff();
            }
            let delay = backoff.next().unwrap_or(Duration::from_secs(1));
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = stopped(&mut shutdown) => return,
            }
        }
    }

    /// Retries a database read until it succeeds (or shutdown: `None`).
    async fn db_retry<T, F, Fut>(&self, shutdown: &mut watch::Receiver<bool>, mut f: F) -> Option<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, sqlx::Error>>,
    {
        let mut backoff = self.config.backoff();
        loop {
            match f().await {
                Ok(v) => return Some(v),
                Err(e) => {
                    Metrics::bump(&self.metrics.db_errors, 1);
                    let delay = backoff.next().unwrap_or(Duration::from_secs(1));
                    tracing::warn!("database: {e}; retrying in {delay:?}");
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {}
                        _ = stopped(shutdown) => return None,
                    }
                }
            }
        }
    }

    /// Writes the open batch, waiting out a database outage. `false` on shutdown.
    async fn flush(&self, processor: &mut Processor, shutdown: &mut watch::Receiver<bool>) -> bool {
        let mut backoff = self.config.backoff();
        loop {
            match processor.flush().await {
                Ok(()) => return true,
                Err(_) if processor.lease_lost().await => {
                    // Another indexer may be writing now: this one stops and waits as the standby.
                    tracing::warn!("indexer: lost the writer's lease; the open batch is left to the next writer");
                    processor.discard();
                    return false;
                }
                Err(e) => {
                    Metrics::bump(&self.metrics.db_errors, 1);
                    let delay = backoff.next().unwrap_or(Duration::from_secs(1));
                    tracing::warn!(
                        "database write failed ({e}); {} changes kept, retrying in {delay:?}",
                        processor.pending()
                    );
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {}
                        _ = stopped(shutdown) => return false,
                    }
                }
            }
        }
    }

    /// Takes the current account state over RPC (counted and logged), for the caller to queue with the
    /// cursor it will stream from.
    async fn backfill(&self) -> anyhow::Result<backfill::Snapshot> {
        let mut snap = backfill::snapshot(&self.rpc).await?;
        for e in std::mem::take(&mut snap.failures) {
            Metrics::bump(&self.metrics.decode_failures, 1);
            tracing::warn!("backfill decode: {e}");
        }
        Metrics::bump(&self.metrics.backfilled_accounts, snap.changes.len() as u64);
        tracing::info!(
            "backfilled {} accounts and launches at slot {}; reading the holders of {} launches",
            snap.changes.len(),
            snap.slot,
            snap.mints.len()
        );
        Ok(snap)
    }

    /// Reads and writes the holders of the snapshot's launches, [`backfill::HOLDER_CHUNK`] launches at a
    /// time (each chunk flushed before the next is read: memory holds one chunk). `false` on shutdown.
    async fn backfill_holders(
        &self,
        processor: &mut Processor,
        shutdown: &mut watch::Receiver<bool>,
        snap: &backfill::Snapshot,
        slot: u64,
    ) -> anyhow::Result<bool> {
        let budget =
            crate::recover::Budget::new(self.config.recovery_concurrency, self.config.recovery_rps);
        let mut written = 0u64;
        for chunk in snap.mints.chunks(backfill::HOLDER_CHUNK) {
            let changes = backfill::holders(&self.rpc, &budget, chunk, snap.version).await?;
            written += changes.len() as u64;
            processor.push_changes(changes, slot);
            if !self.flush(processor, shutdown).await {
                return Ok(false);
            }
        }
        Metrics::bump(&self.metrics.backfilled_accounts, written);
        metrics::counter!("indexer_recovery_rpc_calls_total")
            .increment(budget.calls.load(std::sync::atomic::Ordering::Relaxed));
        tracing::info!(
            "backfilled {written} holder accounts of {} launches",
            snap.mints.len()
        );
        Ok(true)
    }

    /// Recovers the events of slots `after < slot < before` from the RPC node's transaction history and
    /// writes them as the stream would have (see [`crate::recover`]). `false` on shutdown.
    async fn recover(
        &self,
        processor: &mut Processor,
        shutdown: &mut watch::Receiver<bool>,
        after: u64,
        before: u64,
    ) -> anyhow::Result<bool> {
        let started = Instant::now();
        let budget =
            crate::recover::Budget::new(self.config.recovery_concurrency, self.config.recovery_rps);
        let (count, recovered) =
            crate::recover::transactions(&self.rpc, self.rpc.commitment(), after, before, &budget)
                .await?;
        futures::pin_mut!(recovered);
        while let Some(t) = recovered.next().await {
            if processor.transaction(&t?).await? && !self.flush(processor, shutdown).await {
                return Ok(false);
            }
        }
        if !self.flush(processor, shutdown).await {
            return Ok(false);
        }
        let calls = budget.calls.load(std::sync::atomic::Ordering::Relaxed);
        let unordered = budget
            .unordered_slots
            .load(std::sync::atomic::Ordering::Relaxed);
        metrics::counter!("indexer_recovery_rpc_calls_total").increment(calls);
        Metrics::bump(&self.metrics.recovered_transactions, count as u64);
        tracing::info!(
            "recovered {count} transactions of slots {after}..{before} with {calls} RPC calls in {:?}{}",
            started.elapsed(),
            if unordered == 0 {
                String::new()
            } else {
                format!(" ({unordered} slots without their block: order within them unknown)")
            }
        );
        Ok(true)
    }

    async fn session(
        &self,
        shutdown: &mut watch::Receiver<bool>,
        force_backfill: bool,
        lease: &SharedLease,
    ) -> anyhow::Result<End> {
        let store = self.store.clone();
        let Some(cursor) = self
            .db_retry(shutdown, || {
                let store = store.clone();
                async move { store.cursor(index::store::MAIN_STREAM).await }
            })
            .await
        else {
            return Ok(End::Shutdown);
        };
        let metrics = self.metrics.clone();
        let commitment = self.config.commitment;
        let batch_size = self.config.batch_size;
        let Some(processor) = self
            .db_retry(shutdown, || {
                Processor::new(store.clone(), metrics.clone(), commitment, batch_size)
            })
            .await
        else {
            return Ok(End::Shutdown);
        };
        let mut processor = processor.with_lease(lease.clone());

        let mut client = connect(&self.config).await?;
        // The oldest slot the server can replay, when it says.
        let first_available = client
            .subscribe_replay_info()
            .await
            .ok()
            .and_then(|r| r.first_available);
        let from_slot = match cursor {
            Some(c) if !force_backfill && first_available.is_none_or(|f| c >= f) => Some(c),
            _ => {
                if let Some(c) = cursor {
                    Metrics::bump(&self.metrics.gaps, 1);
                    tracing::warn!(
                        "the server cannot replay from slot {c} (oldest: {first_available:?}): \
                         backfilling account state and recovering the events in between over RPC"
                    );
                }
                let mut snap = self.backfill().await?;
                // The server's window moved on while the backfill ran: ask again, and start a few slots
                // inside it so that the subscription does not race the slots the server is dropping. That
                // slot is also the cursor stored once the gap is filled, so a reconnect before the first
                // streamed batch resumes from it too.
                let oldest_now = client
                    .subscribe_replay_info()
                    .await
                    .ok()
                    .and_then(|r| r.first_available);
                let from = replay_start(oldest_now, snap.slot);
                processor.push_changes(std::mem::take(&mut snap.changes), from);
                // The accounts first (the events' market rows need the pools), then the events of the gap,
                // or, on a cold start, of the programs' whole history; the cursor stays where it was until
                // both are in, so a failure anywhere repeats the whole recovery (every write is idempotent)
                // rather than skip it.
                if !self.flush(&mut processor, shutdown).await {
                    return Ok(End::Shutdown);
                }
                if !self
                    .backfill_holders(&mut processor, shutdown, &snap, from)
                    .await?
                {
                    return Ok(End::Shutdown);
                }
                if !self
                    .recover(&mut processor, shutdown, cursor.unwrap_or(0), from)
                    .await?
                {
                    return Ok(End::Shutdown);
                }
                processor.set_cursor(from);
                if !self.flush(&mut processor, shutdown).await {
                    return Ok(End::Shutdown);
                }
                Some(from)
            }
        };
        let (mut sink, mut stream) = client
            .subscribe_with_request(Some(subscribe_request(self.config.commitment, from_slot)))
            .await?;
        self.metrics
            .connected
            .store(1, std::sync::atomic::Ordering::Relaxed);
        self.metrics.set_last_error(None);
        tracing::info!("indexer: streaming from slot {from_slot:?}");
        let mut received_any = false;
        let wait = self.config.batch_wait();
        self.metrics.heard();
        let idle = Duration::from_secs(self.config.stream_idle_secs);
        let mut last_heard = Instant::now();
        let mut chain_slot = self.rpc.get_slot().await.unwrap_or(0);
        Metrics::raise(&self.metrics.chain_slot, chain_slot);
        loop {
            let deadline = processor.deadline(wait);
            let watchdog = (!idle.is_zero()).then(|| last_heard + idle);
            let mut stop = shutdown.clone();
            tokio::select! {
                _ = stopped(&mut stop) => {
                    self.flush(&mut processor, shutdown).await;
                    return Ok(End::Shutdown);
                }
                _ = sleep_until(deadline) => {
                    if !self.flush(&mut processor, shutdown).await {
                        return Ok(End::Shutdown);
                    }
                }
                _ = sleep_until(watchdog) => {
                    // Silence: a halted chain sends nothing either, so ask the RPC node whether it moved on.
                    match self.rpc.get_slot().await {
                        Ok(now) if now > chain_slot => {
                            Metrics::raise(&self.metrics.chain_slot, now);
                            self.flush(&mut processor, shutdown).await;
                            return Ok(End::Lost {
                                reason: format!(
                                    "the stream sent nothing for {}s while the chain moved from slot {chain_slot} to {now}",
                                    idle.as_secs()
                                ),
                                gap: false,
                            });
                        }
                        Ok(now) => chain_slot = now,
                        Err(e) => tracing::warn!("indexer: the stream is silent and getSlot failed: {e}"),
                    }
                    last_heard = Instant::now();
                }
                next = stream.next() => match next {
                    Some(Ok(update)) => {
                        received_any = true;
                        last_heard = Instant::now();
                        self.metrics.heard();
                        match &update.update_oneof {
                            Some(UpdateOneof::Ping(_)) => {
                                // Answer server pings so that load balancers keep the stream open.
                                sink.send(SubscribeRequest {
                                    ping: Some(SubscribeRequestPing { id: 1 }),
                                    ..Default::default()
                                }).await?;
                            }
                            Some(UpdateOneof::Pong(_)) => {}
                            _ => {
                                let flush_now = match processor.process(&update).await {
                                    Ok(f) => f,
                                    Err(e) => {
                                        Metrics::bump(&self.metrics.db_errors, 1);
                                        processor.discard();
                                        return Ok(End::Lost { reason: format!("database: {e}"), gap: false });
                                    }
                                };
                                if flush_now && !self.flush(&mut processor, shutdown).await {
                                    return Ok(End::Shutdown);
                                }
                            }
                        }
                    }
                    Some(Err(status)) => {
                        let gap = !received_any
                            && from_slot.is_some()
                            && status.code() == tonic::Code::InvalidArgument;
                        if !self.flush(&mut processor, shutdown).await {
                            return Ok(End::Shutdown);
                        }
                        return Ok(End::Lost { reason: status.to_string(), gap });
                    }
                    None => {
                        if !self.flush(&mut processor, shutdown).await {
                            return Ok(End::Shutdown);
                        }
                        return Ok(End::Lost { reason: "the server ended the stream".into(), gap: false });
                    }
                }
            }
        }
    }
}

/// Connects to the Yellowstone endpoint of `config`: over TLS for an `https://` URL (the system's roots, or
/// the configured CA), with the `x-token` when one is set.
pub async fn connect(config: &IndexerConfig) -> anyhow::Result<GeyserGrpcClient> {
    use anyhow::Context;
    let mut builder = GeyserGrpcClient::build_from_shared(config.grpc_url.clone())
        .with_context(|| format!("--grpc-url (GRPC_URL) {}", config.grpc_url))?
        .x_token(config.grpc_x_token.clone())
        .context("--grpc-x-token (GRPC_X_TOKEN)")?
        .connect_timeout(Duration::from_secs(5))
        // HTTP/2 pings, also while idle: a connection a middlebox dropped fails within ~40 s instead of
        // hanging for ever.
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_timeout(Duration::from_secs(20))
        .keep_alive_while_idle(true)
        .tcp_keepalive(Some(Duration::from_secs(30)))
        .max_decoding_message_size(64 * 1024 * 1024);
    if let Some(tls) = config.grpc_tls()? {
        builder = builder.tls_config(tls)?;
    }
    builder
        .connect()
        .await
        .with_context(|| format!("connecting to {}", config.grpc_url))
}

/// An error with its causes, and for a TLS failure what to configure.
pub fn explain(e: &anyhow::Error) -> String {
    // Transport errors repeat their source in their own message: each cause once.
    let mut causes: Vec<String> = Vec::new();
    for cause in e.chain() {
        let cause = cause.to_string();
        if !causes.last().is_some_and(|last| last.contains(&cause)) {
            causes.push(cause);
        }
    }
    let text = causes.join(": ");
    if text.contains("native certs") {
        format!(
            "{text}: the system has no CA roots (install ca-certificates), or give the provider's CA with \
             --grpc-ca-cert (GRPC_CA_CERT)"
        )
    } else if text.contains("certificate") {
        format!(
            "{text}: TLS: the server's certificate is not trusted; give its CA with --grpc-ca-cert \
             (GRPC_CA_CERT), or check the system's roots"
        )
    } else {
        text
    }
}

/// Resolves once shutdown is asked for (the guard of the watched value is not kept across awaits).
/// How often the chain's slot is read for the lag metric.
pub const CHAIN_SLOT_EVERY: Duration = Duration::from_secs(10);

async fn stopped(rx: &mut watch::Receiver<bool>) {
    if rx.wait_for(|s| *s).await.is_err() {
        std::future::pending::<()>().await;
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::replay_start;

    #[test]
    fn a_post_backfill_stream_starts_inside_the_server_window_and_never_after_the_snapshot() {
        assert_eq!(replay_start(Some(100), 200), 110);
        assert_eq!(replay_start(Some(198), 200), 200);
        assert_eq!(replay_start(Some(u64::MAX), 200), 200);
        assert_eq!(replay_start(None, 200), 200);
        assert_eq!(replay_start(Some(1), 200), 1);
        assert_eq!(replay_start(Some(0), 200), 0);
    }
}
