//! The processor: decodes updates, enriches them (pool progress, the launch each pool trades, the holders of
//! launched mints), prices each trade once, and writes batches with the cursor under the writer's lease.

use super::balances::Before;
use super::source::slot_status_of;
use crate::config::Commitment;
use crate::decode::{decode_account_update, decode_transaction_update, DecodeError};
use anchor_lang::prelude::Pubkey;
use index::market::Market;
use index::model::*;
use index::store::lease::Lease;
use index::store::quarantine::{classify, Failure};
use index::store::Store;
use ops::health::Metrics;
use sdk::accounts::Config;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use yellowstone_grpc_proto::prelude::{
    subscribe_update::UpdateOneof, SlotStatus, SubscribeUpdate, SubscribeUpdateTransaction,
};

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
        let configs = store.configs().await?.into_iter().collect();
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
                    Some(m) => t.market = Some(m.curve_trade(&t)),
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
        let mut before = None;
        for event in events {
            // The cache learns of launches and migrations before the trades after them are priced.
            let change = self.enrich(Change::Event(event));
            let change = match change {
                Change::Event(e) => {
                    let mut e = self.priced(e).await?;
                    // The trader's balance before the transaction, read once per transaction with a trade.
                    if e.market_trade().is_some() {
                        if let Some(b) = before.get_or_insert_with(|| Before::of(t)) {
                            b.stamp(&mut e);
                        }
                    }
                    Change::Event(e)
                }
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

    /// Writes `changes` and `cursor` in one transaction, under the lease when there is one.
    async fn apply(&self, changes: &[Change], cursor: Option<u64>) -> Result<(), sqlx::Error> {
        match &self.lease {
            Some(lease) => {
                let mut lease = lease.lock().await;
                self.store.apply_leased(&mut lease, changes, cursor).await
            }
            None => self.store.apply(changes, cursor).await,
        }
    }

    /// Writes `changes` (which the database refused together with `error`) in halves, down to the one
    /// change it refuses, which goes to the quarantine; the others are written. A transient error stops
    /// it (the caller retries the whole batch: every write is idempotent).
    fn settle<'a>(
        &'a self,
        changes: &'a [Change],
        error: sqlx::Error,
    ) -> futures::future::BoxFuture<'a, Result<(), sqlx::Error>> {
        Box::pin(async move {
            match changes {
                [] => Err(error),
                [change] => self.set_aside(change, &error).await,
                _ => {
                    let (a, b) = changes.split_at(changes.len() / 2);
                    for half in [a, b] {
                        match self.apply(half, None).await {
                            Ok(()) => {}
                            Err(e) if classify(&e) == Failure::Refused => {
                                self.settle(half, e).await?
                            }
                            Err(e) => return Err(e),
                        }
                    }
                    Ok(())
                }
            }
        })
    }

    /// Puts a refused change in the quarantine, counted and logged.
    async fn set_aside(&self, change: &Change, error: &sqlx::Error) -> Result<(), sqlx::Error> {
        let entry = crate::quarantine::entry_of(change);
        self.store.quarantine(&entry, error).await?;
        metrics::counter!("indexer_quarantined_events_total").increment(1);
        tracing::error!(
            ident = %entry.ident,
            sqlstate = index::store::quarantine::code(error).as_deref().unwrap_or(""),
            "the database refused a change ({error}): set aside in the quarantine; the stream goes on \
             (`indexer replay-quarantine` writes it once the cause is fixed)"
        );
        Ok(())
    }

    /// Writes the open batch and the cursor in one transaction. On a transient failure nothing is written
    /// and the batch stays, to be retried. When the database refuses the data itself
    /// ([`Failure::Refused`]), the batch is written in parts, the change it refuses goes to the quarantine,
    /// and the cursor moves on.
    pub async fn flush(&mut self) -> Result<(), sqlx::Error> {
        if self.batch.is_empty() && self.cursor.is_none() {
            return Ok(());
        }
        let writing = Instant::now();
        match self.apply(&self.batch, self.cursor).await {
            Ok(()) => {}
            Err(e) if classify(&e) == Failure::Refused && !self.lease_lost().await => {
                self.settle(&self.batch, e).await?;
                self.apply(&[], self.cursor).await?;
            }
            Err(e) => return Err(e),
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

    /// Writes one change read back from the quarantine, enriched and priced as the stream's would be:
    /// `Ok(true)` when written, `Ok(false)` when the database still refuses it (its quarantine row then
    /// carries the new error). Transient errors are the caller's. `wallet_before`: the trader's balance
    /// before a trade, as the quarantine kept it.
    pub async fn replay(
        &mut self,
        change: Change,
        wallet_before: Option<u64>,
    ) -> Result<bool, sqlx::Error> {
        let change = match self.enrich(change) {
            Change::Event(e) => {
                let mut e = self.priced(e).await?;
                if let Some(m) = e.market_trade_mut() {
                    m.wallet_before = wallet_before;
                }
                Change::Event(e)
            }
            other => other,
        };
        match self.apply(std::slice::from_ref(&change), None).await {
            Ok(()) => Ok(true),
            Err(e) if classify(&e) == Failure::Refused => {
                self.set_aside(&change, &e).await?;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Forgets the open batch (the stream will replay it from the stored cursor).
    pub fn discard(&mut self) {
        self.batch.clear();
        self.held.clear();
        self.batch_started = None;
        self.cursor = None;
    }
}
