//! `accept_partner`: the proposed partner signs and becomes the global partner. Configs keep the partner they
//! hold until `sync_config_partner` gives them the new one.

use crate::constants::GLOBAL_SEED;
use crate::errors::LaunchpadError;
use crate::state::Global;
use anchor_lang::prelude::*;

#[derive(Accounts)]
pub struct AcceptPartner<'info> {
    pub new_partner: Signer<'info>,
    #[account(mut, seeds = [GLOBAL_SEED], bump = global.bump)]
    pub global: Box<Account<'info, Global>>,
}

pub fn handler(ctx: Context<AcceptPartner>) -> Result<()> {
    let global = &mut ctx.accounts.global;
    require!(
        global.pending_partner == Some(ctx.accounts.new_partner.key()),
        LaunchpadError::NotProposed
    );
    global.partner = ctx.accounts.new_partner.key();
    global.pending_partner = None;
    Ok(())
}
