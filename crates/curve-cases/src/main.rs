//! `curve-cases [--seed N] [--count N]`: emits, as JSON lines on stdout, the six pinned configs and then
//! `count` random cases of every function the TypeScript SDK reimplements (`clients/ts/src/math`), each with
//! what `crates/curve` returns for it: the result's fields, or the error's name. The SDK's differential test
//! (`clients/ts/test/differential.test.ts`) recomputes every case and requires the same answer to the base
//! unit. Amounts are decimal strings (u128 does not fit a JSON number).
//!
//! Cases lean on the edges: states all along each curve and right at its end, amounts from one base unit to
//! past the graduation, every step of the shield fee's decay and the seconds around each step.

use curve::{
    amm, distribute, gross_for_net, pinned_preset, split_fee, split_referral, CurveError, Market,
    PoolState, Preset, PresetConfig, QuoteAsset, Side, SwapResult,
};
use serde_json::{json, Value};
use std::io::Write;

/// SplitMix64: a small deterministic generator (the cases must be the same for a seed on every machine).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    /// An amount spread over every order of magnitude up to `max`.
    fn amount(&mut self, max: u64) -> u64 {
        let bits = self.below(64) as u32 + 1;
        let v = if bits >= 64 {
            self.next()
        } else {
            self.next() & ((1u64 << bits) - 1)
        };
        match self.below(10) {
            0 => 1,
            1 => max,
            _ => v % max.max(1) + 1,
        }
    }
}

fn configs() -> Vec<PresetConfig> {
    let mut out = Vec::new();
    for p in Preset::ALL {
        for q in QuoteAsset::ALL {
            out.push(*pinned_preset(p, q));
        }
    }
    out
}

fn error_name(e: CurveError) -> &'static str {
    match e {
        CurveError::MathOverflow => "MathOverflow",
        CurveError::ZeroAmount => "ZeroAmount",
        CurveError::AmountTooSmall => "AmountTooSmall",
        CurveError::CurveComplete => "CurveComplete",
        CurveError::InsufficientLiquidity => "InsufficientLiquidity",
        CurveError::InvalidCurve => "InvalidCurve",
        CurveError::InvalidFee => "InvalidFee",
        CurveError::InvalidShare => "InvalidShare",
        CurveError::CurveMismatch => "CurveMismatch",
        CurveError::InconsistentState => "InconsistentState",
    }
}

fn state_json(s: &PoolState) -> Value {
    json!({
        "sqrtPrice": s.sqrt_price.to_string(),
        "baseReserve": s.base_reserve.to_string(),
        "quoteReserve": s.quote_reserve.to_string(),
    })
}

fn swap_json(r: Result<SwapResult, CurveError>) -> Value {
    match r {
        Ok(r) => json!({"ok": {
            "amountIn": r.amount_in.to_string(),
            "amountOut": r.amount_out.to_string(),
            "fee": r.fee.to_string(),
            "refund": r.refund.to_string(),
            "next": state_json(&r.next),
            "completes": r.completes,
        }}),
        Err(e) => json!({"error": error_name(e)}),
    }
}

fn result<T>(r: Result<T, CurveError>, ok: impl FnOnce(T) -> Value) -> Value {
    match r {
        Ok(v) => json!({ "ok": ok(v) }),
        Err(e) => json!({"error": error_name(e)}),
    }
}

/// A state somewhere along `market`'s curve: the start, the end's neighbourhood, or after a random buy (and
/// sometimes a sell back).
fn state(rng: &mut Rng, market: &Market) -> PoolState {
    let start = market.initial_state().expect("pinned curves start");
    let threshold = market.threshold;
    let to = match rng.below(8) {
        0 => return start,
        1 => threshold - 1 - rng.below(threshold.min(1_000)),
        2 => threshold.saturating_sub(rng.amount(threshold / 100)),
        _ => rng.below(threshold),
    };
    let mut s = start;
    if to > 0 {
        if let Ok(r) = market.buy_exact_in(&s, to, 0) {
            if !r.completes {
                s = r.next;
            }
        }
    }
    if rng.below(4) == 0 {
        let sold = s
            .base_reserve
            .saturating_sub(start.base_reserve.min(s.base_reserve));
        let held = start.base_reserve - s.base_reserve.min(start.base_reserve) + sold;
        if held > 0 {
            if let Ok(r) = market.sell_exact_in(&s, rng.below(held) + 1, 0) {
                s = r.next;
            }
        }
    }
    s
}

