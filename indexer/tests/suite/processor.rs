//! The process and store stages fed a generated stream (as a Yellowstone server would send it), on
//! PostgreSQL and SQLite: trades, candles and stats written exactly, a dead fork's status changing nothing,
//! older writes never replacing newer ones, and malformed updates counted without stopping anything.

use crate::common;

use anchor_lang::prelude::Pubkey;
use anchor_lang::{AnchorSerialize, Discriminator};
use common::*;
use index::Store;
use indexer::{Commitment, Metrics, Processor};
use localnet::testkit::{self, SOL};
use sqlx::Row;
use std::sync::Arc;
use yellowstone_grpc_proto::prelude::{
    subscribe_update::UpdateOneof, InnerInstruction, InnerInstructions, Message, SlotStatus,
    SubscribeUpdate, SubscribeUpdateAccount, SubscribeUpdateAccountInfo, SubscribeUpdateSlot,
    SubscribeUpdateTransaction, SubscribeUpdateTransactionInfo, Transaction, TransactionStatusMeta,
};

fn update(u: UpdateOneof) -> SubscribeUpdate {
    SubscribeUpdate {
        filters: vec!["programs".into()],
        update_oneof: Some(u),
        created_at: None,
    }
}

fn account(address: &Pubkey, owner: &Pubkey, slot: u64, wv: u64, data: Vec<u8>) -> SubscribeUpdate {
    update(UpdateOneof::Account(SubscribeUpdateAccount {
        account: Some(SubscribeUpdateAccountInfo {
            pubkey: address.to_bytes().to_vec(),
            lamports: 1_000_000,
            owner: owner.to_bytes().to_vec(),
            executable: false,
            rent_epoch: 0,
            data,
            write_version: wv,
            txn_signature: None,
        }),
        slot,
        is_startup: false,
        ..Default::default()
    }))
}

fn slot(slot: u64, status: SlotStatus) -> SubscribeUpdate {
    update(UpdateOneof::Slot(SubscribeUpdateSlot {
        slot,
        parent: slot.checked_sub(1),
        status: status as i32,
        dead_error: (status == SlotStatus::SlotDead).then(|| "fork abandoned".into()),
        ..Default::default()
    }))
}

/// A successful transaction whose first instruction emitted `event_data` through a self-CPI to `program`.
fn transaction(slot: u64, signature: u8, program: &Pubkey, event_data: Vec<u8>) -> SubscribeUpdate {
    let payer = Pubkey::new_unique();
    update(UpdateOneof::Transaction(SubscribeUpdateTransaction {
        transaction: Some(SubscribeUpdateTransactionInfo {
            signature: vec![signature; 64],
            is_vote: false,
            transaction: Some(Transaction {
                signatures: vec![vec![signature; 64]],
                message: Some(Message {
                    account_keys: vec![payer.to_bytes().to_vec(), program.to_bytes().to_vec()],
                    ..Default::default()
                }),
            }),
            meta: Some(TransactionStatusMeta {
                inner_instructions: vec![InnerInstructions {
                    index: 0,
                    instructions: vec![InnerInstruction {
                        program_id_index: 1,
                        accounts: vec![],
                        data: event_data,
                        stack_height: Some(2),
                    }],
                }],
                ..Default::default()
            }),
            index: 0,
        }),
        slot,
        ..Default::default()
    }))
}

fn swap_event(pool: Pubkey, mint: Pubkey) -> Vec<u8> {
    swap_event_at(pool, mint, 1 << 64)
}

fn swap_event_at(pool: Pubkey, mint: Pubkey, sqrt_price: u128) -> Vec<u8> {
    swap_event_with(pool, mint, sqrt_price, 1_700_000_000)
}

