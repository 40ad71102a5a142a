//! A PostgreSQL primary fails over to its standby under trading load, as an operator's HA setup does it,
//! and the failover is a lossy one (asynchronous replication): a primary, a hot standby streaming from it
//! (`pg_basebackup -R`), HAProxy (Debian's package) in front as the one database endpoint, an `indexer`
//! and an `api serve` replica on that endpoint, and two live-feed subscribers. The standby's streaming is
//! cut first, so the primary's last commits (trades, and feed events the subscribers already received)
//! never reach it; then the primary is SIGKILLed, the standby promoted (`pg_ctl promote`) and HAProxy
//! repointed to it through its runtime API.
//!
//! Checked: the API answers again within seconds of the repoint (5xx meanwhile, never a refused
//! connection: neither process crashes); the indexer takes the writer's lease on the new primary and
//! re-indexes what was lost from the chain, so the index equals the chain (every trade once); the feed's
//! `seq` never goes back (the new primary numbers after its timeline's epoch floor,
//! `crates/index/src/store/feed.rs`): a subscriber connected across the failover receives every event the
//! new primary commits, in order, once, and a client resuming from an event that was lost (past the new
//! primary's newest row) is accepted and receives them all too.
//!
//! The binaries are the workspace's own (`scripts/test` builds them with `--bins`), found beside this
//! test's `dev` binary.

mod cluster;
mod common;

use cluster::{get_json, role, wait_ready, Chain, Indexer, Postgres, Replica};
use common::wait_for;

use localnet::testkit::{self, SOL};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const HAPROXY: &str = "/usr/sbin/haproxy";

/// HAProxy as the database's one endpoint (TCP), a child process on a config of its own: server `primary`
/// in service, server `standby` in maintenance until the failover; repointed through the runtime API on
/// its admin socket, as an operator (or Patroni's callbacks, or keepalived) would.
struct Haproxy {
    _child: tokio::process::Child,
    dir: PathBuf,
    port: u16,
}

