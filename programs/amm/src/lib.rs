//! The "version 2" constant-product AMM that graduated launches migrate into.
//!
//! * `create_pool`: one pool per creator and token pair (`["pool", creator, mint_a, mint_b]`,
//!   mints sorted; the creator signs, so no one can squat another creator's address), two vaults, a swap fee.
//! * `create_position`, `add_liquidity`, `remove_liquidity`: wallet-owned positions of liquidity shares.
//! * `permanent_lock`: moves a position's liquidity into its locked part, which nobody can ever remove.
//! * `swap`: exact in with a minimum out; the fee is taken on the input and accrues to all liquidity.
//! * `swap_exact_out`: exactly so much out with a maximum in; the same fee accounting.
//! * `claim_position_fee`: pays a position's accrued fees, locked liquidity included.
//!
//! Token-2022 and classic SPL mints both work through the token interface; Token-2022 mints with extensions that
//! change what a transfer delivers or who controls custody are refused. Math lives in `crates/curve::amm`.
#![allow(unexpected_cfgs)]
#![allow(clippy::result_large_err, clippy::too_many_arguments)]

use anchor_lang::prelude::*;

pub mod constants;
pub mod errors;
pub mod events;
pub mod instructions;
pub mod state;
pub mod utils;

pub use constants::*;
pub use errors::AmmError;
pub use events::*;
pub use instructions::*;
pub use state::*;

declare_id!("ETZMpfu5Kj1oLudaxkCqEYLVMiHihpZY5n7xNPmC13j");

#[program]
pub mod amm {
    use super::*;

    /// Creates the pool of a token pair (mints in ascending address order) with its swap fee.
    pub fn create_pool(ctx: Context<CreatePool>, fee_bps: u16) -> Result<()> {
        instructions::create_pool::handler(ctx, fee_bps)
    }

    /// Creates an empty position of `owner` in a pool, signed by the owner or the pool's creator. Anyone may
    /// pay for it; only the owner can withdraw.
    pub fn create_position(ctx: Context<CreatePosition>, owner: Pubkey, id: u64) -> Result<()> {
        instructions::create_position::handler(ctx, owner, id)
    }

    /// Deposits into a position (the depositor pays; the position's owner receives the liquidity).
    pub fn add_liquidity(ctx: Context<AddLiquidity>, args: AddLiquidityArgs) -> Result<()> {
        instructions::add_liquidity::handler(ctx, args)
    }

    /// Withdraws unlocked liquidity from the owner's position.
    pub fn remove_liquidity(
        ctx: Context<RemoveLiquidity>,
        args: RemoveLiquidityArgs,
    ) -> Result<()> {
        instructions::remove_liquidity::handler(ctx, args)
    }

    /// Locks liquidity of the owner's position permanently.
    pub fn permanent_lock(ctx: Context<PermanentLock>, liquidity: u128) -> Result<()> {
        instructions::permanent_lock::handler(ctx, liquidity)
    }

    /// Swaps exact in with a minimum out.
    pub fn swap(ctx: Context<Swap>, args: SwapArgs) -> Result<()> {
        instructions::swap::handler(ctx, args)
    }

    /// Swaps for exactly `amount_out`, paying at most `max_amount_in` (fee included).
    pub fn swap_exact_out(ctx: Context<Swap>, args: SwapExactOutArgs) -> Result<()> {
        instructions::swap_exact_out::handler(ctx, args)
    }

    /// Pays the owner's accrued fees of a position.
    pub fn claim_position_fee(ctx: Context<ClaimPositionFee>) -> Result<()> {
        instructions::claim_position_fee::handler(ctx)
    }
}
