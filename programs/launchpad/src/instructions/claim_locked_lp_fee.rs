//! `claim_locked_lp_fee`: after migration, the creator or the partner claims the AMM trading fees earned by
//! their permanently locked position. The positions belong to the launch's pool (a PDA of this program), which
//! signs the AMM's `claim_position_fee` here and nowhere else: the fees go to whoever holds the role at claim
//! time (the pool's creator, after any handover; the config's partner, after any partner handover), into any
//! token accounts the claimer names. Nobody else is paid, and nobody can claim on the AMM directly. Once the
//! creator fees are shared, the creator position's fees go to the recipients instead
//! ([`super::fee_shares::share_locked_lp_fee`]) and the creator role is refused here with `FeesShared`. While
//! a creator handover is pending the creator position's fees wait for the wallet offered the role
//! (`HandoverPending`).

use crate::constants::POOL_SEED;
use crate::errors::LaunchpadError;
use crate::events::{EvtClaim, CLAIM_KIND_LOCKED_LP};
use crate::instructions::migrate::{
    amm_position_address, CREATOR_POSITION_ID, PARTNER_POSITION_ID,
};
use crate::state::{Config, Pool, PoolStatus};
use crate::utils::locked_position::{collect_position_fees, Collect};
use amm::program::Amm;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};

#[event_cpi]
#[derive(Accounts)]
pub struct ClaimLockedLpFee<'info> {
    pub claimer: Signer<'info>,
    pub config: Box<Account<'info, Config>>,
    #[account(has_one = config, seeds = [POOL_SEED, pool.base_mint.as_ref()], bump = pool.bump)]
    pub pool: Box<Account<'info, Pool>>,
    /// CHECK: must be the launch's AMM pool (checked in the handler; the AMM checks the rest).
    #[account(mut, address = pool.amm_pool @ LaunchpadError::InvalidAmmAccount)]
    pub amm_pool: UncheckedAccount<'info>,
    /// CHECK: the role's locked position (address checked in the handler).
    #[account(mut)]
    pub position: UncheckedAccount<'info>,
    pub mint_a: Box<InterfaceAccount<'info, Mint>>,
    pub mint_b: Box<InterfaceAccount<'info, Mint>>,
    /// CHECK: the AMM's vault (checked by the AMM).
    #[account(mut)]
    pub amm_vault_a: UncheckedAccount<'info>,
    /// CHECK: the AMM's vault (checked by the AMM).
    #[account(mut)]
    pub amm_vault_b: UncheckedAccount<'info>,
    #[account(mut, token::mint = mint_a, token::token_program = token_program_a)]
    pub claimer_a: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut, token::mint = mint_b, token::token_program = token_program_b)]
    pub claimer_b: Box<InterfaceAccount<'info, TokenAccount>>,
    pub token_program_a: Interface<'info, TokenInterface>,
    pub token_program_b: Interface<'info, TokenInterface>,
    /// CHECK: the AMM's event authority (checked by the AMM).
    pub amm_event_authority: UncheckedAccount<'info>,
    pub amm_program: Program<'info, Amm>,
}

pub fn handler(ctx: Context<ClaimLockedLpFee>) -> Result<()> {
    let a = &ctx.accounts;
    require!(
        a.pool.status == PoolStatus::Migrated,
        LaunchpadError::NotMigrated
    );
    let claimer = a.claimer.key();
    let amm_pool = a.amm_pool.key();
    let position = a.position.key();
    let owner = a.pool.key();
    let is_creator_position = claimer == a.pool.creator
        && position == amm_position_address(&amm_pool, &owner, CREATOR_POSITION_ID);
    let is_partner_position = claimer == a.config.partner
        && position == amm_position_address(&amm_pool, &owner, PARTNER_POSITION_ID);
    if claimer != a.pool.creator && claimer != a.config.partner {
        return err!(LaunchpadError::NotEntitled);
    }
    require!(
        !(is_creator_position && a.pool.fee_shared),
        LaunchpadError::FeesShared
    );
    require!(
        !(is_creator_position && a.pool.pending_creator != Pubkey::default()),
        LaunchpadError::HandoverPending
    );
    require!(
        is_creator_position || is_partner_position,
        LaunchpadError::InvalidPosition
    );

    let (before_a, before_b) = (a.claimer_a.amount, a.claimer_b.amount);
    collect_position_fees(
        &a.pool,
        Collect {
            amm_program: &a.amm_program.to_account_info(),
            amm_pool: &a.amm_pool.to_account_info(),
            position: &a.position.to_account_info(),
            mint_a: &a.mint_a.to_account_info(),
            mint_b: &a.mint_b.to_account_info(),
            vault_a: &a.amm_vault_a.to_account_info(),
            vault_b: &a.amm_vault_b.to_account_info(),
            to_a: &a.claimer_a.to_account_info(),
            to_b: &a.claimer_b.to_account_info(),
            token_program_a: &a.token_program_a.to_account_info(),
            token_program_b: &a.token_program_b.to_account_info(),
            amm_event_authority: &a.amm_event_authority.to_account_info(),
        },
    )?;
    let accounts = &mut *ctx.accounts;
    accounts.claimer_a.reload()?;
    accounts.claimer_b.reload()?;
    let got_a = accounts.claimer_a.amount.saturating_sub(before_a);
    let got_b = accounts.claimer_b.amount.saturating_sub(before_b);
    let pool = &accounts.pool;
    let (base_amount, quote_amount) = if accounts.mint_a.key() == pool.base_mint {
        (got_a, got_b)
    } else {
        (got_b, got_a)
    };
    let event = EvtClaim {
        pool: pool.key(),
        mint: pool.base_mint,
        claimer,
        kind: CLAIM_KIND_LOCKED_LP,
        amount: quote_amount,
        creator_fee_unclaimed: pool.creator_fee_unclaimed,
        partner_fee_unclaimed: pool.partner_fee_unclaimed,
        timestamp: Clock::get()?.unix_timestamp,
        base_amount,
    };
    emit_cpi!(event);
    Ok(())
}
