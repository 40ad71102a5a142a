//! Clients of outside aggregators' documented HTTP APIs (base URLs from config), one file each, sharing
//! the HTTP plumbing in `http`.

pub mod http;
pub mod jupiter;
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
