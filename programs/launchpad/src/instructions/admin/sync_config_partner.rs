//! `sync_config_partner`: copies the global partner into a config, after a partner handover. Permissionless:
//! it can only ever apply what the admin proposed and the new partner accepted.
//!
//! From then on the config's pools pay the new partner its share of trading fees (unclaimed ones included) and
//! surplus, and migrations give it the partner's locked position. Pools that migrated earlier keep their locked
//! position under the key that received it (`Pool::locked_partner`), which alone claims its AMM fees.

use crate::constants::GLOBAL_SEED;
use crate::state::{Config, Global};
use anchor_lang::prelude::*;

#[derive(Accounts)]
pub struct SyncConfigPartner<'info> {
    #[account(seeds = [GLOBAL_SEED], bump = global.bump)]
    pub global: Box<Account<'info, Global>>,
    #[account(mut)]
    pub config: Box<Account<'info, Config>>,
}

pub fn handler(ctx: Context<SyncConfigPartner>) -> Result<()> {
    ctx.accounts.config.partner = ctx.accounts.global.partner;
    Ok(())
}