fn swap_event_with(pool: Pubkey, mint: Pubkey, sqrt_price: u128, timestamp: i64) -> Vec<u8> {
    let e = sdk::events::EvtSwap {
        pool,
        mint,
        trader: Pubkey::new_unique(),
        side: 0,
        amount_offered: SOL,
        amount_in: SOL,
        amount_out: 35_000_000_000_000,
        min_amount_out: 1,
        fee: 10_000_000,
        creator_fee: 5_000_000,
        partner_fee: 5_000_000,
        refund: 0,
        fee_bps: 100,
        sqrt_price,
        base_reserve: 1,
        quote_reserve: SOL,
        progress_bps: 990,
        creator_fee_unclaimed: 5_000_000,
        partner_fee_unclaimed: 5_000_000,
        complete: false,
        timestamp,
        exact_out: false,
        referrer: Default::default(),
        referral_fee: 0,
    };
    let mut data = anchor_lang::event::EVENT_IX_TAG_LE.to_vec();
    data.extend_from_slice(sdk::events::EvtSwap::DISCRIMINATOR);
    e.serialize(&mut data).unwrap();
    data
}

async fn pool_data(store: &Store, address: &Pubkey) -> Option<Vec<u8>> {
    sqlx::query("SELECT data FROM pools WHERE address = $1")
        .bind(address.to_string())
        .fetch_optional(store.pool())
        .await
        .unwrap()
        .map(|r| r.get(0))
}

async fn count(store: &Store, sql: &'static str) -> i64 {
    sqlx::query(sql)
        .fetch_one(store.pool())
        .await
        .unwrap()
        .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_stream_is_written_exactly_on_postgres() {
    a_generated_stream_is_written_exactly(Db::Postgres).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_stream_is_written_exactly_on_sqlite() {
    a_generated_stream_is_written_exactly(Db::Sqlite).await
}

async fn a_generated_stream_is_written_exactly(kind: Db) {
    // Two real versions of a pool: after the launch and after a buy.
    let (net, rpc) = start_chain(1_000).await;
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 9, "FORK")
        .await
        .unwrap();
    let before = rpc.get_account(&keys.pool).await.unwrap().data;
    let buyer = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    testkit::buy(&rpc, &keys, &buyer, SOL).await.unwrap();
    let after = rpc.get_account(&keys.pool).await.unwrap().data;
    let config = rpc.get_account(&keys.config).await.unwrap().data;
    net.shutdown().await;
    assert_ne!(before, after);

    let db = fresh_db(kind).await;
    let store = Store::open(&db.url).await.unwrap();
    let metrics = Arc::new(Metrics::default());
    let mut p = Processor::new(store.clone(), metrics.clone(), Commitment::Confirmed, 1_000)
        .await
        .unwrap();
    let lp = launchpad::ID;
    let feed = [
        account(&keys.config, &lp, 99, 1, config.clone()),
        account(&keys.pool, &lp, 100, 2, before.clone()),
        transaction(100, 6, &lp, swap_event_at(keys.pool, keys.mint, 3 << 63)),
        slot(100, SlotStatus::SlotConfirmed),
        account(&keys.pool, &lp, 101, 3, after.clone()),
        transaction(101, 7, &lp, swap_event(keys.pool, keys.mint)),
        slot(101, SlotStatus::SlotConfirmed),
    ];
    for u in &feed {
        if p.process(u).await.unwrap() {
            p.flush().await.unwrap();
        }
    }
    assert_eq!(pool_data(&store, &keys.pool).await, Some(after.clone()));
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 2);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM market_trades").await, 2);
    let both = candle_rows(&store).await;
    assert_eq!(both.len(), index::market::STORED_INTERVALS.len());
    assert!(both
        .iter()
        .all(|c| c.trades == 2 && c.close == 1_000_000_000_000_000));
    assert_eq!(store.cursor("main").await.unwrap(), Some(101));
    // The listing's stats follow: the spot price of the pool now, the highest trade price.
    let spot = |pool: &[u8]| {
        index::market::spot_price(
            &sdk::accounts::decode_pool(pool).unwrap(),
            &sdk::accounts::decode_config(&config).unwrap(),
            None,
        )
        .1
    };
    let stats = store.launch_stats(&keys.mint).await.unwrap().unwrap();
    assert_eq!(stats.price, spot(&after));
    assert_eq!(stats.ath_price, 2_250_000_000_000_000);
    assert_ne!(spot(&after), spot(&before));

    // A fork the server reports dead sent nothing at confirmed: counted, nothing changes.
    assert!(!p.process(&slot(102, SlotStatus::SlotDead)).await.unwrap());
    p.flush().await.unwrap();
    assert_eq!(metrics.snapshot().dead_slots, 1);
    assert_eq!(pool_data(&store, &keys.pool).await, Some(after.clone()));
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 2);

    // An older write never replaces a newer one.
    p.process(&account(&keys.pool, &lp, 50, 9, vec![0; 8]))
        .await
        .unwrap();
    assert_eq!(
        metrics.snapshot().decode_failures,
        1,
        "junk data is counted"
    );
    let junk_event = {
        let mut d = anchor_lang::event::EVENT_IX_TAG_LE.to_vec();
        d.extend_from_slice(&[9; 12]);
        d
    };
    p.process(&transaction(103, 8, &lp, junk_event))
        .await
        .unwrap();
    assert_eq!(
        metrics.snapshot().decode_failures,
        2,
        "an undecodable event is counted"
    );
    let stale_but_valid = account(&keys.pool, &lp, 60, 1, rpc_less_stale(&before));
    p.process(&stale_but_valid).await.unwrap();
    p.process(&slot(103, SlotStatus::SlotConfirmed))
        .await
        .unwrap();
    p.flush().await.unwrap();
    assert_eq!(pool_data(&store, &keys.pool).await, Some(after));
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 2);
}

