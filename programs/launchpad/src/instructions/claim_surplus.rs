//! `claim_surplus`: after migration, the creator and the partner each claim their part of the raised quote
//! the AMM did not take, once. A wallet that is both claims both parts.

use crate::constants::POOL_SEED;
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::events::{EvtClaim, CLAIM_KIND_SURPLUS};
use crate::state::{Config, Pool, PoolStatus};
use crate::utils::token::transfer_from_pool;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};
use curve::SafeMath;

#[event_cpi]
#[derive(Accounts)]
pub struct ClaimSurplus<'info> {
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
    #[account(mut, token::mint = quote_mint, token::token_program = quote_token_program)]
    pub claimer_quote_account: Box<InterfaceAccount<'info, TokenAccount>>,
    pub quote_token_program: Interface<'info, TokenInterface>,
}

pub fn handler(ctx: Context<ClaimSurplus>) -> Result<()> {
    let claimer = ctx.accounts.claimer.key();
    let holds_creator_role = claimer == ctx.accounts.pool.creator;
    let is_partner = claimer == ctx.accounts.config.partner;
    require!(
        holds_creator_role || is_partner,
        LaunchpadError::NotEntitled
    );
    // While a creator handover is pending the creator's surplus waits for the wallet offered the role.
    let handover_pending = ctx.accounts.pool.pending_creator != Pubkey::default();
    require!(
        is_partner || !handover_pending,
        LaunchpadError::HandoverPending
    );
    let is_creator = holds_creator_role && !handover_pending;
    require!(
        ctx.accounts.pool.status == PoolStatus::Migrated,
        LaunchpadError::NotMigrated
    );

    let pool = &mut ctx.accounts.pool;
    let already = (!is_creator || pool.creator_surplus_claimed)
        && (!is_partner || pool.partner_surplus_claimed);
    require!(!already, LaunchpadError::SurplusAlreadyClaimed);
    let mut amount: u64 = 0;
    if is_creator && !pool.creator_surplus_claimed {
        amount = amount
            .safe_add(pool.creator_surplus_unclaimed)
            .or_launchpad()?;
        pool.creator_surplus_unclaimed = 0;
        pool.creator_surplus_claimed = true;
    }
    if is_partner && !pool.partner_surplus_claimed {
        amount = amount
            .safe_add(pool.partner_surplus_unclaimed)
            .or_launchpad()?;
        pool.partner_surplus_unclaimed = 0;
        pool.partner_surplus_claimed = true;
    }
    require!(amount > 0, LaunchpadError::NothingToClaim);

    let mint_key = pool.base_mint;
    let event = EvtClaim {
        pool: pool.key(),
        mint: mint_key,
        claimer,
        kind: CLAIM_KIND_SURPLUS,
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
