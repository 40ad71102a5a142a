//! The keeper: migrates pools whose curve some other client completed without appending `migrate` (the
//! API's own builds append it). Runs as a process of its own (`api keeper`, with the operator's keypair
//! and nothing internet-facing), and in `dev` with the dev wallet; `migrate` is permissionless, so the keeper
//! only pays the fee and the rent.
//!
//! One keeper is active per index however many copies run: it holds the keeper's lease
//! ([`index::store::lease`]); the others wait and take over when it goes. The active one checks that it still
//! holds the lease right before each send, so a keeper that lost its session never sends beside the next one
//! (and a `migrate` sent twice fails its preflight simulation, which costs nothing). Its transactions are
//! budgeted as users' builds are (the compute-unit limit from a simulation, the priority fee from the recent
//! fees of the accounts it writes), and completed pools are migrated a few at a time.
//!
//! [`router`] is the keeper process's own port: `/livez`, `/readyz` (the keeper reached the database in its
//! last rounds, active or standby) and `/metrics`.

use crate::solana::FeePolicy;
use futures::StreamExt;
use index::store::lease::{Lease, LeaseKind};
use index::Store;
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use solana_keypair::Keypair;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How often the keeper looks for completed pools (and a standby for the lease).
pub const INTERVAL: Duration = Duration::from_secs(2);

/// Most migrations in flight at once.
pub const CONCURRENCY: usize = 4;

/// `/readyz` answers 503 when the keeper has not reached the database for this long (a round takes the
/// lease or checks it every [`INTERVAL`]; a check waits up to [`index::store::lease::CHECK_WITHIN`]).
pub const READY_WITHIN: Duration = Duration::from_secs(15);

/// What the keeper's loop reports to its probes.
#[derive(Debug, Default)]
pub struct Status {
    /// Holds the lease.
    active: AtomicBool,
    /// When a round last reached the database (ms since the epoch; 0: never).
    reached_ms: AtomicU64,
    /// Stopping: the probe answers 503.
    stopping: AtomicBool,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Status {
    pub fn active(&self) -> bool {
        self.active.load(Ordering::Relaxed)
    }

    fn set_active(&self, active: bool) {
        self.active.store(active, Ordering::Relaxed);
        metrics::gauge!("keeper_active").set(if active { 1.0 } else { 0.0 });
    }

    fn reached(&self) {
        self.reached_ms.store(now_ms(), Ordering::Relaxed);
    }

    /// Ready, or why not: the loop reached the database within [`READY_WITHIN`] and is not stopping.
    pub fn ready(&self) -> Result<(), &'static str> {
        if self.stopping.load(Ordering::Relaxed) {
            return Err("shutting down");
        }
        let reached = self.reached_ms.load(Ordering::Relaxed);
        if reached == 0 || now_ms().saturating_sub(reached) > READY_WITHIN.as_millis() as u64 {
            return Err("database unreachable");
        }
        Ok(())
    }
}

/// The keeper process's port: `GET /livez`, `GET /readyz` (`{"status":"ready","active":bool}` or 503 with
/// the reason) and `GET /metrics`.
pub fn router(status: Arc<Status>) -> axum::Router {
    use axum::http::StatusCode;
    axum::Router::new()
        .route(
            "/livez",
            axum::routing::get(|| async { axum::Json(serde_json::json!({"status": "ok"})) }),
        )
        .route(
            "/readyz",
            axum::routing::get(move || {
                let status = status.clone();
                async move {
                    match status.ready() {
                        Ok(()) => (
                            StatusCode::OK,
                            axum::Json(
                                serde_json::json!({"status": "ready", "active": status.active()}),
                            ),
                        ),
                        Err(reason) => (
                            StatusCode::SERVICE_UNAVAILABLE,
                            axum::Json(serde_json::json!({"status": reason})),
                        ),
                    }
                }
            }),
        )
        .merge(ops::metrics::metrics_router(None))
}

pub async fn run(
    store: Store,
    rpc: Arc<RpcClient>,
    operator: Keypair,
    policy: FeePolicy,
    shutdown: watch::Receiver<bool>,
) {
    run_reporting(
        store,
        rpc,
        operator,
        policy,
        shutdown,
        Arc::new(Status::default()),
    )
    .await
}

