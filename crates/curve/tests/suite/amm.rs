//! AMM invariants on 10,000 random cases each: k never decreases, add/remove round trips give nothing for
//! free, positions never earn more fees than were paid, exact out agrees with exact in.

use curve::amm::*;
use proptest::prelude::*;

fn cases() -> ProptestConfig {
    ProptestConfig {
        cases: 10_000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn k_never_decreases(ra in 1_000u64..u64::MAX / 4, rb in 1_000u64..u64::MAX / 4, amt in 1u64..u64::MAX / 4, fee in 0u16..=MAX_SWAP_FEE_BPS) {
        if let Ok(s) = swap_exact_in(ra, rb, amt, fee) {
            let before = ra as u128 * rb as u128;
            let after = s.reserve_in_after as u128 * s.reserve_out_after as u128;
            prop_assert!(after >= before);
            prop_assert!(s.fee <= amt);
            prop_assert!(s.amount_out < rb);
            prop_assert_eq!(s.reserve_in_after - ra, amt - s.fee);
        }
    }

    #[test]
    fn add_then_remove_gives_nothing_for_free(ra in 1u64..1u64 << 50, rb in 1u64..1u64 << 50, delta_ppm in 1u64..2_000_000) {
        let l = initial_liquidity(ra, rb).unwrap_or(1);
        let delta = ((l as u128 * delta_ppm as u128) / 1_000_000).max(1);
        let (da, db) = deposit_amounts(ra, rb, l, delta).unwrap();
        let (wa, wb) = withdraw_amounts(ra + da, rb + db, l + delta, delta).unwrap();
        prop_assert!(wa <= da && wb <= db);
    }

    #[test]
    fn positions_never_earn_more_than_was_paid(
        fees in proptest::collection::vec(1u64..1u64 << 40, 1..8),
        shares in proptest::collection::vec(1u128..1u128 << 60, 1..5),
    ) {
        let total: u128 = shares.iter().sum();
        let mut growth = 0u128;
        for f in &fees {
            growth += fee_growth_delta(*f, total).unwrap();
        }
        let earned: u64 = shares.iter().map(|s| fees_earned(growth, 0, *s).unwrap()).sum();
        prop_assert!(earned <= fees.iter().sum::<u64>());
    }

    #[test]
    fn exact_out_agrees_with_exact_in(ra in 1_000_000u64..1u64 << 50, rb in 1_000_000u64..1u64 << 50, out_ppm in 1u64..900_000, fee in 0u16..=MAX_SWAP_FEE_BPS) {
        let want = (rb as u128 * out_ppm as u128 / 1_000_000) as u64;
        if want == 0 { return Ok(()); }
        if let Ok(s) = swap_exact_out(ra, rb, want, fee) {
            // Exactly what was asked, the product never falls, the fee is what the input pays above net.
            prop_assert_eq!(s.amount_out, want);
            prop_assert_eq!(s.reserve_out_after, rb - want);
            prop_assert_eq!(s.amount_in - s.fee, s.reserve_in_after - ra);
            prop_assert!(u128::from(s.reserve_in_after) * u128::from(s.reserve_out_after) >= u128::from(ra) * u128::from(rb));
            // Never cheaper than exact in: the same input exact-in buys at least as much, minus rounding.
            let same = swap_exact_in(ra, rb, s.amount_in, fee).unwrap();
            prop_assert!(same.amount_out + 1 >= want, "exact in {} for {}", same.amount_out, want);
            // And minimal: one net unit less would not cover the output.
            let net = s.reserve_in_after - ra;
            prop_assert!(u128::from(ra + net - 1) * u128::from(rb - want) < u128::from(ra) * u128::from(rb));
            prop_assert!(s.fee >= curve::fee_on_amount(s.amount_in, fee).unwrap(), "fee {} below the exact-in fee", s.fee);
        }
    }
}

#[test]
fn migration_quote_matches_the_curve_end_price() {
    for q in curve::QuoteAsset::ALL {
        let cfg = curve::preset_config(curve::Preset::Fair, q).unwrap();
        let end = cfg.curve().sqrt_end_price();
        let quote = quote_at_sqrt_price(cfg.migration_supply, end).unwrap();
        assert!(quote <= cfg.threshold);
        assert!(
            cfg.threshold - quote <= 2,
            "{} quote {} threshold {}",
            q.name(),
            quote,
            cfg.threshold
        );
    }
}

#[test]
fn migration_plan_for_every_preset() {
    for cfg in [
        curve::Preset::Fair,
        curve::Preset::Distribute,
        curve::Preset::Shield,
    ]
    .into_iter()
    .flat_map(|p| curve::QuoteAsset::ALL.map(|q| curve::preset_config(p, q).unwrap()))
    {
        let end = cfg.curve().sqrt_end_price();
        let plan = plan_migration(cfg.migration_supply, cfg.threshold, end, 5_000).unwrap();
        assert_eq!(
            plan.base_per_position * 2 + plan.burnt_base,
            cfg.migration_supply
        );
        assert_eq!(plan.burnt_base, 0, "the migration supply is even");
        assert_eq!(plan.quote_per_position * 2 + plan.surplus, cfg.threshold);
        assert!(
            plan.surplus <= 3,
            "surplus is rounding only: {}",
            plan.surplus
        );
        assert_eq!(plan.creator_surplus + plan.partner_surplus, plan.surplus);
        assert_eq!(
            plan.liquidity_per_position,
            initial_liquidity(plan.base_per_position, plan.quote_per_position).unwrap()
        );
    }
}
