//! Checked arithmetic through one trait: `a.safe_add(b)?` where the long form was
//! `a.checked_add(b).ok_or(CurveError::MathOverflow)?`, as Meteora's dynamic bonding curve does it.
//!
//! Every method fails with [`CurveError::MathOverflow`] (never wraps, never panics). Each is `#[track_caller]`
//! as Meteora's are, which costs nothing: this crate has no logger (it runs in the programs, the indexer and
//! the API alike), so it returns the plain typed error and records no location. The programs name the line
//! themselves: their `or_launchpad` / `or_amm` are `#[track_caller]` and put the caller's file and line into
//! the Anchor error they log.
//!
//! A check that stands for something other than an overflow (an underflow that means the pool and the curve
//! disagree, a fee that leaves nothing) keeps its own `checked_*` and its own error.

use crate::error::{CurveError, Result};
use ruint::aliases::U256;

/// Checked `+`, `-`, `*`, `/` that fail with [`CurveError::MathOverflow`].
pub trait SafeMath: Sized {
    /// `self + rhs`.
    fn safe_add(self, rhs: Self) -> Result<Self>;
    /// `self - rhs`; a result below zero is an overflow.
    fn safe_sub(self, rhs: Self) -> Result<Self>;
    /// `self * rhs`.
    fn safe_mul(self, rhs: Self) -> Result<Self>;
    /// `self / rhs`, rounded down; `rhs == 0` is an overflow. A division that must round up says so with
    /// [`crate::math::div`].
    fn safe_div(self, rhs: Self) -> Result<Self>;
}

macro_rules! impl_safe_math {
    ($($t:ty),+) => {$(
        impl SafeMath for $t {
            #[inline]
            #[track_caller]
            fn safe_add(self, rhs: Self) -> Result<Self> {
                self.checked_add(rhs).ok_or(CurveError::MathOverflow)
            }

            #[inline]
            #[track_caller]
            fn safe_sub(self, rhs: Self) -> Result<Self> {
                self.checked_sub(rhs).ok_or(CurveError::MathOverflow)
            }

            #[inline]
            #[track_caller]
            fn safe_mul(self, rhs: Self) -> Result<Self> {
                self.checked_mul(rhs).ok_or(CurveError::MathOverflow)
            }

            #[inline]
            #[track_caller]
            fn safe_div(self, rhs: Self) -> Result<Self> {
                self.checked_div(rhs).ok_or(CurveError::MathOverflow)
            }
        }
    )+};
}

impl_safe_math!(u64, u128, U256);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_reports_overflow_instead_of_wrapping() {
        assert_eq!(u64::MAX.safe_add(1), Err(CurveError::MathOverflow));
        assert_eq!(0u64.safe_sub(1), Err(CurveError::MathOverflow));
        assert_eq!(u128::MAX.safe_mul(2), Err(CurveError::MathOverflow));
        assert_eq!(1u128.safe_div(0), Err(CurveError::MathOverflow));
        assert_eq!(
            U256::MAX.safe_add(U256::from(1u8)),
            Err(CurveError::MathOverflow)
        );
        assert_eq!(
            U256::ZERO.safe_div(U256::ZERO),
            Err(CurveError::MathOverflow)
        );
        assert_eq!(7u64.safe_add(5), Ok(12));
        assert_eq!(7u64.safe_sub(5), Ok(2));
        assert_eq!(7u128.safe_mul(5), Ok(35));
        assert_eq!(7u128.safe_div(2), Ok(3));
        assert_eq!(
            U256::from(6u8).safe_mul(U256::from(7u8)),
            Ok(U256::from(42u8))
        );
    }
}
