//! The keeper: migrates pools whose curve some other client completed without appending `migrate` (the
//! API's own builds append it). Runs in `dev` with the dev wallet, and in `serve` when an operator keypair is
//! configured; `migrate` is permissionless, so the keeper only pays the fee and the rent.

use index::Store;
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use solana_keypair::Keypair;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How often the keeper looks for completed pools.
pub const INTERVAL: Duration = Duration::from_secs(2);

pub async fn run(
    store: Store,
    rpc: Arc<RpcClient>,
    operator: Keypair,
    mut shutdown: watch::Receiver<bool>,
) {
    tracing::info!("keeper: migrating completed pools as {}", operator.pubkey());
    loop {
        match store.completed_pools().await {
            Ok(pools) => {
                for c in pools {
                    let keys = LaunchKeys::new(
                        c.pool.creator,
                        c.pool.config,
                        c.pool.quote_mint,
                        c.pool.base_mint,
                    );
                    let ix = lix::migrate(&keys, &operator.pubkey(), &c.config.partner);
                    match crate::solana::send_and_confirm(&rpc, &[ix], &operator).await {
                        Ok(sig) => tracing::info!("keeper: migrated {} ({sig})", keys.mint),
                        // Another client may have migrated it first; the next pass sees it migrated.
                        Err(e) => tracing::warn!("keeper: migrating {}: {e:#}", keys.mint),
                    }
                }
            }
            Err(e) => tracing::warn!("keeper: reading the index: {e}"),
        }
        tokio::select! {
            _ = tokio::time::sleep(INTERVAL) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
    }
}
