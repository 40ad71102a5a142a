//! The AMM's token moves: every `transfer_checked` CPI goes through here (one helper for a transfer the
//! wallet signs, one for a payment out of a pool vault, which the pool PDA signs), and the check of the mints a
//! pool accepts.
//!
//! A zero amount moves nothing and makes no CPI (a withdrawal or a fee claim can be zero on one side).

use crate::errors::AmmError;
use crate::state::AmmPool;
use anchor_lang::prelude::*;
use anchor_spl::token_2022::spl_token_2022::{
    extension::{BaseStateWithExtensions, ExtensionType, StateWithExtensions},
    state::Mint as SplMint,
};
use anchor_spl::token_interface::{self, Mint, TransferChecked};

/// Token-2022 mint extensions a pool accepts: they describe the token and never touch a transfer. Every
/// other extension is refused, among them the ones that break constant-product accounting or custody (a
/// transfer fee makes the vault receive less than it credits, a transfer hook can fail or re-enter every
/// transfer, a permanent delegate can move the vault's tokens, non-transferable and default-frozen tokens
/// cannot move in or out, confidential transfers hide amounts, pausable mints can stop every transfer).
pub const ALLOWED_MINT_EXTENSIONS: &[ExtensionType] = &[
    ExtensionType::MetadataPointer,
    ExtensionType::TokenMetadata,
    ExtensionType::GroupPointer,
    ExtensionType::TokenGroup,
    ExtensionType::GroupMemberPointer,
    ExtensionType::TokenGroupMember,
];

/// Refuses a mint whose Token-2022 extensions are not all in [`ALLOWED_MINT_EXTENSIONS`]. Classic SPL Token
/// mints have no extensions.
pub fn check_mint_extensions(mint: &AccountInfo) -> Result<()> {
    if *mint.owner != anchor_spl::token_2022::ID {
        return Ok(());
    }
    let data = mint.try_borrow_data()?;
    let state = StateWithExtensions::<SplMint>::unpack(&data)?;
    let types = state.get_extension_types()?;
    require!(
        types.iter().all(|t| ALLOWED_MINT_EXTENSIONS.contains(t)),
        AmmError::UnsupportedMintExtension
    );
    Ok(())
}

/// Moves `amount` from a wallet's token account; `authority` (the wallet) signs the transaction.
pub fn transfer_from_user<'info>(
    token_program: AccountInfo<'info>,
    mint: &InterfaceAccount<'info, Mint>,
    from: AccountInfo<'info>,
    to: AccountInfo<'info>,
    authority: AccountInfo<'info>,
    amount: u64,
) -> Result<()> {
    transfer_checked(token_program, mint, from, to, authority, &[], amount)
}

/// Pays `amount` out of one of `pool`'s vaults, signed by the pool PDA.
pub fn transfer_from_pool<'info>(
    pool: &Account<'info, AmmPool>,
    token_program: AccountInfo<'info>,
    mint: &InterfaceAccount<'info, Mint>,
    vault: AccountInfo<'info>,
    to: AccountInfo<'info>,
    amount: u64,
) -> Result<()> {
    let bump = [pool.bump];
    let seeds = pool.signer_seeds(&bump);
    transfer_checked(
        token_program,
        mint,
        vault,
        to,
        pool.to_account_info(),
        &[&seeds],
        amount,
    )
}

/// Pays `amount_a` and `amount_b` out of the pool's vaults, signed by the pool.
pub fn pay_out<'info>(
    pool: &Account<'info, AmmPool>,
    (program_a, mint_a, vault_a, to_a): (
        AccountInfo<'info>,
        &InterfaceAccount<'info, Mint>,
        AccountInfo<'info>,
        AccountInfo<'info>,
    ),
    (program_b, mint_b, vault_b, to_b): (
        AccountInfo<'info>,
        &InterfaceAccount<'info, Mint>,
        AccountInfo<'info>,
        AccountInfo<'info>,
    ),
    amount_a: u64,
    amount_b: u64,
) -> Result<()> {
    transfer_from_pool(pool, program_a, mint_a, vault_a, to_a, amount_a)?;
    transfer_from_pool(pool, program_b, mint_b, vault_b, to_b, amount_b)
}

/// `transfer_checked` of `amount` (nothing when zero), signed by `signer` seeds when the authority is a PDA.
fn transfer_checked<'info>(
    token_program: AccountInfo<'info>,
    mint: &InterfaceAccount<'info, Mint>,
    from: AccountInfo<'info>,
    to: AccountInfo<'info>,
    authority: AccountInfo<'info>,
    signer: &[&[&[u8]]],
    amount: u64,
) -> Result<()> {
    if amount == 0 {
        return Ok(());
    }
    token_interface::transfer_checked(
        CpiContext::new_with_signer(
            token_program.key(),
            TransferChecked {
                from,
                mint: mint.to_account_info(),
                to,
                authority,
            },
            signer,
        ),
        amount,
        mint.decimals,
    )
}
