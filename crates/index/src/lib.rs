//! The launchpad's database, one crate for both of its users: the indexer writes through it, the API reads
//! through it (and keeps its own few tables here too). PostgreSQL in production, SQLite for development,
//! through sqlx's `Any` driver with migrations under `migrations/` at the workspace root. Statements are
//! written once for both databases ([`store::sql`]).
//!
//! - [`model`]: what the indexer decodes and the store writes (accounts, events, launches, fork bookkeeping)
//! - [`feed`]: what a live-feed event says, as data (the API renders it)
//! - [`market`]: the trade series across curve and AMM, and its candles
//! - [`store`]: the connection, migrations and the write side (batches, rollups, holders, the feed table)
//! - [`pnl`]: a wallet's profit and loss in a token from its trades (average cost, exact)
//! - [`read`]: the queries the API serves (launches, curves, trades, candles, holders, wallets, the feed)

pub mod feed;
pub mod market;
pub mod model;
pub mod pnl;
pub mod read;
pub mod store;
pub mod usd;

pub use store::{Backend, Store};

/// The query builder the store writes its dynamic statements with (tests and benchmarks build theirs with
/// it too), rendered for either database by [`store::sql::query`].
pub use sea_query;
