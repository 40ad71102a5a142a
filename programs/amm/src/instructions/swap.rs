//! `swap`: exact in with a minimum out. The fee (`ceil(amount_in * fee_bps / 10_000)`) is taken from the
//! input and added to the input side's fee growth, so it accrues to every unit of liquidity, locked or not.
//! Its exact-out twin, [`super::swap_exact_out`], shares the accounts and [`settle`].

use crate::errors::{AmmError, CurveResultExt};
use crate::events::EvtSwap;
use crate::state::AmmPool;
use crate::utils::token::{transfer_from_pool, transfer_from_user};
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};
use curve::amm::{fee_growth_delta, swap_exact_in, AmmSwap};
use curve::SafeMath;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapArgs {
    /// true: token a in, token b out.
    pub a_to_b: bool,
    pub amount_in: u64,
    pub min_amount_out: u64,
}

#[event_cpi]
#[derive(Accounts)]
pub struct Swap<'info> {
    pub trader: Signer<'info>,
    #[account(mut, has_one = vault_a, has_one = vault_b, has_one = mint_a, has_one = mint_b)]
    pub pool: Box<Account<'info, AmmPool>>,
    pub mint_a: Box<InterfaceAccount<'info, Mint>>,
    pub mint_b: Box<InterfaceAccount<'info, Mint>>,
    #[account(mut)]
    pub vault_a: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut)]
    pub vault_b: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut, token::mint = mint_a, token::token_program = token_program_a)]
    pub trader_a: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut, token::mint = mint_b, token::token_program = token_program_b)]
    pub trader_b: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(address = pool.token_program_a)]
    pub token_program_a: Interface<'info, TokenInterface>,
    #[account(address = pool.token_program_b)]
    pub token_program_b: Interface<'info, TokenInterface>,
}

/// The pool's reserves as (in, out) for a swap's direction.
pub fn reserves(pool: &AmmPool, a_to_b: bool) -> (u64, u64) {
    if a_to_b {
        (pool.reserve_a, pool.reserve_b)
    } else {
        (pool.reserve_b, pool.reserve_a)
    }
}

pub fn handler(ctx: Context<Swap>, args: SwapArgs) -> Result<()> {
    let (reserve_in, reserve_out) = reserves(&ctx.accounts.pool, args.a_to_b);
    let s = swap_exact_in(
        reserve_in,
        reserve_out,
        args.amount_in,
        ctx.accounts.pool.fee_bps,
    )
    .or_amm()?;
    require!(
        s.amount_out >= args.min_amount_out,
        AmmError::SlippageExceeded
    );
    settle(ctx, args.a_to_b, &s, false)
}

/// Moves the tokens of a priced swap (the trader pays first), records the reserves and the fee growth,
/// and emits the swap.
pub fn settle(ctx: Context<Swap>, a_to_b: bool, s: &AmmSwap, exact_out: bool) -> Result<()> {
    let pool = &ctx.accounts.pool;
    let growth = fee_growth_delta(s.fee, pool.liquidity).or_amm()?;

    let a = &ctx.accounts;
    let trader = a.trader.to_account_info();
    let (prog_a, prog_b) = (
        a.token_program_a.to_account_info(),
        a.token_program_b.to_account_info(),
    );
    if a_to_b {
        transfer_from_user(
            prog_a,
            &a.mint_a,
            a.trader_a.to_account_info(),
            a.vault_a.to_account_info(),
            trader,
            s.amount_in,
        )?;
        transfer_from_pool(
            pool,
            prog_b,
            &a.mint_b,
            a.vault_b.to_account_info(),
            a.trader_b.to_account_info(),
            s.amount_out,
        )?;
    } else {
        transfer_from_user(
            prog_b,
            &a.mint_b,
            a.trader_b.to_account_info(),
            a.vault_b.to_account_info(),
            trader,
            s.amount_in,
        )?;
        transfer_from_pool(
            pool,
            prog_a,
            &a.mint_a,
            a.vault_a.to_account_info(),
            a.trader_a.to_account_info(),
            s.amount_out,
        )?;
    }

    let trader_key = a.trader.key();
    let pool = &mut ctx.accounts.pool;
    if a_to_b {
        pool.reserve_a = s.reserve_in_after;
        pool.reserve_b = s.reserve_out_after;
        pool.fee_growth_a = pool.fee_growth_a.wrapping_add(growth);
        pool.fees_a_total = pool.fees_a_total.safe_add(s.fee).or_amm()?;
    } else {
        pool.reserve_b = s.reserve_in_after;
        pool.reserve_a = s.reserve_out_after;
        pool.fee_growth_b = pool.fee_growth_b.wrapping_add(growth);
        pool.fees_b_total = pool.fees_b_total.safe_add(s.fee).or_amm()?;
    }
    let event = EvtSwap {
        pool: pool.key(),
        trader: trader_key,
        a_to_b,
        amount_in: s.amount_in,
        amount_out: s.amount_out,
        fee: s.fee,
        reserve_a: pool.reserve_a,
        reserve_b: pool.reserve_b,
        fee_growth_a: pool.fee_growth_a,
        fee_growth_b: pool.fee_growth_b,
        timestamp: Clock::get()?.unix_timestamp,
        exact_out,
    };
    emit_cpi!(event);
    Ok(())
}
