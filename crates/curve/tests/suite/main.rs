//! The curve's math against its properties, an exact-rational reference and the AMM.
//!
//! One test binary for the crate's integration tests: each file below was its own binary, and every binary
//! compiled the shared helpers and linked the whole stack again (about a minute and 180 MB each).

mod common;

mod amm;
mod properties;
mod reference;
