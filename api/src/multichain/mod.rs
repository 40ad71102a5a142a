//! The multi-chain aggregator: same-chain swaps on the EVM chains (KyberSwap, 0x), ERC-20 allowances, and
//! cross-chain swaps between any two supported chains, Solana included (LI.FI, Relay as its fallback), with
//! the EVM chains' JSON-RPC clients and the cross-chain transfers' state machine and store.
//!
//! Its whole surface is this file: [`router`] (mounted by the service's router), [`Multichain`] (its part
//! of the service's state), [`swap_quote`] / [`swap_build`] with [`EvmBuild`], which the swap area
//! (`POST /swap/quote`, `POST /swap/build`) hands an EVM chain's requests over to, and [`catalog`], the EVM
//! chains' token catalog, which `GET /swap/tokens` lists and the swap request's schema names. Its modules
//! are private: nothing outside the tree names them (`dev/tests/layout.rs` checks it too). The tree uses
//! the crate's shared pieces (state, errors, extractors, schemas, the chain registry, the swap area's
//! shapes).
//!
//! ```text
//!  swap            EVM same-chain swaps: quote (KyberSwap, 0x) and build (checked, simulated)
//!  allowance       GET /swap/allowance
//!  cross_chain     POST /swap/cross-chain/quote, /build; GET /swap/cross-chain/status/{quoteId}
//!  transfers       the cross-chain transfer state machine (pure) and its store
//!  aggregators     the KyberSwap, 0x, LI.FI and Relay adapters and their HTTP plumbing
//!  evm             the EVM chains over JSON-RPC: ERC-20 reads, simulation
//!  tokens          the EVM chains' token catalog
//! ```

mod aggregators;
mod allowance;
mod cross_chain;
mod evm;
mod swap;
mod tokens;
mod transfers;

use crate::config::ApiConfig;
use crate::AppState;
use aggregators::http::Upstream;
use aggregators::{kyberswap::KyberSwap, lifi::Lifi, relay::Relay, zerox::ZeroX};
use utoipa_axum::router::OpenApiRouter;

pub use swap::{
    build as swap_build, quote as swap_quote, verify_record as verify_swap_record, EvmBuild,
};

/// One token of the catalog: `(chainKey, address, symbol, name, decimals)`, the address in EIP-55 form.
pub type CatalogToken = (&'static str, &'static str, &'static str, &'static str, u8);

/// The token catalog of the EVM chain `chain_key`, its native token aside (none for other chains).
pub fn catalog(chain_key: &str) -> impl Iterator<Item = &'static CatalogToken> + '_ {
    tokens::EVM_TOKENS.iter().filter(move |t| t.0 == chain_key)
}

/// The aggregator's clients, configured once for the service ([`crate::Shared::multichain`]).
pub struct Multichain {
    /// The EVM swap sources: KyberSwap (keyless) and 0x (with an API key), when configured.
    kyberswap: Option<KyberSwap>,
    zerox: Option<ZeroX>,
    /// The bridge aggregators: LI.FI, and Relay as its fallback.
    lifi: Option<Lifi>,
    relay: Option<Relay>,
    /// JSON-RPC clients of the EVM chains.
    evm: evm::EvmChains,
}

impl Multichain {
    pub fn new(config: &ApiConfig) -> Multichain {
        let kyberswap = Upstream::enabled(&config.kyberswap_base_url)
            .then(|| KyberSwap::new(&config.kyberswap_base_url, &config.kyberswap_client_id));
        let zerox = match (
            &config.zerox_api_key,
            Upstream::enabled(&config.zerox_base_url),
        ) {
            (Some(key), true) if !key.is_empty() => Some(ZeroX::new(&config.zerox_base_url, key)),
            _ => None,
        };
        let lifi = Upstream::enabled(&config.lifi_base_url)
            .then(|| Lifi::new(&config.lifi_base_url, &config.lifi_integrator));
        let relay =
            Upstream::enabled(&config.relay_base_url).then(|| Relay::new(&config.relay_base_url));
        Multichain {
            kyberswap,
            zerox,
            lifi,
            relay,
            evm: evm::EvmChains::new(config),
        }
    }
}

/// The aggregator's routes, each with its OpenAPI path: `GET /swap/allowance` and the cross-chain area.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(allowance::router())
        .merge(cross_chain::router())
}
