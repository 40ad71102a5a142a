//! The indexer end to end: a localnet streaming over Yellowstone gRPC into PostgreSQL and SQLite. Each
//! scenario runs on both databases.

use crate::common;

use common::*;
use index::Store;
use localnet::testkit::{self, SOL};
use solana_signer::Signer;
use std::time::Duration;

macro_rules! on_both_databases {
    ($scenario:ident) => {
        mod $scenario {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn postgres() {
                super::$scenario(Db::Postgres).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                super::$scenario(Db::Sqlite).await
            }
        }
    };
}

on_both_databases!(a_whole_lifecycle_is_indexed_exactly);
on_both_databases!(a_killed_indexer_restarts_without_loss_or_duplicates);
on_both_databases!(a_terminated_indexer_stops_cleanly_and_restarts_without_loss);
on_both_databases!(a_dropped_grpc_connection_resumes_without_a_gap);
on_both_databases!(a_database_outage_is_waited_out_without_skipping);
on_both_databases!(an_empty_database_backfills_to_the_same_state);
on_both_databases!(a_gap_the_server_cannot_replay_is_backfilled);
on_both_databases!(events_inside_a_gap_are_recovered_to_the_rows_of_a_continuous_run);

/// TLS is the same on both databases: SQLite only.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn over_tls_the_configured_ca_is_trusted_and_any_other_certificate_refused() {
    let ca = test_ca();
    let net = localnet::Localnet::start(localnet::LocalnetConfig {
        grpc_tls: Some(ca.server.clone()),
        ..localnet::LocalnetConfig::ephemeral()
    })
    .await
    .expect("localnet starts");
    assert!(net.grpc_url().starts_with("https://"), "{}", net.grpc_url());
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let db = fresh_db(Db::Sqlite).await;

    // No CA configured: the system's roots do not know the test's CA, so the server is refused, and why is
    // reported (health and logs), not retried in silence.
    let refused = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &db)).await;
    eventually(30, "the untrusted certificate to be reported", || async {
        refused.metrics.snapshot().last_error.is_some()
    })
    .await;
    let m = refused.metrics.snapshot();
    let error = m.last_error.clone().unwrap();
    assert!(
        error.contains("certificate") && error.contains("--grpc-ca-cert (GRPC_CA_CERT)"),
        "the error names the cause and the setting: {error}"
    );
    assert!(
        !m.connected && m.status == "disconnected" && m.committed_batches == 0,
        "{m:?}"
    );
    refused.stop().await;

    // The test's CA configured: streams and indexes exactly.
    let ca_file =
        std::path::PathBuf::from(db.url.trim_start_matches("sqlite://")).with_file_name("ca.pem");
    std::fs::write(&ca_file, &ca.ca_pem).unwrap();
    let run = spawn_indexer(indexer::IndexerConfig {
        grpc_ca_cert: Some(ca_file),
        ..config(net.rpc_url(), net.grpc_url(), &db)
    })
    .await;
    let store = Store::open(&db.url).await.unwrap();
    let life = full_lifecycle(&net, &rpc, 21).await;
    assert_caught_up(&rpc, &store, &life.swaps).await;
    let m = run.metrics.snapshot();
    assert!(m.connected && m.last_error.is_none(), "{m:?}");
    run.stop().await;
    net.shutdown().await;
}

