//! `set_config_disabled`: the admin stops (or resumes) new launches on a config. Only `create_launch` reads
//! the flag: pools already launched keep trading, graduating, migrating and paying claims.

use crate::constants::GLOBAL_SEED;
use crate::errors::LaunchpadError;
use crate::state::{Config, Global};
use anchor_lang::prelude::*;

#[derive(Accounts)]
pub struct SetConfigDisabled<'info> {
    pub admin: Signer<'info>,
    #[account(seeds = [GLOBAL_SEED], bump = global.bump, has_one = admin @ LaunchpadError::Unauthorized)]
    pub global: Box<Account<'info, Global>>,
    #[account(mut)]
    pub config: Box<Account<'info, Config>>,
}

pub fn handler(ctx: Context<SetConfigDisabled>, disabled: bool) -> Result<()> {
    ctx.accounts.config.disabled = disabled;
    Ok(())
}
