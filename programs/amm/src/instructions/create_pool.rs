//! `create_pool`: a pool for a token pair (`["pool", creator, mint_a, mint_b]`), its two vaults and its swap
//! fee. The pool starts empty; the first `add_liquidity` sets its price. Token-2022 mints with an extension
//! outside [`crate::utils::token::ALLOWED_MINT_EXTENSIONS`] are refused: the pool credits what a transfer sends, so
//! every transfer must deliver exactly that, and custody must stay with the pool.

use crate::constants::*;
use crate::errors::AmmError;
use crate::events::EvtCreatePool;
use crate::state::AmmPool;
use crate::utils::token::check_mint_extensions;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};

#[event_cpi]
#[derive(Accounts)]
pub struct CreatePool<'info> {
    #[account(mut)]
    pub payer: Signer<'info>,
    /// Namespaces the pool's address, so nobody can occupy the address another creator will use (a
    /// launchpad migration signs here with its pool PDA).
    pub creator: Signer<'info>,
    #[account(mint::token_program = token_program_a)]
    pub mint_a: Box<InterfaceAccount<'info, Mint>>,
    #[account(mint::token_program = token_program_b)]
    pub mint_b: Box<InterfaceAccount<'info, Mint>>,
    #[account(
        init,
        payer = payer,
        space = 8 + AmmPool::INIT_SPACE,
        seeds = [POOL_SEED, creator.key().as_ref(), mint_a.key().as_ref(), mint_b.key().as_ref()],
        bump,
    )]
    pub pool: Box<Account<'info, AmmPool>>,
    #[account(
        init,
        payer = payer,
        seeds = [VAULT_SEED, pool.key().as_ref(), mint_a.key().as_ref()],
        bump,
        token::mint = mint_a,
        token::authority = pool,
        token::token_program = token_program_a,
    )]
    pub vault_a: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(
        init,
        payer = payer,
        seeds = [VAULT_SEED, pool.key().as_ref(), mint_b.key().as_ref()],
        bump,
        token::mint = mint_b,
        token::authority = pool,
        token::token_program = token_program_b,
    )]
    pub vault_b: Box<InterfaceAccount<'info, TokenAccount>>,
    pub token_program_a: Interface<'info, TokenInterface>,
    pub token_program_b: Interface<'info, TokenInterface>,
    pub system_program: Program<'info, System>,
}

pub fn handler(ctx: Context<CreatePool>, fee_bps: u16) -> Result<()> {
    let a = &ctx.accounts;
    require!(a.mint_a.key() < a.mint_b.key(), AmmError::MintsNotSorted);
    require!(fee_bps <= MAX_SWAP_FEE_BPS, AmmError::InvalidFee);
    check_mint_extensions(&a.mint_a.to_account_info())?;
    check_mint_extensions(&a.mint_b.to_account_info())?;
    let now = Clock::get()?.unix_timestamp;
    let event = EvtCreatePool {
        pool: a.pool.key(),
        mint_a: a.mint_a.key(),
        mint_b: a.mint_b.key(),
        vault_a: a.vault_a.key(),
        vault_b: a.vault_b.key(),
        fee_bps,
        creator: a.creator.key(),
        timestamp: now,
    };
    let (token_program_a, token_program_b) = (a.token_program_a.key(), a.token_program_b.key());
    ctx.accounts.pool.set_inner(AmmPool {
        mint_a: event.mint_a,
        mint_b: event.mint_b,
        vault_a: event.vault_a,
        vault_b: event.vault_b,
        token_program_a,
        token_program_b,
        creator: event.creator,
        fee_bps,
        reserve_a: 0,
        reserve_b: 0,
        liquidity: 0,
        locked_liquidity: 0,
        fee_growth_a: 0,
        fee_growth_b: 0,
        fees_a_total: 0,
        fees_b_total: 0,
        fees_a_claimed: 0,
        fees_b_claimed: 0,
        created_at: now,
        bump: ctx.bumps.pool,
    });
    emit_cpi!(event);
    Ok(())
}