async fn a_whole_lifecycle_is_indexed_exactly(db: Db) {
    let (net, rpc) = start_chain(1_000).await;
    let db = fresh_db(db).await;
    let run = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &db)).await;
    let life = full_lifecycle(&net, &rpc, 1).await;
    let store = Store::open(&db.url).await.unwrap();
    assert_caught_up(&rpc, &store, &life.swaps).await;
    let mint = life.keys.mint;

    // The launch, from its transaction.
    let launch = store.launch(&mint).await.unwrap().expect("launch indexed");
    assert_eq!(launch.name, "IDX Token");
    assert_eq!(launch.symbol, "IDX");
    assert_eq!(launch.preset, "fair");
    assert_eq!(launch.quote, "sol");
    assert_eq!(launch.creator, life.creator.pubkey().to_string());
    assert!(launch.signature.is_some());
    assert_eq!(store.launches(10, 0).await.unwrap().total, 1);

    // The curve after graduation and migration, exactly as on chain.
    let curve = store.curve(&mint).await.unwrap().expect("curve indexed");
    let on_chain = rpc.get_account(&life.keys.pool).await.unwrap();
    let pool = sdk::accounts::decode_pool(&on_chain.data).unwrap();
    assert_eq!(curve.pool, pool);
    assert!(curve.migrated());
    assert_eq!(curve.progress_bps(), 10_000);
    assert_eq!(curve.final_fee_bps(), 100);

    // Trades: every swap, exact amounts that add up to the pool's fee ledger and token flow.
    // Read from the table itself: the API serves trades through the market series, which keeps no fee split.
    type TradeRow = (
        String,
        String,
        String,
        String,
        String,
        String,
        i64,
        i64,
        String,
        Option<String>,
    );
    let trades: Vec<TradeRow> = sqlx::query_as(
        "SELECT side, amount_in, amount_out, creator_fee, partner_fee, refund, progress_bps, complete, \
         quote_reserve, price FROM trades WHERE mint = $1 \
         ORDER BY slot DESC, signature DESC, ix_index DESC, inner_index DESC",
    )
    .bind(mint.to_string())
    .fetch_all(store.pool())
    .await
    .unwrap();
    let n = |v: &String| v.parse::<u64>().unwrap();
    assert_eq!(trades.len(), 5);
    let last = &trades[0];
    assert!(last.7 != 0 && n(&last.5) > 0 && last.6 == 10_000);
    assert_eq!(n(&last.8), curve::QuoteAsset::Sol.threshold());
    let creator_fees: u64 = trades.iter().map(|t| n(&t.3)).sum();
    let partner_fees: u64 = trades.iter().map(|t| n(&t.4)).sum();
    assert_eq!(
        creator_fees,
        pool.creator_fee_claimed + pool.creator_fee_unclaimed
    );
    assert_eq!(
        partner_fees,
        pool.partner_fee_claimed + pool.partner_fee_unclaimed
    );
    let sold: i128 = trades
        .iter()
        .map(|t| {
            if t.0 == "buy" {
                n(&t.2) as i128
            } else {
                -(n(&t.1) as i128)
            }
        })
        .sum();
    let sale_supply = curve.config.sale_supply as i128;
    assert_eq!(sold, sale_supply);
    assert!(trades.iter().all(|t| t.9.is_some()));

    // Claims of every kind, the migration and the AMM trade.
    let claims: Vec<(String, String, String)> =
        sqlx::query_as("SELECT claimer, kind, amount FROM claims ORDER BY kind, claimer")
            .fetch_all(store.pool())
            .await
            .unwrap();
    let creator = life.creator.pubkey().to_string();
    let partner = net.partner.pubkey().to_string();
    let kinds: Vec<(&str, &str)> = claims
        .iter()
        .map(|(w, k, _)| (w.as_str(), k.as_str()))
        .collect();
    assert_eq!(kinds.len(), 4);
    assert!(kinds.contains(&(creator.as_str(), "trading")));
    assert!(kinds.contains(&(partner.as_str(), "trading")));
    assert!(kinds.contains(&(creator.as_str(), "surplus")));
    assert!(kinds.contains(&(creator.as_str(), "locked-lp")));
    let trading_claimed: u64 = claims
        .iter()
        .filter(|(_, k, _)| k == "trading")
        .map(|(_, _, a)| a.parse::<u64>().unwrap())
        .sum();
    assert_eq!(
        trading_claimed,
        pool.creator_fee_claimed + pool.partner_fee_claimed
    );
    let migrated: (String, String) = sqlx::query_as("SELECT amm_pool, migrator FROM migrations")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(migrated.0, life.keys.amm_keys().pool.to_string());
    let amm_swaps: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM amm_swaps")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(amm_swaps.0, 1);

    // Unclaimed per wallet: the partner has not claimed its surplus or its locked-LP fees.
    let unclaimed = store.unclaimed(&net.partner.pubkey()).await.unwrap();
    let surplus = unclaimed
        .iter()
        .find(|u| u.kind == "surplus")
        .expect("partner surplus");
    assert_eq!(surplus.quote_amount, pool.partner_surplus_unclaimed);
    let lp = unclaimed
        .iter()
        .find(|u| u.kind == "locked-lp")
        .expect("partner locked-lp fees");
    let amm_pool = sdk::accounts::decode_amm_pool(
        &rpc.get_account(&life.keys.amm_keys().pool)
            .await
            .unwrap()
            .data,
    )
    .unwrap();
    let position = sdk::accounts::decode_position(
        &rpc.get_account(&life.keys.partner_position())
            .await
            .unwrap()
            .data,
    )
    .unwrap();
    let (fa, fb) = sdk::amm_ix::claimable_fees(&amm_pool, &position).unwrap();
    assert_eq!(lp.quote_amount + lp.base_amount, fa + fb);
    assert!(lp.quote_amount > 0, "the AMM buy paid its fee in SOL");
    // The creator claimed everything.
    assert!(store
        .unclaimed(&life.creator.pubkey())
        .await
        .unwrap()
        .is_empty());
    // The fee ledger view joins accruals and claims per wallet.
    let ledger: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM fee_ledger WHERE wallet = $1")
        .bind(creator.clone())
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(ledger.0, 5 + 1 + 3);

    assert_eq!(run.metrics.snapshot().decode_failures, 0);
    run.stop().await;
    net.shutdown().await;
}

