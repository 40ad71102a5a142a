//! Bounded storage: the writer's periodic prune deletes the finest candles past their retention (by the
//! store's clock), and trades past theirs when one is set, and keeps everything else, on PostgreSQL and
//! SQLite alike.

use crate::stores;
use index::store::retention::Retention;
use index::store::{Clock, Store};

const NOW: i64 = 1_800_000_000;
const DAY: i64 = 86_400;

async fn candle(store: &Store, interval: i64, start: i64) {
    sqlx::query(
        "INSERT INTO candles (mint, interval_secs, start_time, open, high, low, close, volume_base, \
         volume_quote, trades, open_seq, close_seq) VALUES ('M', $1, $2, '1', '1', '1', '1', '1', '1', 1, \
         'a', 'b')",
    )
    .bind(interval)
    .bind(start)
    .execute(store.pool())
    .await
    .unwrap();
}

async fn kept(store: &Store) -> Vec<(i64, i64)> {
    sqlx::query_as(
        "SELECT interval_secs, start_time FROM candles ORDER BY interval_secs, start_time",
    )
    .fetch_all(store.pool())
    .await
    .unwrap()
}

#[tokio::test]
async fn the_writer_prunes_the_finest_candles_past_their_retention() {
    for (url, store) in stores("retention_candles").await {
        let written = [
            (1, NOW - 3 * DAY),  // past 2 days: goes
            (1, NOW - DAY),      // kept
            (15, NOW - 8 * DAY), // past a week: goes
            (15, NOW - 6 * DAY), // kept
            (60, NOW - 400 * DAY),
            (3_600, NOW - 400 * DAY),
            (86_400, NOW - 400 * DAY),
        ];
        for (interval, start) in written {
            candle(&store, interval, start).await;
        }
        let store = store
            .with_clock(Clock::new(|| NOW))
            .with_retention(Retention::default());
        // Any batch, even an empty one, runs the prune when a minute has passed since the last.
        store.apply(&[], None).await.unwrap();
        assert_eq!(
            kept(&store).await,
            vec![
                (1, NOW - DAY),
                (15, NOW - 6 * DAY),
                (60, NOW - 400 * DAY),
                (3_600, NOW - 400 * DAY),
                (86_400, NOW - 400 * DAY),
            ],
            "{url}"
        );

        // A custom retention: 1 m candles for 90 days; 15 s ones for ever.
        let store = Store::connect(&url)
            .await
            .unwrap()
            .with_clock(Clock::new(|| NOW))
            .with_retention(Retention::with_candles("1m=90d,15s=forever").unwrap());
        candle(&store, 15, NOW - 100 * DAY).await;
        store.apply(&[], None).await.unwrap();
        assert_eq!(
            kept(&store).await,
            vec![
                (1, NOW - DAY),
                (15, NOW - 100 * DAY),
                (15, NOW - 6 * DAY),
                (3_600, NOW - 400 * DAY),
                (86_400, NOW - 400 * DAY),
            ],
            "{url}"
        );
        store.close().await;
    }
}

#[tokio::test]
async fn trades_past_their_retention_go_on_both_databases() {
    let w = index::store::partitions::SLOTS_PER_PARTITION;
    for (url, store) in stores("retention_trades").await {
        // One trade three days old, one from this morning, a partition apart (made as the writer would).
        for (sig, slot, time) in [("old", 5, NOW - 3 * DAY), ("new", w + 5, NOW - DAY / 2)] {
            if store.backend() == index::store::Backend::Postgres {
                sqlx::query("SELECT launchpad_partition('trades', $1, $2)")
                    .bind(slot)
                    .bind(w)
                    .execute(store.pool())
                    .await
                    .unwrap();
            }
            sqlx::query(
                "INSERT INTO trades (signature, ix_index, inner_index, slot, pool, mint, trader, side, \
                 amount_offered, amount_in, amount_out, min_amount_out, fee, creator_fee, partner_fee, \
                 refund, fee_bps, price, sqrt_price, base_reserve, quote_reserve, progress_bps, complete, \
                 time) VALUES ($1, 0, 0, $2, 'P', 'M', 'T', 'buy', '1', '1', '1', '1', '1', '1', '0', '0', \
                 100, NULL, '1', '1', '1', 10, 0, $3)",
            )
            .bind(sig)
            .bind(slot)
            .bind(time)
            .execute(store.pool())
            .await
            .unwrap();
        }
        let kept = || async {
            sqlx::query_scalar::<_, String>("SELECT signature FROM trades ORDER BY slot")
                .fetch_all(store.pool())
                .await
                .unwrap()
        };
        // Kept for ever by default.
        let forever = Store::connect(&url)
            .await
            .unwrap()
            .with_clock(Clock::new(|| NOW))
            .with_retention(Retention::default());
        forever.apply(&[], None).await.unwrap();
        assert_eq!(kept().await, ["old", "new"], "{url}");
        let two_days = || async {
            Store::connect(&url)
                .await
                .unwrap()
                .with_clock(Clock::new(|| NOW))
                .with_retention(Retention {
                    trades_secs: Some(2 * DAY),
                    ..Retention::default()
                })
        };
        // A kept feed row refers to the old trade (a trade's feed rows are references to it, written when
        // it was indexed, here late): the trade stays while the row does.
        let written_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        if store.backend() == index::store::Backend::Postgres {
            sqlx::query("SELECT launchpad_partition('feed_events', $1, 3600)")
                .bind(written_at)
                .execute(store.pool())
                .await
                .unwrap();
        }
        sqlx::query(
            "INSERT INTO feed_events (seq, kind, slot, signature, time, written_at, ix_index, inner_index) \
             VALUES (1, 'trade', 5, 'old', $1, $2, 0, 0)",
        )
        .bind(NOW - 3 * DAY)
        .bind(written_at)
        .execute(store.pool())
        .await
        .unwrap();
        two_days().await.apply(&[], None).await.unwrap();
        assert_eq!(kept().await, ["old", "new"], "{url}");
        // Once no feed row refers to it, two days' retention takes the old one (on PostgreSQL with its
        // partition).
        sqlx::query("DELETE FROM feed_events")
            .execute(store.pool())
            .await
            .unwrap();
        two_days().await.apply(&[], None).await.unwrap();
        assert_eq!(kept().await, ["new"], "{url}");
        store.close().await;
    }
}

#[tokio::test]
async fn the_retention_timer_prunes_without_any_batch_once_a_minute() {
    for (url, store) in stores("retention_timer").await {
        candle(&store, 1, NOW - 3 * DAY).await;
        candle(&store, 1, NOW - DAY).await;
        let store = store
            .with_clock(Clock::new(|| NOW))
            .with_retention(Retention::default());
        // No batch is written (the indexer's timer calls this whether or not batches commit).
        assert!(store.prune_due().await.unwrap(), "{url}");
        assert_eq!(kept(&store).await, vec![(1, NOW - DAY)], "{url}");
        // Not due again within the minute, here or in a batch.
        candle(&store, 1, NOW - 3 * DAY).await;
        assert!(!store.prune_due().await.unwrap(), "{url}");
        store.apply(&[], None).await.unwrap();
        assert_eq!(
            kept(&store).await,
            vec![(1, NOW - 3 * DAY), (1, NOW - DAY)],
            "{url}"
        );
        store.close().await;
    }
}
