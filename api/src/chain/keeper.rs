//! The keeper: migrates pools whose curve some other client completed without appending `migrate` (the
//! API's own builds append it). Runs in `dev` with the dev wallet, and in `serve` when an operator keypair is
//! configured; `migrate` is permissionless, so the keeper only pays the fee and the rent.
//!
//! One keeper is active per index however many replicas are given a keypair: it holds the keeper's lease
//! ([`index::store::lease`]); the others wait and take over when it goes. Its transactions are budgeted as
//! users' builds are (the compute-unit limit from a simulation, the priority fee from the recent fees of the
//! accounts it writes), and completed pools are migrated a few at a time.

use crate::solana::FeePolicy;
use futures::StreamExt;
use index::store::lease::LeaseKind;
use index::Store;
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use solana_keypair::Keypair;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How often the keeper looks for completed pools (and a standby for the lease).
pub const INTERVAL: Duration = Duration::from_secs(2);

/// Most migrations in flight at once.
pub const CONCURRENCY: usize = 4;

pub async fn run(
    store: Store,
    rpc: Arc<RpcClient>,
    operator: Keypair,
    policy: FeePolicy,
    mut shutdown: watch::Receiver<bool>,
) {
    let operator = Arc::new(operator);
    let mut lease = None;
    let mut waiting = false;
    loop {
        // Hold the lease (or wait for it) before each pass.
        if let Some(held) = lease.as_mut() {
            if !index::store::lease::Lease::check(held).await {
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
                }
                Ok(None) => {
                    if !waiting {
                        tracing::info!("keeper: standby: another keeper is active on this index");
                    }
                    waiting = true;
                }
                Err(e) => tracing::warn!("keeper: taking its lease: {e}"),
            }
            metrics::gauge!("keeper_active").set(if lease.is_some() { 1.0 } else { 0.0 });
        }
        if lease.is_some() {
            pass(&store, &rpc, &operator, policy).await;
        }
        tokio::select! {
            _ = tokio::time::sleep(INTERVAL) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
    }
}

/// One pass: every completed pool the index knows, migrated [`CONCURRENCY`] at a time.
async fn pass(store: &Store, rpc: &Arc<RpcClient>, operator: &Arc<Keypair>, policy: FeePolicy) {
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
    futures::stream::iter(pools)
        .for_each_concurrent(CONCURRENCY, |c| async move {
            let keys = LaunchKeys::new(
                c.pool.creator,
                c.pool.config,
                c.pool.quote_mint,
                c.pool.base_mint,
            );
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
