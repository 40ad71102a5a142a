//! Storage per trade (issue 44, migrations 0023 and 0024): an index written before them reads the same after
//! the upgrade, on PostgreSQL and SQLite. The feed's rows written with a payload keep it; a trade's rows
//! written as references are rendered from the trade; candles of the intervals no longer stored (5m, 15m,
//! 4h, 1d) are derived from the 1m and 1h ones and equal what the old writer stored. Run through
//! scripts/test, which starts PostgreSQL.

use anchor_lang::prelude::Pubkey;
use index::feed::{FeedData, FeedTrade};
use index::market::{candles_of, seq, Candle, INTERVALS};
use index::read::Payload;
use index::Store;

const T0: i64 = 1_800_000_000;

/// A PostgreSQL database and a SQLite file at the schema before 0023: their URLs.
async fn before_0023() -> Vec<String> {
    let admin = std::env::var("DATABASE_URL").expect(
        "DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL",
    );
    let pg = index::store::create_postgres_database(
        &admin,
        &format!("storage_upgrade_{}", std::process::id()),
    )
    .await
    .unwrap();
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&pg)
        .await
        .unwrap();
    sqlx::migrate::Migrator::new(crate::migrations_before("postgres", "0023"))
        .await
        .unwrap()
        .run(&mut conn)
        .await
        .unwrap();
    let dir = std::env::temp_dir().join(format!("storage-upgrade-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite = format!("sqlite://{}/index.db", dir.display());
    let mut conn =
        <sqlx::SqliteConnection as sqlx::Connection>::connect(&format!("{sqlite}?mode=rwc"))
            .await
            .unwrap();
    sqlx::migrate::Migrator::new(crate::migrations_before("sqlite", "0023"))
        .await
        .unwrap()
        .run(&mut conn)
        .await
        .unwrap();
    vec![pg, sqlite]
}

/// The trades of the test: (signature, slot, time, price, base, quote), three 1m candles in two 5m
/// candles, two hours, one day.
fn trades() -> Vec<(String, i64, i64, u128, u64, u64)> {
    vec![
        ("a".into(), 5, T0 + 10, 700, 10, 20),
        ("b".into(), 6, T0 + 70, 900, 1, 2),
        ("c".into(), 7, T0 + 250, 500, 3, 4),
        ("d".into(), 8, T0 + 3_700, 800, 5, 6),
    ]
}

fn candle_set(secs: i64) -> Vec<Candle> {
    let trades = trades();
    let seqs: Vec<String> = trades.iter().map(|t| seq(t.1 as u64, 0, 0, 0)).collect();
    candles_of(
        trades
            .iter()
            .zip(&seqs)
            .map(|(t, s)| (s.as_str(), t.2, t.3, t.4, t.5)),
        secs,
    )
}

#[tokio::test]
async fn an_index_written_before_references_and_derived_candles_reads_the_same() {
    sqlx::any::install_default_drivers();
    let mint = Pubkey::new_unique();
    let (m, pool, wallet) = (mint.to_string(), "P".to_string(), "W".to_string());
    for url in before_0023().await {
        let raw = sqlx::AnyPool::connect(&url).await.unwrap();
        let postgres = url.starts_with("postgres");
        if postgres {
            for (table, key, width) in [
                ("trades", 0, 216_000),
                ("market_trades", 0, 216_000),
                ("feed_events", T0, 3_600),
            ] {
                sqlx::query("SELECT launchpad_partition($1, $2, $3)")
                    .bind(table)
                    .bind(key)
                    .bind(width)
                    .execute(&raw)
                    .await
                    .unwrap();
            }
        }
        // The trades as the old writer stored them, and their candles in all 8 intervals.
        for (sig, slot, time, price, base, quote) in trades() {
            sqlx::query(
                "INSERT INTO trades (signature, ix_index, inner_index, slot, pool, mint, trader, side, \
                 amount_offered, amount_in, amount_out, min_amount_out, fee, creator_fee, partner_fee, \
                 refund, fee_bps, price, sqrt_price, base_reserve, quote_reserve, progress_bps, complete, \
                 time, referrer, referral_fee) VALUES ($1, 0, 0, $2, $3, $4, $5, 'buy', '1', $6, $7, '1', \
                 '9', '1', '0', '0', 100, $8, '1', '11', '12', 13, 0, $9, NULL, '0')",
            )
            .bind(sig.clone())
            .bind(slot)
            .bind(pool.clone())
            .bind(m.clone())
            .bind(wallet.clone())
            .bind(quote.to_string())
            .bind(base.to_string())
            .bind(price.to_string())
            .bind(time)
            .execute(&raw)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO market_trades (signature, ix_index, inner_index, slot, seq, time, mint, venue, \
                 pool, wallet, side, amount_in, amount_out, base_amount, quote_amount, fee, fee_token, \
                 price) VALUES ($1, 0, 0, $2, $3, $4, $5, 'curve', $6, $7, 'buy', $8, $9, $9, $8, '9', \
                 'quote', $10)",
            )
            .bind(sig)
            .bind(slot)
            .bind(seq(slot as u64, 0, 0, 0))
            .bind(time)
            .bind(m.clone())
            .bind(pool.clone())
            .bind(wallet.clone())
            .bind(quote.to_string())
            .bind(base.to_string())
            .bind(price.to_string())
            .execute(&raw)
            .await
            .unwrap();
        }
        for (_, secs) in INTERVALS {
            for c in candle_set(secs) {
                sqlx::query(
                    "INSERT INTO candles (mint, interval_secs, start_time, open, high, low, close, \
                     volume_base, volume_quote, trades, open_seq, close_seq) VALUES ($1, $2, $3, $4, $5, \
                     $6, $7, $8, $9, $10, $11, $12)",
                )
                .bind(m.clone())
                .bind(secs)
                .bind(c.start)
                .bind(c.open.to_string())
                .bind(c.high.to_string())
                .bind(c.low.to_string())
                .bind(c.close.to_string())
                .bind(c.volume_base.to_string())
                .bind(c.volume_quote.to_string())
                .bind(c.trades as i64)
                .bind(c.open_seq.clone())
                .bind(c.close_seq.clone())
                .execute(&raw)
                .await
                .unwrap();
            }
        }
        // Trade a's feed row as the old writer stored it: a copy.
        let copied = FeedData::Trade(FeedTrade {
            venue: "curve".into(),
            pool: pool.clone(),
            side: "buy".into(),
            wallet: wallet.clone(),
            amount_in: 20,
            amount_out: 10,
            base_amount: 10,
            quote_amount: 20,
            fee: 9,
            fee_token: "quote".into(),
            price: 700,
            seq: seq(5, 0, 0, 0),
            progress_bps: Some(13),
        });
        sqlx::query(
            "INSERT INTO feed_events (seq, event_key, kind, mint, wallet, slot, signature, time, payload, \
             written_at) VALUES (1, 'trade:a:0:0', 'trade', $1, $2, 5, 'a', $3, $4, $5)",
        )
        .bind(m.clone())
        .bind(wallet.clone())
        .bind(T0 + 10)
        .bind(serde_json::to_string(&copied).unwrap())
        .bind(T0)
        .execute(&raw)
        .await
        .unwrap();
        raw.close().await;

        let store = Store::open(&url).await.unwrap();
        // Trade b's rows as the writer stores them now: references to it.
        for (seq_no, kind) in [(2, "trade"), (3, "curve")] {
            sqlx::query(
                "INSERT INTO feed_events (seq, kind, slot, signature, time, written_at, ix_index, \
                 inner_index) VALUES ($1, $2, 6, 'b', $3, $4, 0, 0)",
            )
            .bind(seq_no)
            .bind(kind)
            .bind(T0 + 70)
            .bind(T0)
            .execute(store.pool())
            .await
            .unwrap();
        }
        let feed = store.feed_after(0, 10).await.unwrap();
        assert_eq!(feed.len(), 3, "{url}");
        assert_eq!(feed[0].payload, Payload::Data(copied.clone()), "{url}");
        assert_eq!(
            (feed[0].mint.as_str(), feed[0].wallet.as_deref()),
            (m.as_str(), Some("W"))
        );
        let FeedData::Trade(mut b) = copied else {
            unreachable!()
        };
        (b.amount_in, b.amount_out, b.base_amount, b.quote_amount) = (2, 1, 1, 2);
        (b.price, b.seq) = (900, seq(6, 0, 0, 0));
        assert_eq!(feed[1].payload, Payload::Data(FeedData::Trade(b)), "{url}");
        assert_eq!(
            (
                feed[1].kind.as_str(),
                feed[1].mint.as_str(),
                feed[1].wallet.as_deref(),
                feed[1].slot,
                feed[1].signature.as_str(),
                feed[1].time
            ),
            ("trade", m.as_str(), Some("W"), 6, "b", T0 + 70),
            "{url}"
        );
        assert_eq!(
            feed[2].payload,
            Payload::Data(FeedData::Curve {
                pool: pool.clone(),
                progress_bps: 13,
                base_reserve: 11,
                quote_reserve: 12,
                fee_bps: 100,
                price: 900,
                complete: false,
            }),
            "{url}"
        );
        assert_eq!(
            (feed[2].mint.as_str(), feed[2].wallet.as_deref()),
            (m.as_str(), None)
        );

        // Four intervals stored; every interval reads as its trades make it.
        let stored: Vec<i64> =
            sqlx::query_scalar("SELECT DISTINCT interval_secs FROM candles ORDER BY interval_secs")
                .fetch_all(store.pool())
                .await
                .unwrap();
        assert_eq!(stored, index::market::STORED_INTERVALS, "{url}");
        for (name, secs) in INTERVALS {
            let want = candle_set(secs);
            assert_eq!(
                store
                    .candles(&mint, secs, 0, i64::MAX, 1_000)
                    .await
                    .unwrap(),
                want,
                "{name} {url}"
            );
            // The latest one alone, a window holding only the second, and what precedes it.
            assert_eq!(
                store.candles(&mint, secs, 0, i64::MAX, 1).await.unwrap(),
                want[want.len() - 1..],
                "{name} {url}"
            );
            // A window from just after the first one starts holds the others only.
            assert_eq!(
                store
                    .candles(&mint, secs, want[0].start + 1, i64::MAX, 1_000)
                    .await
                    .unwrap(),
                want[1..],
                "{name} {url}"
            );
            let second = &want[want.len().min(2) - 1];
            assert_eq!(
                store
                    .candles(&mint, secs, second.start - secs + 1, second.start, 5)
                    .await
                    .unwrap(),
                std::slice::from_ref(second),
                "{name} {url}"
            );
            assert_eq!(
                store
                    .candle_before(&mint, secs, want[want.len() - 1].start + 1)
                    .await
                    .unwrap()
                    .as_ref(),
                want.last(),
                "{name} {url}"
            );
            assert_eq!(
                store
                    .candle_before(&mint, secs, want[want.len() - 1].start)
                    .await
                    .unwrap(),
                (want.len() > 1).then(|| want[want.len() - 2].clone()),
                "{name} {url}"
            );
        }
        store.close().await;
    }
}
