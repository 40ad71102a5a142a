//! The run loop: the writer's lease (active, standby, refused), sessions retried with capped exponential
//! backoff, database outages waited out, and where a session starts: the cursor, or a backfill of account
//! state and holders with the gap's events recovered over RPC.

use super::source::{explain, End};
use super::{stopped, Processor, SharedLease};
use crate::backfill;
use crate::config::{Commitment, IndexerConfig};
use futures::StreamExt;
use index::store::lease::{Lease, LeaseKind};
use index::store::{Backend, Store};
use ops::health::{Metrics, Role};
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use yellowstone_grpc_client::GeyserGrpcClient;

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

/// How often the retention's timer asks whether a prune is due.
const RETENTION_TICK: Duration = Duration::from_secs(5);

/// How often a standby tries to take the writer's lease (the takeover delay after the active one goes).
pub const LEASE_RETRY: Duration = Duration::from_secs(1);

/// How long a writer that gave its lease up (no progress, sources unreachable) leaves it to the standbys
/// before it may take it back.
pub const YIELD_GRACE: Duration = Duration::from_secs(3);

/// The indexer: runs sessions until shut down, reconnecting with capped exponential backoff.
pub struct Indexer {
    pub(super) config: IndexerConfig,
    pub(super) store: Store,
    pub(super) rpc: RpcClient,
    pub(super) metrics: Arc<Metrics>,
    /// The cursor of the last gap counted, or the cursor its recovery left ([`u64::MAX`] before any): a
    /// recovery that fails and starts again (an RPC call or a write that failed; every write is idempotent),
    /// or a window that passed the recovery's end before the stream went on from it, is the same gap, counted
    /// once.
    pub(super) last_gap: std::sync::atomic::AtomicU64,
}

