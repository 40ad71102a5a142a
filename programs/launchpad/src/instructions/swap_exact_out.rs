//! `swap_exact_out`: buy an exact number of tokens with at most so much quote, or sell for an exact amount of
//! quote (after the fee) with at most so many tokens. Same accounts as [`super::swap`].
//!
//! The input rounds against the trader: the curve's price moves at least as far as the tokens (or the quote)
//! asked for take it, and the fee is what the input pays above net. At the graduation boundary an exact-out
//! buy completes the curve: when the tokens asked for cost at least the quote still missing (or lie in the
//! curve's rounding dust past its end), the trader pays exactly the missing quote plus its fee and receives
//! every unsold token, at least what was asked, as the completing exact-in buy does. Asking for more than is
//! unsold fails with `InsufficientLiquidity`.

use super::swap::{fee_now, settle, side_of, Request, Swap};
use crate::errors::{CurveResultExt, LaunchpadError};
use anchor_lang::prelude::*;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapExactOutArgs {
    /// [`super::swap::SIDE_BUY`] or [`super::swap::SIDE_SELL`].
    pub side: u8,
    /// Tokens to receive (buy) or quote to receive after the fee (sell).
    pub amount_out: u64,
    /// Most quote (buy, fee included) or tokens (sell) the trader pays.
    pub max_amount_in: u64,
}

pub fn handler(ctx: Context<Swap>, args: SwapExactOutArgs) -> Result<()> {
    let side = side_of(args.side)?;
    let (fee_bps, now) = fee_now(ctx.accounts)?;
    let config = &ctx.accounts.config;
    let segments = config.curve_segments();
    let result = config
        .market(&segments)
        .swap_exact_out(&ctx.accounts.pool.state(), side, args.amount_out, fee_bps)
        .or_launchpad()?;
    require!(
        result.amount_in <= args.max_amount_in,
        LaunchpadError::SlippageExceeded
    );
    let request = Request {
        side: args.side,
        amount_offered: args.max_amount_in,
        min_amount_out: args.amount_out,
        exact_out: true,
    };
    settle(ctx, side, &result, fee_bps, now, request)
}
