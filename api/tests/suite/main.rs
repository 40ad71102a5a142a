//! The API's integration tests over HTTP against a running stack (localnet, indexer, API).
//!
//! One test binary for these files (the browser journeys and `evm` are the other two): each was its own binary
//! that compiled the shared helpers and linked the whole stack again (about a minute and 180 MB each).

#[path = "../common/mod.rs"]
mod common;

mod community;
mod feed;
mod feed_roles;
mod fees;
mod hardening;
mod holders;
mod jupiter;
mod launchpad;
mod listing;
mod market;
mod offchain;
mod openapi;
mod pnl;
mod prepare_bounds;
mod proxy;
mod swap;
