//! `propose_partner`: the admin names a new partner. Nothing changes until the new partner accepts; a new
//! proposal replaces the pending one.

use crate::constants::GLOBAL_SEED;
use crate::errors::LaunchpadError;
use crate::state::Global;
use anchor_lang::prelude::*;

#[derive(Accounts)]
pub struct ProposePartner<'info> {
    pub admin: Signer<'info>,
    #[account(mut, seeds = [GLOBAL_SEED], bump = global.bump, has_one = admin @ LaunchpadError::Unauthorized)]
    pub global: Box<Account<'info, Global>>,
}

pub fn handler(ctx: Context<ProposePartner>, new_partner: Pubkey) -> Result<()> {
    ctx.accounts.global.pending_partner = Some(new_partner);
    Ok(())
}
