//! Load benchmark (`cargo bench -p api --bench load`; results in the README): throughput and latency of
//! `GET /launchpad/curve/{mint}` and `POST /swap/quote` (own pools) on a running stack, next to a trivial axum
//! handler measured the same way in the same run. Loopback only; each phase is bounded in requests and time.

use api::config::ApiConfig;
use api::AppState;
use indexer::{Indexer, IndexerConfig, Store};
use localnet::testkit::{self, SOL};
use localnet::{Localnet, LocalnetConfig};
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

#[tokio::main]
async fn main() {
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let dir = std::env::temp_dir().join(format!("api-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let store = Store::open(&db).await.unwrap();
    let (stop, rx) = tokio::sync::watch::channel(false);
    let ix = Indexer::new(
        IndexerConfig {
            metrics_interval_secs: 0,
            ..IndexerConfig::local(net.rpc_url(), net.grpc_url(), db)
        },
        store.clone(),
    );
    tokio::spawn(ix.run(rx.clone()));
    let rpc = Arc::new(
        solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
            net.rpc_url(),
            solana_commitment_config::CommitmentConfig::confirmed(),
        ),
    );
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 1, "LOAD")
        .await
        .unwrap();
    while store.curve(&keys.mint).await.unwrap().is_none() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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
}
