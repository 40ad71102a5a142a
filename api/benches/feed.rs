//! Live-feed benchmark (`scripts/bench-feed`, which starts a throwaway PostgreSQL and runs `cargo bench -p api
//! --bench feed`; results in docs/benchmarks.md): `FEED_SUBSCRIBERS` (1,000) subscribers to every trade over
//! `FEED_TRANSPORT` (`ws`, or `sse`) while wallets buy on the localnet as fast as it confirms, or at
//! `FEED_RATE` trades a second. Reports events delivered per second, the latency from the
//! indexer's commit to each subscriber's receipt (p50, p99) and the API server's memory over the run.
//! Loopback only; bounded in subscribers, trades and time.
//!
//! The API runs as it does in production: the `api serve` binary in its own process over the PostgreSQL
//! index, woken by the indexer's NOTIFY; so its memory is its own. This process runs the localnet, the
//! indexer (whose in-process commit notification timestamps each commit) and the clients.

mod common;

/// The `api` binary (the `server` package's): `API_BIN`, else `api` beside this bench's own directory
/// (`target/release/api`, which `scripts/bench-feed` builds first).
fn api_binary() -> std::path::PathBuf {
    std::env::var_os("API_BIN")
        .map(Into::into)
        .unwrap_or_else(|| {
            let exe = std::env::current_exe().unwrap();
            exe.parent()
                .and_then(|deps| deps.parent())
                .unwrap()
                .join("api")
        })
}

use futures::{SinkExt, StreamExt};
use localnet::testkit::{self, SOL};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

const TRADERS: usize = 48;
const MAX_TRADES: usize = 3_000;
const MAX_TIME: Duration = Duration::from_secs(30);

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// A subscriber's WebSocket settings: tungstenite zero-fills its read buffer (128 KiB by default) before every
/// read, which on 1,000 subscribers sharing the server's two cores cost more than the reading itself.
fn client_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(16 * 1024)
}

/// The `seq` of an event message, without parsing the rest.
fn seq_of(text: &str) -> Option<i64> {
    let rest = text.strip_prefix("{\"seq\":")?;
    rest[..rest.find(',')?].parse().ok()
}

/// One subscriber to every trade: a stream of the `seq`s it receives, in batches as they arrive.
async fn subscribe(
    addr: std::net::SocketAddr,
    sse: bool,
    http: &reqwest::Client,
) -> futures::stream::BoxStream<'static, Vec<i64>> {
    if sse {
        let resp = http
            .get(format!("http://{addr}/launchpad/stream?kinds=trade"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{:?}", resp.text().await);
        // Lines split across chunks wait in `partial`.
        futures::stream::unfold((resp, Vec::new()), |(mut resp, mut partial)| async move {
            let chunk = resp.chunk().await.ok()??;
            partial.extend_from_slice(&chunk);
            let end = partial
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let seqs = partial[..end]
                .split(|b| *b == b'\n')
                .filter_map(|line| {
                    std::str::from_utf8(line.strip_prefix(b"id: ")?)
                        .ok()?
                        .parse()
                        .ok()
                })
                .collect();
            partial.drain(..end);
            Some((seqs, (resp, partial)))
        })
        .boxed()
    } else {
        let (mut ws, _) = tokio_tungstenite::connect_async_with_config(
            format!("ws://{addr}/launchpad/ws"),
            Some(client_config()),
            false,
        )
        .await
        .unwrap();
        ws.send(Message::Text(
            r#"{"op":"subscribe","kinds":["trade"]}"#.into(),
        ))
        .await
        .unwrap();
        match ws.next().await {
            Some(Ok(Message::Text(t))) if t.contains("subscribed") => {}
            other => panic!("no acknowledgement: {other:?}"),
        }
        ws.take_while(|m| {
            futures::future::ready(matches!(
                m,
                Ok(Message::Text(_)) | Ok(Message::Ping(_)) | Ok(Message::Pong(_))
            ))
        })
        .map(|m| match m {
            Ok(Message::Text(t)) => seq_of(t.as_str()).into_iter().collect(),
            _ => Vec::new(),
        })
        .boxed()
    }
}

/// A setting from the environment, else its default.
fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v}: not understood"))
        })
        .unwrap_or(default)
}

