//! Creator fees shared among recipients, and the referral's cut of the partner's fee.
//!
//! * [`distribute`]: an amount split by basis-point shares summing to 10,000, each recipient's part rounded
//!   down, the few base units of rounding dust (fewer than the number of recipients) to the first: the parts
//!   always add up to the amount exactly, so the vault reconciles to the base unit.
//! * [`split_referral`]: a partner fee split between the referral (`floor(fee * share / 10_000)`) and the
//!   partner (the rest).
//! * [`validate_shares`]: what a recipient list must be (1 to [`MAX_FEE_RECIPIENTS`] shares, each above
//!   zero, summing to 10,000).

use crate::constants::BPS_DENOMINATOR;
use crate::error::{CurveError, Result};
use crate::math::{mul_div_u64, Rounding};
use crate::safe_math::SafeMath;

/// Most recipients one launch's creator fees may be shared among.
pub const MAX_FEE_RECIPIENTS: usize = 10;

/// The partner's fee split with a referral: `referral = floor(partner_fee * referral_share_bps / 10_000)`,
/// the partner keeps the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReferralSplit {
    pub referral: u64,
    pub partner: u64,
}

pub fn split_referral(partner_fee: u64, referral_share_bps: u16) -> Result<ReferralSplit> {
    if referral_share_bps as u64 > BPS_DENOMINATOR {
        return Err(CurveError::InvalidShare);
    }
    let referral = mul_div_u64(
        partner_fee,
        referral_share_bps as u64,
        BPS_DENOMINATOR,
        Rounding::Down,
    )?;
    Ok(ReferralSplit {
        referral,
        partner: partner_fee.safe_sub(referral)?,
    })
}

/// Checks a list of shares: 1 to [`MAX_FEE_RECIPIENTS`] entries, each above zero, summing to exactly 10,000.
pub fn validate_shares(shares_bps: &[u16]) -> Result<()> {
    if shares_bps.is_empty() || shares_bps.len() > MAX_FEE_RECIPIENTS {
        return Err(CurveError::InvalidShare);
    }
    let mut total: u64 = 0;
    for &bps in shares_bps {
        if bps == 0 {
            return Err(CurveError::InvalidShare);
        }
        total = total.safe_add(bps as u64)?;
    }
    if total != BPS_DENOMINATOR {
        return Err(CurveError::InvalidShare);
    }
    Ok(())
}

/// Splits `amount` by `shares_bps` (valid per [`validate_shares`]) into `out` (same length): each part is
/// `floor(amount * bps / 10_000)`, and the rounding dust goes to the first recipient, so the parts sum to
/// `amount` exactly.
pub fn distribute(amount: u64, shares_bps: &[u16], out: &mut [u64]) -> Result<()> {
    validate_shares(shares_bps)?;
    if out.len() != shares_bps.len() {
        return Err(CurveError::InvalidShare);
    }
    let mut paid: u64 = 0;
    for (o, &bps) in out.iter_mut().zip(shares_bps) {
        *o = mul_div_u64(amount, bps as u64, BPS_DENOMINATOR, Rounding::Down)?;
        paid = paid.safe_add(*o)?;
    }
    let dust = amount.safe_sub(paid)?;
    let first = out.first_mut().ok_or(CurveError::InvalidShare)?;
    *first = first.safe_add(dust)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_add_up_and_the_dust_goes_first() {
        let mut out = [0u64; 3];
        distribute(100, &[3_334, 3_333, 3_333], &mut out).unwrap();
        assert_eq!(out, [34, 33, 33]);
        distribute(1, &[5_000, 5_000], &mut out[..2]).unwrap();
        assert_eq!(out[..2], [1, 0]);
        distribute(u64::MAX, &[10_000], &mut out[..1]).unwrap();
        assert_eq!(out[0], u64::MAX);
    }

    #[test]
    fn bad_lists_are_refused() {
        let mut out = [0u64; 11];
        for bad in [
            &[][..],
            &[5_000, 4_999][..],
            &[10_000, 0][..],
            &[1_000; 11][..],
            &[u16::MAX, 10_000][..],
        ] {
            assert_eq!(
                distribute(10, bad, &mut out[..bad.len()]),
                Err(CurveError::InvalidShare)
            );
        }
        assert_eq!(
            distribute(10, &[10_000], &mut out[..2]),
            Err(CurveError::InvalidShare)
        );
    }

    #[test]
    fn the_referral_takes_its_share_rounded_down() {
        assert_eq!(
            split_referral(99, 2_000).unwrap(),
            ReferralSplit {
                referral: 19,
                partner: 80
            }
        );
        assert_eq!(split_referral(1, 10_001), Err(CurveError::InvalidShare));
    }
}
