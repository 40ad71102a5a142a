//! The multi-chain aggregator: same-chain swaps on the EVM chains (KyberSwap, 0x), ERC-20 allowances, and
//! cross-chain swaps between any two supported chains, Solana included (LI.FI, Relay as its fallback), with
//! the EVM chains' JSON-RPC clients and the cross-chain transfers' state machine and store.
//!
//! Its whole surface is this file: [`router`] (mounted by the API's router, over any state an
//! [`Aggregator`] is taken from), [`Aggregator`] (its clients and what it reads: the index's store for the
//! transfers, the Solana RPC node, the service's clock), [`Config`] (its flags), and [`swap_quote`] /
//! [`swap_build`] with [`EvmBuild`] and [`verify_swap_record`], which the API's swap area
//! (`POST /swap/quote`, `/swap/build`, `/swap/record`) hands an EVM chain's requests over to. It speaks the shapes of `swap_core`
//! (chains, the EVM token catalog, swap requests and responses) and the HTTP plumbing of `web` (errors, extractors, schemas),
//! both below it and the API alike.
//!
//! ```text
//!  swap            EVM same-chain swaps: quote (KyberSwap, 0x) and build (checked, simulated)
//!  allowance       GET /swap/allowance
//!  cross_chain     POST /swap/cross-chain/quote, /build; GET /swap/cross-chain/status/{quoteId}
//!  transfers       the cross-chain transfer state machine (pure) and its store
//!  aggregators     the KyberSwap, 0x, LI.FI and Relay adapters and their HTTP plumbing
//!  evm             the EVM chains over JSON-RPC: ERC-20 reads, simulation
//!  config          the flags
//! ```

mod aggregators;
mod allowance;
mod config;
mod cross_chain;
mod evm;
mod swap;
mod transfers;

pub use config::Config;

use aggregators::http::Upstream;
use aggregators::{kyberswap::KyberSwap, lifi::Lifi, relay::Relay, zerox::ZeroX};
use axum::extract::FromRef;
use index::Store;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use utoipa_axum::router::OpenApiRouter;

pub use swap::{
    build as swap_build, quote as swap_quote, verify_record as verify_swap_record, EvmBuild,
};

/// The aggregator's part of the service's state: its clients, configured once, and what it reads. A clone
/// is one reference count.
#[derive(Clone)]
pub struct Aggregator(Arc<Inner>);

impl std::ops::Deref for Aggregator {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// What an [`Aggregator`] holds.
pub struct Inner {
    /// The EVM swap sources: KyberSwap (keyless) and 0x (with an API key), when configured.
    kyberswap: Option<KyberSwap>,
    zerox: Option<ZeroX>,
    /// The bridge aggregators: LI.FI, and Relay as its fallback.
    lifi: Option<Lifi>,
    relay: Option<Relay>,
    /// JSON-RPC clients of the EVM chains.
    evm: evm::EvmChains,
    config: Config,
    /// Platform fee on EVM swaps, basis points (taken only with a fee recipient).
    platform_fee_bps: u16,
    /// The index's store, where cross-chain quotes and transfers are kept.
    store: Store,
    /// The Solana RPC node cross-chain builds from Solana are made against.
    rpc: Arc<RpcClient>,
    /// Seconds added to the wall clock: the service's, shared (tests move time forward with it).
    clock_offset: Arc<AtomicI64>,
}

impl Aggregator {
    pub fn new(
        config: Config,
        platform_fee_bps: u16,
        store: Store,
        rpc: Arc<RpcClient>,
        clock_offset: Arc<AtomicI64>,
    ) -> Aggregator {
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
        let evm = evm::EvmChains::new(&config);
        Aggregator(Arc::new(Inner {
            kyberswap,
            zerox,
            lifi,
            relay,
            evm,
            config,
            platform_fee_bps,
            store,
            rpc,
            clock_offset,
        }))
    }

    /// Unix seconds now, on the service's clock.
    pub fn now(&self) -> i64 {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        wall + self.clock_offset.load(Ordering::Relaxed)
    }
}

/// The aggregator's routes, each with its OpenAPI path: `GET /swap/allowance` and the cross-chain area.
pub fn router<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Aggregator: FromRef<S>,
{
    OpenApiRouter::new()
        .merge(allowance::router())
        .merge(cross_chain::router())
}
