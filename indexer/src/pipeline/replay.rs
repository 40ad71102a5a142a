//! Replaying the quarantine: every pending set-aside change written again through a processor, once its
//! cause is fixed (`indexer replay-quarantine`). What a change is set aside as, and how it reads back, is
//! [`crate::quarantine`]; the replay lives here, beside the processor it drives, so the quarantine's encoding
//! never imports the pipeline.

use super::Processor;
use crate::config::Commitment;
use crate::quarantine::{change_of, wallet_before_of};
use index::Store;
use std::sync::Arc;

/// What a replay did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// Written into the index (marked replayed).
    pub written: u64,
    /// Refused again (their rows carry the new error).
    pub refused: u64,
    /// Rows whose bytes did not read back (left as they are; the errors name them).
    pub unreadable: Vec<String>,
}

/// Writes every pending quarantined change again, one at a time, through a processor (enriched and priced as
/// the stream's would be). A change the database still refuses stays quarantined with the new error. Safe
/// while an indexer runs: every write is idempotent and moves account state only forward.
pub async fn replay(store: &Store, commitment: Commitment) -> anyhow::Result<Replayed> {
    let metrics = Arc::new(ops::health::Metrics::default());
    let mut processor = Processor::new(store.clone(), metrics, commitment, usize::MAX).await?;
    let mut out = Replayed::default();
    for row in store.quarantined(false).await? {
        let change = match change_of(&row.entry) {
            Ok(c) => c,
            Err(e) => {
                out.unreadable
                    .push(format!("#{} {}: {e}", row.id, row.entry.ident));
                continue;
            }
        };
        if processor
            .replay(change, wallet_before_of(&row.entry))
            .await?
        {
            store.quarantine_replayed(row.id).await?;
            out.written += 1;
        } else {
            out.refused += 1;
        }
    }
    Ok(out)
}
