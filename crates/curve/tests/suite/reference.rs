//! The preset table checked against an exact rational model built from the stored integers alone.

use crate::common;

use common::*;
use curve::constants::*;
use curve::{FeeSchedule, Preset, QuoteAsset};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};

fn r(n: i128, d: i128) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

#[test]
fn presets_sell_the_sale_supply_for_the_threshold_and_end_at_the_migration_price() {
    for cfg in all_configs() {
        let curve = cfg.curve();
        let name = format!("{} {}", cfg.preset.name(), cfg.quote.name());
        let end = curve.sqrt_end_price();
        let base = exact_base_to(&curve, end);
        let quote = exact_quote_to(&curve, end);
        let sale = rat(SALE_SUPPLY_BASE_UNITS as u128);
        let threshold = rat(cfg.quote.threshold() as u128);

        // Never more than 80% of supply; the dust left is stated and small.
        assert!(base <= sale, "{name}: sells more than the sale supply");
        assert!(
            &sale - &base < rat(MAX_SALE_DUST_BASE_UNITS as u128),
            "{name}: dust"
        );
        // At least the threshold (so the price cannot run out before it), within the stated excess.
        assert!(quote >= threshold, "{name}: takes less than the threshold");
        assert!(
            &quote - &threshold <= rat(MAX_QUOTE_EXCESS_UNITS as u128),
            "{name}: excess"
        );

        // Ends at the migration price threshold / pool tokens, relative error below 1e-16 (one unit of the
        // Q64.64 square root; docs/protocol.md states the same bound).
        let end_price = rat(end) * rat(end) / (q64() * q64());
        let migration = threshold.clone() / rat(MIGRATION_SUPPLY_BASE_UNITS as u128);
        let rel = ((&end_price - &migration) / &migration).abs();
        assert!(
            rel < r(1, 10_000_000_000_000_000),
            "{name}: migration price off by {rel}"
        );

        // Shape: monotone prices, the stated segment count and liquidity weights.
        let weights: &[u128] = match cfg.preset {
            Preset::Fair | Preset::Shield => &[1],
            Preset::Distribute => &[1, 4, 1],
        };
        assert_eq!(curve.segments.len(), weights.len(), "{name}");
        let mut lo = curve.sqrt_start_price;
        for (seg, w) in curve.segments.iter().zip(weights) {
            assert!(seg.sqrt_price_upper > lo, "{name}: not monotone");
            assert_eq!(seg.liquidity % w, 0, "{name}: weights");
            assert_eq!(
                seg.liquidity / w,
                curve.segments[0].liquidity / weights[0],
                "{name}: weights"
            );
            lo = seg.sqrt_price_upper;
        }
        assert!(quote.is_positive() && !base.is_zero());
    }
}

#[test]
fn fair_starts_at_one_sixteenth_of_the_migration_price_and_shield_is_fair() {
    for q in QuoteAsset::ALL {
        let fair = curve::preset_config(Preset::Fair, q).unwrap();
        let shield = curve::preset_config(Preset::Shield, q).unwrap();
        assert_eq!(fair.curve(), shield.curve());
        // Selling S for T with one constant-product range that ends at T / (S / 4) starts at T / (4 S).
        let start = rat(fair.sqrt_start_price) * rat(fair.sqrt_start_price) / (q64() * q64());
        let expected = rat(q.threshold() as u128) / rat(4 * SALE_SUPPLY_BASE_UNITS as u128);
        assert!(((&start - &expected) / &expected).abs() < r(1, 1_000_000_000));
    }
}

#[test]
fn buying_the_whole_curve_in_uneven_steps_is_exact() {
    for cfg in all_configs() {
        let market = cfg.market();
        let mut state = market.initial_state().unwrap();
        let mut i: u64 = 1;
        let (mut sold, mut raised, mut fees) = (0u64, 0u64, 0u64);
        while !market.is_complete(&state) {
            // Steps of varying size, most far below the threshold.
            let step = (cfg.threshold / 997) * (i % 7 + 1) + i;
            let res = market.buy_exact_in(&state, step, 100).unwrap();
            sold += res.amount_out;
            raised += res.amount_in - res.fee;
            fees += res.fee;
            state = res.next;
            i += 1;
        }
        assert_eq!(sold, SALE_SUPPLY_BASE_UNITS);
        assert_eq!(raised, cfg.threshold);
        assert_eq!(state.base_reserve, MIGRATION_SUPPLY_BASE_UNITS);
        assert!(fees >= cfg.threshold / 100);
    }
}

