//! Constant-product AMM math (the "version 2" pools graduated launches migrate into).
//!
//! A pool holds reserves `(a, b)` and `liquidity` shares. Swap fees are not added to the reserves: they are
//! taken on the input and tracked as fee growth per unit of liquidity (Q64.64), so they accrue to positions,
//! locked or not. Rounding favours the pool: amounts out and withdrawals round down, deposits and fees round
//! up, fee growth and each position's accrued fees round down (the remainder stays in the vault as dust).

use crate::constants::BPS_DENOMINATOR;
use crate::error::{CurveError, Result};
use crate::fee::fee_on_amount;
use crate::math::{div, mul_div_u128, to_u128, to_u64, u256, Rounding, Q64};
use crate::safe_math::SafeMath;

/// Highest swap fee a pool may charge (10%).
pub const MAX_SWAP_FEE_BPS: u16 = 1_000;
/// The default swap fee of a pool (0.25%).
pub const DEFAULT_SWAP_FEE_BPS: u16 = 25;

/// Liquidity minted by the first deposit: `floor(sqrt(a * b))`.
pub fn initial_liquidity(amount_a: u64, amount_b: u64) -> Result<u128> {
    let product = u128::from(amount_a).safe_mul(u128::from(amount_b))?;
    let l = product.isqrt();
    if l == 0 {
        return Err(CurveError::AmountTooSmall);
    }
    Ok(l)
}

/// Amounts to deposit for `delta` more liquidity: `ceil(reserve * delta / liquidity)` of each side.
pub fn deposit_amounts(
    reserve_a: u64,
    reserve_b: u64,
    liquidity: u128,
    delta: u128,
) -> Result<(u64, u64)> {
    if delta == 0 {
        return Err(CurveError::ZeroAmount);
    }
    let a = mul_div_u128(u128::from(reserve_a), delta, liquidity, Rounding::Up)?;
    let b = mul_div_u128(u128::from(reserve_b), delta, liquidity, Rounding::Up)?;
    Ok((to_u64(a)?, to_u64(b)?))
}

/// Amounts paid out for removing `delta` liquidity: `floor(reserve * delta / liquidity)` of each side.
pub fn withdraw_amounts(
    reserve_a: u64,
    reserve_b: u64,
    liquidity: u128,
    delta: u128,
) -> Result<(u64, u64)> {
    if delta == 0 {
        return Err(CurveError::ZeroAmount);
    }
    if delta > liquidity {
        return Err(CurveError::InsufficientLiquidity);
    }
    let a = mul_div_u128(u128::from(reserve_a), delta, liquidity, Rounding::Down)?;
    let b = mul_div_u128(u128::from(reserve_b), delta, liquidity, Rounding::Down)?;
    Ok((to_u64(a)?, to_u64(b)?))
}

/// The outcome of an exact-in AMM swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmmSwap {
    pub amount_in: u64,
    /// Fee taken from the input, in the input token.
    pub fee: u64,
    pub amount_out: u64,
    pub reserve_in_after: u64,
    pub reserve_out_after: u64,
}

/// Swap `amount_in` of the input side: `fee = ceil(amount_in * bps / 10_000)`, and of the rest
/// `out = floor(reserve_out * net / (reserve_in + net))`, so `reserve_in * reserve_out` never decreases.
pub fn swap_exact_in(
    reserve_in: u64,
    reserve_out: u64,
    amount_in: u64,
    fee_bps: u16,
) -> Result<AmmSwap> {
    if amount_in == 0 {
        return Err(CurveError::ZeroAmount);
    }
    if u64::from(fee_bps) >= BPS_DENOMINATOR {
        return Err(CurveError::InvalidFee);
    }
    if reserve_in == 0 || reserve_out == 0 {
        return Err(CurveError::InsufficientLiquidity);
    }
    let fee = fee_on_amount(amount_in, fee_bps)?;
    let net = amount_in.safe_sub(fee)?;
    let new_in = reserve_in.safe_add(net)?;
    let out = mul_div_u128(
        u128::from(reserve_out),
        u128::from(net),
        u128::from(new_in),
        Rounding::Down,
    )?;
    let out = to_u64(out)?;
    if out == 0 {
        return Err(CurveError::AmountTooSmall);
    }
    Ok(AmmSwap {
        amount_in,
        fee,
        amount_out: out,
        reserve_in_after: new_in,
        reserve_out_after: reserve_out
            .checked_sub(out)
            .ok_or(CurveError::InsufficientLiquidity)?,
    })
}

/// Swap for exactly `amount_out` of the output side: the net input is
/// `ceil(reserve_in * out / (reserve_out - out))`, the least that keeps `reserve_in * reserve_out` from
/// decreasing, and the trader pays it plus its fee ([`crate::fee::gross_for_net`]): the fee is `gross - net`,
/// never less than the exact-in fee on `gross`. Asking for the whole reserve or more is refused.
pub fn swap_exact_out(
    reserve_in: u64,
    reserve_out: u64,
    amount_out: u64,
    fee_bps: u16,
) -> Result<AmmSwap> {
    if amount_out == 0 {
        return Err(CurveError::ZeroAmount);
    }
    if u64::from(fee_bps) >= BPS_DENOMINATOR {
        return Err(CurveError::InvalidFee);
    }
    if reserve_in == 0 || amount_out >= reserve_out {
        return Err(CurveError::InsufficientLiquidity);
    }
    let left = reserve_out.safe_sub(amount_out)?;
    let net = to_u64(mul_div_u128(
        u128::from(reserve_in),
        u128::from(amount_out),
        u128::from(left),
        Rounding::Up,
    )?)?;
    let gross = crate::fee::gross_for_net(net, fee_bps)?;
    Ok(AmmSwap {
        amount_in: gross,
        fee: gross.safe_sub(net)?,
        amount_out,
        reserve_in_after: reserve_in.safe_add(net)?,
        reserve_out_after: left,
    })
}

