//! `accept_admin`: the proposed admin signs and becomes the admin.

use crate::constants::GLOBAL_SEED;
use crate::errors::LaunchpadError;
use crate::state::Global;
use anchor_lang::prelude::*;

#[derive(Accounts)]
pub struct AcceptAdmin<'info> {
    pub new_admin: Signer<'info>,
    #[account(mut, seeds = [GLOBAL_SEED], bump = global.bump)]
    pub global: Box<Account<'info, Global>>,
}

pub fn handler(ctx: Context<AcceptAdmin>) -> Result<()> {
    let global = &mut ctx.accounts.global;
    require!(
        global.pending_admin == Some(ctx.accounts.new_admin.key()),
        LaunchpadError::NotProposed
    );
    global.admin = ctx.accounts.new_admin.key();
    global.pending_admin = None;
    Ok(())
}
