//! A bonding curve: a start square-root price and up to [`MAX_SEGMENTS`] constant-product ranges laid end to end.
//!
//! Segment `i` spans `[s_{i-1}, s_i]` (with `s_{-1}` the start price) and holds liquidity `L_i`. Buying moves
//! the price up through the segments, selling moves it down. Traversal functions work on net amounts (fees are
//! handled in [`crate::swap`]) and round every step in the pool's favour, so that for any path of trades the
//! pool holds at least as much quote, and has paid out at most as much base, as the exact curve says.

use crate::error::{CurveError, Result};
use crate::math::{
    delta_base, delta_quote, sqrt_price_after_base_in, sqrt_price_after_base_out,
    sqrt_price_after_quote_in, sqrt_price_after_quote_out, Rounding,
};
use crate::safe_math::SafeMath;

/// Most segments a curve may have.
pub const MAX_SEGMENTS: usize = 16;
/// Lowest square-root price a curve may use (Q64.64; a price of about 2.3e-10 quote units per base unit).
pub const MIN_SQRT_PRICE: u128 = 1 << 32;
/// Highest square-root price a curve may use (Q64.64; a price of 2^64 quote units per base unit).
pub const MAX_SQRT_PRICE: u128 = 1 << 96;
/// Highest liquidity a segment may hold; with [`MAX_SQRT_PRICE`] it keeps every intermediate inside 256 bits.
pub const MAX_LIQUIDITY: u128 = 1 << 96;

/// One constant-product range of a curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Segment {
    /// Q64.64 square-root price at the top of the range.
    pub sqrt_price_upper: u128,
    /// Liquidity of the range.
    pub liquidity: u128,
}

/// A curve borrowed from wherever it is stored (a program account, a database row, a preset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Curve<'a> {
    /// Q64.64 square-root price where trading starts.
    pub sqrt_start_price: u128,
    /// The ranges, in increasing price order.
    pub segments: &'a [Segment],
}

/// What a traversal did: how far the price moved and the amounts it moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fill {
    /// Square-root price after the trade.
    pub sqrt_price: u128,
    /// Amount taken from the trader (net of fees).
    pub amount_in: u128,
    /// Amount given to the trader (before fees).
    pub amount_out: u128,
}

impl<'a> Curve<'a> {
    /// Q64.64 square-root price where the curve ends (the migration price).
    pub fn sqrt_end_price(&self) -> u128 {
        self.segments
            .last()
            .map_or(self.sqrt_start_price, |s| s.sqrt_price_upper)
    }

    /// Lower bound of segment `i`.
    fn lower(&self, i: usize) -> u128 {
        match i.checked_sub(1) {
            None => self.sqrt_start_price,
            Some(prev) => self.segments[prev].sqrt_price_upper,
        }
    }

    /// Checks the shape: 1..=16 segments, strictly increasing prices inside the allowed band, positive
    /// bounded liquidity.
    pub fn validate(&self) -> Result<()> {
        if self.segments.is_empty() || self.segments.len() > MAX_SEGMENTS {
            return Err(CurveError::InvalidCurve);
        }
        if self.sqrt_start_price < MIN_SQRT_PRICE {
            return Err(CurveError::InvalidCurve);
        }
        let mut prev = self.sqrt_start_price;
        for seg in self.segments {
            if seg.sqrt_price_upper <= prev || seg.sqrt_price_upper > MAX_SQRT_PRICE {
                return Err(CurveError::InvalidCurve);
            }
            if seg.liquidity == 0 || seg.liquidity > MAX_LIQUIDITY {
                return Err(CurveError::InvalidCurve);
            }
            prev = seg.sqrt_price_upper;
        }
        Ok(())
    }

    /// Base amount the whole curve sells, rounded as asked.
    pub fn total_base(&self, rounding: Rounding) -> Result<u128> {
        self.base_between(self.sqrt_start_price, self.sqrt_end_price(), rounding)
    }

    /// Quote amount the whole curve takes, rounded as asked.
    pub fn total_quote(&self, rounding: Rounding) -> Result<u128> {
        self.quote_between(self.sqrt_start_price, self.sqrt_end_price(), rounding)
    }

    /// Base held between two prices of the curve (sum of per-segment amounts, each rounded as asked).
    pub fn base_between(&self, from: u128, to: u128, rounding: Rounding) -> Result<u128> {
        self.sum_between(from, to, |l, lo, hi| delta_base(l, lo, hi, rounding))
    }

    /// Quote held between two prices of the curve (sum of per-segment amounts, each rounded as asked).
    pub fn quote_between(&self, from: u128, to: u128, rounding: Rounding) -> Result<u128> {
        self.sum_between(from, to, |l, lo, hi| delta_quote(l, lo, hi, rounding))
    }

    fn sum_between(
        &self,
        from: u128,
        to: u128,
        f: impl Fn(u128, u128, u128) -> Result<u128>,
    ) -> Result<u128> {
        let mut total: u128 = 0;
        for (i, seg) in self.segments.iter().enumerate() {
            let lo = self.lower(i).max(from);
            let hi = seg.sqrt_price_upper.min(to);
            if hi > lo {
                total = total.safe_add(f(seg.liquidity, lo, hi)?)?;
            }
        }
        Ok(total)
    }

    /// Index of the segment a buy at `s` trades in: the first whose top is above `s`.
    fn segment_up(&self, s: u128) -> Option<usize> {
        self.segments
            .iter()
            .position(|seg| seg.sqrt_price_upper > s)
    }

