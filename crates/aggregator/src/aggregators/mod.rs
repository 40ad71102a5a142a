//! Clients of the EVM and cross-chain aggregators' documented HTTP APIs (base URLs from config), one file
//! each, sharing the HTTP plumbing in `http`. (Jupiter, the Solana aggregator, is the API's `jupiter`.)

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

/// How an aggregator that numbers chains (LI.FI, Relay) names `chain`: an EVM chain by its chain id, Solana by
/// the aggregator's own number `solana`.
pub(crate) fn numbered_chain_id(chain: &swap_core::chains::ChainInfo, solana: u64) -> u64 {
    match chain.kind {
        swap_core::chains::ChainKind::Evm => chain.chain_id.unwrap_or_default(),
        swap_core::chains::ChainKind::Solana => solana,
    }
}

/// The chain such an aggregator names by `id`.
pub(crate) fn numbered_chain(
    id: u64,
    solana: u64,
) -> Option<&'static swap_core::chains::ChainInfo> {
    swap_core::chains::CHAINS
        .iter()
        .find(|c| numbered_chain_id(c, solana) == id)
}
