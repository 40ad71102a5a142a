//! The listing's 24h volume as the clock moves: every batch the indexer writes sweeps the launches whose
//! stored volume is from an earlier window, so an hour after a trade's hour leaves the window its volume is
//! gone from `volume24h`, to the second, even when that launch never trades again. On PostgreSQL and SQLite.

use crate::common;

use common::*;
use index::market::{window_start, WINDOW_INTERVAL_SECS};
use index::read::Sort;
use index::store::Clock;
use index::Store;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres() {
    volume_leaves_the_window_on_the_hour(Db::Postgres).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite() {
    volume_leaves_the_window_on_the_hour(Db::Sqlite).await
}

/// Each traded launch's hourly candles, read straight from the table: (start, quote volume), by mint.
async fn candles(store: &Store) -> BTreeMap<String, Vec<(i64, u128)>> {
    use sqlx::Row;
    let rows = sqlx::query(
        "SELECT mint, start_time, volume_quote FROM candles WHERE interval_secs = 3600",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    let mut out: BTreeMap<String, Vec<(i64, u128)>> = BTreeMap::new();
    for r in rows {
        out.entry(r.get(0))
            .or_default()
            .push((r.get::<i64, _>(1), r.get::<String, _>(2).parse().unwrap()));
    }
    out
}

/// What `volume24h` must be at `now`: the volume of the trades in the current hour and the 23 before it.
fn expected(candles: &[(i64, u128)], now: i64) -> u128 {
    candles
        .iter()
        .filter(|(start, _)| *start >= window_start(now))
        .map(|(_, v)| v)
        .sum()
}

async fn volume_leaves_the_window_on_the_hour(kind: Db) {
    let db = fresh_db(kind).await;
    // A clock the test moves; the store's writes read it.
    let hour = WINDOW_INTERVAL_SECS;
    let start = 1_800_000_000 / hour * hour + hour / 2;
    let now = Arc::new(AtomicI64::new(start));
    let clock = {
        let now = now.clone();
        Clock::new(move || now.load(Ordering::SeqCst))
    };
    let store = Store::open(&db.url).await.unwrap().with_clock(clock);
    // 200 launches traded once each, in one of the last 40 hours (ties in every hour).
    store.seed_listing(200, start).await.unwrap();
    let candles = candles(&store).await;
    assert!(candles.len() > 100, "most seeded launches traded");

    // Just before each of the next 30 hours and on it: a batch (an empty one: no launch trades) sweeps.
    let mut dropped_somewhere = false;
    for h in 1..=30 {
        let boundary = start / hour * hour + h * hour;
        for t in [boundary - 1, boundary] {
            now.store(t, Ordering::SeqCst);
            store.apply(&[], None).await.unwrap();
            // The listing sorted by 24h volume serves the swept figures, in order.
            let page = store
                .listing(
                    &index::read::ListingQuery {
                        sort: Sort::Volume24h,
                        descending: true,
                        status: None,
                        preset: None,
                        quote: None,
                        creator: None,
                        q: None,
                        prefix: None,
                        limit: 100,
                        offset: 0,
                    },
                    None,
                )
                .await
                .unwrap();
            let volumes: Vec<u128> = page.iter().map(|r| r.stats.volume_24h_quote).collect();
            assert!(volumes.windows(2).all(|w| w[0] >= w[1]), "{volumes:?}");
            for row in &page {
                if let Some(series) = candles.get(&row.launch.mint) {
                    assert_eq!(row.stats.volume_24h_quote, expected(series, t));
                }
            }
            for (mint, series) in &candles {
                let stats = store
                    .launch_stats(&mint.parse().unwrap())
                    .await
                    .unwrap()
                    .unwrap();
                let want = expected(series, t);
                assert_eq!(
                    stats.volume_24h_quote,
                    want,
                    "{mint} at {t} ({}s past the hour)",
                    t - boundary
                );
                if want == 0 && expected(series, t - 1) > 0 {
                    dropped_somewhere = true;
                    assert_eq!(t, boundary, "volume leaves only on the hour");
                }
            }
        }
    }
    assert!(dropped_somewhere, "some launch's volume left the window");
}
