//! The `api` binary as an operator runs it: metrics, signals and drain, replicas, the keeper's process, traces.
//!
//! One test binary for the crate's integration tests: each file below was its own binary, and every binary
//! compiled the shared helpers and linked the whole stack again (about a minute and 180 MB each).

#[path = "../../../api/tests/common/mod.rs"]
mod common;

mod keeper;
mod metrics;
mod operator;
mod replicas;
mod traces;
