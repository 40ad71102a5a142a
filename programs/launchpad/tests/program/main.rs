//! The launchpad program run natively under solana-program-test, with the real SPL Token, Token-2022 and
//! Associated Token Account programs as BPF. One binary, one module per feature.

mod harness;

mod claims;
mod configs;
mod launch;
mod security;
mod shield;
mod swaps;
