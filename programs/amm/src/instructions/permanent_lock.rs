//! `permanent_lock`: moves liquidity of the owner's position into its locked part. Irreversible: no
//! instruction ever reduces locked liquidity. Locked liquidity keeps earning fees.

use crate::errors::{AmmError, CurveResultExt};
use crate::events::EvtLockPosition;
use crate::state::{AmmPool, Position};
use anchor_lang::prelude::*;
use curve::SafeMath;

#[event_cpi]
#[derive(Accounts)]
pub struct PermanentLock<'info> {
    pub owner: Signer<'info>,
    #[account(mut)]
    pub pool: Box<Account<'info, AmmPool>>,
    #[account(mut, has_one = pool, has_one = owner)]
    pub position: Box<Account<'info, Position>>,
}

pub fn handler(ctx: Context<PermanentLock>, liquidity: u128) -> Result<()> {
    require!(liquidity > 0, AmmError::ZeroAmount);
    let accounts = &mut *ctx.accounts;
    let pool = &mut accounts.pool;
    let position = &mut accounts.position;
    require!(
        liquidity <= position.liquidity,
        AmmError::InsufficientLiquidity
    );
    position.accrue(pool)?;
    position.liquidity = position
        .liquidity
        .checked_sub(liquidity)
        .ok_or(AmmError::InsufficientLiquidity)?;
    position.locked_liquidity = position.locked_liquidity.safe_add(liquidity).or_amm()?;
    pool.locked_liquidity = pool.locked_liquidity.safe_add(liquidity).or_amm()?;
    let event = EvtLockPosition {
        pool: pool.key(),
        position: position.key(),
        owner: position.owner,
        liquidity,
        position_liquidity: position.liquidity,
        position_locked_liquidity: position.locked_liquidity,
        pool_locked_liquidity: pool.locked_liquidity,
        timestamp: Clock::get()?.unix_timestamp,
    };
    emit_cpi!(event);
    Ok(())
}
