//! Shared helpers for the curve tests: every preset, and an exact rational model of a curve.
#![allow(dead_code)]

use curve::{preset_config, Curve, Market, PoolState, Preset, PresetConfig, QuoteAsset};
use num_bigint::BigInt;
use num_rational::BigRational;

pub fn all_configs() -> Vec<PresetConfig> {
    let mut v = Vec::new();
    for p in Preset::ALL {
        for q in QuoteAsset::ALL {
            v.push(preset_config(p, q).expect("preset builds"));
        }
    }
    v
}

pub fn q64() -> BigRational {
    BigRational::from_integer(BigInt::from(1u128 << 64))
}

pub fn rat(x: u128) -> BigRational {
    BigRational::from_integer(BigInt::from(x))
}

/// Exact base amount of the curve between its start and `s` (real numbers, no rounding).
pub fn exact_base_to(curve: &Curve, s: u128) -> BigRational {
    let mut lo = curve.sqrt_start_price;
    let mut total = rat(0);
    for seg in curve.segments {
        let hi = seg.sqrt_price_upper.min(s);
        if hi > lo {
            total += rat(seg.liquidity) * (rat(hi) - rat(lo)) * q64() / (rat(lo) * rat(hi));
        }
        lo = seg.sqrt_price_upper;
    }
    total
}

/// Exact quote amount of the curve between its start and `s`.
pub fn exact_quote_to(curve: &Curve, s: u128) -> BigRational {
    let mut lo = curve.sqrt_start_price;
    let mut total = rat(0);
    for seg in curve.segments {
        let hi = seg.sqrt_price_upper.min(s);
        if hi > lo {
            total += rat(seg.liquidity) * (rat(hi) - rat(lo)) / q64();
        }
        lo = seg.sqrt_price_upper;
    }
    total
}

/// Tokens sold so far in `state`.
pub fn sold(market: &Market, state: &PoolState) -> u64 {
    market.sale_supply + market.migration_supply - state.base_reserve
}