async fn a_killed_indexer_restarts_without_loss_or_duplicates(db: Db) {
    stopped_twice_mid_stream(db, Stop::Kill, 11).await
}

async fn a_terminated_indexer_stops_cleanly_and_restarts_without_loss(db: Db) {
    stopped_twice_mid_stream(db, Stop::Terminate, 13).await
}

/// The indexer binary stopped twice while trades arrive (SIGKILL: nothing flushed; SIGTERM: a clean exit with
/// status 0), then restarted: the index ends exactly as the chain, with no trade lost or written twice.
async fn stopped_twice_mid_stream(db: Db, how: Stop, salt: u64) {
    let (net, rpc) = start_chain(1_000).await;
    let db = fresh_db(db).await;
    let cfg = config(net.rpc_url(), net.grpc_url(), &db);
    let store = Store::open(&db.url).await.unwrap();
    let trader = start_trader(net.rpc_url(), salt).await;
    for _ in 0..2 {
        let child = spawn_indexer_process(&cfg);
        let before = trade_signatures(&store).await.len();
        // Mid-stream: it has written some trades and more are arriving.
        eventually(60, "the indexer to write trades", || async {
            trade_signatures(&store).await.len() > before + 2
        })
        .await;
        child.stop(how).await;
        trader.wait_for(trader.count() + 3).await;
    }
    let child = spawn_indexer_process(&cfg);
    trader.wait_for(trader.count() + 2).await;
    let swaps = trader.finish().await;
    assert_caught_up(&rpc, &store, &swaps).await;
    let events = indexed_events(&store).await;
    let mut unique = events.clone();
    unique.dedup();
    assert_eq!(unique.len(), events.len());
    child.stop(how).await;
    net.shutdown().await;
}