fn fee_bps(rng: &mut Rng) -> u16 {
    match rng.below(6) {
        0 => 0,
        1 => 100,
        2 => 5_000,
        3 => 9_900,
        4 => rng.below(10_001) as u16,
        _ => rng.below(u16::MAX as u64 + 1) as u16,
    }
}

fn main() {
    let mut seed = 7u64;
    let mut count = 10_000usize;
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        match (pair[0].as_str(), pair.get(1)) {
            ("--seed", Some(v)) => seed = v.parse().expect("--seed takes an integer"),
            ("--count", Some(v)) => count = v.parse().expect("--count takes an integer"),
            _ => {
                eprintln!("usage: curve-cases [--seed N] [--count N]");
                std::process::exit(2);
            }
        }
    }
    let mut rng = Rng(seed);
    let configs = configs();
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut emit = |v: Value| writeln!(out, "{v}").expect("stdout");

    for (i, c) in configs.iter().enumerate() {
        emit(json!({
            "fn": "config", "idx": i, "preset": c.preset.name(), "quote": c.quote.name(),
            "sqrtStartPrice": c.sqrt_start_price.to_string(),
            "segments": c.segments[..c.segment_count as usize].iter()
                .map(|s| [s.sqrt_price_upper.to_string(), s.liquidity.to_string()]).collect::<Vec<_>>(),
            "threshold": c.threshold.to_string(), "saleSupply": c.sale_supply.to_string(),
            "migrationSupply": c.migration_supply.to_string(),
            "fees": {"cliffFeeBps": c.fees.cliff_fee_bps, "reductionBpsPerPeriod": c.fees.reduction_bps_per_period,
                     "periodSeconds": c.fees.period_seconds, "numberOfPeriods": c.fees.number_of_periods},
            "creatorFeeShareBps": c.creator_fee_share_bps, "creatorSurplusShareBps": c.creator_surplus_share_bps,
            "referralShareBps": c.referral_share_bps,
        }));
    }

    for _ in 0..count {
        let idx = rng.below(configs.len() as u64) as usize;
        let market = configs[idx].market();
        let threshold = market.threshold;
        let s = state(&mut rng, &market);
        let fee = fee_bps(&mut rng);
        let quote_amount = rng.amount(threshold * 2);
        let base_amount = rng.amount(market.sale_supply);
        for (name, side, amount, exact_out) in [
            ("buyExactIn", Side::Buy, quote_amount, false),
            ("sellExactIn", Side::Sell, base_amount, false),
            ("buyExactOut", Side::Buy, base_amount, true),
            ("sellExactOut", Side::Sell, rng.amount(threshold), true),
        ] {
            let r = if exact_out {
                market.swap_exact_out(&s, side, amount, fee)
            } else {
                market.swap_exact_in(&s, side, amount, fee)
            };
            emit(
                json!({"fn": name, "config": idx, "state": state_json(&s), "amount": amount.to_string(),
                        "feeBps": fee, "result": swap_json(r)}),
            );
        }

        // The fee schedule: around every step of a decaying schedule, and anywhere.
        let sched = configs[idx].fees;
        let period = i64::from(sched.period_seconds.max(1));
        let elapsed = match rng.below(4) {
            0 => rng.below(12) as i64 * period + rng.below(3) as i64 - 1,
            1 => -(rng.below(1_000) as i64),
            2 => rng.next() as i64,
            _ => rng.below(1_000) as i64,
        };
        emit(
            json!({"fn": "feeBpsAt", "config": idx, "elapsed": elapsed.to_string(),
                    "result": {"ok": sched.fee_bps_at(elapsed)},
                    "nextChange": sched.next_change_after(elapsed).map(|v| v.to_string())}),
        );

        let net = rng.amount(u64::MAX);
        emit(
            json!({"fn": "grossForNet", "net": net.to_string(), "feeBps": fee,
                    "result": result(gross_for_net(net, fee), |v| json!(v.to_string()))}),
        );
        let share = rng.below(10_002) as u16;
        let amount = rng.amount(u64::MAX);
        emit(
            json!({"fn": "splitFee", "fee": amount.to_string(), "shareBps": share,
                    "result": result(split_fee(amount, share), |v| json!([v.creator.to_string(), v.partner.to_string()]))}),
        );
        emit(
            json!({"fn": "splitReferral", "fee": amount.to_string(), "shareBps": share,
                    "result": result(split_referral(amount, share), |v| json!([v.referral.to_string(), v.partner.to_string()]))}),
        );
        let n = rng.below(11) as usize + 1;
        let mut shares: Vec<u16> = (0..n).map(|_| rng.below(10_001) as u16).collect();
        if rng.below(4) != 0 {
            // Mostly valid lists: the rest of 10,000 on the last share.
            let head: u32 = shares[..n - 1]
                .iter()
                .map(|&b| u32::from(b) % (10_000 / n as u32))
                .sum();
            for b in shares.iter_mut().take(n - 1) {
                *b %= (10_000 / n as u16).max(1);
            }
            shares[n - 1] = (10_000 - head) as u16;
        }
        let mut parts = vec![0u64; n];
        emit(
            json!({"fn": "distribute", "amount": amount.to_string(), "shares": shares,
                    "result": result(distribute(amount, &shares, &mut parts), |_| json!(parts.iter().map(|p| p.to_string()).collect::<Vec<_>>()))}),
        );

        // The AMM: reserves from a migrated pool's size down to a few units.
        let reserve_in = rng.amount(u64::MAX / 2);
        let reserve_out = rng.amount(u64::MAX / 2);
        let amm_fee = match rng.below(4) {
            0 => amm::DEFAULT_SWAP_FEE_BPS,
            1 => rng.below(10_001) as u16,
            _ => rng.below(amm::MAX_SWAP_FEE_BPS as u64 + 1) as u16,
        };
        let a_in = rng.amount(reserve_in);
        let a_out = rng.amount(reserve_out);
        let amm_json = |r: amm::AmmSwap| {
            json!({"amountIn": r.amount_in.to_string(), "fee": r.fee.to_string(),
            "amountOut": r.amount_out.to_string(), "reserveInAfter": r.reserve_in_after.to_string(),
            "reserveOutAfter": r.reserve_out_after.to_string()})
        };
        emit(
            json!({"fn": "ammSwapExactIn", "reserveIn": reserve_in.to_string(), "reserveOut": reserve_out.to_string(),
                    "amount": a_in.to_string(), "feeBps": amm_fee,
                    "result": result(amm::swap_exact_in(reserve_in, reserve_out, a_in, amm_fee), amm_json)}),
        );
        emit(
            json!({"fn": "ammSwapExactOut", "reserveIn": reserve_in.to_string(), "reserveOut": reserve_out.to_string(),
                    "amount": a_out.to_string(), "feeBps": amm_fee,
                    "result": result(amm::swap_exact_out(reserve_in, reserve_out, a_out, amm_fee), amm_json)}),
        );

        // Migration: the graduated pool's plan (the AMM's opening deposit, the surplus and its split).
        let cfg = &configs[idx];
        let raised = if rng.below(2) == 0 {
            threshold
        } else {
            rng.amount(threshold * 2)
        };
        let base = if rng.below(2) == 0 {
            cfg.migration_supply
        } else {
            rng.amount(cfg.migration_supply * 2)
        };
        emit(
            json!({"fn": "planMigration", "config": idx, "base": base.to_string(), "raised": raised.to_string(),
                    "result": result(amm::plan_migration(base, raised, cfg.curve().sqrt_end_price(), cfg.creator_surplus_share_bps),
                        |p| json!({"basePerPosition": p.base_per_position.to_string(), "quotePerPosition": p.quote_per_position.to_string(),
                                   "liquidityPerPosition": p.liquidity_per_position.to_string(), "burntBase": p.burnt_base.to_string(),
                                   "surplus": p.surplus.to_string(), "creatorSurplus": p.creator_surplus.to_string(),
                                   "partnerSurplus": p.partner_surplus.to_string()}))}),
        );
    }
}
