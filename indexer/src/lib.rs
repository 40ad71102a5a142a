//! The launchpad indexer: a Yellowstone gRPC subscription to both programs, decoded by Anchor
//! discriminator, written to PostgreSQL or SQLite. Resumable from a persisted cursor, with a gap
//! the server cannot replay recovered from RPC history.
//!
//! - [`pipeline`]: source (subscription, reconnects, backfill) and process (batches, cursor)
//! - [`decode`]: accounts and `emit_cpi!` events from updates
//! - the database it writes is the `index` crate (`crates/index`): batches go to [`index::Store::apply`]
//! - [`recover`]: a gap's events from the RPC node's transaction history
//! - [`rpc`]: several JSON-RPC endpoints behind one client, with failover and return to the first
//! - [`backfill`], [`config`]; its health counters ([`Metrics`]) and the process plumbing are the `ops` crate

pub mod backfill;
pub mod config;
pub mod decode;
pub mod pipeline;
pub mod quarantine;
pub mod recover;
pub mod rpc;

pub use config::{Commitment, IndexerConfig};
pub use ops::health::{Metrics, Snapshot};
pub use pipeline::{Indexer, Processor};
