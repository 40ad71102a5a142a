//! The relay's one confirmation watcher per process: every signature the relay waits on is asked about in
//! the same `getSignatureStatuses` call (up to 256 a call, the RPC method's limit) once per tick, so a relayed
//! transaction costs its share of one call per tick, not a call per tick of its own, however many wait and
//! however long. Started by the first relay; ends with the process.

use solana_commitment_config::CommitmentConfig;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signature::Signature;
use solana_transaction::TransactionError;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// How often the pending signatures are asked about.
pub const TICK: Duration = Duration::from_millis(200);

/// Most signatures one `getSignatureStatuses` call takes.
const PER_CALL: usize = 256;

/// Where a relayed transaction stands when the wait ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Confirmed (or finalized) in `slot`.
    Confirmed { slot: u64 },
    /// Landed and failed.
    Failed(TransactionError),
    /// Not confirmed within the wait (still pending, or dropped: the caller re-builds if the blockhash
    /// expired).
    Pending,
}

struct Watch {
    signature: Signature,
    deadline: Instant,
    reply: oneshot::Sender<Outcome>,
}

/// The handle the relay waits through.
pub struct Confirmations {
    tx: mpsc::UnboundedSender<Watch>,
}

impl Confirmations {
    /// Starts the watcher on `rpc` (a tokio runtime must be running).
    pub fn start(rpc: Arc<RpcClient>) -> Confirmations {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(watch(rpc, rx));
        Confirmations { tx }
    }

    /// Waits until `signature` is confirmed or failed, or `within` has passed.
    pub async fn wait(&self, signature: Signature, within: Duration) -> Outcome {
        let (reply, outcome) = oneshot::channel();
        let watch = Watch {
            signature,
            deadline: Instant::now() + within,
            reply,
        };
        if self.tx.send(watch).is_err() {
            return Outcome::Pending;
        }
        outcome.await.unwrap_or(Outcome::Pending)
    }
}

/// The watcher's loop: the waits, by signature (one signature may be waited on by several requests).
async fn watch(rpc: Arc<RpcClient>, mut rx: mpsc::UnboundedReceiver<Watch>) {
    let mut pending: HashMap<Signature, Vec<Watch>> = HashMap::new();
    loop {
        if pending.is_empty() {
            // Nothing to ask about: sleep until a relay waits.
            match rx.recv().await {
                Some(w) => pending.entry(w.signature).or_default().push(w),
                None => return,
            }
        }
        while let Ok(w) = rx.try_recv() {
            pending.entry(w.signature).or_default().push(w);
        }
        let signatures: Vec<Signature> = pending.keys().copied().collect();
        for chunk in signatures.chunks(PER_CALL) {
            let statuses = match rpc.get_signature_statuses(chunk).await {
                Ok(r) => r.value,
                Err(e) => {
                    tracing::debug!(
                        "confirmations: getSignatureStatuses: {}",
                        crate::redact::redact(&e.to_string())
                    );
                    continue;
                }
            };
            for (signature, status) in chunk.iter().zip(statuses) {
                let Some(status) = status else { continue };
                let outcome = match status.err {
                    Some(err) => Outcome::Failed(err),
                    None if status.satisfies_commitment(CommitmentConfig::confirmed()) => {
                        Outcome::Confirmed { slot: status.slot }
                    }
                    None => continue,
                };
                for w in pending.remove(signature).unwrap_or_default() {
                    let _ = w.reply.send(outcome.clone());
                }
            }
        }
        // Waits past their time answer `Pending`; waits whose request is gone are forgotten.
        let now = Instant::now();
        pending.retain(|_, waits| {
            let mut kept = Vec::with_capacity(waits.len());
            for w in waits.drain(..) {
                if w.reply.is_closed() {
                    continue;
                }
                if w.deadline <= now {
                    let _ = w.reply.send(Outcome::Pending);
                } else {
                    kept.push(w);
                }
            }
            *waits = kept;
            !waits.is_empty()
        });
        tokio::time::sleep(TICK).await;
    }
}
