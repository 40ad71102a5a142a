//! The `shield` fee schedule on chain: 50% for the first minute, down 4.9 points a minute, 1% from 10 minutes.

use crate::harness::*;
use curve::{Preset, QuoteAsset};

#[tokio::test]
async fn shield_fee_follows_the_clock() {
    let mut env = Env::start().await;
    let t0: i64 = 1_800_000_000;
    env.now = Some(t0);
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Shield, QuoteAsset::Sol, None)
        .await
        .unwrap();
    assert_eq!(env.pool(&keys.pool).await.launch_timestamp, t0);
    let trader = env.wallet().await;
    env.fund_quote(&trader, QuoteAsset::Sol, 5 * SOL).await;
    let amount = SOL / 10 + 3;
    for (after, bps) in [
        (0i64, 5_000u16),
        (59, 5_000),
        (60, 4_510),
        (300, 2_550),
        (600, 100),
        (6_000, 100),
    ] {
        env.now = Some(t0 + after);
        let e = swaps(&env.buy(&keys, &trader, amount, 0).await.unwrap())
            .pop()
            .unwrap();
        assert_eq!(e.fee_bps, bps, "{after} s after launch");
        assert_eq!(
            e.fee,
            (amount as u128 * bps as u128).div_ceil(10_000) as u64,
            "fee rounds up"
        );
        assert_eq!(e.creator_fee, e.fee / 2, "creator share rounds down");
        env.assert_reconciled(&keys).await;
    }
    // A fixed-fee preset charges 1% at launch.
    env.now = Some(t0);
    let (fair, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Sol, None)
        .await
        .unwrap();
    let e = swaps(&env.buy(&fair, &trader, amount, 0).await.unwrap())
        .pop()
        .unwrap();
    assert_eq!(e.fee_bps, 100);
}
