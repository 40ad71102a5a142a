//! PDA seeds.

use anchor_lang::prelude::*;

#[constant]
pub const POOL_SEED: &[u8] = b"pool";
#[constant]
pub const VAULT_SEED: &[u8] = b"vault";
#[constant]
pub const POSITION_SEED: &[u8] = b"position";

pub use curve::amm::{DEFAULT_SWAP_FEE_BPS, MAX_SWAP_FEE_BPS};
