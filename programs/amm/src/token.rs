//! Token moves shared by the instructions.

use crate::errors::AmmError;
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

/// `transfer_checked` of `amount` (nothing when zero), signed by `signer` seeds when the authority is a PDA.
pub fn transfer<'info>(
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

/// The pool's signer seeds, with `bump` kept alive by the caller.
pub fn pool_seeds<'a>(pool: &'a crate::state::AmmPool, bump: &'a [u8; 1]) -> [&'a [u8]; 5] {
    [
        crate::constants::POOL_SEED,
        pool.creator.as_ref(),
        pool.mint_a.as_ref(),
        pool.mint_b.as_ref(),
        bump,
    ]
}

/// Pays `amount_a` and `amount_b` out of the pool's vaults, signed by the pool.
pub fn pay_out<'info>(
    pool: &Account<'info, crate::state::AmmPool>,
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
    let bump = [pool.bump];
    let seeds = pool_seeds(pool, &bump);
    let signer: &[&[&[u8]]] = &[&seeds];
    let authority = pool.to_account_info();
    transfer(
        program_a,
        mint_a,
        vault_a,
        to_a,
        authority.clone(),
        signer,
        amount_a,
    )?;
    transfer(
        program_b, mint_b, vault_b, to_b, authority, signer, amount_b,
    )
}