/// The partitions of `table` (PostgreSQL), lowest first, as (lowest key, highest key + 1).
async fn partitions(store: &Store, table: &str) -> Vec<(i64, i64)> {
    sqlx::query_as("SELECT lo, hi FROM launchpad_partitions($1)")
        .bind(table)
        .fetch_all(store.pool())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trades_land_in_partitions_made_ahead_and_retention_drops_them_on_postgres() {
    use index::store::partitions::{FEED_SECS_PER_PARTITION as HOUR, SLOTS_PER_PARTITION as W};
    const DAY: i64 = 86_400;
    const T0: i64 = 1_700_000_000;
    let (net, rpc) = start_chain(1_000).await;
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 10, "PART")
        .await
        .unwrap();
    let pool = rpc.get_account(&keys.pool).await.unwrap().data;
    let config = rpc.get_account(&keys.config).await.unwrap().data;
    net.shutdown().await;

    let db = fresh_db(Db::Postgres).await;
    let store = Store::open(&db.url).await.unwrap();
    let metrics = Arc::new(Metrics::default());
    let mut p = Processor::new(store.clone(), metrics.clone(), Commitment::Confirmed, 1_000)
        .await
        .unwrap();
    let lp = launchpad::ID;
    let w = W as u64;
    // Three trades a partition apart, each a day of block time after the last.
    let mut stream = vec![
        account(&keys.config, &lp, 99, 1, config.clone()),
        account(&keys.pool, &lp, 100, 2, pool.clone()),
    ];
    for (i, s) in [100, w + 100, 2 * w + 100].into_iter().enumerate() {
        let at = T0 + i as i64 * DAY;
        let swap = swap_event_with(keys.pool, keys.mint, 1 << 64, at);
        stream.push(transaction(s, 20 + i as u8, &lp, swap));
        stream.push(slot(s, SlotStatus::SlotConfirmed));
    }
    feed(&mut p, stream.clone()).await;
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 3);
    // Each trade's partition exists, and the one after the newest, made ahead of time (empty).
    let made = vec![(0, W), (W, 2 * W), (2 * W, 3 * W), (3 * W, 4 * W)];
    for table in ["trades", "market_trades"] {
        assert_eq!(partitions(&store, table).await, made, "{table}");
    }
    assert!(
        partitions(&store, "amm_swaps").await.is_empty(),
        "no AMM swap, no partition"
    );
    let feed_rows = count(&store, "SELECT COUNT(*) FROM feed_events").await;
    assert!(feed_rows >= 3);
    let hours = partitions(&store, "feed_events").await;
    assert!(
        hours.len() >= 2 && hours.iter().all(|(lo, hi)| hi - lo == HOUR),
        "{hours:?}"
    );

    // The same transactions again (a replay after a reconnect): the partitioned keys still find them.
    feed(&mut p, stream[2..].to_vec()).await;
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 3);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM market_trades").await, 3);
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM feed_events").await,
        feed_rows
    );
    let candle_trades =
        "SELECT CAST(SUM(trades) AS BIGINT) FROM candles WHERE interval_secs = 3600";
    assert_eq!(count(&store, candle_trades).await, 3);

    // Trades kept 1.25 days, a clock half a day after the last trade: the first two partitions' newest
    // trades are older than that. But the feed rows of the trades, just written, refer to them: while the
    // feed keeps those (a day by the wall clock), every trade stays.
    let later = || async {
        Store::connect(&db.url)
            .await
            .unwrap()
            .with_clock(index::store::Clock::new(move || T0 + 2 * DAY + DAY / 2))
            .with_retention(index::store::retention::Retention {
                trades_secs: Some(DAY + DAY / 4),
                ..Default::default()
            })
    };
    later().await.apply(&[], None).await.unwrap();
    for table in ["trades", "market_trades"] {
        assert_eq!(partitions(&store, table).await, made, "{table}");
    }
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 3);
    // Past the feed's retention (its newest row stays: the last trade's), the first two partitions go
    // whole; the last trade's and the one made ahead stay.
    store.prune_feed(i64::MAX).await.unwrap();
    later().await.apply(&[], None).await.unwrap();
    for table in ["trades", "market_trades"] {
        assert_eq!(
            partitions(&store, table).await,
            made[2..].to_vec(),
            "{table}"
        );
    }
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 1);
    assert_eq!(count(&store, "SELECT COUNT(*) FROM market_trades").await, 1);
    // A trade recovered into a dropped range makes its partition again.
    feed(&mut p, stream[2..4].to_vec()).await;
    assert_eq!(count(&store, "SELECT COUNT(*) FROM trades").await, 2);
    assert_eq!(partitions(&store, "trades").await[0], (0, W));
}

