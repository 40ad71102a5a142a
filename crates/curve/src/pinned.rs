//! The six preset configs (3 presets x 2 quotes), pinned as constants.
//!
//! They are exactly what [`crate::preset::preset_config`] builds (a test checks it, field for field), written
//! down so that the program can require a config to equal its preset without re-running the builder's searches
//! on chain, and so that any change to the builder shows up as a changed constant in review.

use crate::constants::{
    CREATOR_FEE_SHARE_BPS, CREATOR_SURPLUS_SHARE_BPS, MIGRATION_SUPPLY_BASE_UNITS,
    REFERRAL_SHARE_BPS, SALE_SUPPLY_BASE_UNITS,
};
use crate::curve::{Segment, MAX_SEGMENTS};
use crate::preset::{Preset, PresetConfig, QuoteAsset};

/// A preset config from its start price and `(sqrt_price_upper, liquidity)` segments; everything else follows
/// from the preset and the quote. Evaluated at compile time only.
#[allow(clippy::arithmetic_side_effects)] // const evaluation: an overflow is a compile error
const fn pinned(
    preset: Preset,
    quote: QuoteAsset,
    sqrt_start_price: u128,
    segments: &[(u128, u128)],
) -> PresetConfig {
    let mut out = [Segment {
        sqrt_price_upper: 0,
        liquidity: 0,
    }; MAX_SEGMENTS];
    let mut i = 0;
    while i < segments.len() {
        out[i] = Segment {
            sqrt_price_upper: segments[i].0,
            liquidity: segments[i].1,
        };
        i += 1;
    }
    PresetConfig {
        preset,
        quote,
        sqrt_start_price,
        segments: out,
        segment_count: segments.len() as u8,
        fees: preset.fee_schedule(),
        threshold: quote.threshold(),
        sale_supply: SALE_SUPPLY_BASE_UNITS,
        migration_supply: MIGRATION_SUPPLY_BASE_UNITS,
        creator_fee_share_bps: CREATOR_FEE_SHARE_BPS,
        creator_surplus_share_bps: CREATOR_SURPLUS_SHARE_BPS,
        referral_share_bps: REFERRAL_SHARE_BPS,
    }
}

/// `fair` with SOL as the quote.
pub const FAIR_SOL: PresetConfig = pinned(
    Preset::Fair,
    QuoteAsset::Sol,
    32609544563343283,
    &[(130438178253327822, 1885618083165)],
);

/// `fair` with USDC as the quote.
pub const FAIR_USDC: PresetConfig = pinned(
    Preset::Fair,
    QuoteAsset::Usdc,
    8930491573662223,
    &[(35721966294613728, 516397779495)],
);

/// `distribute` with SOL as the quote.
pub const DISTRIBUTE_SOL: PresetConfig = pinned(
    Preset::Distribute,
    QuoteAsset::Sol,
    25758105001015982,
    &[
        (60651462751786595, 881101030229),
        (95544820502557208, 3524404120916),
        (130438178253327822, 881101030229),
    ],
);

/// `distribute` with USDC as the quote.
pub const DISTRIBUTE_USDC: PresetConfig = pinned(
    Preset::Distribute,
    QuoteAsset::Usdc,
    7054147572016426,
    &[
        (16610087146215526, 241299454786),
        (26166026720414627, 965197819144),
        (35721966294613728, 241299454786),
    ],
);

/// `shield` with SOL as the quote.
pub const SHIELD_SOL: PresetConfig = pinned(
    Preset::Shield,
    QuoteAsset::Sol,
    32609544563343283,
    &[(130438178253327822, 1885618083165)],
);

/// `shield` with USDC as the quote.
pub const SHIELD_USDC: PresetConfig = pinned(
    Preset::Shield,
    QuoteAsset::Usdc,
    8930491573662223,
    &[(35721966294613728, 516397779495)],
);

/// The pinned config of (`preset`, `quote`).
pub const fn pinned_preset(preset: Preset, quote: QuoteAsset) -> &'static PresetConfig {
    match (preset, quote) {
        (Preset::Fair, QuoteAsset::Sol) => &FAIR_SOL,
        (Preset::Fair, QuoteAsset::Usdc) => &FAIR_USDC,
        (Preset::Distribute, QuoteAsset::Sol) => &DISTRIBUTE_SOL,
        (Preset::Distribute, QuoteAsset::Usdc) => &DISTRIBUTE_USDC,
        (Preset::Shield, QuoteAsset::Sol) => &SHIELD_SOL,
        (Preset::Shield, QuoteAsset::Usdc) => &SHIELD_USDC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::*;
    use crate::fee::FeeSchedule;

    #[test]
    fn the_builder_reproduces_every_pinned_preset() {
        for preset in Preset::ALL {
            for quote in QuoteAsset::ALL {
                let built = crate::preset::preset_config(preset, quote).unwrap();
                assert_eq!(&built, pinned_preset(preset, quote), "{preset:?} {quote:?}");
            }
        }
    }

    #[test]
    fn pinned_presets_have_the_promised_economics() {
        for quote in QuoteAsset::ALL {
            let fair = pinned_preset(Preset::Fair, quote);
            let shield = pinned_preset(Preset::Shield, quote);
            let distribute = pinned_preset(Preset::Distribute, quote);
            // fair: one segment, a fixed 1% fee.
            assert_eq!(fair.segment_count, 1);
            assert_eq!(fair.fees, FeeSchedule::fixed(100));
            // shield: the fair curve, 50% falling by 4.9 points every 60 s, 10 times, to 1%.
            assert_eq!(shield.curve(), fair.curve());
            assert_eq!(
                shield.fees,
                FeeSchedule {
                    cliff_fee_bps: 5_000,
                    reduction_bps_per_period: 490,
                    period_seconds: 60,
                    number_of_periods: 10,
                }
            );
            assert_eq!(shield.fees.fee_bps_at(0), 5_000);
            assert_eq!(shield.fees.fee_bps_at(600), 100);
            // distribute: three segments weighted 1-4-1, a fixed 1% fee.
            assert_eq!(distribute.segment_count, 3);
            let l: Vec<u128> = distribute
                .curve()
                .segments
                .iter()
                .map(|s| s.liquidity)
                .collect();
            assert_eq!(l, vec![l[0], 4 * l[0], l[0]]);
            assert_eq!(distribute.fees, FeeSchedule::fixed(100));
            for cfg in [fair, shield, distribute] {
                assert_eq!(cfg.threshold, quote.threshold());
                assert_eq!(cfg.creator_fee_share_bps, 5_000);
                assert_eq!(cfg.creator_surplus_share_bps, 5_000);
                assert_eq!(cfg.referral_share_bps, 2_000);
                assert_eq!(
                    cfg.sale_supply + cfg.migration_supply,
                    TOTAL_SUPPLY_BASE_UNITS
                );
                cfg.market().validate().unwrap();
            }
        }
    }
}
