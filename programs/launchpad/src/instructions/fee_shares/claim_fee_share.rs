//! `claim_fee_share`: a recipient of a pool's shared creator fees claims its own credit, to any accounts it
//! names: first the creator fees the pool holds are credited by the shares, then the signer's quote is paid,
//! and its tokens (the locked position's token fees) when it names a token account. Former recipients claim
//! what they were credited; anyone else is refused.

use crate::constants::{FEE_SHARES_SEED, POOL_SEED};
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::events::{EvtClaim, CLAIM_KIND_FEE_SHARE};
use crate::instructions::fee_shares::set_fee_shares::settle_creator_fees;
use crate::state::{FeeShares, Pool};
use crate::utils::token::transfer_from_pool;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, Token2022, TokenAccount, TokenInterface};
use curve::SafeMath;

#[event_cpi]
#[derive(Accounts)]
pub struct ClaimFeeShare<'info> {
    pub recipient: Signer<'info>,
    #[account(
        mut,
        seeds = [POOL_SEED, pool.base_mint.as_ref()],
        bump = pool.bump,
        has_one = base_mint,
        has_one = quote_mint,
        has_one = base_vault,
        has_one = quote_vault,
    )]
    pub pool: Box<Account<'info, Pool>>,
    #[account(mut, seeds = [FEE_SHARES_SEED, pool.key().as_ref()], bump = fee_shares.bump)]
    pub fee_shares: Box<Account<'info, FeeShares>>,
    pub base_mint: Box<InterfaceAccount<'info, Mint>>,
    pub quote_mint: Box<InterfaceAccount<'info, Mint>>,
    #[account(mut)]
    pub base_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut)]
    pub quote_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    /// Where the quote goes (any account of the quote mint; the signer decides).
    #[account(mut, token::mint = quote_mint, token::token_program = quote_token_program)]
    pub recipient_quote_account: Box<InterfaceAccount<'info, TokenAccount>>,
    /// Where the tokens go; without it the token credit stays to claim later.
    #[account(mut, token::mint = base_mint, token::token_program = base_token_program)]
    pub recipient_base_account: Option<Box<InterfaceAccount<'info, TokenAccount>>>,
    pub base_token_program: Program<'info, Token2022>,
    pub quote_token_program: Interface<'info, TokenInterface>,
}

pub fn handler(ctx: Context<ClaimFeeShare>) -> Result<()> {
    let recipient = ctx.accounts.recipient.key();
    let with_base = ctx.accounts.recipient_base_account.is_some();
    let accounts = &mut *ctx.accounts;
    settle_creator_fees(&mut accounts.pool, &mut accounts.fee_shares)?;
    let slot = accounts
        .fee_shares
        .slot_of(&recipient)
        .ok_or(LaunchpadError::NotEntitled)?;
    let quote = slot.quote_unclaimed;
    let base = if with_base { slot.base_unclaimed } else { 0 };
    require!(quote > 0 || base > 0, LaunchpadError::NothingToClaim);
    slot.quote_claimed = slot.quote_claimed.safe_add(quote).or_launchpad()?;
    slot.quote_unclaimed = 0;
    slot.base_claimed = slot.base_claimed.safe_add(base).or_launchpad()?;
    slot.base_unclaimed = slot.base_unclaimed.safe_sub(base).or_launchpad()?;

    let a = &ctx.accounts;
    if quote > 0 {
        transfer_from_pool(
            &a.pool,
            a.quote_token_program.to_account_info(),
            &a.quote_mint,
            a.quote_vault.to_account_info(),
            a.recipient_quote_account.to_account_info(),
            quote,
        )?;
    }
    if let (Some(to), true) = (&a.recipient_base_account, base > 0) {
        transfer_from_pool(
            &a.pool,
            a.base_token_program.to_account_info(),
            &a.base_mint,
            a.base_vault.to_account_info(),
            to.to_account_info(),
            base,
        )?;
    }
    let event = EvtClaim {
        pool: a.pool.key(),
        mint: a.pool.base_mint,
        claimer: recipient,
        kind: CLAIM_KIND_FEE_SHARE,
        amount: quote,
        creator_fee_unclaimed: a.pool.creator_fee_unclaimed,
        partner_fee_unclaimed: a.pool.partner_fee_unclaimed,
        timestamp: Clock::get()?.unix_timestamp,
        base_amount: base,
    };
    emit_cpi!(event);
    Ok(())
}