async fn candle_rows(store: &Store) -> Vec<index::market::Candle> {
    let select = index::sea_query::Query::select()
        .columns(index::store::CANDLE_COLS)
        .from("candles")
        .order_by("interval_secs", index::sea_query::Order::Asc)
        .to_owned();
    index::store::sql::query(store.backend(), &select)
        .fetch_all(store.pool())
        .await
        .unwrap()
        .iter()
        .map(index::store::candle_row)
        .collect()
}

/// A valid pool account that differs from `data` (a different sqrt price).
fn rpc_less_stale(data: &[u8]) -> Vec<u8> {
    let mut pool = sdk::accounts::decode_pool(data).unwrap();
    pool.sqrt_price += 1;
    let mut out = Vec::new();
    anchor_lang::AccountSerialize::try_serialize(&pool, &mut out).unwrap();
    out
}

/// A closed account as Yellowstone sends it: reassigned to the System Program, no lamports, no data.
fn closed(address: &Pubkey, slot: u64, wv: u64) -> SubscribeUpdate {
    let mut u = account(address, &sdk::ids::SYSTEM_PROGRAM, slot, wv, vec![]);
    if let Some(UpdateOneof::Account(a)) = &mut u.update_oneof {
        a.account.as_mut().unwrap().lamports = 0;
    }
    u
}

async fn feed(p: &mut Processor, updates: Vec<SubscribeUpdate>) {
    for u in &updates {
        if p.process(u).await.unwrap() {
            p.flush().await.unwrap();
        }
    }
}

