//! `initialize`: creates the global account. The signer becomes the admin.
//!
//! When the program is deployed through the upgradeable loader, only its upgrade authority may initialize
//! it (pass the program-data account), so nobody can front-run the deployer. Programs loaded any other way
//! (native test harnesses, genesis) have no program data and skip that check.

use crate::constants::GLOBAL_SEED;
use crate::errors::LaunchpadError;
use crate::state::Global;
use anchor_lang::prelude::*;
use anchor_lang::solana_program::bpf_loader_upgradeable;

#[derive(Accounts)]
pub struct Initialize<'info> {
    #[account(mut)]
    pub admin: Signer<'info>,
    #[account(init, payer = admin, space = 8 + Global::INIT_SPACE, seeds = [GLOBAL_SEED], bump)]
    pub global: Box<Account<'info, Global>>,
    /// CHECK: this program's account, read for its owner only.
    #[account(address = crate::ID)]
    pub program: UncheckedAccount<'info>,
    /// The program's program-data account, required when the program is upgradeable.
    pub program_data: Option<Account<'info, ProgramData>>,
    pub system_program: Program<'info, System>,
}

pub fn handler(ctx: Context<Initialize>, partner: Pubkey) -> Result<()> {
    let accounts = &mut *ctx.accounts;
    if *accounts.program.owner == bpf_loader_upgradeable::ID {
        let program_data = accounts
            .program_data
            .as_ref()
            .ok_or(LaunchpadError::Unauthorized)?;
        let (expected, _) =
            Pubkey::find_program_address(&[crate::ID.as_ref()], &bpf_loader_upgradeable::ID);
        require_keys_eq!(program_data.key(), expected, LaunchpadError::Unauthorized);
        require!(
            program_data.upgrade_authority_address == Some(accounts.admin.key()),
            LaunchpadError::Unauthorized
        );
    }
    accounts.global.set_inner(Global {
        admin: accounts.admin.key(),
        partner,
        bump: ctx.bumps.global,
    });
    Ok(())
}
