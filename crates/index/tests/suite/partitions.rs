//! PostgreSQL's partitioned tables: an index written before them is converted in place (every row kept,
//! each in its partition), and the live feed's retention drops whole hours while never letting the highest
//! `seq` go back; SQLite's tables, made again with the same keys, keep every row too. Run through
//! scripts/test, which starts PostgreSQL.

use index::store::partitions::FEED_SECS_PER_PARTITION as HOUR;
use index::Store;
use sqlx::Row as _;

async fn fresh(name: &str) -> String {
    let admin = std::env::var("DATABASE_URL").expect(
        "DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL",
    );
    index::store::create_postgres_database(&admin, &format!("{name}_{}", std::process::id()))
        .await
        .unwrap()
}

async fn partitions(store: &Store, table: &str) -> Vec<(String, i64, i64)> {
    sqlx::query_as("SELECT name, lo, hi FROM launchpad_partitions($1)")
        .bind(table)
        .fetch_all(store.pool())
        .await
        .unwrap()
}

async fn count(store: &Store, sql: &'static str) -> i64 {
    sqlx::query(sql)
        .fetch_one(store.pool())
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn an_index_written_before_partitioning_is_converted_with_every_row() {
    sqlx::any::install_default_drivers();
    let url = fresh("partition_upgrade").await;
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    sqlx::migrate::Migrator::new(crate::migrations_before("postgres", "0014"))
        .await
        .unwrap()
        .run(&mut conn)
        .await
        .unwrap();
    // Rows as the old schema held them: trades in two slot ranges, an AMM swap, feed rows in two hours.
    let w = index::store::partitions::SLOTS_PER_PARTITION;
    for (sig, slot) in [("a", 5), ("b", w + 5)] {
        sqlx::query(
            "INSERT INTO trades (signature, ix_index, inner_index, slot, pool, mint, trader, side, \
             amount_offered, amount_in, amount_out, min_amount_out, fee, creator_fee, partner_fee, refund, \
             fee_bps, price, sqrt_price, base_reserve, quote_reserve, progress_bps, complete, time, \
             referrer, referral_fee) VALUES ($1, 0, 0, $2, 'P', 'M', 'T', 'buy', '1', '1', '1', '1', '1', \
             '1', '0', '0', 100, NULL, '1', '1', '1', 10, 0, 1700000000, 'R', '2')",
        )
        .bind(sig)
        .bind(slot)
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO market_trades (signature, ix_index, inner_index, slot, seq, time, mint, venue, \
             pool, wallet, side, amount_in, amount_out, base_amount, quote_amount, fee, fee_token, price) \
             VALUES ($1, 0, 0, $2, $1, 1700000000, 'M', 'curve', 'P', 'T', 'buy', '1', '1', '1', '1', '1', \
             'quote', '1')",
        )
        .bind(sig)
        .bind(slot)
        .execute(&mut conn)
        .await
        .unwrap();
    }
    sqlx::query(
        "INSERT INTO amm_swaps (signature, ix_index, inner_index, slot, pool, trader, a_to_b, amount_in, \
         amount_out, fee, reserve_a, reserve_b, time) VALUES ('c', 0, 0, 9, 'A', 'T', 1, '1', '1', '1', '1', \
         '1', 1700000000)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    for (seq, at) in [(1, 1_800_000_000), (2, 1_800_000_000 + HOUR)] {
        sqlx::query(
            "INSERT INTO feed_events (seq, event_key, kind, mint, wallet, slot, signature, time, payload, \
             written_at) VALUES ($1, $2, 'trade', 'M', NULL, 5, 'a', 1700000000, '{}', $3)",
        )
        .bind(seq)
        .bind(format!("trade:a:{seq}"))
        .bind(at)
        .execute(&mut conn)
        .await
        .unwrap();
    }

    // Opening the store applies the partitioning migration.
    let store = Store::open(&url).await.unwrap();
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 2);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM market_trades").await, 2);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM amm_swaps").await, 1);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM feed_events").await, 2);
    let names = |p: Vec<(String, i64, i64)>| p.into_iter().map(|(n, _, _)| n).collect::<Vec<_>>();
    assert_eq!(
        names(partitions(&store, "trades").await),
        ["trades_p0", "trades_p1"]
    );
    assert_eq!(
        names(partitions(&store, "amm_swaps").await),
        ["amm_swaps_p0"]
    );
    let hour = 1_800_000_000 / HOUR;
    assert_eq!(
        names(partitions(&store, "feed_events").await),
        [
            format!("feed_events_p{hour}"),
            format!("feed_events_p{}", hour + 1)
        ]
    );
    // The view over the trades was made again, and reads them.
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM fee_ledger WHERE kind = 'trading'"
        )
        .await,
        0,
        "no launch row: the view joins launches"
    );
    // The feed numbers on after the converted rows.
    assert_eq!(store.feed_bounds().await.unwrap(), Some((1, 2)));
    store.close().await;
}

