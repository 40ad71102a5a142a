//! EVM swaps and cross-chain transfers end to end: a real local EVM node (ganache) with an ERC-20 and a
//! router compiled by solc-js at test time, the API over HTTP, and local servers answering in
//! KyberSwap's, 0x's, LI.FI's and Relay's documented shapes.

#[path = "../common/mod.rs"]
mod common;
mod cross_chain;
mod harness;
mod metrics;
mod mocks;
mod swaps;