async fn a_dropped_grpc_connection_resumes_without_a_gap(db: Db) {
    let (net, rpc) = start_chain(1_000).await;
    let db = fresh_db(db).await;
    let proxy = Proxy::start(net.grpc_addr).await;
    let run = spawn_indexer(config(net.rpc_url(), proxy.url("http"), &db)).await;
    let store = Store::open(&db.url).await.unwrap();
    let trader = start_trader(net.rpc_url(), 12).await;
    // Each cut lands on a live stream: the previous cut was noticed (counted) and the indexer subscribed
    // again (a cut while it is still backing off, or before it noticed the last one, would cut nothing).
    let streaming_after = |cuts: u64| {
        let metrics = run.metrics.clone();
        move || {
            let m = metrics.snapshot();
            async move { m.reconnects >= cuts && m.connected }
        }
    };
    for cuts in 0..3 {
        trader.wait_for(trader.count() + 2).await;
        eventually(60, "the stream is up again", streaming_after(cuts)).await;
        proxy.sever();
    }
    // A longer outage: connections refused while trades continue.
    eventually(60, "the stream is up again", streaming_after(3)).await;
    proxy.down();
    trader.wait_for(trader.count() + 3).await;
    proxy.restore();
    trader.wait_for(trader.count() + 2).await;
    let swaps = trader.finish().await;
    assert_caught_up(&rpc, &store, &swaps).await;
    let m = run.metrics.snapshot();
    assert!(m.reconnects >= 4, "reconnected after every cut: {m:?}");
    assert_eq!(m.gaps, 0, "every reconnect resumed from the cursor");
    run.stop().await;
    net.shutdown().await;
}

async fn a_database_outage_is_waited_out_without_skipping(kind: Db) {
    let (net, rpc) = start_chain(1_000).await;
    let db = fresh_db(kind).await;
    let store = Store::open(&db.url).await.unwrap();
    let trader = start_trader(net.rpc_url(), 13).await;
    match kind {
        Db::Postgres => {
            // The indexer reaches PostgreSQL through a proxy that goes down for a while.
            let (_, rest) = db.url.split_once('@').unwrap();
            let (hostport, name) = rest.split_once('/').unwrap();
            let upstream = tokio::net::lookup_host(hostport)
                .await
                .unwrap()
                .next()
                .unwrap();
            let proxy = Proxy::start(upstream).await;
            let mut cfg = config(net.rpc_url(), net.grpc_url(), &db);
            cfg.database_url = format!("postgres://postgres@{}/{name}", proxy.addr);
            let run = spawn_indexer(cfg).await;
            trader.wait_for(trader.count() + 2).await;
            proxy.down();
            trader.wait_for(trader.count() + 4).await;
            tokio::time::sleep(Duration::from_secs(2)).await;
            proxy.restore();
            trader.wait_for(trader.count() + 2).await;
            let swaps = trader.finish().await;
            assert_caught_up(&rpc, &store, &swaps).await;
            assert!(run.metrics.snapshot().db_errors > 0);
            run.stop().await;
        }
        Db::Sqlite => {
            // Another process holds the write lock longer than the indexer's busy timeout.
            let run = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &db)).await;
            trader.wait_for(trader.count() + 2).await;
            let mut locker = <sqlx::AnyConnection as sqlx::Connection>::connect(&db.url)
                .await
                .unwrap();
            sqlx::query("BEGIN EXCLUSIVE")
                .execute(&mut locker)
                .await
                .unwrap();
            trader.wait_for(trader.count() + 4).await;
            tokio::time::sleep(Duration::from_secs(7)).await;
            sqlx::query("ROLLBACK").execute(&mut locker).await.unwrap();
            trader.wait_for(trader.count() + 2).await;
            let swaps = trader.finish().await;
            assert_caught_up(&rpc, &store, &swaps).await;
            assert!(run.metrics.snapshot().db_errors > 0);
            run.stop().await;
        }
    }
    net.shutdown().await;
}

