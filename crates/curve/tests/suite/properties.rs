//! Invariants of the curve math, each checked on at least 10,000 random cases across every preset x quote.

use crate::common;

use common::*;
use curve::{fee_on_amount, gross_for_net, split_fee, CurveError, Market, PoolState, PresetConfig};
use proptest::prelude::*;
use std::sync::OnceLock;

fn configs() -> &'static [PresetConfig] {
    static C: OnceLock<Vec<PresetConfig>> = OnceLock::new();
    C.get_or_init(all_configs)
}

fn cases() -> ProptestConfig {
    ProptestConfig {
        cases: 10_000,
        ..ProptestConfig::default()
    }
}

/// A pool somewhere along its curve: reached by one buy of `frac_ppm` millionths of the threshold and a
/// sell of `sell_ppm` millionths of what that buy returned.
fn state_at(market: &Market, frac_ppm: u64, sell_ppm: u64) -> PoolState {
    let mut state = market.initial_state().unwrap();
    let amount = (market.threshold as u128 * frac_ppm as u128 / 1_000_000) as u64;
    if amount > 0 {
        if let Ok(r) = market.buy_exact_in(&state, amount, 0) {
            if !r.completes {
                state = r.next;
                let back = (r.amount_out as u128 * sell_ppm as u128 / 1_000_000) as u64;
                if let Ok(s) = market.sell_exact_in(&state, back, 0) {
                    state = s.next;
                }
            }
        }
    }
    state
}

fn fee_bps() -> impl Strategy<Value = u16> {
    prop_oneof![Just(0u16), Just(100u16), Just(5_000u16), 0u16..=9_900]
}

proptest! {
    #![proptest_config(cases())]

    /// The fee holds until the step `next_change_after` names, falls there, and never changes once it
    /// names none.
    #[test]
    fn the_fee_holds_until_its_next_change_and_then_falls(
        cliff in 100u16..=9_900,
        reduction in 0u16..=500,
        period in 1u32..=3_600,
        periods in 0u16..=50,
        elapsed in -10_000i64..=400_000,
    ) {
        // Valid by construction: the fee never falls below the 1% floor.
        let most = (cliff - 100) / periods.max(1);
        let s = curve::FeeSchedule {
            cliff_fee_bps: cliff,
            reduction_bps_per_period: reduction.min(most),
            period_seconds: period,
            number_of_periods: periods,
        };
        prop_assert!(s.validate().is_ok(), "{:?}", s);
        let fee = s.fee_bps_at(elapsed);
        match s.next_change_after(elapsed) {
            Some(next) => {
                prop_assert!(next > elapsed);
                prop_assert_eq!(s.fee_bps_at(next - 1), fee);
                prop_assert!(s.fee_bps_at(next) < fee);
            }
            None => {
                prop_assert_eq!(s.fee_bps_at(elapsed.saturating_add(1_000_000_000)), fee);
            }
        }
    }
}

