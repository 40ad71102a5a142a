//! `share_locked_lp_fee`: after migration, collects the AMM fees of a shared pool's locked creator position
//! into the pool's own vaults and credits them to the recipients by their shares (each then claims with
//! `claim_fee_share`). Anyone may send it: it pays nobody, it only moves the fees where the shares can reach
//! them. Fees are credited by the shares in force when they are collected; `set_fee_shares` collects them
//! before any change of shares, so every fee is shared by the shares in force when it was earned. With
//! nothing earned it fails with the launchpad's `NothingToClaim` (no CPI is made).

use crate::constants::{FEE_SHARES_SEED, POOL_SEED};
use crate::errors::LaunchpadError;
use crate::events::{EvtClaim, CLAIM_KIND_LOCKED_LP_SHARED};
use crate::state::{FeeShares, Pool, PoolStatus};
use crate::utils::locked_position::{collect_creator_fees_into_shares, Collect};
use amm::program::Amm;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};

#[event_cpi]
#[derive(Accounts)]
pub struct ShareLockedLpFee<'info> {
    pub sender: Signer<'info>,
    #[account(
        seeds = [POOL_SEED, pool.base_mint.as_ref()],
        bump = pool.bump,
        has_one = base_vault,
        has_one = quote_vault,
    )]
    pub pool: Box<Account<'info, Pool>>,
    #[account(mut, seeds = [FEE_SHARES_SEED, pool.key().as_ref()], bump = fee_shares.bump)]
    pub fee_shares: Box<Account<'info, FeeShares>>,
    /// CHECK: must be the launch's AMM pool (the AMM checks the rest).
    #[account(mut, address = pool.amm_pool @ LaunchpadError::InvalidAmmAccount)]
    pub amm_pool: UncheckedAccount<'info>,
    /// CHECK: the pool's locked creator position (address checked in the handler).
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
    /// The pool's token vault: receives the position's token fees.
    #[account(mut)]
    pub base_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    /// The pool's quote vault: receives the position's quote fees.
    #[account(mut)]
    pub quote_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    pub token_program_a: Interface<'info, TokenInterface>,
    pub token_program_b: Interface<'info, TokenInterface>,
    /// CHECK: the AMM's event authority (checked by the AMM).
    pub amm_event_authority: UncheckedAccount<'info>,
    pub amm_program: Program<'info, Amm>,
}

pub fn handler(ctx: Context<ShareLockedLpFee>) -> Result<()> {
    let a = &ctx.accounts;
    require!(
        a.pool.status == PoolStatus::Migrated,
        LaunchpadError::NotMigrated
    );
    require!(a.pool.fee_shared, LaunchpadError::NotEntitled);
    let base_is_a = a.mint_a.key() == a.pool.base_mint;
    let (to_a, to_b) = if base_is_a {
        (
            a.base_vault.to_account_info(),
            a.quote_vault.to_account_info(),
        )
    } else {
        (
            a.quote_vault.to_account_info(),
            a.base_vault.to_account_info(),
        )
    };
    let accounts = &mut *ctx.accounts;
    let (base, quote) = collect_creator_fees_into_shares(
        &accounts.pool,
        &mut accounts.fee_shares,
        Collect {
            amm_program: &accounts.amm_program.to_account_info(),
            amm_pool: &accounts.amm_pool.to_account_info(),
            position: &accounts.position.to_account_info(),
            mint_a: &accounts.mint_a.to_account_info(),
            mint_b: &accounts.mint_b.to_account_info(),
            vault_a: &accounts.amm_vault_a.to_account_info(),
            vault_b: &accounts.amm_vault_b.to_account_info(),
            to_a: &to_a,
            to_b: &to_b,
            token_program_a: &accounts.token_program_a.to_account_info(),
            token_program_b: &accounts.token_program_b.to_account_info(),
            amm_event_authority: &accounts.amm_event_authority.to_account_info(),
        },
        base_is_a,
    )?;
    require!(base > 0 || quote > 0, LaunchpadError::NothingToClaim);
    let pool = &accounts.pool;
    let event = EvtClaim {
        pool: pool.key(),
        mint: pool.base_mint,
        claimer: accounts.sender.key(),
        kind: CLAIM_KIND_LOCKED_LP_SHARED,
        amount: quote,
        creator_fee_unclaimed: pool.creator_fee_unclaimed,
        partner_fee_unclaimed: pool.partner_fee_unclaimed,
        timestamp: Clock::get()?.unix_timestamp,
        base_amount: base,
    };
    emit_cpi!(event);
    Ok(())
}
