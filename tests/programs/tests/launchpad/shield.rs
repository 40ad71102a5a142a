//! The `shield` fee schedule on chain: 50% for the first minute, down 4.9 points a minute, 1% from 10 minutes.

use crate::harness::*;
use curve::{Preset, QuoteAsset};
use solana_signer::Signer;

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
        // The last step before the floor: 540 to 599 s.
        (540, 590),
        (599, 590),
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
    // A sell pays the same schedule, on the quote it receives: in the launch minute, half of it.
    let t1 = t0 + 10_000;
    env.now = Some(t1);
    let (sold, _) = env
        .launch(&creator, Preset::Shield, QuoteAsset::Sol, None)
        .await
        .unwrap();
    env.buy(&sold, &trader, SOL, 0).await.unwrap();
    let held = env.balance(&env.base_ata(&sold, &trader.pubkey())).await;
    for (after, bps) in [(30i64, 5_000u16), (570, 590), (900, 100)] {
        env.now = Some(t1 + after);
        let pool = env.pool(&sold.pool).await;
        let e = swaps(&env.sell(&sold, &trader, held / 4, 0).await.unwrap())
            .pop()
            .unwrap();
        assert_eq!(e.fee_bps, bps, "a sell {after} s after launch");
        let gross = pool.quote_reserve - e.quote_reserve;
        assert_eq!(e.fee, (gross as u128 * bps as u128).div_ceil(10_000) as u64);
        assert_eq!(e.amount_out, gross - e.fee);
        env.assert_reconciled(&sold).await;
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
