//! `initialize`: creates the global account. The signer becomes the admin; it names the partner and pins the
//! USDC quote mint (the SOL quote mint is always the classic token program's wrapped-SOL mint).
//!
//! Only the program's deployer may initialize it, so nobody can front-run the deployment and become admin:
//! * deployed through the upgradeable loader (`solana program deploy`, `anchor deploy`): the signer must be the
//!   upgrade authority recorded in the program's program-data account, which is passed as `program_data`;
//! * loaded any other way (a non-upgradeable loader, genesis): the signer must be
//!   [`crate::INITIALIZE_AUTHORITY`], a key fixed at build time. It is `None` by default, so such a deployment
//!   cannot be initialized until it is rebuilt with that constant set.

use crate::constants::{GLOBAL_SEED, NATIVE_MINT};
use crate::errors::LaunchpadError;
use crate::state::Global;
use anchor_lang::prelude::*;
use anchor_lang::solana_program::bpf_loader_upgradeable::{self, UpgradeableLoaderState};
use anchor_spl::token::{Mint, Token};
use curve::QuoteAsset;

#[derive(Accounts)]
pub struct Initialize<'info> {
    #[account(mut)]
    pub admin: Signer<'info>,
    #[account(init, payer = admin, space = 8 + Global::INIT_SPACE, seeds = [GLOBAL_SEED], bump)]
    pub global: Box<Account<'info, Global>>,
    /// CHECK: this program's account, read for its loader and its program-data address.
    #[account(address = crate::ID)]
    pub program: UncheckedAccount<'info>,
    /// The program's program-data account, required when the program is upgradeable.
    pub program_data: Option<Account<'info, ProgramData>>,
    /// The USDC mint every USDC config will use: a classic SPL Token mint with 6 decimals.
    #[account(mint::token_program = token_program)]
    pub usdc_mint: Box<Account<'info, Mint>>,
    pub token_program: Program<'info, Token>,
    pub system_program: Program<'info, System>,
}

/// Checks that `admin` may initialize the program loaded as `program`.
fn check_authority(
    program: &AccountInfo,
    program_data: Option<&Account<ProgramData>>,
    admin: &Pubkey,
) -> Result<()> {
    if *program.owner != bpf_loader_upgradeable::ID {
        require!(
            crate::INITIALIZE_AUTHORITY == Some(*admin),
            LaunchpadError::NotUpgradeAuthority
        );
        return Ok(());
    }
    let state = {
        let data = program.try_borrow_data()?;
        UpgradeableLoaderState::try_deserialize(&mut &data[..])?
    };
    let UpgradeableLoaderState::Program {
        programdata_address,
    } = state
    else {
        return err!(LaunchpadError::InvalidProgramData);
    };
    let program_data = program_data.ok_or(LaunchpadError::InvalidProgramData)?;
    require_keys_eq!(
        program_data.key(),
        programdata_address,
        LaunchpadError::InvalidProgramData
    );
    require!(
        program_data.upgrade_authority_address == Some(*admin),
        LaunchpadError::NotUpgradeAuthority
    );
    Ok(())
}

pub fn handler(ctx: Context<Initialize>, partner: Pubkey) -> Result<()> {
    let accounts = &mut *ctx.accounts;
    let admin = accounts.admin.key();
    check_authority(
        &accounts.program.to_account_info(),
        accounts.program_data.as_ref(),
        &admin,
    )?;
    require!(
        accounts.usdc_mint.decimals == QuoteAsset::Usdc.decimals()
            && accounts.usdc_mint.key() != NATIVE_MINT,
        LaunchpadError::InvalidQuoteMint
    );
    accounts.global.set_inner(Global {
        admin,
        partner,
        bump: ctx.bumps.global,
        sol_mint: NATIVE_MINT,
        usdc_mint: accounts.usdc_mint.key(),
        pending_admin: None,
        pending_partner: None,
    });
    Ok(())
}
