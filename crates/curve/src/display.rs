//! Integer-only decimal formatting, for tables and API fields that show human amounts and prices.

// Formatting for humans; not a money path.
#![allow(clippy::arithmetic_side_effects)]

use crate::error::Result;
use crate::math::{div, u256, Rounding, Q64};
use crate::safe_math::SafeMath;
use ruint::aliases::U256;

/// `num / den` as a decimal string with exactly `frac_digits` digits after the point, rounded to nearest
/// (half up). For display only; money paths never round to nearest.
pub fn ratio_to_decimal(num: U256, den: U256, frac_digits: u32) -> Result<String> {
    let scale = U256::from(10u8).pow(U256::from(frac_digits));
    let two = U256::from(2u8);
    let twice = div(num.safe_mul(scale)?.safe_mul(two)?, den, Rounding::Down)?;
    let scaled = div(twice.saturating_add(U256::from(1u8)), two, Rounding::Down)?;
    let (int, frac) = scaled.div_rem(scale);
    if frac_digits == 0 {
        return Ok(int.to_string());
    }
    Ok(format!(
        "{int}.{:0>width$}",
        frac.to_string(),
        width = frac_digits as usize
    ))
}

/// A base-unit amount with `decimals` decimals, in whole units (`1500000`, 6 -> `"1.500000"`).
pub fn amount_to_decimal(amount: u64, decimals: u8) -> String {
    let scale = 10u64.pow(decimals as u32);
    if decimals == 0 {
        return amount.to_string();
    }
    format!(
        "{}.{:0>width$}",
        amount / scale,
        amount % scale,
        width = decimals as usize
    )
}

/// The price of a Q64.64 square-root price in whole quote per whole token:
/// `s^2 / 2^128 * 10^(token_decimals - quote_decimals)`, with `frac_digits` digits, rounded to nearest.
pub fn sqrt_price_to_decimal(
    sqrt_price: u128,
    token_decimals: u8,
    quote_decimals: u8,
    frac_digits: u32,
) -> Result<String> {
    let sq = u256(sqrt_price).safe_mul(u256(sqrt_price))?;
    let q128 = u256(Q64).safe_mul(u256(Q64))?;
    let (num, den) = if token_decimals >= quote_decimals {
        let f = U256::from(10u8).pow(U256::from(token_decimals - quote_decimals));
        (sq.safe_mul(f)?, q128)
    } else {
        let f = U256::from(10u8).pow(U256::from(quote_decimals - token_decimals));
        (sq, q128.safe_mul(f)?)
    };
    ratio_to_decimal(num, den, frac_digits)
}

/// The price of `base` token units bought or sold for `quote` quote units, in whole quote per whole token,
/// with `frac_digits` digits; `None` when no tokens moved.
pub fn execution_price(
    quote: u64,
    quote_decimals: u8,
    base: u64,
    base_decimals: u8,
    frac_digits: u32,
) -> Option<String> {
    if base == 0 {
        return None;
    }
    let ten = U256::from(10u8);
    let num = U256::from(quote)
        .safe_mul(ten.pow(U256::from(base_decimals)))
        .ok()?;
    let den = U256::from(base)
        .safe_mul(ten.pow(U256::from(quote_decimals)))
        .ok()?;
    ratio_to_decimal(num, den, frac_digits).ok()
}

/// Digits after the point of fixed-point prices: a fixed price is whole quote per whole token times
/// `10^PRICE_DIGITS`, rounded down (the market series and its candles compare and store prices this way).
pub const PRICE_DIGITS: u32 = 18;

/// `num / den` (quote base units per token base unit) as a fixed price, rounded down; `None` when `den` is
/// zero or the price does not fit (above about 3.4 * 10^20 whole quote per whole token).
pub fn ratio_to_fixed_price(
    num: U256,
    den: U256,
    token_decimals: u8,
    quote_decimals: u8,
) -> Option<u128> {
    let exp = i64::from(token_decimals) + i64::from(PRICE_DIGITS) - i64::from(quote_decimals);
    let ten = U256::from(10u8);
    let (m, den) = if exp >= 0 {
        (ten.checked_pow(U256::from(exp))?, den)
    } else {
        (
            U256::from(1u8),
            den.checked_mul(ten.checked_pow(U256::from(-exp))?)?,
        )
    };
    if den.is_zero() {
        return None;
    }
    // floor(num * m / den) without overflowing: the quotient and the remainder separately.
    let (q, r) = num.div_rem(den);
    let v = q.checked_mul(m)?.checked_add(r.checked_mul(m)? / den)?;
    u128::try_from(v).ok()
}

/// The fixed price of a Q64.64 square-root price (the curve's spot price).
pub fn sqrt_price_to_fixed(
    sqrt_price: u128,
    token_decimals: u8,
    quote_decimals: u8,
) -> Option<u128> {
    let sq = u256(sqrt_price).safe_mul(u256(sqrt_price)).ok()?;
    let q128 = u256(Q64).safe_mul(u256(Q64)).ok()?;
    ratio_to_fixed_price(sq, q128, token_decimals, quote_decimals)
}

/// The fixed price of a constant-product pool's reserves (its spot price).
pub fn reserves_to_fixed(
    quote_reserve: u64,
    base_reserve: u64,
    token_decimals: u8,
    quote_decimals: u8,
) -> Option<u128> {
    ratio_to_fixed_price(
        U256::from(quote_reserve),
        U256::from(base_reserve),
        token_decimals,
        quote_decimals,
    )
}

