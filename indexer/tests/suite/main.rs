//! The indexer's integration tests: its command line, pipeline, failover and quarantine.
//!
//! One test binary for the crate's integration tests: each file below was its own binary, and every binary
//! compiled the shared helpers and linked the whole stack again (about a minute and 180 MB each).

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod failover;
mod indexer;
mod processor;
mod quarantine;
mod traces;
mod volume_window;