/// [`run`], reporting to `status` (the keeper process's probes).
pub async fn run_reporting(
    store: Store,
    rpc: Arc<RpcClient>,
    operator: Keypair,
    policy: FeePolicy,
    mut shutdown: watch::Receiver<bool>,
    status: Arc<Status>,
) {
    let operator = Arc::new(operator);
    let mut lease: Option<Lease> = None;
    let mut waiting = false;
    status.set_active(false);
    loop {
        // Hold the lease (or wait for it) before each pass.
        if let Some(held) = lease.as_mut() {
            if held.check().await {
                status.reached();
            } else {
                tracing::warn!("keeper: lost its lease; waiting to take it again");
                lease = None;
            }
        }
        if lease.is_none() {
            match store.try_lease(LeaseKind::Keeper).await {
                Ok(Some(l)) => {
                    tracing::info!("keeper: migrating completed pools as {}", operator.pubkey());
                    lease = Some(l);
                    waiting = false;
                    status.reached();
                }
                Ok(None) => {
                    if !waiting {
                        tracing::info!("keeper: standby: another keeper is active on this index");
                    }
                    waiting = true;
                    status.reached();
                }
                Err(e) => tracing::warn!("keeper: taking its lease: {e}"),
            }
            status.set_active(lease.is_some());
        }
        if let Some(held) = lease.as_mut() {
            pass(&store, &rpc, &operator, policy, held).await;
            if held.is_lost() {
                tracing::warn!("keeper: lost its lease during a round; waiting to take it again");
                lease = None;
                status.set_active(false);
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(INTERVAL) => {}
            _ = shutdown.wait_for(|s| *s) => break,
        }
    }
    status.stopping.store(true, Ordering::Relaxed);
    if let Some(held) = lease {
        // A standby takes over at its next round rather than when the session times out.
        held.release().await;
    }
    status.set_active(false);
}

/// One pass: every completed pool the index knows, migrated [`CONCURRENCY`] at a time, each sent only
/// while `lease` still holds.
async fn pass(
    store: &Store,
    rpc: &Arc<RpcClient>,
    operator: &Arc<Keypair>,
    policy: FeePolicy,
    lease: &mut Lease,
) {
    match rpc.get_balance(&operator.pubkey()).await {
        Ok(lamports) => metrics::gauge!("keeper_balance_lamports").set(lamports as f64),
        Err(e) => tracing::debug!("keeper: getBalance: {e}"),
    }
    let pools = match store.completed_pools().await {
        Ok(pools) => pools,
        Err(e) => {
            tracing::warn!("keeper: reading the index: {e}");
            return;
        }
    };
    let lease = tokio::sync::Mutex::new(lease);
    let lease = &lease;
    futures::stream::iter(pools)
        .for_each_concurrent(CONCURRENCY, |c| async move {
            let keys = LaunchKeys::new(
                c.pool.creator,
                c.pool.config,
                c.pool.quote_mint,
                c.pool.base_mint,
            );
            // Never sent by a keeper that may have lost its lease to another.
            if !lease.lock().await.check().await {
                return;
            }
            let ix = lix::migrate(&keys, &operator.pubkey());
            match migrate(rpc, operator, ix, policy).await {
                Ok(sig) => {
                    metrics::counter!("keeper_migrations_total", "outcome" => "done").increment(1);
                    tracing::info!("keeper: migrated {} ({sig})", keys.mint);
                }
                // Another client may have migrated it first; the next pass sees it migrated.
                Err(e) => {
                    metrics::counter!("keeper_migrations_total", "outcome" => "failed")
                        .increment(1);
                    tracing::warn!("keeper: migrating {}: {e:#}", keys.mint);
                }
            }
        })
        .await;
}
/// Builds `ix` as a user's build is (simulated compute-unit limit, priority fee), signs it with the
/// operator's key and waits for its confirmation.
async fn migrate(
    rpc: &RpcClient,
    operator: &Keypair,
    ix: anchor_lang::solana_program::instruction::Instruction,
    policy: FeePolicy,
) -> anyhow::Result<solana_signature::Signature> {
    use base64::Engine as _;
    let built = crate::solana::unsigned_transaction(rpc, &operator.pubkey(), &[ix], policy)
        .await
        .map_err(|e| anyhow::anyhow!("{}: {}", e.code, e.message))?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(&built.transaction)?;
    let unsigned: solana_transaction::versioned::VersionedTransaction =
        bincode::deserialize(&bytes)?;
    let signed = solana_transaction::versioned::VersionedTransaction::try_new(
        unsigned.message,
        &[operator],
    )?;
    Ok(rpc.send_and_confirm_transaction(&signed).await?)
}