#[test]
fn shield_fee_schedule() {
    let s = Preset::Shield.fee_schedule();
    assert_eq!(s.fee_bps_at(-5), 5_000);
    assert_eq!(s.fee_bps_at(0), 5_000);
    assert_eq!(s.fee_bps_at(59), 5_000);
    assert_eq!(s.fee_bps_at(60), 4_510);
    assert_eq!(s.fee_bps_at(119), 4_510);
    assert_eq!(s.fee_bps_at(300), 2_550);
    assert_eq!(s.fee_bps_at(599), 590);
    assert_eq!(s.fee_bps_at(600), 100);
    assert_eq!(s.fee_bps_at(i64::MAX), 100);
    assert_eq!(s.final_fee_bps(), 100);
    assert!(s.validate().is_ok());
    // When the fee in force steps down next: each 60 s until the tenth step, then never.
    assert_eq!(s.next_change_after(-5), Some(60));
    assert_eq!(s.next_change_after(0), Some(60));
    assert_eq!(s.next_change_after(59), Some(60));
    assert_eq!(s.next_change_after(60), Some(120));
    assert_eq!(s.next_change_after(599), Some(600));
    assert_eq!(s.next_change_after(600), None);
    assert_eq!(FeeSchedule::fixed(100).next_change_after(0), None);
    let fixed = FeeSchedule::fixed(100);
    assert_eq!(fixed.fee_bps_at(0), 100);
    assert_eq!(fixed.fee_bps_at(1_000_000), 100);
    // Out-of-bounds schedules are refused.
    assert!(FeeSchedule::fixed(9_901).validate().is_err());
    assert!(FeeSchedule {
        period_seconds: 0,
        ..s
    }
    .validate()
    .is_err());
    assert!(FeeSchedule {
        reduction_bps_per_period: 600,
        ..s
    }
    .validate()
    .is_err());
}

#[test]
fn fees_round_up_and_split_rounds_the_creator_down() {
    assert_eq!(curve::fee_on_amount(1, 100).unwrap(), 1);
    assert_eq!(curve::fee_on_amount(10_000, 100).unwrap(), 100);
    assert_eq!(curve::fee_on_amount(10_001, 100).unwrap(), 101);
    assert_eq!(curve::fee_on_amount(0, 100).unwrap(), 0);
    let s = curve::split_fee(101, 5_000).unwrap();
    assert_eq!((s.creator, s.partner), (50, 51));
    assert!(curve::split_fee(1, 10_001).is_err());
    // The gross for a net always leaves at least the rounded-up fee.
    for net in [1u64, 99, 100, 12_345, 9_999_999_999] {
        for bps in [0u16, 1, 100, 4_510, 5_000, 9_900] {
            let g = curve::gross_for_net(net, bps).unwrap();
            assert!(g - curve::fee_on_amount(g, bps).unwrap() >= net);
            assert!(g == 0 || g - 1 - curve::fee_on_amount(g - 1, bps).unwrap() < net);
        }
    }
}

#[test]
fn tiny_and_huge_amounts_are_refused_cleanly() {
    let cfg = curve::preset_config(Preset::Fair, QuoteAsset::Sol).unwrap();
    let market = cfg.market();
    let state = market.initial_state().unwrap();
    assert_eq!(
        market.buy_exact_in(&state, 0, 100),
        Err(curve::CurveError::ZeroAmount)
    );
    assert_eq!(
        market.buy_exact_in(&state, 1, 100),
        Err(curve::CurveError::AmountTooSmall)
    );
    // u64::MAX completes the curve and refunds the rest.
    let r = market.buy_exact_in(&state, u64::MAX, 100).unwrap();
    assert!(r.completes);
    assert_eq!(r.refund, u64::MAX - r.amount_in);
    // Selling more than the curve has sold is refused.
    assert_eq!(
        market.sell_exact_in(&state, 1, 100),
        Err(curve::CurveError::InsufficientLiquidity)
    );
    assert_eq!(
        market.sell_exact_in(&state, u64::MAX, 100),
        Err(curve::CurveError::InsufficientLiquidity)
    );
}
