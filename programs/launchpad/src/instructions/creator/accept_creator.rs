//! `accept_creator`: the proposed wallet signs and becomes the pool's creator. From then on it, and no longer
//! the previous creator, claims the creator's trading fees (unclaimed ones included), the creator's surplus and
//! the creator position's AMM fees (the position belongs to the pool), to any account it names.

use crate::constants::POOL_SEED;
use crate::errors::LaunchpadError;
use crate::events::EvtCreatorTransferred;
use crate::state::Pool;
use anchor_lang::prelude::*;

#[event_cpi]
#[derive(Accounts)]
pub struct AcceptCreator<'info> {
    pub new_creator: Signer<'info>,
    #[account(mut, seeds = [POOL_SEED, pool.base_mint.as_ref()], bump = pool.bump)]
    pub pool: Box<Account<'info, Pool>>,
}

pub fn handler(ctx: Context<AcceptCreator>) -> Result<()> {
    let new_creator = ctx.accounts.new_creator.key();
    let pool = &mut ctx.accounts.pool;
    require!(
        pool.pending_creator == new_creator && new_creator != Pubkey::default(),
        LaunchpadError::NotProposedCreator
    );
    let previous_creator = pool.creator;
    pool.creator = new_creator;
    pool.pending_creator = Pubkey::default();
    let event = EvtCreatorTransferred {
        pool: pool.key(),
        mint: pool.base_mint,
        previous_creator,
        creator: new_creator,
        timestamp: Clock::get()?.unix_timestamp,
    };
    emit_cpi!(event);
    Ok(())
}
