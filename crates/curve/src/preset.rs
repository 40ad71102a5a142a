//! The three launch presets, built once off chain and validated on chain.
//!
//! Every preset ends at the migration price `threshold / migration_supply` and sells the sale supply (80%)
//! for the threshold. Construction: the end square-root price is `floor(sqrt(threshold * 2^128 /
//! migration_supply))`; the range from the start price to it is cut into equal square-root-price steps, one
//! per liquidity weight; for a candidate start price the liquidity unit is the smallest whose curve takes at
//! least the threshold (rounding every segment down); a binary search then finds the lowest start price
//! whose curve sells at most the sale supply (rounding every segment up). What remains is rounding dust of a
//! few base units, stated by [`Market::validate`] bounds and printed by the `presets` binary.
//!
//! * `fair`: one segment (the start price comes out at 1/16 of the migration price).
//! * `distribute`: three equal square-root-price steps with liquidity weights 1, 4, 1 (most of the supply
//!   trades in the middle band).
//! * `shield`: the `fair` curve with a fee that starts at 50% and falls by 4.9 points a minute to 1%.

// Preset construction runs off chain, once; every config it builds is checked by `Market::validate`,
// which the program runs again on chain.
#![allow(clippy::arithmetic_side_effects)]

use crate::constants::*;
use crate::curve::{Curve, Segment, MAX_SEGMENTS};
use crate::error::Result;
use crate::fee::FeeSchedule;
use crate::math::{migration_sqrt_price, mul_div_u128, Rounding, Q64};
use crate::safe_math::SafeMath;
use crate::swap::Market;

/// A launch preset. The discriminants are stored on chain and are ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Preset {
    Fair = 0,
    Distribute = 1,
    Shield = 2,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Fair, Preset::Distribute, Preset::Shield];

    pub fn from_u8(v: u8) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| *p as u8 == v)
    }

    /// The name the API uses.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Fair => "fair",
            Preset::Distribute => "distribute",
            Preset::Shield => "shield",
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Liquidity weights of the curve's segments.
    pub fn weights(self) -> &'static [u128] {
        match self {
            Preset::Fair | Preset::Shield => &[1],
            Preset::Distribute => &[1, 4, 1],
        }
    }

    pub const fn fee_schedule(self) -> FeeSchedule {
        match self {
            Preset::Fair | Preset::Distribute => FeeSchedule::fixed(FEE_BPS),
            Preset::Shield => FeeSchedule {
                cliff_fee_bps: SHIELD_CLIFF_FEE_BPS,
                reduction_bps_per_period: SHIELD_REDUCTION_BPS_PER_PERIOD,
                period_seconds: SHIELD_PERIOD_SECONDS,
                number_of_periods: SHIELD_NUMBER_OF_PERIODS,
            },
        }
    }
}

/// The quote asset of a launch. The discriminants are stored on chain and are ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum QuoteAsset {
    Sol = 0,
    Usdc = 1,
}

impl QuoteAsset {
    pub const ALL: [QuoteAsset; 2] = [QuoteAsset::Sol, QuoteAsset::Usdc];

    pub fn from_u8(v: u8) -> Option<QuoteAsset> {
        QuoteAsset::ALL.into_iter().find(|q| *q as u8 == v)
    }

    /// The name the API uses.
    pub fn name(self) -> &'static str {
        match self {
            QuoteAsset::Sol => "sol",
            QuoteAsset::Usdc => "usdc",
        }
    }

    pub fn from_name(name: &str) -> Option<QuoteAsset> {
        QuoteAsset::ALL.into_iter().find(|q| q.name() == name)
    }

    /// Quote raised at graduation, in quote base units.
    pub const fn threshold(self) -> u64 {
        match self {
            QuoteAsset::Sol => GRADUATION_LAMPORTS,
            QuoteAsset::Usdc => GRADUATION_USDC_UNITS,
        }
    }

    pub const fn decimals(self) -> u8 {
        match self {
            QuoteAsset::Sol => SOL_DECIMALS,
            QuoteAsset::Usdc => USDC_DECIMALS,
        }
    }
}

/// Everything a config account holds for one (preset, quote).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresetConfig {
    pub preset: Preset,
    pub quote: QuoteAsset,
    pub sqrt_start_price: u128,
    pub segments: [Segment; MAX_SEGMENTS],
    pub segment_count: u8,
    pub fees: FeeSchedule,
    pub threshold: u64,
    pub sale_supply: u64,
    pub migration_supply: u64,
    pub creator_fee_share_bps: u16,
    pub creator_surplus_share_bps: u16,
    /// The referral's share of the partner's part of each fee.
    pub referral_share_bps: u16,
}

