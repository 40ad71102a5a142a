//! Chain access beyond one request's transaction (built, simulated and relayed by `swap_core::solana`):
//! the chain's clock fees are charged by, the relay's confirmation watcher, the keeper that migrates
//! completed curves, a launch's deploy transaction read back, and the metadata worker that reads what a
//! launch built elsewhere points to (`offchain`).

pub mod clock;
pub mod confirmations;
pub mod deploy;
pub mod keeper;
pub mod offchain;
