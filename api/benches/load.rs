//! Load benchmark (`cargo bench -p api --bench load`; results in docs/benchmarks.md): throughput and latency of
//! `GET /launchpad/curve/{mint}`, `POST /swap/quote` (own pools), `GET /launchpad/candles/{mint}` (1m over a
//! day of trading) and `GET /launchpad/launches?sort=volume24h` (100,000 launches) on a running stack, next to
//! a trivial axum handler measured the same way in the same run. Loopback only; each phase is bounded in
//! requests and time.

mod common;

use api::config::ApiConfig;
use api::AppState;
use indexer::Store;
use localnet::testkit::{self, SOL};
use std::sync::Arc;
use std::time::{Duration, Instant};

const CONCURRENCY: usize = 32;
const MAX_REQUESTS: usize = 20_000;
const MAX_TIME: Duration = Duration::from_secs(10);

type MakeRequest = Arc<dyn Fn(&reqwest::Client) -> reqwest::RequestBuilder + Send + Sync>;

struct Outcome {
    requests: usize,
    errors: usize,
    secs: f64,
    p50: Duration,
    p99: Duration,
}

async fn load(http: reqwest::Client, make: MakeRequest) -> Outcome {
    let start = Instant::now();
    let issued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..CONCURRENCY {
        let (http, make, issued) = (http.clone(), make.clone(), issued.clone());
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::new();
            let mut errors = 0;
            while issued.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < MAX_REQUESTS
                && start.elapsed() < MAX_TIME
            {
                let t = Instant::now();
                match make(&http).send().await {
                    Ok(r) if r.status().is_success() => {
                        let _ = r.bytes().await;
                        times.push(t.elapsed());
                    }
                    _ => errors += 1,
                }
            }
            (times, errors)
        }));
    }
    let mut times = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let (ts, e) = t.await.unwrap();
        times.extend(ts);
        errors += e;
    }
    let secs = start.elapsed().as_secs_f64();
    times.sort();
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
    Outcome {
        requests: times.len(),
        errors,
        secs,
        p50: pct(0.5),
        p99: pct(0.99),
    }
}

/// Launches in the listing phase.
const LAUNCHES: usize = 100_000;

/// 1,440 one-minute candles of `mint` from `start`, one trade each, prices rising.
async fn seed_day_of_candles(store: &Store, mint: &str, start: i64) {
    use indexer::store::{bind, values_clause, Val};
    let rows: Vec<Vec<Val>> = (0..1_440i64)
        .map(|i| {
            let seq = indexer::market::seq(i as u64, 0, 0, 0);
            let p = Val::num(28_000_000_000u128 + i as u128 * 1_000_000);
            vec![
                Val::Text(mint.to_string()),
                Val::Int(60),
                Val::Int(start + i * 60),
                p.clone(),
                p.clone(),
                p.clone(),
                p,
                Val::num(1_000_000_000u64),
                Val::num(30_000_000u64),
                Val::Int(1),
                Val::Text(seq.clone()),
                Val::Text(seq),
            ]
        })
        .collect();
    for chunk in rows.chunks(500) {
        let sql = format!(
            "INSERT INTO candles (mint, interval_secs, start_time, open, high, low, close, volume_base, \
             volume_quote, trades, open_seq, close_seq) VALUES {}",
            values_clause(12, chunk.len())
        );
        let vals: Vec<Val> = chunk.iter().flatten().cloned().collect();
        bind(sqlx::query(sqlx::AssertSqlSafe(sql)), &vals)
            .execute(store.pool())
            .await
            .unwrap();
    }
}

#[tokio::main]
async fn main() {
    let common::Stack {
        net,
        store,
        dir,
        stop,
        rpc,
        ..
    } = common::start("api-bench").await;
    let rx = stop.subscribe();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 1, "LOAD")
        .await
        .unwrap();
    while store.curve(&keys.mint).await.unwrap().is_none() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A day of 1-minute candles for the launch (as the rollup writes them), and 100,000 listed launches.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let day_start = indexer::market::bucket(now - 86_400, 60);
    seed_day_of_candles(&store, &keys.mint.to_string(), day_start).await;
    let seeded = Instant::now();
    store.seed_listing(LAUNCHES, now).await.unwrap();
    println!(
        "seeded {LAUNCHES} launches in {:.1} s",
        seeded.elapsed().as_secs_f64()
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(
        store,
        ApiConfig {
            rate_limit_per_second: 1_000_000,
            rate_limit_burst: 10_000_000,
            ..ApiConfig::local(addr)
        },
        rpc,
        None,
    );
    let mut api_stop = rx.clone();
    tokio::spawn(api::serve(state, listener, async move {
        let _ = api_stop.wait_for(|s| *s).await;
    }));
    // The trivial handler, served the same way.
    let trivial = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let trivial_addr = trivial.local_addr().unwrap();
    tokio::spawn(async move {
        let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
        axum::serve(trivial, app).await
    });

    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONCURRENCY)
        .build()
        .unwrap();
    let base = format!("http://{addr}");
    let curve_url = format!("{base}/launchpad/curve/{}", keys.mint);
    let quote_url = format!("{base}/swap/quote");
    let quote_body = serde_json::json!({
        "chainKey": "solana", "tokenIn": sdk::ids::NATIVE_MINT.to_string(),
        "tokenOut": keys.mint.to_string(), "amountIn": "100000000",
    });
    let candles_url = format!(
        "{base}/launchpad/candles/{}?interval=1m&from={day_start}&limit=1000",
        keys.mint
    );
    let listing_url = format!("{base}/launchpad/launches?sort=volume24h");
    let trivial_url = format!("http://{trivial_addr}/");
    let phases: Vec<(&str, MakeRequest)> = vec![
        (
            "trivial axum handler",
            Arc::new(move |h: &reqwest::Client| h.get(&trivial_url)),
        ),
        (
            "GET /launchpad/curve/{mint}",
            Arc::new(move |h: &reqwest::Client| h.get(&curve_url)),
        ),
        (
            "POST /swap/quote (own pool)",
            Arc::new(move |h: &reqwest::Client| h.post(&quote_url).json(&quote_body)),
        ),
        (
            "GET /launchpad/candles/{mint} (1m, a day: 1,000 candles)",
            Arc::new(move |h: &reqwest::Client| h.get(&candles_url)),
        ),
        (
            "GET /launchpad/launches?sort=volume24h (100,000 launches)",
            Arc::new(move |h: &reqwest::Client| h.get(&listing_url)),
        ),
    ];
    println!(
        "{CONCURRENCY} concurrent clients, at most {MAX_REQUESTS} requests or {} s per phase\n",
        MAX_TIME.as_secs()
    );
    println!("| endpoint | requests/s | p50 | p99 | vs trivial | errors |");
    println!("|---|---|---|---|---|---|");
    let mut trivial_rate = None;
    for (name, make) in phases {
        let o = load(http.clone(), make).await;
        let rate = o.requests as f64 / o.secs;
        let base_rate = *trivial_rate.get_or_insert(rate);
        println!(
            "| {name} | {rate:.0} | {:.2} ms | {:.2} ms | {:.2} | {} |",
            o.p50.as_secs_f64() * 1e3,
            o.p99.as_secs_f64() * 1e3,
            rate / base_rate,
            o.errors
        );
    }
    let _ = stop.send(true);
    net.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