async fn an_empty_database_backfills_to_the_same_state(kind: Db) {
    let (net, rpc) = start_chain(1_000).await;
    let continuous = fresh_db(kind).await;
    let run = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &continuous)).await;
    let life = full_lifecycle(&net, &rpc, 2).await;
    let a = Store::open(&continuous.url).await.unwrap();
    assert_caught_up(&rpc, &a, &life.swaps).await;
    run.stop().await;

    let empty = fresh_db(kind).await;
    let late = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &empty)).await;
    let b = Store::open(&empty.url).await.unwrap();
    assert_caught_up(&rpc, &b, &life.swaps).await;
    assert!(late.metrics.snapshot().backfilled_accounts > 0);
    assert_eq!(indexed_events(&a).await, indexed_events(&b).await);
    assert_eq!(
        a.launches(10, 0).await.unwrap().items.len(),
        b.launches(10, 0).await.unwrap().items.len()
    );
    let la = serde_json::to_value(a.launches(10, 0).await.unwrap().items).unwrap();
    let lb = serde_json::to_value(b.launches(10, 0).await.unwrap().items).unwrap();
    assert_eq!(la, lb);
    // The listing's per-launch stats (price, market cap, ATH, last trade, 24h volume) agree too.
    for l in a.launches(10, 0).await.unwrap().items {
        let mint = l.mint.parse().unwrap();
        let stats = a.launch_stats(&mint).await.unwrap();
        assert!(stats.as_ref().is_some_and(|s| s.price > 0));
        assert_eq!(stats, b.launch_stats(&mint).await.unwrap(), "{}", l.mint);
    }
    late.stop().await;
    net.shutdown().await;
}

async fn a_gap_the_server_cannot_replay_is_backfilled(kind: Db) {
    let (net, rpc) = start_chain(20).await;
    let db = fresh_db(kind).await;
    let cfg = config(net.rpc_url(), net.grpc_url(), &db);
    let run = spawn_indexer(cfg.clone()).await;
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 3, "GAP")
        .await
        .unwrap();
    let store = Store::open(&db.url).await.unwrap();
    eventually(30, "the launch indexed", || async {
        store.launch(&keys.mint).await.unwrap().is_some()
    })
    .await;
    run.stop().await;
    // While the indexer is away, trades land and the server forgets more slots than it keeps.
    let buyer = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    testkit::buy(&rpc, &keys, &buyer, SOL).await.unwrap();
    {
        let mut chain = net.chain.lock().unwrap();
        for _ in 0..60 {
            chain.advance_slot().unwrap();
        }
    }
    let run = spawn_indexer(cfg).await;
    eventually(60, "account state after the gap", || async {
        chain_accounts(&rpc).await == indexed_accounts(&store).await
    })
    .await;
    assert_eq!(run.metrics.snapshot().gaps, 1);
    // Streaming continues after the backfill.
    let sig = testkit::buy(&rpc, &keys, &buyer, SOL).await.unwrap();
    eventually(30, "a trade after the gap", || async {
        trade_signatures(&store).await.contains(&sig.to_string())
    })
    .await;
    run.stop().await;
    net.shutdown().await;
}

