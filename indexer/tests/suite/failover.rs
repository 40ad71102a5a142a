//! Sources that fail (issue 40, item 3): a writer cut off from its gRPC and RPC sources gives its lease up
//! after `--lease-yield-secs` without progress, and a standby on a working source takes it and writes; an
//! indexer with several endpoints fails over to the next in order and returns to the first once it is back.
//! The sources are the localnet's Yellowstone gRPC and JSON-RPC, reached through TCP proxies the test
//! takes down.

use crate::common;

use common::*;
use index::Store;
use indexer::IndexerConfig;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn tuned(rpc_url: Vec<String>, grpc_url: Vec<String>, db: &TestDb) -> IndexerConfig {
    IndexerConfig {
        rpc_url,
        grpc_url,
        lease_yield_secs: 4,
        stream_idle_secs: 2,
        ..config(String::new(), String::new(), db)
    }
}

async fn no_event_twice(store: &Store) {
    let events = indexed_events(store).await;
    let mut unique = events.clone();
    unique.dedup();
    assert_eq!(unique.len(), events.len(), "an event indexed twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_writer_cut_off_from_its_sources_yields_the_lease_to_a_standby_with_a_working_one() {
    let (net, rpc) = start_chain(1_000).await;
    let db = fresh_db(Db::Postgres).await;
    let store = Store::open(&db.url).await.unwrap();
    // The writer reaches the chain through proxies (gRPC and RPC); the standby directly.
    let grpc = Proxy::start(net.grpc_addr).await;
    let json_rpc = Proxy::start(net.rpc_addr).await;
    let writer = spawn_indexer(tuned(
        vec![json_rpc.url("http")],
        vec![grpc.url("http")],
        &db,
    ))
    .await;
    eventually(30, "the first indexer takes the lease", || async {
        writer.metrics.snapshot().role == "active"
    })
    .await;
    let standby = spawn_indexer(tuned(vec![net.rpc_url()], vec![net.grpc_url()], &db)).await;
    eventually(30, "the second waits as the standby", || async {
        standby.metrics.snapshot().role == "standby"
    })
    .await;
    let trader = start_trader(net.rpc_url(), 41).await;
    trader.wait_for(3).await;
    eventually(30, "the writer writes trades", || async {
        trade_signatures(&store).await.len() >= 2
    })
    .await;

    // The writer's sources go away; the standby's still work.
    grpc.down();
    json_rpc.down();
    let cut = Instant::now();
    eventually(20, "the standby takes the lease", || async {
        standby.metrics.snapshot().role == "active"
    })
    .await;
    let took = cut.elapsed();
    eprintln!("the standby took the lease {took:?} after the writer's sources went away");
    // Not at once (the writer waits out --lease-yield-secs 4 without progress), and soon after it.
    assert!(
        took >= Duration::from_secs(3),
        "the writer kept the lease for its yield time first: {took:?}"
    );
    assert!(
        took <= Duration::from_secs(4 + 4),
        "taken within the yield time and a lease retry: {took:?}"
    );
    assert_eq!(writer.metrics.snapshot().role, "standby");
    let written = trade_signatures(&store).await.len();
    trader.wait_for(trader.count() + 3).await;
    eventually(30, "the new writer writes trades", || async {
        trade_signatures(&store).await.len() > written
    })
    .await;

    // The old writer's sources come back: the lease stays where it is.
    grpc.restore();
    json_rpc.restore();
    tokio::time::sleep(indexer::pipeline::YIELD_GRACE + Duration::from_secs(2)).await;
    assert_eq!(writer.metrics.snapshot().role, "standby");
    assert_eq!(standby.metrics.snapshot().role, "active");

    let swaps = trader.finish().await;
    assert_caught_up(&rpc, &store, &swaps).await;
    no_event_twice(&store).await;
    writer.stop().await;
    standby.stop().await;
    net.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn several_endpoints_fail_over_in_order_and_return_to_the_first() {
    let (net, rpc) = start_chain(1_000).await;
    let db = fresh_db(Db::Sqlite).await;
    let store = Store::open(&db.url).await.unwrap();
    let (first, second) = (
        Proxy::start(net.grpc_addr).await,
        Proxy::start(net.grpc_addr).await,
    );
    let (first_rpc, second_rpc) = (
        Proxy::start(net.rpc_addr).await,
        Proxy::start(net.rpc_addr).await,
    );
    let run = spawn_indexer(tuned(
        vec![first_rpc.url("http"), second_rpc.url("http")],
        vec![first.url("http"), second.url("http")],
        &db,
    ))
    .await;
    let trader = start_trader(net.rpc_url(), 42).await;
    trader.wait_for(2).await;
    eventually(30, "trades through the first endpoint", || async {
        !trade_signatures(&store).await.is_empty()
    })
    .await;
    let streaming_through = |p: &Proxy, q: &Proxy| {
        p.open.load(Ordering::SeqCst) >= 1 && q.open.load(Ordering::SeqCst) == 0
    };
    assert!(
        streaming_through(&first, &second),
        "the first is tried first"
    );

    // The first endpoint (gRPC and RPC) goes away: the second takes over, and the writer keeps its lease.
    first.down();
    first_rpc.down();
    eventually(20, "streaming through the second endpoint", || async {
        streaming_through(&second, &first)
    })
    .await;
    let written = trade_signatures(&store).await.len();
    trader.wait_for(trader.count() + 3).await;
    eventually(30, "trades through the second endpoint", || async {
        trade_signatures(&store).await.len() > written
    })
    .await;
    let m = run.metrics.snapshot();
    assert_eq!(m.role, "active", "a working source keeps the lease: {m:?}");

    // The first is back: the indexer returns to it within RETURN_EVERY (and a probe).
    first.restore();
    first_rpc.restore();
    let back = Instant::now();
    eventually(30, "streaming through the first endpoint again", || async {
        streaming_through(&first, &second)
    })
    .await;
    eprintln!(
        "returned to the first endpoint {:?} after it came back",
        back.elapsed()
    );
    let written = trade_signatures(&store).await.len();
    trader.wait_for(trader.count() + 3).await;
    eventually(30, "trades through the first endpoint again", || async {
        trade_signatures(&store).await.len() > written
    })
    .await;

    let swaps = trader.finish().await;
    assert_caught_up(&rpc, &store, &swaps).await;
    no_event_twice(&store).await;
    assert_eq!(
        run.metrics.snapshot().gaps,
        0,
        "every switch resumed from the cursor"
    );
    run.stop().await;
    net.shutdown().await;
}