/// `feed_lagged_disconnects_total` of the API process (clients it dropped for falling behind), from its
/// `/metrics`; 0 when the series was never written.
async fn lagged_disconnects(http: &reqwest::Client, metrics: std::net::SocketAddr) -> u64 {
    let text = http
        .get(format!("http://{metrics}/metrics"))
        .send()
        .await
        .expect("the API's /metrics answers")
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("feed_lagged_disconnects_total "))
        .map_or(0, |v| v.trim().parse::<f64>().unwrap() as u64)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let subscribers: usize = setting("FEED_SUBSCRIBERS", 1_000);
    let sse = match setting("FEED_TRANSPORT", "ws".to_string()).as_str() {
        "ws" => false,
        "sse" => true,
        other => panic!("FEED_TRANSPORT={other}: ws or sse"),
    };
    // Trades a second over all traders; 0: as fast as the localnet confirms.
    let rate: u64 = setting("FEED_RATE", 0);
    let admin = std::env::var("DATABASE_URL").expect(
        "the feed bench runs the API in its own process over PostgreSQL: set DATABASE_URL to a server it may \
         create a database on (scripts/bench-feed starts a throwaway one)",
    );
    let db = index::store::create_postgres_database(&admin, "feed_bench")
        .await
        .unwrap();
    let common::Stack {
        net,
        store,
        dir,
        stop,
        metrics: _metrics,
        rpc,
        log: _log,
    } = common::start_on("feed-bench", Some(db.clone())).await;
    while store.config_for("fair", "sol").await.unwrap().is_none() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let free_port = || {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let (addr, metrics_addr) = (free_port(), free_port());
    let server_log = std::fs::File::create(dir.join("api-serve.log")).unwrap();
    let mut server = tokio::process::Command::new(api_binary())
        .args([
            "serve",
            "--database-url",
            &db,
            "--rpc-url",
            &net.rpc_url(),
            "--listen",
            &addr.to_string(),
            // Where the bench reads `feed_lagged_disconnects_total` at the end.
            "--metrics-addr",
            &metrics_addr.to_string(),
            "--public-base-url",
            &format!("http://{addr}"),
            "--feed-max-connections",
            &(subscribers + 10).to_string(),
            "--feed-max-total-connections",
            &(subscribers + 10).to_string(),
            // 1,000 handshakes from one address in a second; rate limiting is tested elsewhere.
            "--rate-limit-per-second",
            "100000",
            "--rate-limit-burst",
            "1000000",
        ])
        .stdout(server_log.try_clone().unwrap())
        .stderr(server_log)
        .kill_on_drop(true)
        .spawn()
        .expect("the api binary starts");
    let server_pid = server.id().unwrap();
    let http = reqwest::Client::new();
    let started = Instant::now();
    while http
        .get(format!("http://{addr}/health"))
        .send()
        .await
        .is_err()
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "api serve did not start (see {}/api-serve.log)",
            dir.display()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Commit times: the store announces each commit's highest feed seq in-process. Read on a thread of its
    // own, so a busy runtime cannot delay the reading (which would understate every latency).
    let commits: Arc<Mutex<Vec<(i64, Instant)>>> = Arc::default();
    {
        let commits = commits.clone();
        let mut watch = store.commits();
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
                .block_on(async move {
                    while watch.changed().await.is_ok() {
                        let seq = watch.borrow_and_update().feed_seq;
                        commits.lock().unwrap().push((seq, Instant::now()));
                    }
                })
        });
    }

    let creator = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 1, "BENCH")
        .await
        .unwrap();
    let traders: Vec<_> =
        futures::future::join_all((0..TRADERS).map(|_| testkit::funded(&rpc, 100 * SOL)))
            .await
            .into_iter()
            .map(|k| Arc::new(k.unwrap()))
            .collect();

    // The subscribers. (A runtime of their own, apart from the localnet's and the indexer's, was tried: two more
    // threads on the two cores made the p99 twice as long.)
    let connect_start = Instant::now();
    let (done_tx, done_rx) = tokio::sync::watch::channel(false);
    let mut clients = Vec::new();
    for _ in 0..subscribers.div_ceil(50) {
        let batch = (0..50).map(|_| subscribe(addr, sse, &http));
        for events in futures::future::join_all(batch).await {
            let mut done = done_rx.clone();
            clients.push(tokio::spawn(async move {
                let mut events = events;
                let mut got: Vec<(i64, Instant)> = Vec::new();
                // One registration with the stop signal for the whole run (not one per message).
                let stop = done.wait_for(|d| *d);
                tokio::pin!(stop);
                loop {
                    tokio::select! {
                        next = events.next() => match next {
                            Some(seqs) => {
                                let at = Instant::now();
                                got.extend(seqs.into_iter().map(|s| (s, at)));
                            }
                            None => break,
                        },
                        _ = &mut stop => break,
                    }
                }
                got
            }));
        }
    }
    let connect_secs = connect_start.elapsed().as_secs_f64();

    // Trading: each trader buys in a loop until the trade or time bound.
    let rss_start = rss_kib(server_pid);
    let rss_samples: Arc<Mutex<Vec<u64>>> = Arc::default();
    let sampling = {
        let rss_samples = rss_samples.clone();
        let done = done_rx.clone();
        tokio::spawn(async move {
            while !*done.borrow() {
                rss_samples.lock().unwrap().push(rss_kib(server_pid));
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        })
    };
    let trades = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for t in &traders {
        let (rpc, keys, t, trades) = (rpc.clone(), keys, t.clone(), trades.clone());
        tasks.push(tokio::spawn(async move {
            while start.elapsed() < MAX_TIME
                && trades.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < MAX_TRADES
            {
                // Trade number n goes at n / rate seconds from the start (rate 0: at once).
                let n = trades.load(std::sync::atomic::Ordering::Relaxed) as u64;
                if let Some(ms) = (n * 1_000).checked_div(rate) {
                    tokio::time::sleep_until((start + Duration::from_millis(ms)).into()).await;
                }
                if testkit::buy(&rpc, &keys, &t, SOL / 1_000).await.is_err() {
                    trades.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let trading_secs = start.elapsed().as_secs_f64();
    let landed = trades
        .load(std::sync::atomic::Ordering::Relaxed)
        .min(MAX_TRADES);
    // Let the index catch up with the chain and the feed deliver it, then stop the clients.
    let tip = rpc.get_slot().await.unwrap();
    let catch_up = Instant::now();
    while store
        .cursor(index::store::MAIN_STREAM)
        .await
        .unwrap()
        .is_none_or(|c| c < tip)
        && catch_up.elapsed() < Duration::from_secs(60)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let indexed = store
        .feed_after(0, 100_000)
        .await
        .unwrap()
        .iter()
        .filter(|e| e.kind == "trade")
        .count();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let _ = done_tx.send(true);
    let _ = sampling.await;
    let mut received = Vec::new();
    for c in clients {
        received.push(c.await.unwrap());
    }
    let rss_end = rss_kib(server_pid);
    let lagged = lagged_disconnects(&http, metrics_addr).await;

    let commits = commits.lock().unwrap().clone();
    let commit_time = |seq: i64| -> Option<Instant> {
        let i = commits.partition_point(|(s, _)| *s < seq);
        commits.get(i).map(|(_, t)| *t)
    };
    let mut latencies = Vec::new();
    let mut delivered = 0usize;
    let (mut first, mut last) = (None::<Instant>, None::<Instant>);
    for got in &received {
        delivered += got.len();
        for (seq, at) in got {
            if let Some(c) = commit_time(*seq) {
                latencies.push(at.saturating_duration_since(c));
            }
            first = Some(first.map_or(*at, |f| f.min(*at)));
            last = Some(last.map_or(*at, |l| l.max(*at)));
        }
    }
    latencies.sort();
    let per_client: Vec<usize> = received.iter().map(Vec::len).collect();
    let window = match (first, last) {
        (Some(f), Some(l)) => l.duration_since(f).as_secs_f64().max(1e-3),
        _ => 1.0,
    };
    let samples = rss_samples.lock().unwrap().clone();
    let rss_max = samples.iter().copied().max().unwrap_or(0);
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "live feed benchmark ({profile} build), loopback, PostgreSQL index, `api serve` in its own process"
    );
    println!("| transport | subscribers | trades landed | trades in the feed | trading time | trades/s | events delivered | delivered/s | latency p50 | latency p99 | events per subscriber (min..max) | lagged disconnects |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | {subscribers} | {landed} | {indexed} | {trading_secs:.1} s | {:.1} | {delivered} | {:.0} | {:.1} ms | {:.1} ms | {}..{} | {lagged} |",
        if sse { "SSE" } else { "WebSocket" },
        landed as f64 / trading_secs,
        delivered as f64 / window,
        percentile(&latencies, 0.50).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        per_client.iter().min().unwrap_or(&0),
        per_client.iter().max().unwrap_or(&0),
    );
    println!(
        "memory (VmRSS of the api serve process): {} MiB after connecting {subscribers} subscribers in {connect_secs:.1} s, \
         max {} MiB during trading, {} MiB at the end; samples (MiB, 1/s): {:?}",
        rss_start / 1024,
        rss_max / 1024,
        rss_end / 1024,
        samples.iter().map(|k| k / 1024).collect::<Vec<_>>()
    );
    let _ = server.kill().await;
    let _ = stop.send(true);
    net.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
    // The numbers above mean nothing if the index fell behind the chain or a subscriber missed events.
    assert_eq!(
        indexed, landed,
        "the index did not catch up with the trades within 60 s"
    );
    assert!(
        per_client.iter().all(|n| *n == indexed),
        "a subscriber did not receive every trade"
    );
}