/// The gRPC connection cut for longer than the server replays while trades, the graduation, the migration,
/// an AMM trade, every claim kind, a token transfer and a new launch with its first trade happen: after reconnecting, the indexer backfills the
/// accounts and recovers the gap's events from the RPC node's history, and every table ends equal to a
/// continuously running indexer's.
async fn events_inside_a_gap_are_recovered_to_the_rows_of_a_continuous_run(kind: Db) {
    let (net, rpc) = start_chain(20).await;
    let (steady_db, gapped_db) = (fresh_db(kind).await, fresh_db(kind).await);
    let steady = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &steady_db)).await;
    let proxy = Proxy::start(net.grpc_addr).await;
    let gapped = spawn_indexer(config(net.rpc_url(), proxy.url("http"), &gapped_db)).await;
    let (a, b) = (
        Store::open(&steady_db.url).await.unwrap(),
        Store::open(&gapped_db.url).await.unwrap(),
    );

    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 31, "GAP")
        .await
        .unwrap();
    let wallets = [
        testkit::funded(&rpc, 30 * SOL).await.unwrap(),
        testkit::funded(&rpc, 30 * SOL).await.unwrap(),
    ];
    let mut swaps = vec![testkit::buy(&rpc, &keys, &wallets[0], SOL).await.unwrap()];
    assert_caught_up(&rpc, &b, &swaps).await;
    eventually(30, "the gapped indexer streaming", || async {
        gapped.metrics.snapshot().connected
    })
    .await;

    // The outage: trades, a transfer, the graduation, the migration, an AMM trade and every claim.
    proxy.down();
    swaps.push(
        testkit::buy(&rpc, &keys, &wallets[1], 2 * SOL)
            .await
            .unwrap(),
    );
    let held = testkit::token_balance(
        &rpc,
        &wallets[0].pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await;
    swaps.push(
        testkit::sell(&rpc, &keys, &wallets[0], held / 3)
            .await
            .unwrap(),
    );
    testkit::transfer_tokens(&rpc, &keys.mint, &wallets[0], &creator.pubkey(), held / 3)
        .await
        .unwrap();
    swaps.push(
        testkit::buy(&rpc, &keys, &wallets[1], 12 * SOL)
            .await
            .unwrap(),
    );
    testkit::migrate(&rpc, &keys, &wallets[1]).await.unwrap();
    testkit::amm_buy(&rpc, &keys, &wallets[0], SOL)
        .await
        .unwrap();
    testkit::claim_trading_fee(&rpc, &keys, &creator)
        .await
        .unwrap();
    testkit::claim_trading_fee(&rpc, &keys, &net.partner)
        .await
        .unwrap();
    testkit::claim_surplus(&rpc, &keys, &creator).await.unwrap();
    testkit::claim_locked_lp_fee(&rpc, &keys, &creator, &keys.creator_position())
        .await
        .unwrap();
    // A launch made inside the gap, and its first trade.
    let (late, _) = testkit::launch(&rpc, &creator, curve::Preset::Distribute, 32, "LATE")
        .await
        .unwrap();
    swaps.push(
        testkit::buy(&rpc, &late, &wallets[0], SOL / 2)
            .await
            .unwrap(),
    );
    // The server forgets more slots than it keeps.
    {
        let mut chain = net.chain.lock().unwrap();
        for _ in 0..60 {
            chain.advance_slot().unwrap();
        }
    }
    proxy.restore();

    // After the gap, streaming continues.
    testkit::amm_buy(&rpc, &keys, &wallets[1], SOL / 2)
        .await
        .unwrap();
    assert_caught_up(&rpc, &a, &swaps).await;
    assert_caught_up(&rpc, &b, &swaps).await;
    let tip = rpc.get_slot().await.unwrap();
    eventually(60, "both indexers at the chain's slot", || async {
        for store in [&a, &b] {
            let cursor = store.cursor(index::store::MAIN_STREAM).await.unwrap();
            if cursor.is_none_or(|c| c < tip) {
                return false;
            }
        }
        true
    })
    .await;

    let (steady_tables, gapped_tables) = (indexed_tables(&a).await, indexed_tables(&b).await);
    for (table, rows) in &steady_tables {
        assert!(!rows.is_empty(), "{table} has rows in the continuous run");
        assert_eq!(rows, &gapped_tables[table], "{table} differs after the gap");
    }
    assert_eq!(indexed_accounts(&a).await, indexed_accounts(&b).await);
    let m = gapped.metrics.snapshot();
    assert_eq!(m.gaps, 1, "{m:?}");
    // The gap's eleven transactions of the programs (the token transfer names neither), and possibly the
    // AMM trade after it, when the indexer reconnected only after it had left the replay window.
    assert!(m.recovered_transactions >= 11, "{m:?}");
    assert_eq!(m.decode_failures, 0);
    assert_eq!(steady.metrics.snapshot().gaps, 0);

    // A cold start on an empty database, long after the server forgot these slots: the backfill and the
    // programs' whole history give the same rows again.
    let cold_db = fresh_db(kind).await;
    let cold = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &cold_db)).await;
    let c = Store::open(&cold_db.url).await.unwrap();
    assert_caught_up(&rpc, &c, &swaps).await;
    let cold_tables = indexed_tables(&c).await;
    for (table, rows) in &steady_tables {
        assert_eq!(
            rows, &cold_tables[table],
            "{table} differs after a cold start"
        );
    }
    assert_eq!(indexed_accounts(&a).await, indexed_accounts(&c).await);
    let m = cold.metrics.snapshot();
    assert!(m.recovered_transactions >= 14, "{m:?}");
    assert_eq!(m.gaps, 0, "{m:?}");
    cold.stop().await;
    steady.stop().await;
    gapped.stop().await;
    net.shutdown().await;
}
