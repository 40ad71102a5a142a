//! The production topology end to end, as an operator runs it: PostgreSQL, a chain (the localnet's RPC and
//! Yellowstone gRPC), two `indexer` processes (one writes, one waits as the standby) and two `api serve`
//! replicas, under trading load. The active indexer is SIGKILLed mid-load and the standby takes over; the
//! index then equals the chain (every trade, candle counts equal to the trades) and the stored cursor never
//! moved back. PostgreSQL is stopped (the replicas' readiness turns 503, liveness stays 200) and started
//! again (readiness 200, reads served again); last, the gRPC source goes away and the indexer's readiness
//! turns 503.
//!
//! The binaries are the workspace's own (`scripts/test` builds them with `--bins`), found beside this test's
//! `dev` binary. A primary's failover to its standby is `failover.rs`.

mod cluster;
mod common;

use cluster::{get_json, role, wait_ready, Chain, Indexer, Postgres, Replica};
use common::wait_for;

use localnet::testkit::{self, SOL};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_indexers_two_replicas_survive_a_killed_writer_and_a_database_restart() {
    let pg = Postgres::start();
    let Chain { net, rpc, http } = Chain::start(Duration::from_secs(10)).await;
    let rpc_url = net.rpc_url();

    // Two indexers on one database: one takes the writer's lease, the other waits as the standby.
    let mut indexers = Vec::new();
    for _ in 0..2 {
        indexers.push(Indexer::spawn(
            &net,
            &pg.url,
            &["--metrics-interval-secs", "0"],
        ));
        // The first one migrates the schema before the second starts.
        let ix = indexers.last().unwrap();
        wait_for("an indexer answers /livez", Duration::from_secs(60), || {
            let url = format!("{}/livez", ix.health);
            let http = http.clone();
            async move { http.get(url).send().await.is_ok() }
        })
        .await;
    }
    wait_for(
        "one active indexer and one standby",
        Duration::from_secs(30),
        || async {
            let mut roles = vec![
                role(&http, &indexers[0]).await,
                role(&http, &indexers[1]).await,
            ];
            roles.sort();
            roles == ["active", "standby"]
        },
    )
    .await;
    // The writer holds the lease a moment before its gRPC session is up: both turn ready within seconds.
    wait_for(
        "a connected writer and a waiting standby are ready",
        Duration::from_secs(15),
        || async {
            let mut ready = true;
            for ix in &indexers {
                let status = get_json(&http, &format!("{}/readyz", ix.health))
                    .await
                    .map(|(status, _)| status);
                ready &= status == Some(200);
            }
            ready
        },
    )
    .await;

    // Two API replicas reading the same database.
    let replicas: Vec<_> = (0..2)
        .map(|_| {
            let r = Replica::spawn(&net, &pg.url, &[]);
            (r.child, r.base)
        })
        .collect();
    for (_, base) in &replicas {
        wait_ready(&http, "a replica is ready", &format!("{base}/readyz")).await;
    }

    // Trading load: a launch and buys from three wallets, while the stored cursor is sampled.
    let creator = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 7, "TOPO")
        .await
        .unwrap();
    let mint = keys.mint.to_string();
    let traders = [
        testkit::funded(&rpc, 20 * SOL).await.unwrap(),
        testkit::funded(&rpc, 20 * SOL).await.unwrap(),
        testkit::funded(&rpc, 20 * SOL).await.unwrap(),
    ];
    const ROUNDS: usize = 12;
    let expected = ROUNDS * traders.len();
    let load = {
        let rpc_url = rpc_url.clone();
        tokio::spawn(async move {
            let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
                rpc_url,
                solana_commitment_config::CommitmentConfig::confirmed(),
            );
            let mut sent = 0usize;
            for round in 0..ROUNDS {
                let buys = traders
                    .iter()
                    .map(|t| testkit::buy(&rpc, &keys, t, SOL / 100 + round as u64));
                for r in futures::future::join_all(buys).await {
                    r.expect("a buy lands");
                    sent += 1;
                }
            }
            sent
        })
    };
    // The stored cursor, sampled every 50 ms from before the kill until everything is indexed.
    let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let (url, sampling) = (pg.url.clone(), sampling.clone());
        tokio::spawn(async move {
            let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
                .await
                .unwrap();
            let mut cursors = Vec::new();
            while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                let row: Option<(i64,)> =
                    sqlx::query_as("SELECT slot FROM indexer_cursor WHERE stream = 'main'")
                        .fetch_optional(&mut conn)
                        .await
                        .unwrap();
                cursors.extend(row.map(|r| r.0));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cursors
        })
    };
    tokio::time::sleep(Duration::from_secs(2)).await;

    // The active indexer is SIGKILLed mid-load; the standby takes over.
    let active = if role(&http, &indexers[0]).await == "active" {
        0
    } else {
        1
    };
    let standby = 1 - active;
    let pid = indexers[active].child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-KILL", &pid])
        .status()
        .unwrap()
        .success());
    let killed = Instant::now();
    wait_for(
        "the standby takes over",
        Duration::from_secs(10),
        || async { role(&http, &indexers[standby]).await == "active" },
    )
    .await;
    let failover = killed.elapsed();
    eprintln!("failover: the standby took the lease {failover:?} after the SIGKILL");
    assert!(
        failover < Duration::from_secs(5),
        "takeover within 5 s: {failover:?}"
    );
    let sent = load.await.unwrap();
    assert_eq!(sent, expected);

    // The index equals the chain: every trade, through either replica; the candles count each once.
    let trades_url = |base: &str| format!("{base}/launchpad/trades/{mint}?limit=100");
    for (_, base) in &replicas {
        wait_for(
            "every trade is indexed",
            Duration::from_secs(60),
            || async {
                get_json(&http, &trades_url(base))
                    .await
                    .is_some_and(|(_, v)| v["trades"].as_array().map_or(0, |t| t.len()) == sent)
            },
        )
        .await;
    }
    let (_, candles) = get_json(
        &http,
        &format!("{}/launchpad/candles/{mint}?interval=1d", replicas[0].1),
    )
    .await
    .unwrap();
    let counted: u64 = candles["candles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["trades"].as_u64().unwrap())
        .sum();
    assert_eq!(
        counted, sent as u64,
        "candle trade counts equal the trades: {candles}"
    );
    sampling.store(false, std::sync::atomic::Ordering::Relaxed);
    let cursors = sampler.await.unwrap();
    assert!(cursors.len() > 20, "the cursor was sampled: {cursors:?}");
    assert!(
        cursors.windows(2).all(|w| w[0] <= w[1]),
        "the stored cursor never moves back: {cursors:?}"
    );

    // PostgreSQL stops: the replicas stay live but are not ready; it starts again: ready, reads served.
    pg.stop();
    for (_, base) in &replicas {
        let (status, _) = get_json(&http, &format!("{base}/livez")).await.unwrap();
        assert_eq!(status, 200);
        wait_for("readiness turns 503", Duration::from_secs(10), || async {
            get_json(&http, &format!("{base}/readyz"))
                .await
                .is_some_and(|(s, _)| s == 503)
        })
        .await;
        let (_, health) = get_json(&http, &format!("{base}/health")).await.unwrap();
        assert_eq!(health["database"], "unreachable", "{health}");
    }
    pg.restart();
    for (_, base) in &replicas {
        wait_for("readiness is back", Duration::from_secs(30), || async {
            get_json(&http, &format!("{base}/readyz"))
                .await
                .is_some_and(|(s, _)| s == 200)
        })
        .await;
        wait_for(
            "reads are served again",
            Duration::from_secs(30),
            || async {
                get_json(&http, &trades_url(base))
                    .await
                    .is_some_and(|(s, v)| {
                        s == 200 && v["trades"].as_array().map_or(0, |t| t.len()) == sent
                    })
            },
        )
        .await;
    }

    // The gRPC source goes away: the writing indexer is no longer ready.
    net.shutdown().await;
    wait_for(
        "the indexer's readiness turns 503 without its source",
        Duration::from_secs(30),
        || async {
            get_json(&http, &format!("{}/readyz", indexers[standby].health))
                .await
                .is_some_and(|(s, _)| s == 503)
        },
    )
    .await;
}

