//! `sync_config_partner`: copies the global partner into a config, after a partner handover. Permissionless:
//! it can only ever apply what the admin proposed and the new partner accepted.
//!
//! From then on the config's pools pay the new partner its share of trading fees (unclaimed ones included),
//! surplus, and the AMM fees of every partner position (they belong to the pools, and the partner of the
//! config claims them), of pools that migrated earlier too.

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
