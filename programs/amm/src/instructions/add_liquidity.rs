//! `add_liquidity`: the depositor pays, the position's owner receives the liquidity, optionally locked for good
//! in the same step. The depositor is the position's owner or the pool's creator (for a launch's pool, the
//! launchpad's pool PDA, which owns both locked positions): nobody can add to a position that is not theirs, so
//! a launch's two locked positions stay exactly equal.
//!
//! The first deposit into an empty pool sets its price: pass `liquidity = 0`; exactly `max_a` and `max_b` are
//! deposited and `floor(sqrt(max_a * max_b))` liquidity is minted. Only the pool's creator makes it (the
//! launchpad's pool, for a migration), so nobody can front-run a new pool with a price of their own. Later deposits mint `liquidity` and take
//! `ceil(reserve * liquidity / pool_liquidity)` of each side, at most `max_a` / `max_b`.

use crate::errors::{AmmError, CurveResultExt};
use crate::events::EvtAddLiquidity;
use crate::state::{AmmPool, Position};
use crate::utils::token::transfer_from_user;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, TokenAccount, TokenInterface};
use curve::amm::{deposit_amounts, initial_liquidity};
use curve::SafeMath;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddLiquidityArgs {
    pub liquidity: u128,
    pub max_a: u64,
    pub max_b: u64,
    /// Lock the new liquidity permanently.
    pub lock: bool,
}

#[event_cpi]
#[derive(Accounts)]
pub struct AddLiquidity<'info> {
    pub depositor: Signer<'info>,
    #[account(mut, has_one = vault_a, has_one = vault_b, has_one = mint_a, has_one = mint_b)]
    pub pool: Box<Account<'info, AmmPool>>,
    #[account(mut, has_one = pool)]
    pub position: Box<Account<'info, Position>>,
    pub mint_a: Box<InterfaceAccount<'info, Mint>>,
    pub mint_b: Box<InterfaceAccount<'info, Mint>>,
    #[account(mut)]
    pub vault_a: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut)]
    pub vault_b: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut, token::mint = mint_a, token::token_program = token_program_a)]
    pub depositor_a: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut, token::mint = mint_b, token::token_program = token_program_b)]
    pub depositor_b: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(address = pool.token_program_a)]
    pub token_program_a: Interface<'info, TokenInterface>,
    #[account(address = pool.token_program_b)]
    pub token_program_b: Interface<'info, TokenInterface>,
}

pub fn handler(ctx: Context<AddLiquidity>, args: AddLiquidityArgs) -> Result<()> {
    let pool = &ctx.accounts.pool;
    let (delta, amount_a, amount_b) = if pool.liquidity == 0 {
        require!(args.liquidity == 0, AmmError::FirstDepositLiquidity);
        require_keys_eq!(
            ctx.accounts.depositor.key(),
            pool.creator,
            AmmError::FirstDepositNotCreator
        );
        (
            initial_liquidity(args.max_a, args.max_b).or_amm()?,
            args.max_a,
            args.max_b,
        )
    } else {
        let (a, b) = deposit_amounts(
            pool.reserve_a,
            pool.reserve_b,
            pool.liquidity,
            args.liquidity,
        )
        .or_amm()?;
        require!(
            a <= args.max_a && b <= args.max_b,
            AmmError::SlippageExceeded
        );
        (args.liquidity, a, b)
    };
    let a = &ctx.accounts;
    require!(
        a.depositor.key() == a.position.owner || a.depositor.key() == pool.creator,
        AmmError::NotPositionOwner
    );
    let depositor = a.depositor.to_account_info();
    transfer_from_user(
        a.token_program_a.to_account_info(),
        &a.mint_a,
        a.depositor_a.to_account_info(),
        a.vault_a.to_account_info(),
        depositor.clone(),
        amount_a,
    )?;
    transfer_from_user(
        a.token_program_b.to_account_info(),
        &a.mint_b,
        a.depositor_b.to_account_info(),
        a.vault_b.to_account_info(),
        depositor,
        amount_b,
    )?;

    let depositor_key = a.depositor.key();
    let accounts = &mut *ctx.accounts;
    let pool = &mut accounts.pool;
    let position = &mut accounts.position;
    position.accrue(pool)?;
    pool.reserve_a = pool.reserve_a.safe_add(amount_a).or_amm()?;
    pool.reserve_b = pool.reserve_b.safe_add(amount_b).or_amm()?;
    pool.liquidity = pool.liquidity.safe_add(delta).or_amm()?;
    if args.lock {
        pool.locked_liquidity = pool.locked_liquidity.safe_add(delta).or_amm()?;
        position.locked_liquidity = position.locked_liquidity.safe_add(delta).or_amm()?;
    } else {
        position.liquidity = position.liquidity.safe_add(delta).or_amm()?;
    }
    let event = EvtAddLiquidity {
        pool: pool.key(),
        position: position.key(),
        owner: position.owner,
        depositor: depositor_key,
        liquidity: delta,
        amount_a,
        amount_b,
        locked: args.lock,
        reserve_a: pool.reserve_a,
        reserve_b: pool.reserve_b,
        pool_liquidity: pool.liquidity,
        pool_locked_liquidity: pool.locked_liquidity,
        position_liquidity: position.liquidity,
        position_locked_liquidity: position.locked_liquidity,
        timestamp: Clock::get()?.unix_timestamp,
    };
    emit_cpi!(event);
    Ok(())
}
