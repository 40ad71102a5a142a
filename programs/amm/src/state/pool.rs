use crate::constants::POOL_SEED;
use anchor_lang::prelude::*;

/// A constant-product pool of one token pair (`["pool", creator, mint_a, mint_b]`, `mint_a < mint_b`).
///
/// Vaults reconcile exactly: vault a holds `reserve_a + fees_a_total - fees_a_claimed` (likewise b); the
/// difference between fees accrued to positions and fees paid is rounding dust that stays in the vault.
#[account]
#[derive(InitSpace, Debug, PartialEq, Eq)]
pub struct AmmPool {
    pub mint_a: Pubkey,
    pub mint_b: Pubkey,
    pub vault_a: Pubkey,
    pub vault_b: Pubkey,
    pub token_program_a: Pubkey,
    pub token_program_b: Pubkey,
    /// The signer that created the pool; part of its address.
    pub creator: Pubkey,
    pub fee_bps: u16,
    pub reserve_a: u64,
    pub reserve_b: u64,
    /// Liquidity shares of every position, locked included.
    pub liquidity: u128,
    /// The part of `liquidity` that is permanently locked.
    pub locked_liquidity: u128,
    /// Fees per unit of liquidity since creation, Q64.64, in token a and token b.
    pub fee_growth_a: u128,
    pub fee_growth_b: u128,
    pub fees_a_total: u64,
    pub fees_b_total: u64,
    pub fees_a_claimed: u64,
    pub fees_b_claimed: u64,
    pub created_at: i64,
    pub bump: u8,
}

impl AmmPool {
    /// The pool PDA's signer seeds, `["pool", creator, mint_a, mint_b, bump]`, with `bump` kept alive by the
    /// caller.
    pub fn signer_seeds<'a>(&'a self, bump: &'a [u8; 1]) -> [&'a [u8]; 5] {
        [
            POOL_SEED,
            self.creator.as_ref(),
            self.mint_a.as_ref(),
            self.mint_b.as_ref(),
            bump,
        ]
    }
}