async fn holder_state(store: &Store, mint: &Pubkey) -> (i64, Vec<(String, i64, i64)>) {
    let count = sqlx::query("SELECT holders FROM holder_counts WHERE mint = $1")
        .bind(mint.to_string())
        .fetch_optional(store.pool())
        .await
        .unwrap()
        .map_or(0, |r| r.get(0));
    let rows = sqlx::query(
        "SELECT address, amount, closed FROM token_accounts WHERE mint = $1 ORDER BY address",
    )
    .bind(mint.to_string())
    .fetch_all(store.pool())
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .collect();
    (count, rows)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_accounts_follow_trades_and_closings_on_postgres() {
    token_accounts_follow_trades_and_closings(Db::Postgres).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_accounts_follow_trades_and_closings_on_sqlite() {
    token_accounts_follow_trades_and_closings(Db::Sqlite).await
}

/// Token accounts: the launch's mint is learned from its pool account, a write of an unknown mint is
/// dropped, the base vault is no holder, holder counts follow balances, a closing keeps the account at zero
/// and a replayed older write does not resurrect it.
async fn token_accounts_follow_trades_and_closings(kind: Db) {
    let (net, rpc) = start_chain(1_000).await;
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 8, "TOK")
        .await
        .unwrap();
    let pool = rpc.get_account(&keys.pool).await.unwrap().data;
    let config = rpc.get_account(&keys.config).await.unwrap().data;
    net.shutdown().await;

    let db = fresh_db(kind).await;
    let store = Store::open(&db.url).await.unwrap();
    let mut p = Processor::new(
        store.clone(),
        Arc::new(Metrics::default()),
        Commitment::Confirmed,
        1_000,
    )
    .await
    .unwrap();
    let (lp, t22) = (launchpad::ID, sdk::ids::TOKEN_2022_PROGRAM);
    let (alice, bob) = (Pubkey::new_unique(), Pubkey::new_unique());
    let (a, b, other) = (
        Pubkey::new_unique(),
        Pubkey::new_unique(),
        Pubkey::new_unique(),
    );
    let mint = keys.mint;
    // Slot 100: the base vault and alice's account arrive before the pool that announces the mint; a token
    // account of some other mint is dropped.
    feed(
        &mut p,
        vec![
            account(
                &keys.base_vault,
                &t22,
                100,
                1,
                testkit::token_account_data(&mint, &keys.pool, 800),
            ),
            account(
                &a,
                &t22,
                100,
                2,
                testkit::token_account_data(&mint, &alice, 5),
            ),
            account(
                &other,
                &t22,
                100,
                3,
                testkit::token_account_data(&Pubkey::new_unique(), &alice, 9),
            ),
            account(&keys.config, &lp, 100, 4, config),
            account(&keys.pool, &lp, 100, 5, pool),
            slot(100, SlotStatus::SlotConfirmed),
        ],
    )
    .await;
    let at_100 = holder_state(&store, &mint).await;
    assert_eq!(at_100.0, 1, "alice; the vault is no holder");
    assert_eq!(at_100.1.len(), 2);
    assert_eq!(
        count(&store, "SELECT COUNT(*) FROM token_accounts").await,
        2
    );
    // Slot 101: alice sells out, bob buys.
    feed(
        &mut p,
        vec![
            account(
                &a,
                &t22,
                101,
                6,
                testkit::token_account_data(&mint, &alice, 0),
            ),
            account(
                &b,
                &t22,
                101,
                7,
                testkit::token_account_data(&mint, &bob, 7),
            ),
            slot(101, SlotStatus::SlotConfirmed),
        ],
    )
    .await;
    assert_eq!(holder_state(&store, &mint).await.0, 1, "bob");
    // Slot 102: alice's emptied account closes.
    feed(
        &mut p,
        vec![closed(&a, 102, 8), slot(102, SlotStatus::SlotConfirmed)],
    )
    .await;
    let (n, rows) = holder_state(&store, &mint).await;
    assert_eq!(n, 1, "bob");
    assert!(rows.contains(&(a.to_string(), 0, 1)), "{rows:?}");
    assert!(rows.contains(&(b.to_string(), 7, 0)), "{rows:?}");
    // A replay of slot 100 changes nothing.
    feed(
        &mut p,
        vec![
            account(
                &a,
                &t22,
                100,
                2,
                testkit::token_account_data(&mint, &alice, 5),
            ),
            slot(100, SlotStatus::SlotConfirmed),
        ],
    )
    .await;
    assert_eq!(holder_state(&store, &mint).await, (n, rows));
}