/// Fee growth per unit of liquidity added by `fee`: `floor(fee * 2^64 / liquidity)` (Q64.64).
pub fn fee_growth_delta(fee: u64, liquidity: u128) -> Result<u128> {
    if liquidity == 0 {
        return Err(CurveError::InsufficientLiquidity);
    }
    to_u128(div(
        u256(u128::from(fee)).safe_mul(u256(Q64))?,
        u256(liquidity),
        Rounding::Down,
    )?)
}

/// Fees a position of `liquidity` earned between two fee-growth readings: `floor((now - then) * L / 2^64)`.
/// Fee growth only increases; wrapping subtraction keeps a checkpoint valid across a (theoretical) wrap.
pub fn fees_earned(growth_now: u128, growth_then: u128, liquidity: u128) -> Result<u64> {
    let delta = growth_now.wrapping_sub(growth_then);
    to_u64(to_u128(div(
        u256(delta).safe_mul(u256(liquidity))?,
        u256(Q64),
        Rounding::Down,
    )?)?)
}

/// Quote the AMM takes for `base` tokens at a Q64.64 square-root price: `floor(base * s^2 / 2^128)`.
pub fn quote_at_sqrt_price(base: u64, sqrt_price: u128) -> Result<u64> {
    let sq = u256(sqrt_price).safe_mul(u256(sqrt_price))?;
    let num = sq.safe_mul(u256(u128::from(base)))?;
    let q128 = u256(Q64).safe_mul(u256(Q64))?;
    to_u64(to_u128(div(num, q128, Rounding::Down)?)?)
}

/// How a completed curve moves into the AMM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MigrationPlan {
    /// Tokens and quote each of the two positions deposits.
    pub base_per_position: u64,
    pub quote_per_position: u64,
    /// Liquidity each position receives (equal by construction).
    pub liquidity_per_position: u128,
    /// Tokens the AMM does not take (an odd base unit); burnt.
    pub burnt_base: u64,
    /// Raised quote the AMM does not take at the final price.
    pub surplus: u64,
    pub creator_surplus: u64,
    pub partner_surplus: u64,
}

/// Plans the migration of `base` tokens and `raised` quote at the curve's final square-root price.
///
/// The AMM opens at the final curve price: it takes `quote = min(floor(base * s^2 / 2^128), raised)`. The
/// creator and the partner each deposit half of each side (`floor(base / 2)`, `floor(quote / 2)`) into their
/// own position, so their liquidity is exactly equal. An odd token is burnt rather than added, because adding
/// it alone would move the price off the curve's end; raised quote the AMM does not take is surplus, split
/// by `creator_share_bps` (creator's part rounds down).
pub fn plan_migration(
    base: u64,
    raised: u64,
    sqrt_price: u128,
    creator_share_bps: u16,
) -> Result<MigrationPlan> {
    let quote = quote_at_sqrt_price(base, sqrt_price)?.min(raised);
    let base_per_position = base / 2;
    let quote_per_position = quote / 2;
    let liquidity_per_position = initial_liquidity(base_per_position, quote_per_position)?;
    let taken_base = base_per_position.safe_mul(2)?;
    let taken_quote = quote_per_position.safe_mul(2)?;
    let surplus = raised.safe_sub(taken_quote)?;
    let split = crate::fee::split_fee(surplus, creator_share_bps)?;
    Ok(MigrationPlan {
        base_per_position,
        quote_per_position,
        liquidity_per_position,
        burnt_base: base.safe_sub(taken_base)?,
        surplus,
        creator_surplus: split.creator,
        partner_surplus: split.partner,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The locked LP always splits 50/50: both positions get exactly half of each side and equal liquidity,
    /// whatever the surplus share (which splits only the quote the AMM does not take).
    #[test]
    fn the_locked_lp_splits_fifty_fifty_whatever_the_surplus_share() {
        let sqrt_price = crate::pinned_preset(crate::Preset::Fair, crate::QuoteAsset::Sol)
            .curve()
            .sqrt_end_price();
        for share in [0u16, 2_500, 5_000, 10_000] {
            for (base, raised) in [
                (200_000_000_000_000u64, 10_000_000_000u64),
                (7, 1_000),
                (1_001, 99),
            ] {
                let Ok(plan) = plan_migration(base, raised, sqrt_price, share) else {
                    continue;
                };
                assert_eq!(plan.base_per_position, base / 2);
                assert_eq!(plan.burnt_base, base % 2);
                assert_eq!(
                    plan.liquidity_per_position,
                    initial_liquidity(plan.base_per_position, plan.quote_per_position).unwrap()
                );
                assert_eq!(plan.creator_surplus + plan.partner_surplus, plan.surplus);
                assert_eq!(
                    plan.creator_surplus,
                    crate::fee::split_fee(plan.surplus, share).unwrap().creator
                );
            }
        }
        let full = plan_migration(200_000_000_000_000, 10_000_000_000, sqrt_price, 5_000).unwrap();
        assert_eq!(full.base_per_position * 2, 200_000_000_000_000);
    }
}
