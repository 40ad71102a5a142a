//! The launchpad indexer: a Yellowstone gRPC subscription to both programs, decoded by Anchor
//! discriminator, written to PostgreSQL or SQLite. Resumable from a persisted cursor, with a gap
//! the server cannot replay recovered from RPC history, and the read side the HTTP API uses.
//!
//! - [`pipeline`]: source (subscription, reconnects, backfill) and process (batches, cursor)
//! - [`decode`]: accounts and `emit_cpi!` events from updates
//! - [`market`]: the trade series across curve and AMM, and its candles
//! - [`store`]: the database, migrations under `migrations/`
//! - [`read`]: queries for the API
//! - [`recover`]: a gap's events from the RPC node's transaction history
//! - [`backfill`], [`metrics`], [`config`], [`signal`]

pub mod backfill;
pub mod config;
pub mod decode;
pub mod market;
pub mod metrics;
pub mod model;
pub mod pipeline;
pub mod read;
pub mod recover;
pub mod signal;
pub mod store;

pub use config::{Commitment, IndexerConfig};
pub use metrics::{Metrics, Snapshot};
pub use pipeline::{Indexer, Processor};
pub use store::{Backend, Store};