    /// Index of the segment a sell at `s` trades in: the last whose bottom is below `s`.
    fn segment_down(&self, s: u128) -> Option<usize> {
        (0..self.segments.len()).rev().find(|&i| self.lower(i) < s)
    }

    fn check_price(&self, s: u128) -> Result<()> {
        if s < self.sqrt_start_price || s > self.sqrt_end_price() {
            return Err(CurveError::InconsistentState);
        }
        Ok(())
    }

    /// Buy with `quote_in` (net of fee) from price `s`. Consumes all of `quote_in` unless the curve's end is
    /// reached first, in which case `amount_in` says how much was used. Base out rounds down, the price step
    /// rounds down, and crossing a boundary costs the rounded-up quote of the range.
    pub fn buy_quote_in(&self, s: u128, quote_in: u128) -> Result<Fill> {
        self.check_price(s)?;
        let mut price = s;
        let mut remaining = quote_in;
        let mut out: u128 = 0;
        while remaining > 0 {
            let Some(i) = self.segment_up(price) else {
                break;
            };
            let seg = self.segments[i];
            let to_top = delta_quote(seg.liquidity, price, seg.sqrt_price_upper, Rounding::Up)?;
            let next = if remaining >= to_top {
                remaining = remaining.safe_sub(to_top)?;
                seg.sqrt_price_upper
            } else {
                let next = sqrt_price_after_quote_in(price, seg.liquidity, remaining)?
                    .min(seg.sqrt_price_upper);
                remaining = 0;
                next
            };
            out = out.safe_add(delta_base(seg.liquidity, price, next, Rounding::Down)?)?;
            price = next;
        }
        Ok(Fill {
            sqrt_price: price,
            amount_in: quote_in.safe_sub(remaining)?,
            amount_out: out,
        })
    }

    /// Sell `base_in` from price `s`. Fails with [`CurveError::InsufficientLiquidity`] if the curve's start
    /// is reached with base left over. Quote out rounds down, the price step rounds up, and crossing a
    /// boundary costs the rounded-up base of the range.
    pub fn sell_base_in(&self, s: u128, base_in: u128) -> Result<Fill> {
        self.check_price(s)?;
        let mut price = s;
        let mut remaining = base_in;
        let mut out: u128 = 0;
        while remaining > 0 {
            let i = self
                .segment_down(price)
                .ok_or(CurveError::InsufficientLiquidity)?;
            let seg = self.segments[i];
            let lo = self.lower(i);
            let to_bottom = delta_base(seg.liquidity, lo, price, Rounding::Up)?;
            let next = if remaining >= to_bottom {
                remaining = remaining.safe_sub(to_bottom)?;
                lo
            } else {
                let next = sqrt_price_after_base_in(price, seg.liquidity, remaining)?.max(lo);
                remaining = 0;
                next
            };
            out = out.safe_add(delta_quote(seg.liquidity, next, price, Rounding::Down)?)?;
            price = next;
        }
        Ok(Fill {
            sqrt_price: price,
            amount_in: base_in,
            amount_out: out,
        })
    }

    /// Quote (net of fee) needed to buy at least `base_out` from price `s`; rounds up.
    pub fn buy_base_out(&self, s: u128, base_out: u128) -> Result<Fill> {
        self.check_price(s)?;
        let mut price = s;
        let mut remaining = base_out;
        let mut cost: u128 = 0;
        while remaining > 0 {
            let i = self
                .segment_up(price)
                .ok_or(CurveError::InsufficientLiquidity)?;
            let seg = self.segments[i];
            let in_range = delta_base(seg.liquidity, price, seg.sqrt_price_upper, Rounding::Down)?;
            let next = if remaining > in_range {
                remaining = remaining.safe_sub(in_range)?;
                seg.sqrt_price_upper
            } else {
                let next = sqrt_price_after_base_out(price, seg.liquidity, remaining)?
                    .min(seg.sqrt_price_upper);
                remaining = 0;
                next
            };
            cost = cost.safe_add(delta_quote(seg.liquidity, price, next, Rounding::Up)?)?;
            price = next;
        }
        Ok(Fill {
            sqrt_price: price,
            amount_in: cost,
            amount_out: base_out,
        })
    }

    /// Base needed to sell for at least `quote_out` (before fee) from price `s`; rounds up.
    pub fn sell_quote_out(&self, s: u128, quote_out: u128) -> Result<Fill> {
        self.check_price(s)?;
        let mut price = s;
        let mut remaining = quote_out;
        let mut cost: u128 = 0;
        while remaining > 0 {
            let i = self
                .segment_down(price)
                .ok_or(CurveError::InsufficientLiquidity)?;
            let seg = self.segments[i];
            let lo = self.lower(i);
            let in_range = delta_quote(seg.liquidity, lo, price, Rounding::Down)?;
            let next = if remaining > in_range {
                remaining = remaining.safe_sub(in_range)?;
                lo
            } else {
                let next = sqrt_price_after_quote_out(price, seg.liquidity, remaining)?.max(lo);
                remaining = 0;
                next
            };
            cost = cost.safe_add(delta_base(seg.liquidity, next, price, Rounding::Up)?)?;
            price = next;
        }
        Ok(Fill {
            sqrt_price: price,
            amount_in: cost,
            amount_out: quote_out,
        })
    }
}
