//! `claim_position_fee`: pays the owner the fees the position accrued (unlocked and locked liquidity alike).
//! Only the owner signs; the launchpad's `claim_locked_lp_fee` reaches this through CPI with the owner's
//! signature.

use crate::errors::{AmmError, CurveResultExt};
use crate::events::EvtClaimPositionFee;
use crate::state::{AmmPool, Position};
use crate::utils::token::pay_out;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};
use curve::SafeMath;

#[event_cpi]
#[derive(Accounts)]
pub struct ClaimPositionFee<'info> {
    pub owner: Signer<'info>,
    #[account(mut, has_one = vault_a, has_one = vault_b, has_one = mint_a, has_one = mint_b)]
    pub pool: Box<Account<'info, AmmPool>>,
    #[account(mut, has_one = pool, has_one = owner)]
    pub position: Box<Account<'info, Position>>,
    pub mint_a: Box<InterfaceAccount<'info, Mint>>,
    pub mint_b: Box<InterfaceAccount<'info, Mint>>,
    #[account(mut)]
    pub vault_a: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut)]
    pub vault_b: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut, token::mint = mint_a, token::token_program = token_program_a)]
    pub owner_a: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut, token::mint = mint_b, token::token_program = token_program_b)]
    pub owner_b: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(address = pool.token_program_a)]
    pub token_program_a: Interface<'info, TokenInterface>,
    #[account(address = pool.token_program_b)]
    pub token_program_b: Interface<'info, TokenInterface>,
}

pub fn handler(ctx: Context<ClaimPositionFee>) -> Result<()> {
    let accounts = &mut *ctx.accounts;
    accounts.position.accrue(&accounts.pool)?;
    let (amount_a, amount_b) = (accounts.position.fees_owed_a, accounts.position.fees_owed_b);
    require!(amount_a > 0 || amount_b > 0, AmmError::NothingToClaim);

    let a = &ctx.accounts;
    pay_out(
        &a.pool,
        (
            a.token_program_a.to_account_info(),
            &a.mint_a,
            a.vault_a.to_account_info(),
            a.owner_a.to_account_info(),
        ),
        (
            a.token_program_b.to_account_info(),
            &a.mint_b,
            a.vault_b.to_account_info(),
            a.owner_b.to_account_info(),
        ),
        amount_a,
        amount_b,
    )?;

    let accounts = &mut *ctx.accounts;
    let (pool, position) = (&mut accounts.pool, &mut accounts.position);
    position.fees_owed_a = 0;
    position.fees_owed_b = 0;
    position.fees_claimed_a = position.fees_claimed_a.safe_add(amount_a).or_amm()?;
    position.fees_claimed_b = position.fees_claimed_b.safe_add(amount_b).or_amm()?;
    pool.fees_a_claimed = pool.fees_a_claimed.safe_add(amount_a).or_amm()?;
    pool.fees_b_claimed = pool.fees_b_claimed.safe_add(amount_b).or_amm()?;
    let event = EvtClaimPositionFee {
        pool: pool.key(),
        position: position.key(),
        owner: position.owner,
        amount_a,
        amount_b,
        timestamp: Clock::get()?.unix_timestamp,
    };
    emit_cpi!(event);
    Ok(())
}
