//! The indexer's health: counters the pipeline bumps, a log line per interval, a JSON snapshot for `/health`
//! (the indexer's own, and the API's when the indexer runs in its process), and their Prometheus series.

use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
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
    /// Transactions of both programs recovered from RPC history after a gap (their events written as
    /// streamed ones).
    pub recovered_transactions: AtomicU64,
    pub backfilled_accounts: AtomicU64,
    /// Slots the server reported dead (forks; none of their data was sent at confirmed or finalized).
    pub dead_slots: AtomicU64,
    /// The last slot whose updates are committed.
    pub cursor_slot: AtomicU64,
    /// The highest slot the stream has announced (any commitment).
    pub tip_slot: AtomicU64,
    pub connected: AtomicU64,
    /// Unix milliseconds of the last update the stream delivered (server pings included).
    pub last_update_ms: AtomicU64,
    /// Unix milliseconds of the last time the committed cursor moved forward.
    pub cursor_moved_ms: AtomicU64,
    /// The chain's slot as the RPC node last reported it (asked by the stream's idle watchdog).
    pub chain_slot: AtomicU64,
    /// How long the stream may stay silent before it counts as stalled (`--stream-idle-secs`), in ms.
    pub stall_after_ms: AtomicU64,
    /// The writer's lease: [`Role`] as a number.
    pub role: AtomicU64,
    /// Why the last connection or stream failed, until streaming resumes.
    pub last_error: std::sync::Mutex<Option<String>>,
}