#[tokio::test]
async fn the_feed_drops_whole_hours_and_keeps_its_newest_row() {
    let url = fresh("partition_feed").await;
    let store = Store::open(&url).await.unwrap();
    // Rows in three past hours (made as the writer makes them), numbered in the order written.
    let base = 1_700_000_000 - 1_700_000_000 % HOUR;
    let mut seq = 0;
    for hour in 0..3 {
        sqlx::query("SELECT launchpad_partition('feed_events', $1, $2)")
            .bind(base + hour * HOUR)
            .bind(HOUR)
            .execute(store.pool())
            .await
            .unwrap();
        for _ in 0..2 {
            seq += 1;
            sqlx::query(
                "INSERT INTO feed_events (seq, event_key, kind, mint, wallet, slot, signature, time, \
                 payload, written_at) VALUES ($1, $2, 'trade', 'M', NULL, 5, 's', 0, '{}', $3)",
            )
            .bind(seq)
            .bind(format!("k{seq}"))
            .bind(base + hour * HOUR + seq)
            .execute(store.pool())
            .await
            .unwrap();
        }
    }
    // Everything before the third hour: the first two hours go whole.
    assert_eq!(store.prune_feed(base + 2 * HOUR).await.unwrap(), 4);
    assert_eq!(partitions(&store, "feed_events").await.len(), 1);
    assert_eq!(store.feed_bounds().await.unwrap(), Some((5, 6)));
    // Everything: the newest row stays (the highest `seq` never goes back), in its partition.
    assert_eq!(store.prune_feed(i64::MAX).await.unwrap(), 1);
    assert_eq!(store.feed_bounds().await.unwrap(), Some((6, 6)));
    assert_eq!(partitions(&store, "feed_events").await.len(), 1);
    // A partition is dropped only if it is one of the table's.
    let refused = sqlx::query("SELECT launchpad_drop_partition('feed_events', 'launches')")
        .execute(store.pool())
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("not a partition"), "{refused}");
    store.close().await;
}

#[tokio::test]
async fn a_sqlite_index_written_before_the_new_keys_keeps_every_row() {
    let dir = std::env::temp_dir().join(format!("rekeyed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}/index.db?mode=rwc", dir.display());
    let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    sqlx::migrate::Migrator::new(crate::migrations_before("sqlite", "0014"))
        .await
        .unwrap()
        .run(&mut conn)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO trades (signature, ix_index, inner_index, slot, pool, mint, trader, side, \
         amount_offered, amount_in, amount_out, min_amount_out, fee, creator_fee, partner_fee, refund, \
         fee_bps, price, sqrt_price, base_reserve, quote_reserve, progress_bps, complete, time, referrer, \
         referral_fee) VALUES ('a', 0, 0, 5, 'P', 'M', 'T', 'buy', '1', '1', '1', '1', '1', '1', '0', '0', \
         100, NULL, '1', '1', '1', 10, 0, 1700000000, 'R', '2')",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO feed_events (seq, event_key, kind, mint, wallet, slot, signature, time, payload, \
         written_at) VALUES (7, 'trade:a:0:0', 'trade', 'M', NULL, 5, 'a', 1700000000, '{}', 1800000000)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    drop(conn);
    let store = Store::open(&format!("sqlite://{}/index.db", dir.display()))
        .await
        .unwrap();
    let trade: (String, String) = sqlx::query_as("SELECT referrer, referral_fee FROM trades")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(trade, ("R".to_string(), "2".to_string()));
    assert_eq!(store.feed_bounds().await.unwrap(), Some((7, 7)));
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM fee_ledger").await,
        0,
        "the view was made again (no launch row to join)"
    );
    store.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
