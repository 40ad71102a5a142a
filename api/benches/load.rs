//! Load benchmark (`cargo bench -p api --bench load`; results in docs/benchmarks.md): throughput and latency of
//! `GET /launchpad/curve/{mint}`, `POST /swap/quote` (own pools), `GET /launchpad/candles/{mint}` (1m over a
//! day of trading) and `GET /launchpad/launches?sort=volume24h` (100,000 launches) on a running stack, next to
//! a trivial axum handler measured the same way in the same run. The load comes from `wrk`, a separate process
//! (`apt-get install wrk`), so it never shares the server's runtime; the API logs every request as the binary
//! does. The candles and the listing are measured again with `Accept-Encoding: gzip`, as browsers send.
//! Loopback only; each phase is bounded in time.

mod common;

use api::process::config::ApiConfig;
use api::AppState;
use index::Store;
use localnet::testkit::{self, SOL};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Connections `wrk` keeps open.
const CONNECTIONS: usize = 32;

/// A count from the environment, else `default`.
fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `wrk`'s threads (`LOAD_WRK_THREADS`, 1: the issue's `wrk -t1 -c32`).
fn wrk_threads() -> usize {
    env_or("LOAD_WRK_THREADS", 1)
}

/// Seconds of each `wrk` phase (`LOAD_PHASE_SECS`, 5).
fn phase_secs() -> u64 {
    env_or("LOAD_PHASE_SECS", 5)
}

/// Rounds (`LOAD_ROUNDS`, 4): every round measures the trivial handler right before each endpoint, so a
/// ratio compares two phases seconds apart on the same machine state.
fn rounds() -> usize {
    env_or("LOAD_ROUNDS", 4)
}

/// `LOAD_HOT=1`: only the curve and the quote (the hot paths), without the candles and the listing.
fn hot_only() -> bool {
    std::env::var("LOAD_HOT").is_ok_and(|v| v == "1")
}

/// What one `wrk` phase measured.
struct Outcome {
    rate: f64,
    p50_ms: f64,
    p99_ms: f64,
    /// Socket errors plus non-2xx/3xx answers.
    errors: u64,
}

/// A request for `wrk`: its URL, and a JSON body to POST (else a GET).
#[derive(Clone)]
struct Target {
    name: String,
    url: String,
    post: Option<serde_json::Value>,
    /// Sends `Accept-Encoding: gzip`, as browsers and most HTTP clients do.
    gzip: bool,
}

impl Target {
    fn get(name: &str, url: String) -> Target {
        Target {
            name: name.to_string(),
            url,
            post: None,
            gzip: false,
        }
    }

    /// The same request accepting gzip.
    fn gzipped(&self) -> Target {
        Target {
            name: format!("{}, gzip", self.name),
            gzip: true,
            ..self.clone()
        }
    }
}

/// Runs `wrk` (a separate process, so the load client never shares the server's runtime) against `target`.
fn wrk(target: &Target, dir: &std::path::Path) -> Outcome {
    let mut cmd = std::process::Command::new("wrk");
    cmd.args([
        "-t",
        &wrk_threads().to_string(),
        "-c",
        &CONNECTIONS.to_string(),
        "-d",
        &format!("{}s", phase_secs()),
        "--latency",
    ]);
    if target.gzip {
        cmd.args(["-H", "Accept-Encoding: gzip"]);
    }
    if let Some(body) = &target.post {
        let script = dir.join("post.lua");
        std::fs::write(
            &script,
            format!(
                "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.body = [[{body}]]\n"
            ),
        )
        .unwrap();
        cmd.arg("-s").arg(script);
    }
    let out = cmd
        .arg(&target.url)
        .output()
        .expect("wrk is not installed: apt-get install wrk (scripts/bench-http does it)");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "wrk failed: {text}");
    parse_wrk(&text)
}

/// Requests/s, the 50th and 99th latency percentiles and the errors from `wrk --latency`'s report.
fn parse_wrk(text: &str) -> Outcome {
    let ms = |v: &str| -> f64 {
        let (n, unit) = v.split_at(v.find(|c: char| c.is_ascii_alphabetic()).unwrap());
        let n: f64 = n.parse().unwrap();
        match unit {
            "us" => n / 1e3,
            "ms" => n,
            "s" => n * 1e3,
            "m" => n * 60e3,
            u => panic!("unknown latency unit {u}"),
        }
    };
    let mut o = Outcome {
        rate: 0.0,
        p50_ms: 0.0,
        p99_ms: 0.0,
        errors: 0,
    };
    for line in text.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Requests/sec:", r] => o.rate = r.parse().unwrap(),
            ["50%", v] => o.p50_ms = ms(v),
            ["99%", v] => o.p99_ms = ms(v),
            ["Non-2xx", "or", "3xx", "responses:", n] => o.errors += n.parse::<u64>().unwrap(),
            ["Socket", "errors:", rest @ ..] => {
                o.errors += rest
                    .iter()
                    .filter_map(|w| w.trim_end_matches(',').parse::<u64>().ok())
                    .sum::<u64>()
            }
            _ => {}
        }
    }
    o
}

