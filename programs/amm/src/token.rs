//! Token moves shared by the instructions.

use anchor_lang::prelude::*;
use anchor_spl::token_interface::{self, Mint, TransferChecked};

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
