//! PDA seeds and program-level constants. Token and curve constants live in `crates/curve`.

use anchor_lang::prelude::*;

pub use curve::constants::{
    MIGRATION_SUPPLY_BASE_UNITS, SALE_SUPPLY_BASE_UNITS, TOKEN_DECIMALS, TOTAL_SUPPLY_BASE_UNITS,
};

/// The wrapped-SOL mint of the classic token program: the quote mint of every SOL config.
pub const NATIVE_MINT: Pubkey = pubkey!("So11111111111111111111111111111111111111112");

#[constant]
pub const GLOBAL_SEED: &[u8] = b"global";
#[constant]
pub const CONFIG_SEED: &[u8] = b"config";
#[constant]
pub const POOL_SEED: &[u8] = b"pool";
#[constant]
pub const MINT_SEED: &[u8] = b"mint";
#[constant]
pub const MINT_AUTHORITY_SEED: &[u8] = b"mint_authority";
#[constant]
pub const BASE_VAULT_SEED: &[u8] = b"base_vault";
#[constant]
pub const QUOTE_VAULT_SEED: &[u8] = b"quote_vault";
#[constant]
pub const FEE_SHARES_SEED: &[u8] = b"fee_shares";

/// Longest token name, in characters.
#[constant]
pub const MAX_NAME_CHARS: u32 = 32;
/// Longest token symbol, in characters (uppercase ASCII letters and digits).
#[constant]
pub const MAX_SYMBOL_CHARS: u32 = 10;
/// Longest metadata URI, in bytes.
#[constant]
pub const MAX_URI_BYTES: u32 = 200;