/// Launches in the listing phase.
const LAUNCHES: usize = 100_000;

/// 1,440 one-minute candles of `mint` from `start`, one trade each, prices rising.
async fn seed_day_of_candles(store: &Store, mint: &str, start: i64) {
    use index::store::{sql, Row, Val};
    let rows: Vec<Row> = (0..1_440i64)
        .map(|i| {
            let seq = index::market::seq(i as u64, 0, 0, 0);
            let p = Val::num(28_000_000_000u128 + i as u128 * 1_000_000);
            vec![
                ("mint", Val::Text(mint.to_string())),
                ("interval_secs", Val::Int(60)),
                ("start_time", Val::Int(start + i * 60)),
                ("open", p.clone()),
                ("high", p.clone()),
                ("low", p.clone()),
                ("close", p),
                ("volume_base", Val::num(1_000_000_000u64)),
                ("volume_quote", Val::num(30_000_000u64)),
                ("trades", Val::Int(1)),
                ("open_seq", Val::Text(seq.clone())),
                ("close_seq", Val::Text(seq)),
            ]
        })
        .collect();
    for chunk in sql::chunks(rows, 500) {
        sql::query(store.backend(), &sql::insert("candles", chunk))
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
        metrics,
        log: _log,
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
    let day_start = index::market::bucket(now - 86_400, 60);
    if !hot_only() {
        seed_day_of_candles(&store, &keys.mint.to_string(), day_start).await;
        let seeded = Instant::now();
        store.seed_listing(LAUNCHES, now).await.unwrap();
        println!(
            "seeded {LAUNCHES} launches in {:.1} s",
            seeded.elapsed().as_secs_f64()
        );
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(
        store,
        ApiConfig {
            rate_limit_per_second: 1_000_000,
            rate_limit_burst: 10_000_000,
            // As `dev` runs it: the chain's clock at its default reuse (1 s), unless
            // `LOAD_CHAIN_CLOCK_TTL_MS` says otherwise (0: read for every quote, as `dev` did before).
            chain_clock_ttl_ms: std::env::var("LOAD_CHAIN_CLOCK_TTL_MS")
                .ok()
                .and_then(|v| v.parse().ok()),
            ..ApiConfig::local(addr)
        },
        rpc,
        Some(metrics),
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

    let base = format!("http://{addr}");
    let mint = keys.mint;
    let browse = [
        Target::get(
            "`GET /launchpad/candles/{mint}?interval=1m` (a day of trades; the latest 300 candles)",
            format!("{base}/launchpad/candles/{mint}?interval=1m&from={day_start}"),
        ),
        Target::get(
            "`GET /launchpad/candles/{mint}?interval=1m&limit=1000` (1,000 candles)",
            format!("{base}/launchpad/candles/{mint}?interval=1m&from={day_start}&limit=1000"),
        ),
        Target::get(
            "`GET /launchpad/launches?sort=volume24h` (100,000 launches)",
            format!("{base}/launchpad/launches?sort=volume24h"),
        ),
    ];
    let quote = Target {
        post: Some(serde_json::json!({
            "chainKey": "solana", "tokenIn": sdk::ids::NATIVE_MINT.to_string(),
            "tokenOut": mint.to_string(), "amountIn": "100000000",
        })),
        ..Target::get(
            "`POST /swap/quote` (own pool)",
            format!("{base}/swap/quote"),
        )
    };
    let browse: &[Target] = if hot_only() { &[] } else { &browse };
    let targets: Vec<Target> = [
        Target::get(
            "`GET /launchpad/curve/{mint}`",
            format!("{base}/launchpad/curve/{mint}"),
        ),
        quote,
    ]
    .into_iter()
    .chain(browse.iter().cloned())
    .chain(browse.iter().map(Target::gzipped))
    .collect();
    let trivial = Target::get("trivial axum handler", format!("http://{trivial_addr}/"));
    let dir = Arc::new(dir);
    let run = |t: &Target| {
        let (target, dir) = (t.clone(), dir.clone());
        async move {
            tokio::task::spawn_blocking(move || wrk(&target, &dir))
                .await
                .unwrap()
        }
    };
    let (threads, secs, rounds) = (wrk_threads(), phase_secs(), rounds());
    println!(
        "wrk -t{threads} -c{CONNECTIONS} -d{secs}s per phase, {rounds} rounds; each endpoint's ratio is \
         to the trivial handler measured just before it\n"
    );
    println!(
        "| round | endpoint | requests/s | p50 | p99 | trivial requests/s | vs trivial | errors |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for round in 1..=rounds {
        for target in &targets {
            let base = run(&trivial).await;
            let o = run(target).await;
            println!(
                "| {round} | {} | {:.0} | {:.2} ms | {:.2} ms | {:.0} | {:.2} | {} |",
                target.name,
                o.rate,
                o.p50_ms,
                o.p99_ms,
                base.rate,
                o.rate / base.rate,
                o.errors + base.errors
            );
        }
    }
    let _ = stop.send(true);
    net.shutdown().await;
    let _ = std::fs::remove_dir_all(dir.as_path());
}
