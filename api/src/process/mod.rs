//! The process around the router: its settings (flags or the environment) and what serving needs besides
//! the routes (listeners, the metrics endpoint, the RPC client). Signals, secrets and the log are the
//! `ops` crate's, shared with every binary.

pub mod config;
pub mod readiness;
pub mod route_keys;
pub mod serve;
