//! `propose_admin`: the admin names its successor. Nothing changes until the successor accepts, so a mistyped
//! key never locks the program out; a new proposal replaces the pending one.

use crate::constants::GLOBAL_SEED;
use crate::errors::LaunchpadError;
use crate::state::Global;
use anchor_lang::prelude::*;

#[derive(Accounts)]
pub struct ProposeAdmin<'info> {
    pub admin: Signer<'info>,
    #[account(mut, seeds = [GLOBAL_SEED], bump = global.bump, has_one = admin @ LaunchpadError::Unauthorized)]
    pub global: Box<Account<'info, Global>>,
}

pub fn handler(ctx: Context<ProposeAdmin>, new_admin: Pubkey) -> Result<()> {
    ctx.accounts.global.pending_admin = Some(new_admin);
    Ok(())
}
