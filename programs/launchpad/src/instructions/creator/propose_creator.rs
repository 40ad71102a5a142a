//! `propose_creator`: the pool's creator names the wallet to hand the creator role to (a team wallet, a
//! multisig). Nothing changes until that wallet accepts, so a mistyped key never strands the role; a new
//! proposal replaces the pending one, and proposing the default key withdraws it.
//!
//! While a proposal is pending the role's income is frozen for the wallet offered it: the creator cannot
//! change or lock the fee shares (`set_fee_shares`), nor claim the creator's trading fees, surplus or locked
//! position fees (`HandoverPending`). Recipients of shares set before keep claiming their own credit, and
//! locked shares stay final: a buyer of the role reads them before accepting.

use crate::constants::POOL_SEED;
use crate::errors::LaunchpadError;
use crate::events::EvtCreatorProposed;
use crate::state::Pool;
use anchor_lang::prelude::*;

#[event_cpi]
#[derive(Accounts)]
pub struct ProposeCreator<'info> {
    pub creator: Signer<'info>,
    #[account(
        mut,
        seeds = [POOL_SEED, pool.base_mint.as_ref()],
        bump = pool.bump,
        has_one = creator @ LaunchpadError::NotEntitled,
    )]
    pub pool: Box<Account<'info, Pool>>,
}

pub fn handler(ctx: Context<ProposeCreator>, new_creator: Pubkey) -> Result<()> {
    let pool = &mut ctx.accounts.pool;
    pool.pending_creator = new_creator;
    let event = EvtCreatorProposed {
        pool: pool.key(),
        mint: pool.base_mint,
        creator: pool.creator,
        pending_creator: new_creator,
        timestamp: Clock::get()?.unix_timestamp,
    };
    emit_cpi!(event);
    Ok(())
}
