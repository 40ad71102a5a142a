//! `create_position`: an empty position of `owner` in a pool. Anyone may pay for it, but `authority` must sign
//! and be the owner itself or the pool's creator (a launchpad migration, signing as the pool's creator, creates
//! the creator's and the partner's). So nobody can occupy the position address another wallet will use. Only
//! the owner can ever withdraw from a position or claim its fees.

use crate::constants::*;
use crate::errors::AmmError;
use crate::events::EvtCreatePosition;
use crate::state::{AmmPool, Position};
use anchor_lang::prelude::*;

#[event_cpi]
#[derive(Accounts)]
#[instruction(owner: Pubkey, id: u64)]
pub struct CreatePosition<'info> {
    #[account(mut)]
    pub payer: Signer<'info>,
    /// The owner, or the pool's creator creating a position for someone else.
    pub authority: Signer<'info>,
    pub pool: Box<Account<'info, AmmPool>>,
    #[account(
        init,
        payer = payer,
        space = 8 + Position::INIT_SPACE,
        seeds = [POSITION_SEED, pool.key().as_ref(), owner.as_ref(), &id.to_le_bytes()],
        bump,
    )]
    pub position: Box<Account<'info, Position>>,
    pub system_program: Program<'info, System>,
}

pub fn handler(ctx: Context<CreatePosition>, owner: Pubkey, id: u64) -> Result<()> {
    let pool = &ctx.accounts.pool;
    let authority = ctx.accounts.authority.key();
    require!(
        authority == owner || authority == pool.creator,
        AmmError::Unauthorized
    );
    let event = EvtCreatePosition {
        pool: pool.key(),
        position: ctx.accounts.position.key(),
        owner,
        id,
    };
    let (growth_a, growth_b) = (pool.fee_growth_a, pool.fee_growth_b);
    ctx.accounts.position.set_inner(Position {
        pool: event.pool,
        owner,
        id,
        liquidity: 0,
        locked_liquidity: 0,
        fee_growth_checkpoint_a: growth_a,
        fee_growth_checkpoint_b: growth_b,
        fees_owed_a: 0,
        fees_owed_b: 0,
        fees_claimed_a: 0,
        fees_claimed_b: 0,
        bump: ctx.bumps.position,
    });
    emit_cpi!(event);
    Ok(())
}
