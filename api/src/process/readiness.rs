//! What `GET /readyz` answers, cheaply: the database's answer to one check, reused for
//! [`CHECK_EVERY`] whatever the request rate (concurrent probes wait for the one check in flight rather
//! than starting their own), and `shutting down` from the stop signal on, for `--shutdown-drain-secs`
//! while the listener still serves, so that a load balancer takes the replica out before it stops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest one database check is reused: at most one check per this long per process.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Why a replica is not ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotReady {
    /// The database did not answer (within [`crate::routes::health::DATABASE_TIMEOUT`]).
    Database,
    /// The process received its stop signal and is draining.
    ShuttingDown,
}

impl NotReady {
    /// The probe's `reason`.
    pub fn reason(self) -> &'static str {
        match self {
            NotReady::Database => "database unreachable",
            NotReady::ShuttingDown => "shutting down",
        }
    }
}

/// The process's readiness: its last database check and its draining flag.
#[derive(Debug, Default)]
pub struct Readiness {
    draining: AtomicBool,
    /// When the last check ran and whether the database answered.
    last: tokio::sync::Mutex<Option<(Instant, bool)>>,
    /// Database checks run (tests and the bench count them).
    checks: std::sync::atomic::AtomicU64,
}

impl Readiness {
    /// From now on the probe answers [`NotReady::ShuttingDown`].
    pub fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
        metrics::gauge!("api_ready").set(0.0);
    }

    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Database checks run so far.
    pub fn checks(&self) -> u64 {
        self.checks.load(Ordering::Relaxed)
    }

    /// Ready, or why not: `check` (the database's ping) runs only when the last one is older than
    /// [`CHECK_EVERY`]; callers arriving meanwhile wait for it and share its answer.
    pub async fn state<F, Fut>(&self, check: F) -> Result<(), NotReady>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        if self.draining() {
            return Err(NotReady::ShuttingDown);
        }
        let mut last = self.last.lock().await;
        let fresh = |at: &Instant| at.elapsed() < CHECK_EVERY;
        let ok = match *last {
            Some((at, ok)) if fresh(&at) => ok,
            _ => {
                self.checks.fetch_add(1, Ordering::Relaxed);
                let ok = check().await;
                *last = Some((Instant::now(), ok));
                if !self.draining() {
                    metrics::gauge!("api_ready").set(if ok { 1.0 } else { 0.0 });
                }
                ok
            }
        };
        drop(last);
        if self.draining() {
            Err(NotReady::ShuttingDown)
        } else if ok {
            Ok(())
        } else {
            Err(NotReady::Database)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn one_check_per_second_whatever_the_rate_and_draining_wins() {
        let r = Arc::new(Readiness::default());
        // 1,000 probes at once, each check slow: one check.
        let probes: Vec<_> = (0..1_000)
            .map(|_| {
                let r = r.clone();
                tokio::spawn(async move {
                    r.state(|| async {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        true
                    })
                    .await
                })
            })
            .collect();
        for p in probes {
            assert_eq!(p.await.unwrap(), Ok(()));
        }
        assert_eq!(r.checks(), 1);
        // A failing database is seen at the next check, not before.
        assert_eq!(r.state(|| async { false }).await, Ok(()));
        assert_eq!(r.checks(), 1);
        std::thread::sleep(CHECK_EVERY);
        assert_eq!(r.state(|| async { false }).await, Err(NotReady::Database));
        assert_eq!(r.checks(), 2);
        r.drain();
        assert_eq!(
            r.state(|| async { true }).await,
            Err(NotReady::ShuttingDown)
        );
        assert_eq!(r.checks(), 2, "a draining process checks nothing");
    }
}
