//! `swap_exact_out`: receive exactly `amount_out` of the output token, paying at most `max_amount_in` of the
//! input (fee included). The net input is the least that keeps the reserves' product from falling, rounded up;
//! the fee is what the input pays above it and accrues like any swap fee. Same accounts as [`super::swap`].

use super::swap::{reserves, settle, Swap};
use crate::errors::{AmmError, CurveResultExt};
use anchor_lang::prelude::*;
use curve::amm::swap_exact_out;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapExactOutArgs {
    /// true: token a in, token b out.
    pub a_to_b: bool,
    /// Exactly this much of the output token.
    pub amount_out: u64,
    /// At most this much of the input token, fee included.
    pub max_amount_in: u64,
}

pub fn handler(ctx: Context<Swap>, args: SwapExactOutArgs) -> Result<()> {
    let (reserve_in, reserve_out) = reserves(&ctx.accounts.pool, args.a_to_b);
    let s = swap_exact_out(
        reserve_in,
        reserve_out,
        args.amount_out,
        ctx.accounts.pool.fee_bps,
    )
    .or_amm()?;
    require!(
        s.amount_in <= args.max_amount_in,
        AmmError::SlippageExceeded
    );
    settle(ctx, args.a_to_b, &s, true)
}