impl Haproxy {
    fn start(primary: &Postgres, standby: &Postgres) -> Haproxy {
        assert!(
            std::path::Path::new(HAPROXY).exists(),
            "{HAPROXY} is missing: apt-get install haproxy (Debian's package; .ci/run installs it)"
        );
        let port = testkit::free_port();
        let dir =
            std::env::temp_dir().join(format!("failover-haproxy-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let conf = format!(
            "global\n  stats socket {dir}/admin.sock mode 600 level admin\n\
             defaults\n  mode tcp\n  timeout connect 1s\n  timeout client 1h\n  timeout server 1h\n\
             frontend db\n  bind 127.0.0.1:{port}\n  default_backend db\n\
             backend db\n\
             \x20 server primary 127.0.0.1:{primary} check inter 500ms fall 1 rise 1 on-marked-down shutdown-sessions\n\
             \x20 server standby 127.0.0.1:{standby} check inter 500ms fall 1 rise 1 disabled\n",
            dir = dir.display(),
            primary = primary.port(),
            standby = standby.port(),
        );
        std::fs::write(dir.join("haproxy.cfg"), conf).unwrap();
        let child = tokio::process::Command::new(HAPROXY)
            .arg("-db")
            .arg("-f")
            .arg(dir.join("haproxy.cfg"))
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(dir.join("haproxy.log")).unwrap())
            .kill_on_drop(true)
            .spawn()
            .expect("haproxy runs");
        Haproxy {
            _child: child,
            dir,
            port,
        }
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// One command on HAProxy's runtime API; its answer.
    fn admin(&self, command: &str) -> String {
        let mut socket = std::os::unix::net::UnixStream::connect(self.dir.join("admin.sock"))
            .expect("HAProxy's admin socket");
        socket.write_all(format!("{command}\n").as_bytes()).unwrap();
        let mut answer = String::new();
        socket.read_to_string(&mut answer).unwrap();
        answer
    }

    /// Sends every new session to the standby (promoted by now) and ends those still open to the primary.
    fn repoint_to_standby(&self) {
        for command in [
            "set server db/primary state maint",
            "set server db/standby state ready",
            "shutdown sessions server db/primary",
        ] {
            let answer = self.admin(command);
            assert!(answer.trim().is_empty(), "HAProxy `{command}`: {answer}");
        }
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One live-feed event as a subscriber received it.
#[derive(Debug, Clone)]
struct Received {
    seq: i64,
    kind: String,
    signature: String,
}

/// A Server-Sent Events subscriber to `/launchpad/stream` that resumes as a browser's `EventSource` does:
/// when the stream ends it connects again with `Last-Event-ID` (or `start` on its first connection).
/// Records every event and the status of every connection attempt.
struct Subscriber {
    events: Arc<Mutex<Vec<Received>>>,
    statuses: Arc<Mutex<Vec<u16>>>,
    _task: tokio::task::JoinHandle<()>,
}

impl Subscriber {
    fn start(base: &str, start: Option<i64>) -> Subscriber {
        let events = Arc::new(Mutex::new(Vec::<Received>::new()));
        let statuses = Arc::new(Mutex::new(Vec::new()));
        let (url, ev, st) = (
            format!("{base}/launchpad/stream"),
            events.clone(),
            statuses.clone(),
        );
        let task = tokio::spawn(async move {
            // No overall timeout: a stream is open for minutes (the server pings every 15 s).
            let http = reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(5))
                .build()
                .unwrap();
            loop {
                let last = ev
                    .lock()
                    .unwrap()
                    .last()
                    .map(|e: &Received| e.seq)
                    .or(start);
                let mut request = http.get(&url);
                if let Some(last) = last {
                    request = request.header("Last-Event-ID", last.to_string());
                }
                let mut response = match request.send().await {
                    Ok(r) => r,
                    Err(_) => {
                        st.lock().unwrap().push(0);
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        continue;
                    }
                };
                st.lock().unwrap().push(response.status().as_u16());
                if response.status() != 200 {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
                let mut buffer = String::new();
                while let Ok(Some(chunk)) = response.chunk().await {
                    buffer.push_str(&String::from_utf8_lossy(&chunk));
                    while let Some(end) = buffer.find("\n\n") {
                        let block: String = buffer.drain(..end + 2).collect();
                        let Some(data) = block.lines().find_map(|l| l.strip_prefix("data: "))
                        else {
                            continue;
                        };
                        let v: serde_json::Value = serde_json::from_str(data).unwrap();
                        // Control messages (`lagged`, `shutdown`) have a `type`; events a `seq`.
                        if let (Some(seq), None) = (v["seq"].as_i64(), v.get("type")) {
                            ev.lock().unwrap().push(Received {
                                seq,
                                kind: v["kind"].as_str().unwrap().to_string(),
                                signature: v["signature"].as_str().unwrap().to_string(),
                            });
                        }
                    }
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        });
        Subscriber {
            events,
            statuses,
            _task: task,
        }
    }

    fn events(&self) -> Vec<Received> {
        self.events.lock().unwrap().clone()
    }

    fn last_seq(&self) -> Option<i64> {
        self.events.lock().unwrap().last().map(|e| e.seq)
    }
}

async fn connect(url: &str) -> sqlx::PgConnection {
    <sqlx::PgConnection as sqlx::Connection>::connect(url)
        .await
        .unwrap()
}

async fn max_seq(conn: &mut sqlx::PgConnection) -> i64 {
    sqlx::query_as::<_, (i64,)>("SELECT COALESCE(MAX(seq), 0) FROM feed_events")
        .fetch_one(conn)
        .await
        .unwrap()
        .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lossy_primary_failover_under_load_loses_no_trade_and_no_feed_event() {
    let primary = Postgres::start();
    let standby = primary.standby();
    let proxy = Haproxy::start(&primary, &standby);
    let db = proxy.url();
    let Chain { net, rpc, http } = Chain::start(Duration::from_secs(5)).await;
    let rpc_url = net.rpc_url();

    // The indexer and an API replica, both on HAProxy's address only.
    let mut indexer = Indexer::spawn(&net, &db, &["--metrics-interval-secs", "0"]);
    wait_ready(
        &http,
        "the indexer writes",
        &format!("{}/readyz", indexer.health),
    )
    .await;
    let Replica {
        child: mut api,
        base,
    } = Replica::spawn(&net, &db, &[]);
    wait_ready(&http, "the replica is ready", &format!("{base}/readyz")).await;

    // A subscriber to everything, from the first event on, connected across the failover.
    let across = Subscriber::start(&base, Some(0));

    // Trading load from three wallets until told to stop, every signature kept.
    let creator = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 11, "FAIL")
        .await
        .unwrap();
    let mint = keys.mint.to_string();
    let traders = [
        testkit::funded(&rpc, 20 * SOL).await.unwrap(),
        testkit::funded(&rpc, 20 * SOL).await.unwrap(),
        testkit::funded(&rpc, 20 * SOL).await.unwrap(),
    ];
    let trading = Arc::new(AtomicBool::new(true));
    let load = {
        let (rpc_url, trading) = (rpc_url.clone(), trading.clone());
        tokio::spawn(async move {
            let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
                rpc_url,
                solana_commitment_config::CommitmentConfig::confirmed(),
            );
            let mut sent = Vec::new();
            let mut round = 0u64;
            while trading.load(Ordering::Relaxed) {
                let buys = traders
                    .iter()
                    .map(|t| testkit::buy(&rpc, &keys, t, SOL / 100 + round));
                for r in futures::future::join_all(buys).await {
                    sent.push(r.expect("a buy lands").to_string());
                }
                round += 1;
            }
            sent
        })
    };
    // The API, polled every 100 ms from before the failover to the end: its answers, by time.
    let polling = Arc::new(AtomicBool::new(true));
    let poller = {
        let (http, url, polling) = (
            http.clone(),
            format!("{base}/launchpad/trades/{mint}?limit=5"),
            polling.clone(),
        );
        tokio::spawn(async move {
            let mut answers = Vec::new();
            while polling.load(Ordering::Relaxed) {
                let status = match http.get(&url).send().await {
                    Ok(r) => r.status().as_u16(),
                    Err(e) if e.is_timeout() => 1,
                    Err(_) => 0,
                };
                answers.push((Instant::now(), status));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            answers
        })
    };
    wait_for(
        "trades reach the subscriber",
        Duration::from_secs(60),
        || async { across.events().iter().filter(|e| e.kind == "trade").count() >= 6 },
    )
    .await;

    // The standby stops streaming: what the primary commits from now on is lost with it. The subscriber
    // receives a few more trades' events from the primary first.
    standby.stop_streaming().await;
    let mut direct = connect(&standby.url).await;
    let on_standby = max_seq(&mut direct).await;
    drop(direct);
    wait_for(
        "the subscriber receives events the standby never gets",
        Duration::from_secs(60),
        || async { across.last_seq().unwrap_or(0) >= on_standby + 6 },
    )
    .await;

    // The primary dies hard under load (the indexer is writing), then the indexer is held still a moment
    // (SIGSTOP) so that a resuming client is checked before it writes anything on the new primary.
    primary.kill_hard();
    let killed = Instant::now();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let indexer_pid = indexer.child.id().unwrap().to_string();
    let signal = |sig: &str| {
        let status = std::process::Command::new("kill")
            .args([sig, &indexer_pid])
            .status()
            .unwrap();
        assert!(status.success(), "kill {sig} the indexer");
    };
    signal("-STOP");
    standby.promote();
    // What the subscriber received by now is all the API read before the primary died.
    let served = across.last_seq().unwrap();
    let mut direct = connect(&standby.url).await;
    let kept = max_seq(&mut direct).await;
    let (walfile,): (String,) = sqlx::query_as("SELECT pg_walfile_name(pg_current_wal_lsn())")
        .fetch_one(&mut direct)
        .await
        .unwrap();
    assert_eq!(
        &walfile[..8],
        "00000002",
        "the promoted standby is on timeline 2"
    );
    let lost: Vec<Received> = across
        .events()
        .into_iter()
        .filter(|e| e.seq > kept)
        .collect();
    assert!(
        !lost.is_empty() && kept < served,
        "a lossy failover: the subscriber holds events the new primary lost (kept {kept}, served {served})"
    );
    eprintln!(
        "failover: {} events served and lost with the primary (seq {} to {served}); the new primary keeps up to {kept}",
        lost.len(),
        lost[0].seq
    );
    proxy.repoint_to_standby();
    let repointed = Instant::now();
    let outage = killed.elapsed();

    // A client resumes from the last event it received, which the new primary lost and which is past its
    // newest row: accepted (no 400 "ahead of the feed"), before the indexer wrote anything there.
    let resumed = Subscriber::start(&base, Some(served));
    wait_for(
        "the resuming client is accepted",
        Duration::from_secs(30),
        || async {
            let statuses = resumed.statuses.lock().unwrap().clone();
            assert!(
                statuses.iter().all(|s| *s == 200 || *s >= 500),
                "a resume point lost with the old primary is never refused: {statuses:?}"
            );
            statuses.contains(&200)
        },
    )
    .await;
    assert_eq!(
        max_seq(&mut direct).await,
        kept,
        "nothing was written on the new primary before the resume"
    );
    signal("-CONT");

    // The API answers again; the indexer holds the lease on the new primary and is ready.
    wait_for("the API answers again", Duration::from_secs(30), || async {
        get_json(&http, &format!("{base}/launchpad/trades/{mint}?limit=5"))
            .await
            .is_some_and(|(s, _)| s == 200)
    })
    .await;
    let api_back = repointed.elapsed();
    wait_for(
        "the indexer writes on the new primary",
        Duration::from_secs(60),
        || async {
            role(&http, &indexer).await == "active"
                && get_json(&http, &format!("{}/readyz", indexer.health))
                    .await
                    .is_some_and(|(s, _)| s == 200)
        },
    )
    .await;
    let indexer_back = repointed.elapsed();
    eprintln!(
        "failover: repointed {outage:?} after the SIGKILL; the API answered {api_back:?} and the indexer was \
         ready {indexer_back:?} after the repoint"
    );
    assert!(
        api_back < Duration::from_secs(15),
        "the API answers within 15 s of the repoint: {api_back:?}"
    );

    // More trading on the new primary, then the load stops.
    let before = across.events().len();
    wait_for(
        "trades flow on the new primary",
        Duration::from_secs(60),
        || async { across.events().len() >= before + 6 },
    )
    .await;
    trading.store(false, Ordering::Relaxed);
    let sent = load.await.unwrap();

    // The index equals the chain: every trade sent, once, in both trade tables, and counted once in the
    // candles the API serves.
    let distinct: BTreeSet<String> = sent.iter().cloned().collect();
    assert_eq!(distinct.len(), sent.len());
    wait_for(
        "every trade is indexed on the new primary",
        Duration::from_secs(60),
        || async {
            let mut direct = connect(&standby.url).await;
            let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM market_trades WHERE mint = $1")
                .bind(&mint)
                .fetch_one(&mut direct)
                .await
                .unwrap();
            n as usize >= sent.len()
        },
    )
    .await;
    for table in ["market_trades", "trades"] {
        let indexed: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT signature FROM {table} WHERE mint = $1"
        )))
        .bind(&mint)
        .fetch_all(&mut direct)
        .await
        .unwrap();
        let indexed: Vec<String> = indexed.into_iter().map(|r| r.0).collect();
        assert_eq!(
            indexed.len(),
            sent.len(),
            "{table}: one row per trade, no duplicate"
        );
        assert_eq!(
            indexed.into_iter().collect::<BTreeSet<_>>(),
            distinct,
            "{table}: every trade on the chain, and only those"
        );
    }
    let (_, candles) = get_json(
        &http,
        &format!("{base}/launchpad/candles/{mint}?interval=1d"),
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
        counted,
        sent.len() as u64,
        "candles count each trade once: {candles}"
    );

    // The feed after the failover: every event the new primary committed, numbered above anything the old
    // one served, reached both subscribers in order, once.
    let after: Vec<(i64, String, String)> =
        sqlx::query_as("SELECT seq, kind, signature FROM feed_events WHERE seq > $1 ORDER BY seq")
            .bind(kept)
            .fetch_all(&mut direct)
            .await
            .unwrap();
    let newest = after.last().unwrap().0;
    for (who, sub) in [("across the failover", &across), ("resuming", &resumed)] {
        wait_for(
            "the subscriber receives the newest event",
            Duration::from_secs(30),
            || async { sub.last_seq() == Some(newest) },
        )
        .await;
        let events = sub.events();
        assert!(
            events.windows(2).all(|w| w[0].seq < w[1].seq),
            "{who}: seq only goes up, no event twice"
        );
        let got: Vec<(i64, String, String)> = events
            .into_iter()
            .filter(|e| e.seq > served)
            .map(|e| (e.seq, e.kind, e.signature))
            .collect();
        let seqs =
            |list: &[(i64, String, String)]| list.iter().map(|e| e.0).collect::<BTreeSet<_>>();
        let missed: Vec<i64> = seqs(&after).difference(&seqs(&got)).copied().collect();
        let extra: Vec<i64> = seqs(&got).difference(&seqs(&after)).copied().collect();
        assert!(
            missed.is_empty() && extra.is_empty(),
            "{who}: every event after the failover: missed seq {missed:?}, not committed {extra:?}"
        );
        assert_eq!(
            got, after,
            "{who}: every event after the failover, once, in order"
        );
    }
    assert!(
        after.first().is_some_and(|e| e.0 > served),
        "the new primary numbers above every seq served: {:?} after {served}",
        after.first()
    );
    // What was lost with the old primary was indexed again from the chain and sent again, under new numbers.
    let resent: BTreeSet<(&str, &str)> = after
        .iter()
        .map(|(_, kind, sig)| (kind.as_str(), sig.as_str()))
        .collect();
    for e in &lost {
        assert!(
            resent.contains(&(e.kind.as_str(), e.signature.as_str())),
            "the lost {} event of {} is sent again",
            e.kind,
            e.signature
        );
    }

    // Neither process crashed: the API answered throughout (200, or 5xx while the database was away),
    // and both are still running.
    polling.store(false, Ordering::Relaxed);
    let answers = poller.await.unwrap();
    let refused: Vec<_> = answers.iter().filter(|(_, s)| *s == 0).collect();
    assert!(
        refused.is_empty(),
        "the API never stopped listening: {refused:?}"
    );
    let statuses: BTreeSet<u16> = answers.iter().map(|(_, s)| *s).collect();
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 1 || *s >= 500),
        "the API answered 200, or 5xx while the database was away: {statuses:?}"
    );
    let unavailable = answers.iter().filter(|(_, s)| *s != 200).count();
    eprintln!(
        "failover: {} API answers polled, {unavailable} not 200 ({statuses:?})",
        answers.len()
    );
    assert!(
        indexer.child.try_wait().unwrap().is_none(),
        "the indexer runs"
    );
    assert!(api.try_wait().unwrap().is_none(), "the API runs");
}
