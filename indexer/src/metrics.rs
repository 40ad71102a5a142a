//! Metrics: counters the pipeline bumps, a log line per interval, and a JSON snapshot for `/health`.

use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
pub struct Metrics {
    pub account_updates: AtomicU64,
    pub events: AtomicU64,
    pub decode_failures: AtomicU64,
    pub committed_batches: AtomicU64,
    pub committed_changes: AtomicU64,
    pub db_errors: AtomicU64,
    pub reconnects: AtomicU64,
    /// Times the server could not replay from the cursor and account state was backfilled instead.
    pub gaps: AtomicU64,
    pub backfilled_accounts: AtomicU64,
    pub dead_slots: AtomicU64,
    /// The last slot whose updates are committed.
    pub cursor_slot: AtomicU64,
    /// The highest slot the stream has announced (any commitment).
    pub tip_slot: AtomicU64,
    pub connected: AtomicU64,
    /// Why the last connection or stream failed, until streaming resumes.
    pub last_error: std::sync::Mutex<Option<String>>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Snapshot {
    pub status: &'static str,
    pub connected: bool,
    pub cursor_slot: u64,
    pub tip_slot: u64,
    pub slot_lag: u64,
    pub account_updates: u64,
    pub events: u64,
    pub decode_failures: u64,
    pub committed_batches: u64,
    pub committed_changes: u64,
    pub db_errors: u64,
    pub reconnects: u64,
    pub gaps: u64,
    pub backfilled_accounts: u64,
    pub dead_slots: u64,
    /// Why the last connection or stream failed (a TLS certificate the indexer does not trust, a refused
    /// connection, ...), until streaming resumes.
    pub last_error: Option<String>,
}

impl Metrics {
    pub fn bump(counter: &AtomicU64, by: u64) {
        counter.fetch_add(by, Relaxed);
    }

    pub fn raise(counter: &AtomicU64, to: u64) {
        counter.fetch_max(to, Relaxed);
    }

    pub fn set_last_error(&self, error: Option<String>) {
        if let Ok(mut last) = self.last_error.lock() {
            *last = error;
        }
    }

    pub fn last_error(&self) -> Option<String> {
        self.last_error.lock().ok().and_then(|e| e.clone())
    }

    pub fn snapshot(&self) -> Snapshot {
        let cursor_slot = self.cursor_slot.load(Relaxed);
        let tip_slot = self.tip_slot.load(Relaxed);
        let connected = self.connected.load(Relaxed) == 1;
        let slot_lag = tip_slot.saturating_sub(cursor_slot);
        Snapshot {
            status: if !connected {
                "disconnected"
            } else if slot_lag > 150 {
                "lagging"
            } else {
                "ok"
            },
            connected,
            cursor_slot,
            tip_slot,
            slot_lag,
            account_updates: self.account_updates.load(Relaxed),
            events: self.events.load(Relaxed),
            decode_failures: self.decode_failures.load(Relaxed),
            committed_batches: self.committed_batches.load(Relaxed),
            committed_changes: self.committed_changes.load(Relaxed),
            db_errors: self.db_errors.load(Relaxed),
            reconnects: self.reconnects.load(Relaxed),
            gaps: self.gaps.load(Relaxed),
            backfilled_accounts: self.backfilled_accounts.load(Relaxed),
            dead_slots: self.dead_slots.load(Relaxed),
            last_error: self.last_error(),
        }
    }

    /// Logs one line per `every`: slot lag, updates per second over the interval, decode failures.
    pub async fn log_every(self: std::sync::Arc<Self>, every: Duration) {
        let mut tick = tokio::time::interval(every);
        tick.tick().await;
        let mut last = (Instant::now(), self.snapshot());
        loop {
            tick.tick().await;
            let now = (Instant::now(), self.snapshot());
            let secs = now.0.duration_since(last.0).as_secs_f64().max(1e-3);
            let updates = (now.1.account_updates + now.1.events)
                .saturating_sub(last.1.account_updates + last.1.events);
            tracing::info!(
                "indexer: {} | slot {} lag {} | {:.1} updates/s | {} decode failures | {} db errors | {} reconnects",
                now.1.status,
                now.1.cursor_slot,
                now.1.slot_lag,
                updates as f64 / secs,
                now.1.decode_failures,
                now.1.db_errors,
                now.1.reconnects,
            );
            last = now;
        }
    }
}
