//! `claim_trading_fee`: pays the signer's accrued share of bonding-phase trading fees.
//!
//! The pool's creator is paid the creator share, the config's partner the partner share (a wallet that is
//! both is paid both). Each claim pays what accrued since the last one; anyone else is refused. Once the
//! creator fees are shared (`set_fee_shares`), the creator share goes to the recipients
//! ([`super::fee_shares::claim_fee_share`]) and the creator role alone is refused with `FeesShared`. While a
//! creator handover is pending the creator's part stays in the pool for the wallet offered the role (the
//! creator alone is refused with `HandoverPending`; a creator that is also the partner is paid the partner's).

use crate::constants::POOL_SEED;
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::events::{EvtClaim, CLAIM_KIND_TRADING};
use crate::state::{Config, Pool};
use crate::utils::token::transfer_from_pool;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};
use curve::SafeMath;

#[event_cpi]
#[derive(Accounts)]
pub struct ClaimTradingFee<'info> {
    pub claimer: Signer<'info>,
    pub config: Box<Account<'info, Config>>,
    #[account(
        mut,
        seeds = [POOL_SEED, pool.base_mint.as_ref()],
        bump = pool.bump,
        has_one = config,
        has_one = quote_mint,
        has_one = quote_vault,
    )]
    pub pool: Box<Account<'info, Pool>>,
    pub quote_mint: Box<InterfaceAccount<'info, Mint>>,
    #[account(mut)]
    pub quote_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    /// Where the fees go (any quote account; the signer decides).
    #[account(mut, token::mint = quote_mint, token::token_program = quote_token_program)]
    pub claimer_quote_account: Box<InterfaceAccount<'info, TokenAccount>>,
    pub quote_token_program: Interface<'info, TokenInterface>,
}

pub fn handler(ctx: Context<ClaimTradingFee>) -> Result<()> {
    let claimer = ctx.accounts.claimer.key();
    let holds_creator_role = claimer == ctx.accounts.pool.creator;
    let is_partner = claimer == ctx.accounts.config.partner;
    require!(
        holds_creator_role || is_partner,
        LaunchpadError::NotEntitled
    );
    let is_creator = holds_creator_role && !ctx.accounts.pool.fee_shared;
    require!(is_creator || is_partner, LaunchpadError::FeesShared);
    // While a handover is pending the creator's part waits for the wallet offered the role.
    let handover_pending = ctx.accounts.pool.pending_creator != Pubkey::default();
    require!(
        is_partner || !handover_pending,
        LaunchpadError::HandoverPending
    );
    let is_creator = is_creator && !handover_pending;

    let pool = &mut ctx.accounts.pool;
    let mut amount: u64 = 0;
    if is_creator {
        amount = amount.safe_add(pool.creator_fee_unclaimed).or_launchpad()?;
        pool.creator_fee_claimed = pool
            .creator_fee_claimed
            .safe_add(pool.creator_fee_unclaimed)
            .or_launchpad()?;
        pool.creator_fee_unclaimed = 0;
    }
    if is_partner {
        amount = amount.safe_add(pool.partner_fee_unclaimed).or_launchpad()?;
        pool.partner_fee_claimed = pool
            .partner_fee_claimed
            .safe_add(pool.partner_fee_unclaimed)
            .or_launchpad()?;
        pool.partner_fee_unclaimed = 0;
    }
    require!(amount > 0, LaunchpadError::NothingToClaim);

    let mint_key = pool.base_mint;
    let event = EvtClaim {
        pool: pool.key(),
        mint: mint_key,
        claimer,
        kind: CLAIM_KIND_TRADING,
        amount,
        creator_fee_unclaimed: pool.creator_fee_unclaimed,
        partner_fee_unclaimed: pool.partner_fee_unclaimed,
        timestamp: Clock::get()?.unix_timestamp,
        base_amount: 0,
    };
    let a = &ctx.accounts;
    transfer_from_pool(
        &a.pool,
        a.quote_token_program.to_account_info(),
        &a.quote_mint,
        a.quote_vault.to_account_info(),
        a.claimer_quote_account.to_account_info(),
        amount,
    )?;
    emit_cpi!(event);
    Ok(())
}
