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
