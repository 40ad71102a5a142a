//! `launchpad-admin` as an operator runs it.
//!
//! One test binary for the crate's integration tests: each file below was its own binary, and every binary
//! compiled the shared helpers and linked the whole stack again (about a minute and 180 MB each).

mod localnet;
mod moderation;