proptest! {
    #![proptest_config(cases())]

    /// Buying and selling straight back never returns more quote than was paid, at any fee (even zero).
    #[test]
    fn buy_then_sell_never_profits(
        idx in 0usize..6, frac in 0u64..999_000, sell in 0u64..1_000_000,
        amount in 1u64..20_000_000_000, fee in fee_bps(),
    ) {
        let market = configs()[idx].market();
        let state = state_at(&market, frac, sell);
        if let Ok(buy) = market.buy_exact_in(&state, amount, fee) {
            if !buy.completes {
                match market.sell_exact_in(&buy.next, buy.amount_out, fee) {
                    Ok(back) => prop_assert!(back.amount_out <= buy.amount_in),
                    Err(e) => prop_assert_eq!(e, CurveError::AmountTooSmall),
                }
            }
        }
    }

    /// No swap gives away value: after any sequence of swaps the pool holds at least the exact curve's quote
    /// for its price and has paid out at most the exact curve's tokens, and neither slack ever shrinks.
    #[test]
    fn swaps_never_lower_pool_value(
        idx in 0usize..6,
        ops in proptest::collection::vec((any::<bool>(), any::<bool>(), 1u64..3_000_000_000, fee_bps()), 1..6),
    ) {
        let market = configs()[idx].market();
        let mut state = market.initial_state().unwrap();
        let mut quote_slack = rat(0);
        let mut base_slack = rat(0);
        for (buy, exact_out, amount, fee) in ops {
            let held = sold(&market, &state);
            let r = match (buy, exact_out) {
                (true, false) => market.buy_exact_in(&state, amount, fee),
                // Tokens out: a slice of what is unsold.
                (true, true) => market.buy_exact_out(&state, amount % (state.base_reserve - market.migration_supply + 1), fee),
                (false, false) => market.sell_exact_in(&state, amount % (held + 1), fee),
                // Quote out: a slice of what was raised.
                (false, true) => market.sell_exact_out(&state, amount % (state.quote_reserve + 1), fee),
            };
            let Ok(r) = r else { continue };
            // The fee is exactly the part of the quote that moved but did not reach the pool (a buy) or the
            // trader (a sell).
            if buy {
                prop_assert_eq!(r.amount_in - r.fee, r.next.quote_reserve - state.quote_reserve);
                prop_assert_eq!(r.amount_out, state.base_reserve - r.next.base_reserve);
            } else {
                prop_assert_eq!(r.amount_out + r.fee, state.quote_reserve - r.next.quote_reserve);
                prop_assert_eq!(r.amount_in, r.next.base_reserve - state.base_reserve);
            }
            if r.completes {
                prop_assert_eq!(r.next.quote_reserve, market.threshold);
                prop_assert_eq!(r.next.base_reserve, market.migration_supply);
                break;
            }
            state = r.next;
            let q = rat(state.quote_reserve as u128) - exact_quote_to(&market.curve, state.sqrt_price);
            let b = exact_base_to(&market.curve, state.sqrt_price) - rat(sold(&market, &state) as u128);
            prop_assert!(q >= quote_slack, "quote slack shrank");
            prop_assert!(b >= base_slack, "base slack shrank");
            quote_slack = q;
            base_slack = b;
        }
    }

    /// Fees never exceed what they are charged on; the split adds up.
    #[test]
    fn fee_never_exceeds_input(
        idx in 0usize..6, frac in 0u64..999_000, amount in 1u64..u64::MAX, fee in 0u16..=10_000,
        share in 0u16..=10_000,
    ) {
        let f = fee_on_amount(amount, fee).unwrap();
        prop_assert!(f <= amount);
        let s = split_fee(f, share).unwrap();
        prop_assert_eq!(s.creator + s.partner, f);
        let market = configs()[idx].market();
        let state = state_at(&market, frac, 0);
        if fee <= 9_900 {
            if let Ok(r) = market.buy_exact_in(&state, amount, fee) {
                prop_assert!(r.fee <= r.amount_in);
                prop_assert_eq!(r.amount_in + r.refund, amount);
            }
        }
    }

    /// A buy that reaches the threshold lands on it exactly: the pool ends with exactly the threshold and the
    /// migration supply, the trader pays exactly the missing quote plus its fee, and gets the rest back.
    #[test]
    fn graduation_fill_lands_exactly_on_threshold(
        idx in 0usize..6, frac in 0u64..999_999, sell in 0u64..1_000_000, extra in 0u64..u64::MAX / 4,
        fee in fee_bps(),
    ) {
        let market = configs()[idx].market();
        let state = state_at(&market, frac, sell);
        let needed = market.threshold - state.quote_reserve;
        let exact = gross_for_net(needed, fee).unwrap();
        let offered = exact.saturating_add(extra);
        let r = market.buy_exact_in(&state, offered, fee).unwrap();
        prop_assert!(r.completes);
        prop_assert_eq!(r.next.quote_reserve, market.threshold);
        prop_assert_eq!(r.next.base_reserve, market.migration_supply);
        prop_assert_eq!(r.next.sqrt_price, market.curve.sqrt_end_price());
        prop_assert_eq!(r.amount_in - r.fee, needed);
        prop_assert_eq!(r.amount_in + r.refund, offered);
        prop_assert_eq!(r.amount_out, state.base_reserve - market.migration_supply);
        // One base unit less than the exact amount does not complete the curve.
        if exact > 1 {
            if let Ok(short) = market.buy_exact_in(&state, exact - 1, fee) {
                prop_assert!(!short.completes);
            }
        }
        // And the completed curve trades no more.
        prop_assert_eq!(market.buy_exact_in(&r.next, 1_000, fee).unwrap_err(), CurveError::CurveComplete);
        prop_assert_eq!(market.sell_exact_in(&r.next, 1_000, fee).unwrap_err(), CurveError::CurveComplete);
    }

    /// Exact out gives exactly what was asked (a buy that completes the curve gives every unsold token,
    /// at least what was asked), never for less than exact in asks for the same, and is minimal: one net
    /// unit less and the curve would not give that much.
    #[test]
    fn exact_out_gives_exactly_what_was_asked(
        idx in 0usize..6, frac in 1_000u64..999_000, want_ppm in 1u64..1_100_000,
        want_quote_ppm in 1u64..1_000_000, fee in fee_bps(),
    ) {
        let market = configs()[idx].market();
        let state = state_at(&market, frac, 0);
        let unsold = state.base_reserve - market.migration_supply;
        let want = ((unsold as u128 * want_ppm as u128 / 1_000_000) as u64).max(1);
        let want_quote = ((state.quote_reserve as u128 * want_quote_ppm as u128 / 1_000_000) as u64).max(1);
        // Buy exact out.
        match market.buy_exact_out(&state, want, fee) {
            Ok(r) if r.completes => {
                prop_assert!(r.amount_out >= want);
                prop_assert_eq!(r.amount_out, unsold);
                prop_assert_eq!(r.next.quote_reserve, market.threshold);
                prop_assert_eq!(r.amount_in - r.fee, market.threshold - state.quote_reserve);
            }
            Ok(r) => {
                prop_assert_eq!(r.amount_out, want);
                let net = r.amount_in - r.fee;
                // Exact in with the same money buys at least as much, within one unit of rounding.
                let same = market.buy_exact_in(&state, r.amount_in, fee).unwrap();
                prop_assert!(same.amount_out + 1 >= want, "exact in {} < {}", same.amount_out, want);
                // The trader pays at least the exact curve's price for the tokens, and the fee is whole.
                let exact_cost = exact_quote_to(&market.curve, r.next.sqrt_price) - exact_quote_to(&market.curve, state.sqrt_price);
                prop_assert!(rat(net as u128) >= exact_cost);
                prop_assert_eq!(r.amount_in, gross_for_net(net, fee).unwrap());
                // Minimal: a net unit less buys fewer tokens on the curve.
                if net > 1 {
                    let less = market.curve.buy_quote_in(state.sqrt_price, (net - 1) as u128).unwrap();
                    prop_assert!(less.amount_out < want as u128, "{} net buys {} >= {}", net - 1, less.amount_out, want);
                }
            }
            Err(e) => prop_assert!(want > unsold && e == CurveError::InsufficientLiquidity, "{:?} for {} of {}", e, want, unsold),
        }
        // Sell exact out, from a pool that has sold tokens.
        let held = sold(&market, &state);
        if held > 0 {
            if let Ok(r) = market.sell_exact_out(&state, want_quote, fee) {
                prop_assert_eq!(r.amount_out, want_quote);
                prop_assert!(r.amount_in <= held, "sell exact out needs more than was sold");
                let gross = r.amount_out + r.fee;
                prop_assert_eq!(gross, gross_for_net(want_quote, fee).unwrap());
                // Selling the same tokens exact in pays at least as much, within one unit.
                let same = market.sell_exact_in(&state, r.amount_in, fee).unwrap();
                prop_assert!(same.amount_out + 1 >= want_quote, "exact in {} < {}", same.amount_out, want_quote);
                // The pool releases no more quote than the exact curve does for the tokens taken.
                let exact_release = exact_quote_to(&market.curve, state.sqrt_price) - exact_quote_to(&market.curve, r.next.sqrt_price);
                prop_assert!(rat(gross as u128) <= exact_release + rat(1));
            }
        }
    }

    /// No input panics: arbitrary prices and amounts give a value or a typed error.
    #[test]
    fn arbitrary_inputs_never_panic(
        idx in 0usize..6, price in any::<u128>(), b in any::<u64>(), q in any::<u64>(), fee in any::<u16>(),
    ) {
        let market = configs()[idx].market();
        let state = PoolState { sqrt_price: price, base_reserve: b, quote_reserve: q };
        let _ = market.buy_exact_in(&state, b, fee);
        let _ = market.sell_exact_in(&state, q, fee);
        let _ = market.buy_exact_out(&state, b, fee);
        let _ = market.sell_exact_out(&state, q, fee);
        let _ = curve::math::delta_base(price, price / 2, price, curve::Rounding::Up);
        let _ = curve::math::sqrt_price_after_base_out(price, price, price);
    }
    /// Shared creator fees: the parts add up to the amount exactly, each recipient gets its exact share rounded
    /// down, and only the first gets more (the dust, fewer units than there are recipients).
    #[test]
    fn shared_fees_add_up_and_round_down(
        amount in any::<u64>(), cuts in proptest::collection::vec(1u16..10_000, 0..9),
    ) {
        // Up to 10 shares of 10,000: cut points sorted and deduplicated.
        let mut points: Vec<u16> = cuts;
        points.sort_unstable();
        points.dedup();
        let mut shares = Vec::new();
        let mut last = 0u16;
        for p in points.into_iter().chain([10_000]) {
            shares.push(p - last);
            last = p;
        }
        let mut out = vec![0u64; shares.len()];
        curve::distribute(amount, &shares, &mut out).unwrap();
        prop_assert_eq!(out.iter().map(|&o| o as u128).sum::<u128>(), amount as u128);
        for (i, (&o, &bps)) in out.iter().zip(&shares).enumerate() {
            let exact_floor = (amount as u128 * bps as u128 / 10_000) as u64;
            if i == 0 {
                prop_assert!(o >= exact_floor && o - exact_floor < shares.len() as u64);
            } else {
                prop_assert_eq!(o, exact_floor);
            }
        }
    }

    /// The referral's cut and the partner's rest add up to the partner's fee; the cut is the exact share
    /// rounded down.
    #[test]
    fn referral_cut_adds_up(fee in any::<u64>(), share in 0u16..=10_000) {
        let s = curve::split_referral(fee, share).unwrap();
        prop_assert_eq!(s.referral as u128 + s.partner as u128, fee as u128);
        prop_assert_eq!(s.referral as u128, fee as u128 * share as u128 / 10_000);
    }
}
