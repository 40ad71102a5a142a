//! The stored candles are the candles of the stored trades, on PostgreSQL (which merges a batch's candle into
//! the stored one inside the upsert) and SQLite (which reads the stored candle and writes the merge), when the
//! trades of one candle arrive over several batches, out of order, replayed, with prices of different digit
//! counts (a text comparison would get the high and low wrong) and volumes whose sum exceeds u64.

use crate::stores;
use anchor_lang::prelude::Pubkey;
use index::market::{candles_of, seq, Candle, STORED_INTERVALS};
use index::model::{Change, Event, EventKey, MarketTrade, Trade, Venue};

const T0: i64 = 1_800_000_000;

/// A curve buy at `slot` and `time` (unix seconds) after which the price is `price`.
fn buy(mint: &Pubkey, slot: u64, time: i64, price: u128, base: u64, quote: u64) -> Change {
    let signature = format!("sig{slot}");
    let key = EventKey {
        signature: signature.clone(),
        ix_index: 0,
        inner_index: 0,
        slot,
        tx_index: 0,
    };
    let event = sdk::events::EvtSwap {
        pool: Pubkey::new_from_array([7; 32]),
        mint: *mint,
        trader: Pubkey::new_from_array([8; 32]),
        side: 0,
        amount_offered: quote,
        amount_in: quote,
        amount_out: base,
        min_amount_out: 0,
        fee: 0,
        creator_fee: 0,
        partner_fee: 0,
        refund: 0,
        fee_bps: 0,
        sqrt_price: 1,
        base_reserve: 1,
        quote_reserve: 1,
        progress_bps: 0,
        creator_fee_unclaimed: 0,
        partner_fee_unclaimed: 0,
        complete: false,
        timestamp: time,
        exact_out: false,
        referrer: Pubkey::default(),
        referral_fee: 0,
    };
    let market = MarketTrade {
        signature,
        ix_index: 0,
        inner_index: 0,
        slot,
        seq: seq(slot, 0, 0, 0),
        time,
        mint: mint.to_string(),
        venue: Venue::Curve,
        pool: event.pool.to_string(),
        wallet: event.trader.to_string(),
        side: "buy",
        amount_in: quote,
        amount_out: base,
        base_amount: base,
        quote_amount: quote,
        fee: 0,
        fee_token: "quote",
        price,
        wallet_before: None,
    };
    Change::Event(Event::Trade(Box::new(Trade {
        key,
        event,
        side: curve::Side::Buy,
        market: Some(market),
    })))
}

/// The stored candles of `mint` in an interval of `secs`, oldest first.
async fn stored(store: &index::Store, mint: &Pubkey, secs: i64) -> Vec<Candle> {
    use index::sea_query::ExprTrait;
    let select = index::sea_query::Query::select()
        .columns(index::store::CANDLE_COLS)
        .from("candles")
        .and_where(index::sea_query::Expr::col("mint").eq(mint.to_string()))
        .and_where(index::sea_query::Expr::col("interval_secs").eq(secs))
        .order_by("start_time", index::sea_query::Order::Asc)
        .to_owned();
    index::store::sql::query(store.backend(), &select)
        .fetch_all(store.pool())
        .await
        .unwrap()
        .iter()
        .map(index::store::candle_row)
        .collect()
}

#[tokio::test]
async fn candles_equal_their_trades_across_batches_replays_and_digit_counts() {
    let big = u64::MAX - 1;
    // (slot, time, price, base, quote); the batches below take them out of slot order.
    let trades: [(u64, i64, u128, u64, u64); 6] = [
        (10, T0 + 1, 9 * 10u128.pow(29), 5, 7),
        (12, T0 + 20, 5 * 10u128.pow(29), big, big),
        (11, T0 + 20, 10u128.pow(30), 3, big),
        (9, T0 + 1, 2 * 10u128.pow(29), 1, 1),
        (13, T0 + 80, 99, big, 2),
        (14, T0 + 3_700, 10u128.pow(38), 4, 4),
    ];
    for (url, store) in stores("candles_merge").await {
        let mint = Pubkey::new_unique();
        let change = |i: usize| {
            let (slot, time, price, base, quote) = trades[i];
            buy(&mint, slot, time, price, base, quote)
        };
        // Batch 1: slots 10 and 12; batch 2: 11 (before 12, after 10) and 9 (a new open); batch 3: 12 again
        // (a replay, counted once), 13 and 14.
        for batch in [vec![0, 1], vec![2, 3], vec![1, 4, 5]] {
            let changes: Vec<Change> = batch.into_iter().map(change).collect();
            store.apply(&changes, None).await.unwrap();
        }
        let seqs: Vec<String> = trades.iter().map(|t| seq(t.0, 0, 0, 0)).collect();
        for secs in STORED_INTERVALS {
            let want = candles_of(
                trades
                    .iter()
                    .zip(&seqs)
                    .map(|(t, s)| (s.as_str(), t.1, t.2, t.3, t.4)),
                secs,
            );
            assert_eq!(
                stored(&store, &mint, secs).await,
                want,
                "{secs}s candles on {url}"
            );
        }
    }
}
