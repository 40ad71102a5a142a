//! The pipeline: source (Yellowstone subscription) -> decode -> process -> store, in three stages:
//!
//! - [`source`]: the subscription request, the connection, one session of the stream and its watchdog
//! - [`processor`]: decode, enrich, price, batch (usable without a stream: the benchmark feeds it)
//! - [`run`]: the run loop: the writer's lease, retries, and the backfill and recovery a session starts with
//!
//! One task reads the stream and writes batches. The cursor (the last slot whose updates are all committed)
//! is written in the same transaction as the batch that completes it, so a restart, a dropped connection
//! or a database outage resumes from `from_slot = cursor` and loses nothing; the replayed overlap is
//! harmless because account writes only move forward and event writes are idempotent.

mod balances;
mod processor;
mod replay;
mod run;
mod source;

pub use processor::{Processor, SharedLease};
pub use replay::{replay, Replayed};
pub use run::{Indexer, LEASE_RETRY, YIELD_GRACE};
pub use source::{
    connect, connect_to, explain, open_source, probe, subscribe_request, CHAIN_SLOT_EVERY,
    PROBE_TIMEOUT, RETURN_EVERY,
};

use std::time::Instant;
use tokio::sync::watch;

/// Resolves once shutdown is asked for (the guard of the watched value is not kept across awaits).
async fn stopped(rx: &mut watch::Receiver<bool>) {
    if rx.wait_for(|s| *s).await.is_err() {
        std::future::pending::<()>().await;
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}