/// Where an indexer stands with the writer's lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Not yet asked.
    Starting = 0,
    /// Holds the lease and writes.
    Active = 1,
    /// Another indexer holds it; this one takes over when it goes.
    Standby = 2,
    /// A SQLite database that already has its writer: this one stopped.
    Refused = 3,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Starting => "starting",
            Role::Active => "active",
            Role::Standby => "standby",
            Role::Refused => "refused",
        }
    }

    fn of(n: u64) -> Role {
        match n {
            1 => Role::Active,
            2 => Role::Standby,
            3 => Role::Refused,
            _ => Role::Starting,
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Snapshot {
    /// `ok`, `lagging`, `stalled`, `disconnected`, `standby` or `refused`.
    pub status: &'static str,
    /// The writer's lease: `active`, `standby`, `refused` (or `starting`).
    pub role: &'static str,
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
    pub recovered_transactions: u64,
    pub backfilled_accounts: u64,
    pub dead_slots: u64,
    /// Whether a load balancer should count this indexer as working: connected, and the stream delivered
    /// something within `--stream-idle-secs`.
    pub ready: bool,
    /// Milliseconds since the stream last delivered anything (`None` before it ever did).
    pub last_update_age_ms: Option<u64>,
    /// Milliseconds since the committed cursor last moved (`None` before it ever did).
    pub cursor_age_ms: Option<u64>,
    /// The chain's slot as the RPC node last reported it (read every 10 s; 0 until asked).
    pub chain_slot: u64,
    /// The chain's slot less the committed cursor: how far the index is behind the chain (`None` until both
    /// are known).
    pub chain_lag: Option<u64>,
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

    /// Keeps the last error for `/health` (and the API's), redacted: it is served to anyone who asks.
    pub fn set_last_error(&self, error: Option<String>) {
        let error = error.map(|e| crate::redact::redact(&e).into_owned());
        if let Ok(mut last) = self.last_error.lock() {
            *last = error;
        }
    }

    pub fn last_error(&self) -> Option<String> {
        self.last_error.lock().ok().and_then(|e| e.clone())
    }

    /// Unix milliseconds now.
    pub fn now_ms() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }

    pub fn set_role(&self, role: Role) {
        self.role.store(role as u64, Relaxed);
    }

    pub fn role(&self) -> Role {
        Role::of(self.role.load(Relaxed))
    }

    /// Notes that the stream delivered something.
    pub fn heard(&self) {
        self.last_update_ms.store(Self::now_ms(), Relaxed);
    }

    /// Raises the committed cursor, noting when it moved.
    pub fn cursor_to(&self, slot: u64) {
        if self.cursor_slot.fetch_max(slot, Relaxed) < slot {
            self.cursor_moved_ms.store(Self::now_ms(), Relaxed);
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        let now = Self::now_ms();
        let age = |at: &AtomicU64| match at.load(Relaxed) {
            0 => None,
            t => Some(now.saturating_sub(t)),
        };
        let cursor_slot = self.cursor_slot.load(Relaxed);
        let tip_slot = self.tip_slot.load(Relaxed);
        let connected = self.connected.load(Relaxed) == 1;
        let slot_lag = tip_slot.saturating_sub(cursor_slot);
        let last_update_age_ms = age(&self.last_update_ms);
        let stall_after = self.stall_after_ms.load(Relaxed);
        let stalled = stall_after > 0 && last_update_age_ms.is_none_or(|a| a > stall_after);
        let role = self.role();
        Snapshot {
            role: role.name(),
            ready: role == Role::Standby || (connected && !stalled),
            last_update_age_ms,
            cursor_age_ms: age(&self.cursor_moved_ms),
            chain_slot: self.chain_slot.load(Relaxed),
            chain_lag: match (self.chain_slot.load(Relaxed), cursor_slot) {
                (0, _) | (_, 0) => None,
                (chain, cursor) => Some(chain.saturating_sub(cursor)),
            },
            status: if role == Role::Standby || role == Role::Refused {
                role.name()
            } else if !connected {
                "disconnected"
            } else if stalled {
                "stalled"
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
            recovered_transactions: self.recovered_transactions.load(Relaxed),
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

impl Metrics {
    /// Copies the counters into the Prometheus recorder (at scrape time, so the pipeline keeps its plain
    /// atomics).
    pub fn export(&self) {
        let s = self.snapshot();
        metrics::gauge!("indexer_slot_lag").set(s.slot_lag as f64);
        metrics::gauge!("indexer_cursor_slot").set(s.cursor_slot as f64);
        metrics::gauge!("indexer_tip_slot").set(s.tip_slot as f64);
        metrics::gauge!("indexer_connected").set(if s.connected { 1.0 } else { 0.0 });
        metrics::gauge!("indexer_ready").set(if s.ready { 1.0 } else { 0.0 });
        metrics::gauge!("indexer_lease_active").set(if s.role == "active" { 1.0 } else { 0.0 });
        metrics::gauge!("indexer_chain_slot").set(s.chain_slot as f64);
        if let Some(lag) = s.chain_lag {
            metrics::gauge!("indexer_chain_lag_slots").set(lag as f64);
        }
        if let Some(ms) = s.cursor_age_ms {
            metrics::gauge!("indexer_cursor_age_seconds").set(ms as f64 / 1000.0);
        }
        if let Some(ms) = s.last_update_age_ms {
            metrics::gauge!("indexer_stream_idle_seconds").set(ms as f64 / 1000.0);
        }
        for (name, value) in [
            ("indexer_account_updates_total", s.account_updates),
            ("indexer_events_total", s.events),
            ("indexer_decode_failures_total", s.decode_failures),
            ("indexer_committed_batches_total", s.committed_batches),
            ("indexer_committed_changes_total", s.committed_changes),
            ("indexer_db_errors_total", s.db_errors),
            ("indexer_reconnects_total", s.reconnects),
            ("indexer_gaps_total", s.gaps),
            (
                "indexer_recovered_transactions_total",
                s.recovered_transactions,
            ),
            ("indexer_backfilled_accounts_total", s.backfilled_accounts),
            ("indexer_dead_slots_total", s.dead_slots),
        ] {
            metrics::counter!(name).absolute(value);
        }
    }
}

/// The indexer's own endpoints (`--health-addr`): `GET /health` (the snapshot as JSON), `GET /livez` (the
/// process answers), `GET /readyz` (200 while connected to its source and hearing from it, else 503) and
/// `GET /metrics`.
pub fn health_router(metrics: Arc<Metrics>) -> axum::Router {
    use axum::http::StatusCode;
    let health = metrics.clone();
    let ready = metrics.clone();
    axum::Router::new()
        .route(
            "/health",
            axum::routing::get(move || {
                let m = health.clone();
                async move { axum::Json(m.snapshot()) }
            }),
        )
        .route(
            "/livez",
            axum::routing::get(|| async { axum::Json(serde_json::json!({"status": "ok"})) }),
        )
        .route(
            "/readyz",
            axum::routing::get(move || {
                let m = ready.clone();
                async move {
                    let s = m.snapshot();
                    let code = if s.ready {
                        StatusCode::OK
                    } else {
                        StatusCode::SERVICE_UNAVAILABLE
                    };
                    let status = if s.ready { "ready" } else { s.status };
                    (code, axum::Json(serde_json::json!({"status": status})))
                }
            }),
        )
        .merge(crate::metrics::metrics_router(Some(metrics)))
}
