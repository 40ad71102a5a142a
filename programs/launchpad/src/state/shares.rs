use crate::errors::{CurveResultExt, LaunchpadError};
use anchor_lang::prelude::*;
use curve::{SafeMath, MAX_FEE_RECIPIENTS};

/// Slots of a [`FeeShares`] account: up to [`MAX_FEE_RECIPIENTS`] recipients with a share now, and former
/// recipients (share 0) that still have something to claim.
pub const FEE_SHARE_SLOTS: usize = 16;

/// One recipient of a launch's shared creator fees.
#[derive(
    AnchorSerialize, AnchorDeserialize, Clone, Copy, Default, InitSpace, Debug, PartialEq, Eq,
)]
pub struct FeeShare {
    pub wallet: Pubkey,
    /// Share of the creator's fees from now on, in basis points (0: a former recipient with a balance).
    pub bps: u16,
    /// Quote credited and not yet claimed (bonding-phase creator fees, the locked position's quote fees).
    pub quote_unclaimed: u64,
    /// Tokens credited and not yet claimed (the locked position's token fees).
    pub base_unclaimed: u64,
    pub quote_claimed: u64,
    pub base_claimed: u64,
}

/// A wallet and its share, as `set_fee_shares` takes them.
#[derive(AnchorSerialize, AnchorDeserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeeRecipient {
    pub wallet: Pubkey,
    pub bps: u16,
}

/// How one launch's creator fees are shared (`["fee_shares", pool]`), once its creator role has set shares.
///
/// Creator fees still accrue on the pool (`creator_fee_unclaimed`) at every trade; they are credited to the
/// recipients by their shares whenever shares change or anyone claims, and the locked creator position's AMM
/// fees when they are collected (`share_locked_lp_fee`). Every credit is split exactly
/// ([`curve::distribute`]: each share rounded down, the dust to the first recipient listed). The pool's
/// vaults hold every recipient's unclaimed balance.
#[account]
#[derive(InitSpace, Debug, PartialEq, Eq)]
pub struct FeeShares {
    pub pool: Pubkey,
    /// Final: the shares can no longer change.
    pub locked: bool,
    /// Slots in use, recipients with a share first in the order they were set.
    pub count: u8,
    pub slots: [FeeShare; FEE_SHARE_SLOTS],
    pub bump: u8,
}

impl FeeShares {
    fn used(&self) -> &[FeeShare] {
        &self.slots[..(self.count as usize).min(FEE_SHARE_SLOTS)]
    }

    /// The slot of `wallet`, if it is or was a recipient.
    pub fn slot_of(&mut self, wallet: &Pubkey) -> Option<&mut FeeShare> {
        let n = (self.count as usize).min(FEE_SHARE_SLOTS);
        self.slots[..n].iter_mut().find(|s| s.wallet == *wallet)
    }

    /// Credits `amount` of quote (or of tokens, `base`) to the recipients by their shares, exactly.
    pub fn credit(&mut self, amount: u64, base: bool) -> Result<()> {
        if amount == 0 {
            return Ok(());
        }
        let mut bps = [0u16; MAX_FEE_RECIPIENTS];
        let mut idx = [0usize; MAX_FEE_RECIPIENTS];
        let mut n = 0usize;
        for (i, s) in self.used().iter().enumerate() {
            if s.bps > 0 && n < MAX_FEE_RECIPIENTS {
                bps[n] = s.bps;
                idx[n] = i;
                n += 1;
            }
        }
        let mut parts = [0u64; MAX_FEE_RECIPIENTS];
        curve::distribute(amount, &bps[..n], &mut parts[..n]).or_launchpad()?;
        for (&i, &part) in idx[..n].iter().zip(&parts[..n]) {
            let slot = &mut self.slots[i];
            if base {
                slot.base_unclaimed = slot.base_unclaimed.safe_add(part).or_launchpad()?;
            } else {
                slot.quote_unclaimed = slot.quote_unclaimed.safe_add(part).or_launchpad()?;
            }
        }
        Ok(())
    }

    /// Replaces the shares with `recipients` (checked: 1 to 10, distinct wallets, none the default key,
    /// shares above zero summing to 10,000). Balances carry over; a former recipient with a balance keeps its
    /// slot at share 0 until it claims, and one with nothing left (claimed, or paid out by `set_fee_shares`
    /// just before) is dropped. `FeeSharesFull` when the slots cannot hold them all.
    pub fn replace(&mut self, recipients: &[FeeRecipient]) -> Result<()> {
        let mut bps = [0u16; MAX_FEE_RECIPIENTS];
        require!(
            !recipients.is_empty() && recipients.len() <= MAX_FEE_RECIPIENTS,
            LaunchpadError::InvalidFeeShares
        );
        for (i, r) in recipients.iter().enumerate() {
            require!(
                r.wallet != Pubkey::default()
                    && !recipients[..i].iter().any(|o| o.wallet == r.wallet),
                LaunchpadError::InvalidFeeShares
            );
            bps[i] = r.bps;
        }
        curve::validate_shares(&bps[..recipients.len()])
            .map_err(|_| error!(LaunchpadError::InvalidFeeShares))?;

        let old = self.slots;
        let old_used = &old[..(self.count as usize).min(FEE_SHARE_SLOTS)];
        let mut next = [FeeShare::default(); FEE_SHARE_SLOTS];
        let mut n = 0usize;
        for r in recipients {
            let carried = old_used.iter().find(|s| s.wallet == r.wallet);
            next[n] = FeeShare {
                wallet: r.wallet,
                bps: r.bps,
                ..carried.copied().unwrap_or_default()
            };
            n += 1;
        }
        for s in old_used {
            let kept = recipients.iter().any(|r| r.wallet == s.wallet);
            if kept || (s.quote_unclaimed == 0 && s.base_unclaimed == 0) {
                continue;
            }
            require!(n < FEE_SHARE_SLOTS, LaunchpadError::FeeSharesFull);
            next[n] = FeeShare { bps: 0, ..*s };
            n += 1;
        }
        self.slots = next;
        self.count = n as u8;
        Ok(())
    }
}