/// `--database-read-url`: an API replica reads the index from a hot standby streaming the primary, while
/// the indexer writes the primary. The standby is read-only, so any write sent its way would fail; when the
/// standby stops, readiness stays up and reads fall back to the primary; they return to the standby, caught
/// up.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_api_replica_reads_from_a_streaming_standby() {
    let pg = Postgres::start();
    let standby = pg.standby();
    let Chain { net, rpc, http } = Chain::start(Duration::from_secs(10)).await;

    let indexer = Indexer::spawn(&net, &pg.url, &[]);
    wait_ready(
        &http,
        "the indexer writes",
        &format!("{}/readyz", indexer.health),
    )
    .await;

    // The replica neither migrates (the standby could not) nor reads the primary.
    let Replica { child: _api, base } = Replica::spawn(
        &net,
        &pg.url,
        &["--database-read-url", &standby.url, "--no-migrate"],
    );
    wait_ready(&http, "the replica is ready", &format!("{base}/readyz")).await;

    let creator = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 7, "READ")
        .await
        .unwrap();
    let mint = keys.mint.to_string();
    let trader = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    for i in 0..3 {
        testkit::buy(&rpc, &keys, &trader, SOL / 10 + i)
            .await
            .unwrap();
    }
    let trades = |want: usize| {
        let (http, url) = (
            http.clone(),
            format!("{base}/launchpad/trades/{mint}?limit=100"),
        );
        move || {
            let (http, url) = (http.clone(), url.clone());
            async move {
                get_json(&http, &url).await.is_some_and(|(s, v)| {
                    s == 200 && v["trades"].as_array().map_or(0, |t| t.len()) == want
                })
            }
        }
    };
    wait_for(
        "the trades reach the replica through the standby",
        Duration::from_secs(60),
        trades(3),
    )
    .await;
    // The indexer reads the chain's slot on its own: its true lag is known and small.
    wait_for(
        "the indexer's lag against the chain",
        Duration::from_secs(30),
        || async {
            get_json(&http, &format!("{}/health", indexer.health))
                .await
                .is_some_and(|(_, v)| {
                    v["chain_slot"].as_u64() > Some(0)
                        && v["chain_lag"].as_u64().is_some_and(|l| l < 150)
                })
        },
    )
    .await;
    let (status, token) = get_json(&http, &format!("{base}/launchpad/tokens/{mint}"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{token}");

    // The standby stops: readiness follows the primary alone, and reads fall back to it (within a second
    // or two of the replica's failed check), so the trade made meanwhile is served at once.
    standby.stop();
    testkit::buy(&rpc, &keys, &trader, SOL / 10 + 9)
        .await
        .unwrap();
    wait_for(
        "reads fall back to the primary, which has the new trade",
        Duration::from_secs(30),
        trades(4),
    )
    .await;
    let (status, _) = get_json(&http, &format!("{base}/readyz")).await.unwrap();
    assert_eq!(
        status, 200,
        "readiness does not fail on the read replica alone"
    );
    // The standby comes back and catches up; reads return to it with nothing missing.
    standby.restart();
    testkit::buy(&rpc, &keys, &trader, SOL / 10 + 10)
        .await
        .unwrap();
    wait_for(
        "the standby catches up and serves every trade",
        Duration::from_secs(60),
        trades(5),
    )
    .await;
}
