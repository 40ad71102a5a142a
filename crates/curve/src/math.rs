//! Checked 256-bit integer helpers and the constant-product range formulas on Q64.64 square-root prices.
//!
//! Units: a price `P` is quote base units per token base unit; a square-root price `s = sqrt(P) * 2^64`
//! (Q64.64 in a `u128`). A range `[s_lo, s_hi]` with liquidity `L` holds
//!
//! * base (token) amount  `Δx = L * (s_hi - s_lo) * 2^64 / (s_lo * s_hi)`
//! * quote amount         `Δy = L * (s_hi - s_lo) / 2^64`
//!
//! Every function that divides takes a [`Rounding`]; callers pick the direction that favours the pool:
//! amounts paid out round down, amounts taken in round up.

use crate::error::{CurveError, Result};
use crate::safe_math::SafeMath;
use ruint::aliases::U256;

/// `2^64`, the Q64.64 scale.
pub const Q64: u128 = 1u128 << 64;

/// Direction of an integer division.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// Toward zero (floor for the non-negative values used here).
    Down,
    /// Toward positive infinity (ceiling).
    Up,
}

#[inline]
pub(crate) fn u256(x: u128) -> U256 {
    U256::from(x)
}

#[inline]
pub(crate) fn to_u128(x: U256) -> Result<u128> {
    u128::try_from(x).map_err(|_| CurveError::MathOverflow)
}

#[inline]
pub(crate) fn to_u64(x: u128) -> Result<u64> {
    u64::try_from(x).map_err(|_| CurveError::MathOverflow)
}

/// `num / den` rounded as asked. `den == 0` is an overflow, not a panic.
#[inline]
pub fn div(num: U256, den: U256, rounding: Rounding) -> Result<U256> {
    if den.is_zero() {
        return Err(CurveError::MathOverflow);
    }
    let (q, r) = num.div_rem(den);
    match rounding {
        Rounding::Up if !r.is_zero() => q.safe_add(U256::from(1u8)),
        _ => Ok(q),
    }
}

/// `a * b / c` with a 256-bit intermediate.
#[inline]
pub fn mul_div_u128(a: u128, b: u128, c: u128, rounding: Rounding) -> Result<u128> {
    to_u128(div(u256(a).safe_mul(u256(b))?, u256(c), rounding)?)
}

/// `a * b / c` on `u64` amounts (basis-point arithmetic and the like).
#[inline]
pub fn mul_div_u64(a: u64, b: u64, c: u64, rounding: Rounding) -> Result<u64> {
    if c == 0 {
        return Err(CurveError::MathOverflow);
    }
    let p = u128::from(a).safe_mul(u128::from(b))?;
    let c = u128::from(c);
    let q = match rounding {
        Rounding::Down => p.safe_div(c)?,
        Rounding::Up => p.div_ceil(c),
    };
    to_u64(q)
}

/// Quote amount held by liquidity `l` between `s_lo` and `s_hi`:
/// `Δy = l * (s_hi - s_lo) / 2^64`, rounded as asked.
pub fn delta_quote(l: u128, s_lo: u128, s_hi: u128, rounding: Rounding) -> Result<u128> {
    let ds = s_hi.safe_sub(s_lo)?;
    to_u128(div(u256(l).safe_mul(u256(ds))?, u256(Q64), rounding)?)
}

/// Base amount held by liquidity `l` between `s_lo` and `s_hi`:
/// `Δx = l * (s_hi - s_lo) * 2^64 / (s_lo * s_hi)`, rounded as asked.
pub fn delta_base(l: u128, s_lo: u128, s_hi: u128, rounding: Rounding) -> Result<u128> {
    let ds = s_hi.safe_sub(s_lo)?;
    if ds == 0 {
        return Ok(0);
    }
    let num = u256(l).safe_mul(u256(ds))?.safe_mul(u256(Q64))?;
    let den = u256(s_lo).safe_mul(u256(s_hi))?;
    to_u128(div(num, den, rounding)?)
}

/// Square-root price after `quote_in` is added to liquidity `l` at `s` (price moves up):
/// `s' = s + quote_in * 2^64 / l`, rounded **down** so that the trader gets no more base than paid for.
pub fn sqrt_price_after_quote_in(s: u128, l: u128, quote_in: u128) -> Result<u128> {
    let step = to_u128(div(
        u256(quote_in).safe_mul(u256(Q64))?,
        u256(l),
        Rounding::Down,
    )?)?;
    s.safe_add(step)
}

/// Square-root price after `quote_out` is taken from liquidity `l` at `s` (price moves down):
/// `s' = s - quote_out * 2^64 / l`, the step rounded **up** so that the trader pays enough base for it.
pub fn sqrt_price_after_quote_out(s: u128, l: u128, quote_out: u128) -> Result<u128> {
    let step = to_u128(div(
        u256(quote_out).safe_mul(u256(Q64))?,
        u256(l),
        Rounding::Up,
    )?)?;
    s.checked_sub(step).ok_or(CurveError::InsufficientLiquidity)
}

/// Square-root price after `base_in` is added to liquidity `l` at `s` (price moves down):
/// `s' = l * s * 2^64 / (l * 2^64 + base_in * s)`, rounded **up** so that the trader gets no more quote
/// than the base paid for.
pub fn sqrt_price_after_base_in(s: u128, l: u128, base_in: u128) -> Result<u128> {
    let l_q = u256(l).safe_mul(u256(Q64))?;
    let num = l_q.safe_mul(u256(s))?;
    let den = l_q.safe_add(u256(base_in).safe_mul(u256(s))?)?;
    to_u128(div(num, den, Rounding::Up)?)
}

/// Square-root price after `base_out` is taken from liquidity `l` at `s` (price moves up):
/// `s' = l * s * 2^64 / (l * 2^64 - base_out * s)`, rounded **up** so that the trader pays enough quote.
pub fn sqrt_price_after_base_out(s: u128, l: u128, base_out: u128) -> Result<u128> {
    let l_q = u256(l).safe_mul(u256(Q64))?;
    let num = l_q.safe_mul(u256(s))?;
    let taken = u256(base_out).safe_mul(u256(s))?;
    let den = l_q
        .checked_sub(taken)
        .filter(|d| !d.is_zero())
        .ok_or(CurveError::InsufficientLiquidity)?;
    to_u128(div(num, den, Rounding::Up)?)
}

/// The Q64.64 square-root price at which `threshold` quote buys `migration_supply` tokens, rounded down:
/// `floor(sqrt(threshold * 2^128 / migration_supply))`. Every curve ends here: [`crate::preset`] builds
/// curves to it and [`crate::swap::Market::validate`] checks it.
pub fn migration_sqrt_price(threshold: u64, migration_supply: u64) -> Result<u128> {
    if migration_supply == 0 {
        return Err(CurveError::InvalidCurve);
    }
    // threshold * 2^128 / migration_supply = (threshold * 2^64 / migration_supply) * 2^64, kept exact by
    // doing it as one 256-bit division.
    let price_q128 = div(
        u256(u128::from(threshold)).safe_mul(u256(Q64).safe_mul(u256(Q64))?)?,
        u256(u128::from(migration_supply)),
        Rounding::Down,
    )?;
    Ok(to_u128(price_q128)?.isqrt())
}
