//! `set_fee_shares`: the pool's creator role shares its creator fees among 1 to 10 wallets, in basis points
//! summing to 10,000, and may lock them (then they are final). Sent with `create_launch` in one transaction,
//! the shares hold from the first trade.
//!
//! Fees always accrue under the shares in force when they were earned: the creator fees the pool holds are
//! credited by the old shares before new ones apply (the first time, those not yet claimed by the creator role
//! are shared too: claim them first to keep them). A recipient dropped from the list keeps its balance and
//! claims it later. From the first call on, the creator role no longer claims trading fees or the creator
//! position's AMM fees itself (unless it is a recipient); the surplus stays the creator role's.

use crate::constants::{FEE_SHARES_SEED, POOL_SEED};
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::events::EvtFeeSharesSet;
use crate::state::{FeeRecipient, FeeShares, Pool};
use anchor_lang::prelude::*;
use curve::SafeMath;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Debug, PartialEq, Eq)]
pub struct SetFeeSharesArgs {
    /// The recipients in order (the first also receives the rounding dust of each credit).
    pub recipients: Vec<FeeRecipient>,
    /// Make these shares final.
    pub lock: bool,
}

#[event_cpi]
#[derive(Accounts)]
pub struct SetFeeShares<'info> {
    /// The pool's creator role; pays for the shares account the first time.
    #[account(mut)]
    pub creator: Signer<'info>,
    #[account(
        mut,
        seeds = [POOL_SEED, pool.base_mint.as_ref()],
        bump = pool.bump,
        has_one = creator @ LaunchpadError::NotEntitled,
    )]
    pub pool: Box<Account<'info, Pool>>,
    #[account(
        init_if_needed,
        payer = creator,
        space = 8 + FeeShares::INIT_SPACE,
        seeds = [FEE_SHARES_SEED, pool.key().as_ref()],
        bump,
    )]
    pub fee_shares: Box<Account<'info, FeeShares>>,
    pub system_program: Program<'info, System>,
}

/// Credits the creator fees the pool holds to the recipients by their current shares.
pub fn settle_creator_fees(pool: &mut Pool, shares: &mut FeeShares) -> Result<()> {
    let amount = pool.creator_fee_unclaimed;
    shares.credit(amount, false)?;
    pool.creator_fee_claimed = pool.creator_fee_claimed.safe_add(amount).or_launchpad()?;
    pool.creator_fee_unclaimed = 0;
    Ok(())
}

pub fn handler(ctx: Context<SetFeeShares>, args: SetFeeSharesArgs) -> Result<()> {
    let pool_key = ctx.accounts.pool.key();
    let pool = &mut ctx.accounts.pool;
    let shares = &mut ctx.accounts.fee_shares;
    if pool.fee_shared {
        require!(!shares.locked, LaunchpadError::FeeSharesLocked);
        settle_creator_fees(pool, shares)?;
    } else {
        shares.pool = pool_key;
        shares.bump = ctx.bumps.fee_shares;
    }
    shares.replace(&args.recipients)?;
    shares.locked = args.lock;
    pool.fee_shared = true;
    settle_creator_fees(pool, shares)?;
    let event = EvtFeeSharesSet {
        pool: pool_key,
        mint: pool.base_mint,
        creator: pool.creator,
        recipients: args.recipients,
        locked: args.lock,
        timestamp: Clock::get()?.unix_timestamp,
    };
    emit_cpi!(event);
    Ok(())
}
