//! Curve math speed: exact-in buys across one and three segments, sells, exact-out quotes, and the fee at a
//! given time. Target: a 3-segment exact-in quote under 2 microseconds.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use curve::{preset_config, Preset, QuoteAsset};

fn bench(c: &mut Criterion) {
    let fair = preset_config(Preset::Fair, QuoteAsset::Sol).unwrap();
    let dist = preset_config(Preset::Distribute, QuoteAsset::Sol).unwrap();
    let shield = preset_config(Preset::Shield, QuoteAsset::Sol).unwrap();
    let fair_m = fair.market();
    let dist_m = dist.market();
    let fresh_fair = fair_m.initial_state().unwrap();
    let fresh_dist = dist_m.initial_state().unwrap();
    // 9 SOL from the start of `distribute` crosses all three segments (stopping short of graduation).
    let crossing = 9_000_000_000u64;
    let mid = dist_m
        .buy_exact_in(&fresh_dist, 5_000_000_000, 100)
        .unwrap();

    c.bench_function("buy exact-in, 1 segment (fair)", |b| {
        b.iter(|| fair_m.buy_exact_in(black_box(&fresh_fair), black_box(1_000_000_000), 100))
    });
    c.bench_function("buy exact-in, 3 segments (distribute)", |b| {
        b.iter(|| dist_m.buy_exact_in(black_box(&fresh_dist), black_box(crossing), 100))
    });
    c.bench_function("sell exact-in, 2 segments (distribute)", |b| {
        b.iter(|| dist_m.sell_exact_in(black_box(&mid.next), black_box(mid.amount_out), 100))
    });
    c.bench_function("buy exact-out, 3 segments (distribute)", |b| {
        b.iter(|| dist_m.buy_exact_out(black_box(&fresh_dist), black_box(700_000_000_000_000), 100))
    });
    c.bench_function("graduation fill (fair)", |b| {
        b.iter(|| fair_m.buy_exact_in(black_box(&fresh_fair), black_box(u64::MAX), 100))
    });
    c.bench_function("shield fee at t", |b| {
        b.iter(|| shield.fees.fee_bps_at(black_box(317)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
