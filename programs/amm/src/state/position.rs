use crate::errors::CurveResultExt;
use crate::state::AmmPool;
use anchor_lang::prelude::*;
use curve::amm::fees_earned;
use curve::SafeMath;

/// A wallet's liquidity in one pool (`["position", pool, owner, id]`).
#[account]
#[derive(InitSpace, Debug, PartialEq, Eq)]
pub struct Position {
    pub pool: Pubkey,
    pub owner: Pubkey,
    pub id: u64,
    /// Liquidity the owner may remove.
    pub liquidity: u128,
    /// Liquidity locked for good: it earns fees but can never be removed.
    pub locked_liquidity: u128,
    pub fee_growth_checkpoint_a: u128,
    pub fee_growth_checkpoint_b: u128,
    /// Fees accrued and not yet claimed.
    pub fees_owed_a: u64,
    pub fees_owed_b: u64,
    pub fees_claimed_a: u64,
    pub fees_claimed_b: u64,
    pub bump: u8,
}

impl Position {
    pub fn total_liquidity(&self) -> Result<u128> {
        self.liquidity.safe_add(self.locked_liquidity).or_amm()
    }

    /// Adds what the position earned since its checkpoint to `fees_owed_*` and moves the checkpoint to now.
    /// Must run before any change to the position's liquidity.
    pub fn accrue(&mut self, pool: &AmmPool) -> Result<()> {
        let l = self.total_liquidity()?;
        let a = fees_earned(pool.fee_growth_a, self.fee_growth_checkpoint_a, l).or_amm()?;
        let b = fees_earned(pool.fee_growth_b, self.fee_growth_checkpoint_b, l).or_amm()?;
        self.fees_owed_a = self.fees_owed_a.safe_add(a).or_amm()?;
        self.fees_owed_b = self.fees_owed_b.safe_add(b).or_amm()?;
        self.fee_growth_checkpoint_a = pool.fee_growth_a;
        self.fee_growth_checkpoint_b = pool.fee_growth_b;
        Ok(())
    }
}
