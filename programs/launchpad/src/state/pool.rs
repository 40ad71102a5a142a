use crate::constants::POOL_SEED;
use anchor_lang::prelude::*;
use curve::PoolState;

/// Where a pool is in its life.
#[derive(AnchorSerialize, AnchorDeserialize, Clone, Copy, PartialEq, Eq, InitSpace, Debug)]
pub enum PoolStatus {
    /// The curve trades.
    Bonding,
    /// The curve reached its threshold; it trades no more and waits for migration.
    Complete,
    /// Liquidity moved to the AMM.
    Migrated,
}

/// One launched token's bonding-curve pool (`["pool", mint]`).
///
/// Vault balances reconcile exactly: the base vault holds `base_reserve`, the quote vault holds
/// `quote_reserve + creator_fee_unclaimed + partner_fee_unclaimed + creator_surplus_unclaimed +
/// partner_surplus_unclaimed`, plus, when the fees are shared, every recipient's unclaimed quote (and the base
/// vault every recipient's unclaimed tokens). After migration both reserves are zero (they moved to the AMM).
#[account]
#[derive(InitSpace, Debug, PartialEq, Eq)]
pub struct Pool {
    pub config: Pubkey,
    pub creator: Pubkey,
    pub base_mint: Pubkey,
    pub quote_mint: Pubkey,
    pub base_vault: Pubkey,
    pub quote_vault: Pubkey,
    pub status: PoolStatus,
    /// Q64.64 square-root price.
    pub sqrt_price: u128,
    /// Tokens held: unsold sale supply plus the migration supply.
    pub base_reserve: u64,
    /// Quote raised so far, net of fees.
    pub quote_reserve: u64,
    pub creator_fee_unclaimed: u64,
    pub partner_fee_unclaimed: u64,
    pub creator_fee_claimed: u64,
    pub partner_fee_claimed: u64,
    pub launch_timestamp: i64,
    /// When the curve completed (0 until then).
    pub complete_timestamp: i64,
    /// The salt the mint address was derived with.
    pub salt: u64,
    pub bump: u8,
    /// The AMM pool the liquidity migrated into (default until migrated).
    pub amm_pool: Pubkey,
    /// When the pool migrated (0 until then).
    pub migrate_timestamp: i64,
    /// Tokens and quote deposited into the AMM.
    pub migrated_base: u64,
    pub migrated_quote: u64,
    /// Tokens burnt at migration (what the AMM could not take at the curve's final price).
    pub burnt_base: u64,
    /// Raised quote the AMM did not take at the final curve price, per party, until claimed.
    pub creator_surplus_unclaimed: u64,
    pub partner_surplus_unclaimed: u64,
    pub creator_surplus_claimed: bool,
    pub partner_surplus_claimed: bool,
    /// The wallet the creator proposed to hand the creator role to (default: none). It becomes the creator
    /// when it accepts (`accept_creator`).
    pub pending_creator: Pubkey,
    /// The creator role shared this pool's creator fees (`set_fee_shares`): trading fees and the locked
    /// creator position's fees go to the recipients of its `FeeShares` account, not to the creator role.
    pub fee_shared: bool,
}

impl Pool {
    /// The pool PDA's signer seeds, `["pool", base_mint, bump]`, with `bump` kept alive by the caller.
    pub fn signer_seeds<'a>(&'a self, bump: &'a [u8; 1]) -> [&'a [u8]; 3] {
        [POOL_SEED, self.base_mint.as_ref(), bump]
    }

    pub fn state(&self) -> PoolState {
        PoolState {
            sqrt_price: self.sqrt_price,
            base_reserve: self.base_reserve,
            quote_reserve: self.quote_reserve,
        }
    }

    pub fn set_state(&mut self, s: PoolState) {
        self.sqrt_price = s.sqrt_price;
        self.base_reserve = s.base_reserve;
        self.quote_reserve = s.quote_reserve;
    }
}
