//! `remove_liquidity`: the owner withdraws unlocked liquidity, `floor(reserve * liquidity / pool_liquidity)` of
//! each side, at least `min_a` / `min_b`. Locked liquidity is refused with `LiquidityLocked`.

use crate::errors::{AmmError, CurveResultExt};
use crate::events::EvtRemoveLiquidity;
use crate::state::{AmmPool, Position};
use crate::utils::token::pay_out;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};
use curve::amm::withdraw_amounts;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoveLiquidityArgs {
    pub liquidity: u128,
    pub min_a: u64,
    pub min_b: u64,
}

#[event_cpi]
#[derive(Accounts)]
pub struct RemoveLiquidity<'info> {
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

pub fn handler(ctx: Context<RemoveLiquidity>, args: RemoveLiquidityArgs) -> Result<()> {
    let pool = &ctx.accounts.pool;
    let position = &ctx.accounts.position;
    require!(args.liquidity > 0, AmmError::ZeroAmount);
    if args.liquidity > position.liquidity {
        require!(position.locked_liquidity == 0, AmmError::LiquidityLocked);
        return err!(AmmError::InsufficientLiquidity);
    }
    let (amount_a, amount_b) = withdraw_amounts(
        pool.reserve_a,
        pool.reserve_b,
        pool.liquidity,
        args.liquidity,
    )
    .or_amm()?;
    require!(
        amount_a >= args.min_a && amount_b >= args.min_b,
        AmmError::SlippageExceeded
    );

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
    let pool = &mut accounts.pool;
    let position = &mut accounts.position;
    position.accrue(pool)?;
    let underflow = || error!(AmmError::InconsistentState);
    position.liquidity = position
        .liquidity
        .checked_sub(args.liquidity)
        .ok_or_else(underflow)?;
    pool.liquidity = pool
        .liquidity
        .checked_sub(args.liquidity)
        .ok_or_else(underflow)?;
    pool.reserve_a = pool.reserve_a.checked_sub(amount_a).ok_or_else(underflow)?;
    pool.reserve_b = pool.reserve_b.checked_sub(amount_b).ok_or_else(underflow)?;
    let event = EvtRemoveLiquidity {
        pool: pool.key(),
        position: position.key(),
        owner: position.owner,
        liquidity: args.liquidity,
        amount_a,
        amount_b,
        reserve_a: pool.reserve_a,
        reserve_b: pool.reserve_b,
        pool_liquidity: pool.liquidity,
        position_liquidity: position.liquidity,
        timestamp: Clock::get()?.unix_timestamp,
    };
    emit_cpi!(event);
    Ok(())
}