/// What `amount` token base units are worth at a fixed `price`, in quote base units, rounded down:
/// `amount * price * 10^quote_decimals / 10^(token_decimals + PRICE_DIGITS)`. `None` if it exceeds u64.
pub fn value_at_fixed_price(
    amount: u64,
    token_decimals: u8,
    price: u128,
    quote_decimals: u8,
) -> Option<u64> {
    let ten = U256::from(10u8);
    let num = U256::from(amount)
        .checked_mul(U256::from(price))?
        .checked_mul(ten.checked_pow(U256::from(quote_decimals))?)?;
    let den = ten.checked_pow(U256::from(u32::from(token_decimals) + PRICE_DIGITS))?;
    u64::try_from(num / den).ok()
}

/// A fixed price as a decimal string with [`PRICE_DIGITS`] digits after the point.
pub fn fixed_price_to_decimal(price: u128) -> String {
    fixed_to_decimal(price, PRICE_DIGITS)
}

/// `v / 10^digits` as an exact decimal string with `digits` digits after the point (none and no point when
/// `digits` is 0): the one rendering of fixed-point numbers (prices, market caps, USD values).
pub fn fixed_to_decimal(v: u128, digits: u32) -> String {
    if digits == 0 {
        return v.to_string();
    }
    let s = format!("{v:0>width$}", width = digits as usize + 1);
    let (int, frac) = s.split_at(s.len() - digits as usize);
    format!("{int}.{frac}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execution_price_in_whole_units() {
        // 0.5 SOL (9 decimals) for 2,000,000 tokens (6 decimals): 0.00000025 SOL per token.
        assert_eq!(
            execution_price(500_000_000, 9, 2_000_000_000_000, 6, 12).as_deref(),
            Some("0.000000250000")
        );
        // 3 USDC for 2 tokens, both 6 decimals.
        assert_eq!(
            execution_price(3_000_000, 6, 2_000_000, 6, 2).as_deref(),
            Some("1.50")
        );
        assert_eq!(execution_price(1, 9, 0, 6, 2), None);
    }

    #[test]
    fn fixed_prices_are_exact_and_round_down() {
        // 0.5 SOL of reserve against 2,000,000 tokens: 0.00000025 SOL per token.
        let p = reserves_to_fixed(500_000_000, 2_000_000_000_000, 6, 9).unwrap();
        assert_eq!(fixed_price_to_decimal(p), "0.000000250000000000");
        // 1 USDC per 3 tokens rounds down at the 18th digit.
        let p = reserves_to_fixed(1_000_000, 3_000_000, 6, 6).unwrap();
        assert_eq!(fixed_price_to_decimal(p), "0.333333333333333333");
        // sqrt price 2^64 is one quote base unit per token base unit: 10^-3 SOL per token.
        let p = sqrt_price_to_fixed(Q64, 6, 9).unwrap();
        assert_eq!(fixed_price_to_decimal(p), "0.001000000000000000");
        assert_eq!(parse_decimal_u128(&fixed_price_to_decimal(p), 18), Some(p));
        assert_eq!(reserves_to_fixed(1, 0, 6, 9), None);
    }

    #[test]
    fn values_at_a_fixed_price_round_down() {
        // 2,000,000 tokens at 0.00000025 SOL each: 0.5 SOL.
        let p = reserves_to_fixed(500_000_000, 2_000_000_000_000, 6, 9).unwrap();
        assert_eq!(
            value_at_fixed_price(2_000_000_000_000, 6, p, 9),
            Some(500_000_000)
        );
        // 1 token base unit at 1/3 USDC per token: a third of a USDC base unit, rounded down to 0.
        let third = reserves_to_fixed(1_000_000, 3_000_000, 6, 6).unwrap();
        assert_eq!(value_at_fixed_price(1, 6, third, 6), Some(0));
        assert_eq!(value_at_fixed_price(3_000_000, 6, third, 6), Some(999_999));
        assert_eq!(value_at_fixed_price(u64::MAX, 6, u128::MAX, 9), None);
    }
}

/// A decimal amount in whole units (`"1.5"`) as base units with `decimals` decimals; `None` when it is not
/// a plain non-negative decimal, has more fractional digits than `decimals`, or overflows u64.
pub fn parse_decimal(s: &str, decimals: u8) -> Option<u64> {
    parse_decimal_u128(s, decimals).and_then(|v| u64::try_from(v).ok())
}

/// [`parse_decimal`] for amounts wider than `u64` (EVM tokens with 18 decimals).
pub fn parse_decimal_u128(s: &str, decimals: u8) -> Option<u128> {
    let s = s.trim();
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().all(|c| c.is_ascii_digit())
        || !frac.chars().all(|c| c.is_ascii_digit())
        || frac.len() > decimals as usize
    {
        return None;
    }
    let scale = 10u128.checked_pow(decimals as u32)?;
    let whole = if int.is_empty() {
        0
    } else {
        int.parse::<u128>().ok()?
    };
    let frac_units = if frac.is_empty() {
        0
    } else {
        let pad = 10u128.checked_pow((decimals as usize - frac.len()) as u32)?;
        frac.parse::<u128>().ok()?.checked_mul(pad)?
    };
    whole.checked_mul(scale)?.checked_add(frac_units)
}

#[cfg(test)]
mod parse_tests {
    use super::parse_decimal;

    #[test]
    fn decimals_parse_exactly() {
        assert_eq!(parse_decimal("1.5", 9), Some(1_500_000_000));
        assert_eq!(parse_decimal("0.000001", 6), Some(1));
        assert_eq!(parse_decimal("750", 6), Some(750_000_000));
        assert_eq!(parse_decimal(".5", 1), Some(5));
        assert_eq!(parse_decimal("0.0000001", 6), None);
        assert_eq!(parse_decimal("-1", 6), None);
        assert_eq!(parse_decimal("1e3", 6), None);
        assert_eq!(parse_decimal("", 6), None);
        assert_eq!(parse_decimal(".", 6), None);
        assert_eq!(parse_decimal("18446744073709551616", 0), None);
    }
}
