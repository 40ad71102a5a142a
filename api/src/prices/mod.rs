//! What things cost beyond the launchpad's own pools: USD rates of the quote assets (from the oracle the
//! indexer follows) and Jupiter's routes for the rest of Solana.

pub mod jupiter;
pub mod usd;
