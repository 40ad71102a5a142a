//! What a recipient of shared creator fees can claim now, computed as the program would credit it: its
//! credited balance, plus its part (by [`curve::distribute`]) of the creator fees the pool still holds and of
//! the locked creator position's uncollected AMM fees.

use crate::accounts::{FeeShares, Pool};
use anchor_lang::prelude::Pubkey;

/// A recipient's claim now, base units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShareClaim {
    /// Its share now, bps (0: a former recipient with a balance left).
    pub bps: u16,
    pub quote: u64,
    pub base: u64,
}

/// `wallet`'s part of `amount` under `shares` (0 when it holds no share now).
fn part_of(shares: &FeeShares, wallet: &Pubkey, amount: u64) -> u64 {
    let used = &shares.slots[..(shares.count as usize).min(shares.slots.len())];
    let active: Vec<&launchpad::FeeShare> = used.iter().filter(|s| s.bps > 0).collect();
    let bps: Vec<u16> = active.iter().map(|s| s.bps).collect();
    let mut parts = vec![0u64; bps.len()];
    if curve::distribute(amount, &bps, &mut parts).is_err() {
        return 0;
    }
    active
        .iter()
        .zip(parts)
        .find(|(s, _)| s.wallet == *wallet)
        .map_or(0, |(_, p)| p)
}

/// What `wallet` claims from `shares` now, given the pool and the creator position's uncollected fees
/// (`lp_owed`: tokens, quote). `None` when it is no recipient.
pub fn claimable(
    shares: &FeeShares,
    pool: &Pool,
    lp_owed: (u64, u64),
    wallet: &Pubkey,
) -> Option<ShareClaim> {
    let used = &shares.slots[..(shares.count as usize).min(shares.slots.len())];
    let slot = used.iter().find(|s| s.wallet == *wallet)?;
    let quote = slot
        .quote_unclaimed
        .saturating_add(part_of(shares, wallet, pool.creator_fee_unclaimed))
        .saturating_add(part_of(shares, wallet, lp_owed.1));
    let base = slot
        .base_unclaimed
        .saturating_add(part_of(shares, wallet, lp_owed.0));
    Some(ShareClaim {
        bps: slot.bps,
        quote,
        base,
    })
}

/// The recipients with a share now, in order: (wallet, bps).
pub fn recipients(shares: &FeeShares) -> Vec<(Pubkey, u16)> {
    shares.slots[..(shares.count as usize).min(shares.slots.len())]
        .iter()
        .filter(|s| s.bps > 0)
        .map(|s| (s.wallet, s.bps))
        .collect()
}
