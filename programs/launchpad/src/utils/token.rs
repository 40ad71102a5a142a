//! The program's token transfers: every `transfer_checked` CPI goes through here, one helper for a transfer
//! the wallet signs and one for a payment out of a pool vault, which the pool PDA signs.
//!
//! Every amount, zero included, goes to the token program, which checks the accounts either way (the AMM's
//! helper skips zero amounts; this program never did).

use crate::state::Pool;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{self, Mint, TransferChecked};

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

/// Pays `amount` out of one of `pool`'s vaults, signed by the pool PDA (`["pool", base_mint, bump]`).
pub fn transfer_from_pool<'info>(
    pool: &Account<'info, Pool>,
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

fn transfer_checked<'info>(
    token_program: AccountInfo<'info>,
    mint: &InterfaceAccount<'info, Mint>,
    from: AccountInfo<'info>,
    to: AccountInfo<'info>,
    authority: AccountInfo<'info>,
    signer: &[&[&[u8]]],
    amount: u64,
) -> Result<()> {
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
