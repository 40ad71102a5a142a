//! Events (`emit_cpi!`), each with the post-state an indexer needs. Fields are append-only.

use anchor_lang::prelude::*;

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtCreatePool {
    pub pool: Pubkey,
    pub mint_a: Pubkey,
    pub mint_b: Pubkey,
    pub vault_a: Pubkey,
    pub vault_b: Pubkey,
    pub fee_bps: u16,
    pub creator: Pubkey,
    pub timestamp: i64,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtCreatePosition {
    pub pool: Pubkey,
    pub position: Pubkey,
    pub owner: Pubkey,
    pub id: u64,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtAddLiquidity {
    pub pool: Pubkey,
    pub position: Pubkey,
    pub owner: Pubkey,
    pub depositor: Pubkey,
    pub liquidity: u128,
    pub amount_a: u64,
    pub amount_b: u64,
    pub locked: bool,
    pub reserve_a: u64,
    pub reserve_b: u64,
    pub pool_liquidity: u128,
    pub pool_locked_liquidity: u128,
    pub position_liquidity: u128,
    pub position_locked_liquidity: u128,
    pub timestamp: i64,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtRemoveLiquidity {
    pub pool: Pubkey,
    pub position: Pubkey,
    pub owner: Pubkey,
    pub liquidity: u128,
    pub amount_a: u64,
    pub amount_b: u64,
    pub reserve_a: u64,
    pub reserve_b: u64,
    pub pool_liquidity: u128,
    pub position_liquidity: u128,
    pub timestamp: i64,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtLockPosition {
    pub pool: Pubkey,
    pub position: Pubkey,
    pub owner: Pubkey,
    pub liquidity: u128,
    pub position_liquidity: u128,
    pub position_locked_liquidity: u128,
    pub pool_locked_liquidity: u128,
    pub timestamp: i64,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtSwap {
    pub pool: Pubkey,
    pub trader: Pubkey,
    /// true: token a in, token b out.
    pub a_to_b: bool,
    pub amount_in: u64,
    pub amount_out: u64,
    /// In the input token.
    pub fee: u64,
    pub reserve_a: u64,
    pub reserve_b: u64,
    pub fee_growth_a: u128,
    pub fee_growth_b: u128,
    pub timestamp: i64,
    /// `swap_exact_out` rather than `swap`.
    pub exact_out: bool,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtClaimPositionFee {
    pub pool: Pubkey,
    pub position: Pubkey,
    pub owner: Pubkey,
    pub amount_a: u64,
    pub amount_b: u64,
    pub timestamp: i64,
}
