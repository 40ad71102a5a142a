//! Trading fees, taken in the quote token.
//!
//! A schedule is a cliff fee that falls linearly by a fixed step per period after launch, down to its final
//! fee after `number_of_periods` periods. A fixed fee is the schedule with no periods. Fees round **up**
//! (the pool never undercharges); the creator's share of a fee rounds **down** and the partner gets the rest.

use crate::constants::{BPS_DENOMINATOR, MAX_FEE_BPS, MIN_FEE_BPS};
use crate::error::{CurveError, Result};
use crate::math::{mul_div_u64, Rounding};
use crate::safe_math::SafeMath;

/// A fee that starts at `cliff_fee_bps` and falls by `reduction_bps_per_period` every `period_seconds`
/// after launch, `number_of_periods` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FeeSchedule {
    /// Fee in the first period, in basis points.
    pub cliff_fee_bps: u16,
    /// How much the fee falls at the start of each new period, in basis points.
    pub reduction_bps_per_period: u16,
    /// Length of one period, in seconds.
    pub period_seconds: u32,
    /// How many times the fee falls.
    pub number_of_periods: u16,
}

impl FeeSchedule {
    /// A fee that never changes.
    pub const fn fixed(fee_bps: u16) -> Self {
        FeeSchedule {
            cliff_fee_bps: fee_bps,
            reduction_bps_per_period: 0,
            period_seconds: 0,
            number_of_periods: 0,
        }
    }

    /// Checks that every fee the schedule can charge lies in `[MIN_FEE_BPS, MAX_FEE_BPS]` and that a
    /// decaying schedule has a positive period.
    pub fn validate(&self) -> Result<()> {
        if self.cliff_fee_bps > MAX_FEE_BPS {
            return Err(CurveError::InvalidFee);
        }
        let decays = self.number_of_periods > 0 && self.reduction_bps_per_period > 0;
        if decays && self.period_seconds == 0 {
            return Err(CurveError::InvalidFee);
        }
        let total_reduction = u32::from(self.reduction_bps_per_period)
            .saturating_mul(u32::from(self.number_of_periods));
        if total_reduction > self.cliff_fee_bps as u32 {
            return Err(CurveError::InvalidFee);
        }
        if self.final_fee_bps() < MIN_FEE_BPS {
            return Err(CurveError::InvalidFee);
        }
        Ok(())
    }

    /// The fee once every period has passed.
    pub fn final_fee_bps(&self) -> u16 {
        self.fee_after_periods(self.number_of_periods as u64)
    }

    fn fee_after_periods(&self, periods: u64) -> u16 {
        let periods = periods.min(self.number_of_periods as u64);
        let reduction = periods.saturating_mul(u64::from(self.reduction_bps_per_period));
        (self.cliff_fee_bps as u64).saturating_sub(reduction) as u16
    }

    /// The fee in force `elapsed_seconds` after launch: `cliff - min(elapsed / period, n) * reduction`
    /// (the period index rounds down). A negative elapsed time (a clock behind the launch) is the cliff.
    pub fn fee_bps_at(&self, elapsed_seconds: i64) -> u16 {
        if self.period_seconds == 0 || elapsed_seconds <= 0 {
            return if self.period_seconds == 0 {
                self.final_fee_bps()
            } else {
                self.cliff_fee_bps
            };
        }
        let periods = u64::try_from(elapsed_seconds)
            .unwrap_or(0)
            .checked_div(u64::from(self.period_seconds))
            .unwrap_or(0);
        self.fee_after_periods(periods)
    }

    /// When the fee in force `elapsed_seconds` after launch next steps down, in seconds after launch; `None`
    /// when it never changes again. The fee only ever falls, so a swap that lands later than it was
    /// priced pays at most the priced fee.
    pub fn next_change_after(&self, elapsed_seconds: i64) -> Option<i64> {
        let decays = self.period_seconds > 0
            && self.number_of_periods > 0
            && self.reduction_bps_per_period > 0;
        if !decays {
            return None;
        }
        let period = i64::from(self.period_seconds);
        let periods = elapsed_seconds.max(0).checked_div(period)?;
        (periods < i64::from(self.number_of_periods))
            .then(|| periods.checked_add(1)?.checked_mul(period))
            .flatten()
    }
}

/// Fee charged on `amount` at `fee_bps`: `ceil(amount * fee_bps / 10_000)`.
pub fn fee_on_amount(amount: u64, fee_bps: u16) -> Result<u64> {
    mul_div_u64(amount, fee_bps as u64, BPS_DENOMINATOR, Rounding::Up)
}

/// Smallest gross amount whose net after the fee covers `net`:
/// `gross = ceil(net * 10_000 / (10_000 - fee_bps))`, so that `gross - net >= gross * fee_bps / 10_000`.
pub fn gross_for_net(net: u64, fee_bps: u16) -> Result<u64> {
    let keep = BPS_DENOMINATOR
        .checked_sub(fee_bps as u64)
        .filter(|k| *k > 0)
        .ok_or(CurveError::InvalidFee)?;
    mul_div_u64(net, BPS_DENOMINATOR, keep, Rounding::Up)
}

/// How a fee is split: the creator gets `floor(fee * creator_share_bps / 10_000)`, the partner the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeSplit {
    pub creator: u64,
    pub partner: u64,
}

pub fn split_fee(fee: u64, creator_share_bps: u16) -> Result<FeeSplit> {
    if creator_share_bps as u64 > BPS_DENOMINATOR {
        return Err(CurveError::InvalidShare);
    }
    let creator = mul_div_u64(
        fee,
        creator_share_bps as u64,
        BPS_DENOMINATOR,
        Rounding::Down,
    )?;
    Ok(FeeSplit {
        creator,
        partner: fee.safe_sub(creator)?,
    })
}
