//! Collecting a locked position's AMM fees: the positions belong to the launch's pool PDA, which signs the
//! AMM's `claim_position_fee` here and nowhere else.

use crate::state::Pool;
use amm::cpi::accounts as amm_accounts;
use anchor_lang::prelude::*;

/// The AMM accounts of one collection, in the AMM's order; `to_a` and `to_b` receive the fees.
pub struct Collect<'a, 'info> {
    pub amm_program: &'a AccountInfo<'info>,
    pub amm_pool: &'a AccountInfo<'info>,
    pub position: &'a AccountInfo<'info>,
    pub mint_a: &'a AccountInfo<'info>,
    pub mint_b: &'a AccountInfo<'info>,
    pub vault_a: &'a AccountInfo<'info>,
    pub vault_b: &'a AccountInfo<'info>,
    pub to_a: &'a AccountInfo<'info>,
    pub to_b: &'a AccountInfo<'info>,
    pub token_program_a: &'a AccountInfo<'info>,
    pub token_program_b: &'a AccountInfo<'info>,
    pub amm_event_authority: &'a AccountInfo<'info>,
}

/// Pays the position's unclaimed AMM fees into `to_a` and `to_b`, signed by `pool`.
pub fn collect_position_fees<'info>(
    pool: &Account<'info, Pool>,
    c: Collect<'_, 'info>,
) -> Result<()> {
    let bump = [pool.bump];
    let seeds = pool.signer_seeds(&bump);
    amm::cpi::claim_position_fee(CpiContext::new_with_signer(
        c.amm_program.key(),
        amm_accounts::ClaimPositionFee {
            owner: pool.to_account_info(),
            pool: c.amm_pool.clone(),
            position: c.position.clone(),
            mint_a: c.mint_a.clone(),
            mint_b: c.mint_b.clone(),
            vault_a: c.vault_a.clone(),
            vault_b: c.vault_b.clone(),
            owner_a: c.to_a.clone(),
            owner_b: c.to_b.clone(),
            token_program_a: c.token_program_a.clone(),
            token_program_b: c.token_program_b.clone(),
            event_authority: c.amm_event_authority.clone(),
            program: c.amm_program.clone(),
        },
        &[&seeds],
    ))
}