impl PresetConfig {
    pub fn curve(&self) -> Curve<'_> {
        Curve {
            sqrt_start_price: self.sqrt_start_price,
            segments: &self.segments[..self.segment_count as usize],
        }
    }

    pub fn market(&self) -> Market<'_> {
        Market {
            curve: self.curve(),
            threshold: self.threshold,
            sale_supply: self.sale_supply,
            migration_supply: self.migration_supply,
        }
    }
}

/// Segments for start price `start`, end `end`, weights `w` and liquidity unit `unit`.
fn segments_for(
    start: u128,
    end: u128,
    weights: &[u128],
    unit: u128,
) -> Result<[Segment; MAX_SEGMENTS]> {
    let n = weights.len() as u128;
    let mut segs = [Segment::default(); MAX_SEGMENTS];
    for (i, w) in weights.iter().enumerate() {
        let k = i as u128 + 1;
        let upper = if k == n {
            end
        } else {
            start + mul_div_u128(end - start, k, n, Rounding::Down)?
        };
        segs[i] = Segment {
            sqrt_price_upper: upper,
            liquidity: w.safe_mul(unit)?,
        };
    }
    Ok(segs)
}

/// Smallest liquidity unit whose curve (segments rounded down) takes at least `threshold`.
fn unit_for_threshold(start: u128, end: u128, weights: &[u128], threshold: u64) -> Result<u128> {
    let quote_for = |unit: u128| -> Result<u128> {
        let segs = segments_for(start, end, weights, unit)?;
        Curve {
            sqrt_start_price: start,
            segments: &segs[..weights.len()],
        }
        .total_quote(Rounding::Down)
    };
    // Exact quote is unit * Σ w_i Δs_i / 2^64; the per-segment floors lose less than one unit each.
    let per_unit: u128 = {
        let segs = segments_for(start, end, weights, 1)?;
        let mut lo = start;
        let mut sum = 0u128;
        for s in &segs[..weights.len()] {
            sum = sum.safe_add(s.liquidity * (s.sqrt_price_upper - lo))?;
            lo = s.sqrt_price_upper;
        }
        sum
    };
    let t = threshold as u128;
    let mut lo = mul_div_u128(t, Q64, per_unit, Rounding::Up)?;
    let mut hi = mul_div_u128(t + weights.len() as u128 + 1, Q64, per_unit, Rounding::Up)?;
    while quote_for(hi)? < t {
        hi = hi.safe_mul(2)?;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if quote_for(mid)? >= t {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}

/// Builds the config of `preset` for `quote`.
pub fn preset_config(preset: Preset, quote: QuoteAsset) -> Result<PresetConfig> {
    build_config(
        preset,
        quote,
        quote.threshold(),
        SALE_SUPPLY_BASE_UNITS,
        MIGRATION_SUPPLY_BASE_UNITS,
    )
}

/// Builds a config for any threshold and supplies (the presets use the launch constants).
pub fn build_config(
    preset: Preset,
    quote: QuoteAsset,
    threshold: u64,
    sale_supply: u64,
    migration_supply: u64,
) -> Result<PresetConfig> {
    let weights = preset.weights();
    let end = migration_sqrt_price(threshold, migration_supply)?;
    let sells = |start: u128| -> Result<(u128, [Segment; MAX_SEGMENTS])> {
        let unit = unit_for_threshold(start, end, weights, threshold)?;
        let segs = segments_for(start, end, weights, unit)?;
        let base = Curve {
            sqrt_start_price: start,
            segments: &segs[..weights.len()],
        }
        .total_base(Rounding::Up)?;
        Ok((base, segs))
    };
    // Lowest start price whose curve sells at most the sale supply.
    let (mut lo, mut hi) = (crate::curve::MIN_SQRT_PRICE, end - weights.len() as u128);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if sells(mid)?.0 <= sale_supply as u128 {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let (_, segments) = sells(lo)?;
    let config = PresetConfig {
        preset,
        quote,
        sqrt_start_price: lo,
        segments,
        segment_count: weights.len() as u8,
        fees: preset.fee_schedule(),
        threshold,
        sale_supply,
        migration_supply,
        creator_fee_share_bps: CREATOR_FEE_SHARE_BPS,
        creator_surplus_share_bps: CREATOR_SURPLUS_SHARE_BPS,
        referral_share_bps: REFERRAL_SHARE_BPS,
    };
    config.market().validate()?;
    config.fees.validate()?;
    Ok(config)
}