impl Indexer {
    pub fn new(config: IndexerConfig, store: Store) -> Indexer {
        let commitment = match config.commitment {
            Commitment::Confirmed => solana_commitment_config::CommitmentConfig::confirmed(),
            Commitment::Finalized => solana_commitment_config::CommitmentConfig::finalized(),
        };
        let rpc = crate::rpc::client(&config.rpc_url, commitment);
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
            last_gap: std::sync::atomic::AtomicU64::new(u64::MAX),
        }
    }

    pub fn metrics(&self) -> Arc<Metrics> {
        self.metrics.clone()
    }

    /// Runs until `shutdown` turns true. Errors of the network or the database are retried, never fatal.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        self.watch_chain_slot(shutdown.clone());
        loop {
            let Some(lease) = self.take_lease(&mut shutdown).await else {
                return;
            };
            let lease = Arc::new(tokio::sync::Mutex::new(lease));
            let retention = self.spawn_retention();
            let yielded = self.write(&mut shutdown, &lease).await;
            retention.abort();
            if yielded {
                // The sessions (and their processors) are over: this is the only holder left.
                if let Ok(lease) = Arc::try_unwrap(lease) {
                    lease.into_inner().release().await;
                }
                self.metrics.set_role(Role::Standby);
                metrics::counter!("indexer_lease_yields_total").increment(1);
                if !self.wait_for_a_source(&mut shutdown).await {
                    return;
                }
                continue;
            }
            if !lease.lock().await.is_lost() {
                return;
            }
        }
    }

    /// After giving the lease up: waits (as the standby) until one of this indexer's gRPC endpoints
    /// answers, leaving a standby with a working source [`YIELD_GRACE`] to take the lease first. `false` on
    /// shutdown.
    async fn wait_for_a_source(&self, shutdown: &mut watch::Receiver<bool>) -> bool {
        let mut wait = YIELD_GRACE;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = stopped(shutdown) => return false,
            }
            match super::source::open_source(&self.config).await {
                Ok(_) => {
                    tracing::info!(
                        "indexer: a gRPC source answers again; taking the writer's lease when free"
                    );
                    return true;
                }
                Err(e) => self.metrics.set_last_error(Some(explain(&e))),
            }
            wait = LEASE_RETRY;
        }
    }

    /// The retention's own timer while this indexer writes: prunes every
    /// [`index::store::retention::PRUNE_EVERY_SECS`] whether or not batches commit (a batch that cannot be
    /// written, a full disk, must not block the pruning that frees space).
    fn spawn_retention(&self) -> tokio::task::AbortHandle {
        let store = self.store.clone();
        let metrics = self.metrics.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(RETENTION_TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Err(e) = store.prune_due().await {
                    Metrics::bump(&metrics.db_errors, 1);
                    tracing::warn!(
                        "retention: pruning failed ({e}); trying again at the next prune"
                    );
                }
            }
        })
        .abort_handle()
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
    /// exponential backoff. `true` when it gives the lease up: `--lease-yield-secs` passed without progress
    /// (nothing heard from a gRPC source) while the sessions failed for want of a source.
    async fn write(&self, shutdown: &mut watch::Receiver<bool>, lease: &SharedLease) -> bool {
        let mut shutdown = shutdown.clone();
        let mut backoff = self.config.backoff();
        let mut force_backfill = false;
        let taken_ms = Metrics::now_ms();
        loop {
            if *shutdown.borrow() || lease.lock().await.is_lost() {
                return false;
            }
            let progress_before = self
                .metrics
                .committed_batches
                .load(std::sync::atomic::Ordering::Relaxed);
            let end = self.session(&mut shutdown, force_backfill, lease).await;
            self.metrics
                .connected
                .store(0, std::sync::atomic::Ordering::Relaxed);
            let source_failed = match end {
                Ok(End::Shutdown) => return false,
                Ok(End::Lost { reason, gap }) => {
                    force_backfill = gap;
                    tracing::warn!("indexer: stream lost ({reason}); reconnecting");
                    self.metrics.set_last_error(Some(reason));
                    true
                }
                Ok(End::Database(reason)) => {
                    force_backfill = false;
                    tracing::warn!("indexer: {reason}; reconnecting");
                    self.metrics.set_last_error(Some(reason));
                    false
                }
                Err(e) => {
                    force_backfill = false;
                    let reason = explain(&e);
                    tracing::error!("indexer: {reason}; reconnecting");
                    self.metrics.set_last_error(Some(reason));
                    true
                }
            };
            if let Some(limit) = self.config.lease_yield().filter(|_| source_failed) {
                let heard_ms = self
                    .metrics
                    .last_update_ms
                    .load(std::sync::atomic::Ordering::Relaxed)
                    .max(taken_ms);
                let silent = Duration::from_millis(Metrics::now_ms().saturating_sub(heard_ms));
                if silent >= limit {
                    tracing::warn!(
                        "indexer: no progress for {silent:?} and no source answers: giving up the writer's \
                         lease for a standby with a working source"
                    );
                    return true;
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
                _ = stopped(&mut shutdown) => return false,
            }
        }
    }

    /// Retries a database read until it succeeds (or shutdown: `None`).
    pub(super) async fn db_retry<T, F, Fut>(
        &self,
        shutdown: &mut watch::Receiver<bool>,
        mut f: F,
    ) -> Option<T>
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
    pub(super) async fn flush(
        &self,
        processor: &mut Processor,
        shutdown: &mut watch::Receiver<bool>,
    ) -> bool {
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

    /// Where the stream starts (`None` on shutdown): the stored cursor when the server can replay from it;
    /// else, after a backfill of account state and holders and the gap's events recovered over RPC (on a cold
    /// start, the programs' whole history), a slot inside the server's window, written as the cursor.
    pub(super) async fn start_slot(
        &self,
        client: &mut GeyserGrpcClient,
        processor: &mut Processor,
        shutdown: &mut watch::Receiver<bool>,
        cursor: Option<u64>,
        force_backfill: bool,
    ) -> anyhow::Result<Option<u64>> {
        // The oldest slot the server can replay, when it says.
        let first_available = client
            .subscribe_replay_info()
            .await
            .ok()
            .and_then(|r| r.first_available);
        match cursor {
            Some(c) if !force_backfill && first_available.is_none_or(|f| c >= f) => Ok(Some(c)),
            _ => {
                if let Some(c) = cursor {
                    if self.last_gap.swap(c, std::sync::atomic::Ordering::Relaxed) != c {
                        Metrics::bump(&self.metrics.gaps, 1);
                    }
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
                if !self.flush(processor, shutdown).await {
                    return Ok(None);
                }
                if !self
                    .backfill_holders(processor, shutdown, &snap, from)
                    .await?
                {
                    return Ok(None);
                }
                if !self
                    .recover(processor, shutdown, cursor.unwrap_or(0), from)
                    .await?
                {
                    return Ok(None);
                }
                processor.set_cursor(from);
                if !self.flush(processor, shutdown).await {
                    return Ok(None);
                }
                // Until the stream moves the cursor on, a server that cannot replay from `from` either (its
                // window passed it while the gap was recovered) is the same outage, not a second gap.
                self.last_gap
                    .store(from, std::sync::atomic::Ordering::Relaxed);
                Ok(Some(from))
            }
        }
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
