//! Clients of the EVM and cross-chain aggregators' documented HTTP APIs (base URLs from config), one file
//! each, sharing the HTTP plumbing in `http`. (Jupiter, the Solana aggregator, is `crate::jupiter`.)

pub mod http;
pub mod kyberswap;
pub mod lifi;
pub mod relay;
pub mod zerox;

/// The platform fee an EVM aggregator charges out of the output for us, and who receives it.
#[derive(Debug, Clone, Copy)]
pub struct PlatformFee<'a> {
    pub bps: u16,
    pub recipient: &'a str,
}
