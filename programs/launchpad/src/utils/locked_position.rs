//! Collecting a locked position's AMM fees: the positions belong to the launch's pool PDA, which signs the
//! AMM's `claim_position_fee` here and nowhere else.

use crate::errors::{CurveResultExt, LaunchpadError};
use crate::state::{FeeShares, Pool};
use amm::cpi::accounts as amm_accounts;
use anchor_lang::prelude::*;
use curve::amm::fees_earned;
use curve::SafeMath;

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

/// What `position` of `amm_pool` would be paid now (its owed fees plus what it earned since its checkpoint,
/// exactly as the AMM's `claim_position_fee` computes it), in (token a, token b). Both accounts must be the
/// AMM's; the caller checks their addresses.
pub fn pending_position_fees(amm_pool: &AccountInfo, position: &AccountInfo) -> Result<(u64, u64)> {
    require_keys_eq!(*amm_pool.owner, amm::ID, LaunchpadError::InvalidAmmAccount);
    require_keys_eq!(*position.owner, amm::ID, LaunchpadError::InvalidPosition);
    let pool = amm::AmmPool::try_deserialize(&mut &amm_pool.try_borrow_data()?[..])?;
    let pos = amm::Position::try_deserialize(&mut &position.try_borrow_data()?[..])?;
    let liquidity = pos
        .liquidity
        .safe_add(pos.locked_liquidity)
        .or_launchpad()?;
    let a =
        fees_earned(pool.fee_growth_a, pos.fee_growth_checkpoint_a, liquidity).or_launchpad()?;
    let b =
        fees_earned(pool.fee_growth_b, pos.fee_growth_checkpoint_b, liquidity).or_launchpad()?;
    Ok((
        pos.fees_owed_a.safe_add(a).or_launchpad()?,
        pos.fees_owed_b.safe_add(b).or_launchpad()?,
    ))
}

/// Collects a shared pool's locked creator position fees into the pool's own vaults (`c.to_a`, `c.to_b` are
/// its base and quote vaults in the AMM's order) and credits them to the recipients by the shares in force.
/// Returns (base, quote) collected; with nothing earned it collects nothing and makes no CPI.
pub fn collect_creator_fees_into_shares<'info>(
    pool: &Account<'info, Pool>,
    shares: &mut FeeShares,
    c: Collect<'_, 'info>,
    base_is_a: bool,
) -> Result<(u64, u64)> {
    require_keys_eq!(
        c.position.key(),
        crate::instructions::migrate::amm_position_address(
            &pool.amm_pool,
            &pool.key(),
            crate::instructions::migrate::CREATOR_POSITION_ID
        ),
        LaunchpadError::InvalidPosition
    );
    require_keys_eq!(
        c.amm_pool.key(),
        pool.amm_pool,
        LaunchpadError::InvalidAmmAccount
    );
    let (a, b) = pending_position_fees(c.amm_pool, c.position)?;
    if a == 0 && b == 0 {
        return Ok((0, 0));
    }
    collect_position_fees(pool, c)?;
    let (base, quote) = if base_is_a { (a, b) } else { (b, a) };
    shares.credit(base, true)?;
    shares.credit(quote, false)?;
    Ok((base, quote))
}
