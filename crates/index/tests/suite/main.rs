//! The index store's integration tests on PostgreSQL and SQLite.
//!
//! One test binary for the crate's integration tests: each file below was its own binary, and every binary
//! compiled the shared helpers and linked the whole stack again (about a minute and 180 MB each).

mod options;
mod partitions;
mod retention;
mod schema;
mod storage;
