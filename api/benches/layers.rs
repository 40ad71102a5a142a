//! Layer-cost bench (`cargo bench -p api --bench layers`; results in docs/benchmarks.md, issue 44 item 1): what
//! each global layer and each step of `GET /launchpad/curve/{mint}` and `POST /swap/quote` costs per request,
//! so that the next change sees its price. In process, no sockets: the router is called directly
//! (`tower::Service`), one request at a time, with every layer, without each in turn and without any; then
//! the steps alone (the secret scans, sealing, the chain-clock read, JSON rendering, the span and the access
//! line). Each figure is the process's CPU time per request (`CLOCK_PROCESS_CPUTIME_ID`, so the log writer's
//! thread counts; the idle stack's own background rate is subtracted) and the calling thread's wall time, the
//! median of `LAYERS_ROUNDS` (5) alternating rounds of `LAYERS_ROUND_MS` (400) each. The stack is the load
//! bench's (localnet, indexer and API in one process on SQLite, logging at `info` to a file) with the API
//! configured as `dev` runs it (CORS for any origin, the chain's clock reused for 1 s).

mod common;

use api::http::layers::Layers;
use api::process::config::ApiConfig;
use api::AppState;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use localnet::testkit::{self, SOL};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tower::ServiceExt;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The process's CPU time (every thread).
fn cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// What one round measured, per operation: (process CPU µs, wall µs).
type Cost = (f64, f64);

/// Runs `op` for `round` and returns its cost per call, less the stack's background CPU rate `idle` (CPU
/// seconds per wall second).
async fn measure<F, Fut>(round: Duration, idle: f64, mut op: F) -> Cost
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    // Warm up (the first calls fill caches, register metrics and the like).
    for _ in 0..200 {
        op().await;
    }
    let (c0, w0) = (cpu(), Instant::now());
    let mut n = 0u64;
    while w0.elapsed() < round {
        for _ in 0..100 {
            op().await;
        }
        n += 100;
    }
    let wall = w0.elapsed().as_secs_f64();
    let cpu = (cpu() - c0).as_secs_f64() - idle * wall;
    (cpu / n as f64 * 1e6, wall / n as f64 * 1e6)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One request through `router` (a clone is one reference count, as a connection takes it), its answer read
/// whole; panics unless it is 200.
async fn call(router: axum::Router, req: Request<Body>) {
    let response = router.oneshot(req).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
}

/// A request as a connection hands it over (with the peer's address, which the rate limits key on).
fn request(method: &str, uri: &str, body: Option<&[u8]>) -> Request<Body> {
    let mut b = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "127.0.0.1:8080");
    if body.is_some() {
        b = b.header("content-type", "application/json");
    }
    let mut req = b
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_vec())))
        .unwrap();
    let peer: SocketAddr = "127.0.0.1:50000".parse().unwrap();
    req.extensions_mut().insert(ConnectInfo(peer));
    req
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
    } = common::start("api-layers").await;
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 1, "COST")
        .await
        .unwrap();
    while store.curve(&keys.mint).await.unwrap().is_none() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let config = ApiConfig {
        rate_limit_per_second: 1_000_000,
        rate_limit_burst: 10_000_000,
        // As `dev` runs it: CORS for any origin, the chain's clock at its default reuse (1 s).
        cors_origins: vec![axum::http::HeaderValue::from_static("*")],
        chain_clock_ttl_ms: None,
        ..ApiConfig::local("127.0.0.1:0".parse().unwrap())
    };
    let state = AppState::new(store, config, rpc.clone(), Some(metrics));
    let (round, rounds) = (
        Duration::from_millis(env_or("LAYERS_ROUND_MS", 400)),
        env_or("LAYERS_ROUNDS", 5usize),
    );

    // The stack's own background (localnet slots, the indexer): CPU seconds per wall second, idle.
    let (c0, w0) = (cpu(), Instant::now());
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle = (cpu() - c0).as_secs_f64() / w0.elapsed().as_secs_f64();
    println!("idle stack: {:.1}% of a core (subtracted)\n", idle * 100.0);

    let mint = keys.mint.to_string();
    let curve_uri = format!("/launchpad/curve/{mint}");
    let quote_body = serde_json::to_vec(&serde_json::json!({
        "chainKey": "solana", "tokenIn": sdk::ids::NATIVE_MINT.to_string(),
        "tokenOut": mint, "amountIn": "100000000",
    }))
    .unwrap();

    // The routers: every layer, each one off, none.
    let off = |f: fn(&mut Layers)| {
        let mut l = Layers::ALL;
        f(&mut l);
        l
    };
    let variants: Vec<(&str, Layers)> = vec![
        ("every layer (as served)", Layers::ALL),
        ("without the request id", off(|l| l.request_id = false)),
        ("without the request span", off(|l| l.span = false)),
        (
            "without the request record (secret scan outside the body, metrics, access line, envelope)",
            off(|l| l.access = false),
        ),
        ("without CORS", off(|l| l.cors = false)),
        (
            "without the rate limits (two limiters and the weighted charge)",
            off(|l| l.limits = false),
        ),
        ("without the time limit", off(|l| l.timeout = false)),
        ("without the panic catcher", off(|l| l.catch_panic = false)),
        (
            "no layer at all",
            Layers {
                request_id: false,
                span: false,
                access: false,
                cors: false,
                limits: false,
                timeout: false,
                catch_panic: false,
            },
        ),
    ];
    let routers: Vec<axum::Router> = variants
        .iter()
        .map(|(_, l)| api::router_with(state.clone(), *l))
        .collect();
    let bare_trivial: axum::Router =
        axum::Router::new().route("/trivial", axum::routing::get(|| async { "ok" }));
    let layered_trivial = api::layered(
        axum::Router::<AppState>::new().route("/trivial", axum::routing::get(|| async { "ok" })),
        state.clone(),
    );

    type Results = std::collections::BTreeMap<(usize, usize), Vec<Cost>>;
    let mut results: Results = Default::default();
    for _ in 0..rounds {
        let c = measure(round, idle, || {
            call(bare_trivial.clone(), request("GET", "/trivial", None))
        })
        .await;
        results.entry((0, 0)).or_default().push(c);
        let c = measure(round, idle, || {
            call(layered_trivial.clone(), request("GET", "/trivial", None))
        })
        .await;
        results.entry((0, 1)).or_default().push(c);
        for (i, router) in routers.iter().enumerate() {
            let c = measure(round, idle, || {
                call(router.clone(), request("GET", &curve_uri, None))
            })
            .await;
            results.entry((1, i)).or_default().push(c);
            let c = measure(round, idle, || {
                call(
                    router.clone(),
                    request("POST", "/swap/quote", Some(quote_body.as_slice())),
                )
            })
            .await;
            results.entry((2, i)).or_default().push(c);
        }
    }
    let med = |v: &Vec<Cost>| {
        (
            median(v.iter().map(|c| c.0).collect()),
            median(v.iter().map(|c| c.1).collect()),
        )
    };
    println!(
        "Per request, in process (no sockets), median of {rounds} rounds: process CPU µs (background subtracted) / wall µs\n"
    );
    println!("| router | `GET /launchpad/curve/{{mint}}` | `POST /swap/quote` |");
    println!("|---|---|---|");
    let (t0, t1) = (med(&results[&(0, 0)]), med(&results[&(0, 1)]));
    println!(
        "| a trivial handler (`GET` answering `ok`), bare: {:.2} / {:.2}; inside every layer: {:.2} / {:.2} | | |",
        t0.0, t0.1, t1.0, t1.1
    );
    let all = (med(&results[&(1, 0)]), med(&results[&(2, 0)]));
    for (i, (name, _)) in variants.iter().enumerate() {
        let (c, q) = (med(&results[&(1, i)]), med(&results[&(2, i)]));
        if i == 0 {
            println!(
                "| {name} | {:.2} / {:.2} | {:.2} / {:.2} |",
                c.0, c.1, q.0, q.1
            );
        } else {
            println!(
                "| {name} | {:.2} / {:.2} (saves {:.2}) | {:.2} / {:.2} (saves {:.2}) |",
                c.0,
                c.1,
                all.0 .0 - c.0,
                q.0,
                q.1,
                all.1 .0 - q.0
            );
        }
    }

    // The steps alone.
    let mut steps: Vec<(String, Vec<Cost>)> = Vec::new();
    let quote_answer: serde_json::Value = {
        let response = routers[0]
            .clone()
            .oneshot(request("POST", "/swap/quote", Some(quote_body.as_slice())))
            .await
            .unwrap();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    };
    let curve_answer: serde_json::Value = {
        let response = routers[0]
            .clone()
            .oneshot(request("GET", &curve_uri, None))
            .await
            .unwrap();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    };
    let mut route = quote_answer["quotes"][0]["route"].clone();
    route.as_object_mut().unwrap().remove("tag");
    let quote_uri: axum::http::Uri = "/swap/quote".parse().unwrap();
    let curve_path: axum::http::Uri = curve_uri.parse().unwrap();
    let headers = request("POST", "/swap/quote", Some(quote_body.as_slice()))
        .headers()
        .clone();
    let fresh_clock = api::chain::clock::ChainClock::new(Duration::ZERO);
    let kept_clock = api::chain::clock::ChainClock::new(Duration::from_secs(1));
    let quote_len = serde_json::to_vec(&quote_answer).unwrap().len();
    // Borrowed once, copied into each step's future.
    let (quote_uri, curve_path, headers, route) = (&quote_uri, &curve_path, &headers, &route);
    let (state, rpc, fresh_clock, kept_clock) = (&state, &rpc, &fresh_clock, &kept_clock);
    let (quote_answer_ref, curve_answer_ref, quote_body) =
        (&quote_answer, &curve_answer, quote_body.as_slice());
    let curve_len = serde_json::to_vec(&curve_answer).unwrap().len();
    for _ in 0..rounds {
        let mut row = |name: String, c: Cost| match steps.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(c),
            None => steps.push((name, vec![c])),
        };
        row(
            "secret scan outside the body (the quote's path and 3 headers)".into(),
            measure(round, idle, || async move {
                assert!(api::body::secret_outside_body(quote_uri, headers).is_none());
            })
            .await,
        );
        row(
            "secret scan outside the body (the curve's path and 3 headers)".into(),
            measure(round, idle, || async move {
                assert!(api::body::secret_outside_body(curve_path, headers).is_none());
            })
            .await,
        );
        row(
            "the quote's body read, scanned for secrets and parsed (`ApiJson`)".into(),
            measure(round, idle, || async move {
                let req = request("POST", "/swap/quote", Some(quote_body));
                let parsed = <api::body::ApiJson<swap_core::shapes::QuoteRequest> as axum::extract::FromRequest<()>>::from_request(req, &()).await;
                assert!(parsed.is_ok());
            })
            .await,
        );
        row(
            "the quote's body parsed alone (`serde_json::from_slice`, no scan)".into(),
            measure(round, idle, || async move {
                let req = request("POST", "/swap/quote", Some(quote_body));
                let bytes = axum::body::to_bytes(req.into_body(), usize::MAX)
                    .await
                    .unwrap();
                assert!(serde_json::from_slice::<swap_core::shapes::QuoteRequest>(&bytes).is_ok());
            })
            .await,
        );
        row(
            "sealing one route (canonical text into HMAC-SHA256, base64 tag), its copy included"
                .into(),
            measure(round, idle, || async move {
                std::hint::black_box(state.route_keys.seal(route.clone()));
            })
            .await,
        );
        row(
            "copying one route (`Value` clone, to subtract from the row above)".into(),
            measure(round, idle, || async move {
                std::hint::black_box(route.clone());
            })
            .await,
        );
        row(
            "the chain clock read over RPC (`--chain-clock-ttl-ms 0`)".into(),
            measure(round, idle, || async move {
                std::hint::black_box(fresh_clock.now(rpc).await);
            })
            .await,
        );
        row(
            "the chain clock within its reuse (`--chain-clock-ttl-ms 1000`)".into(),
            measure(round, idle, || async move {
                std::hint::black_box(kept_clock.now(rpc).await);
            })
            .await,
        );
        row(
            format!("the quote's answer rendered ({quote_len} bytes, from a `Value`)"),
            measure(round, idle, || async move {
                let r =
                    axum::response::IntoResponse::into_response(api::json::Json(quote_answer_ref));
                std::hint::black_box(r);
            })
            .await,
        );
        row(
            format!("the curve's answer rendered ({curve_len} bytes, from a `Value`)"),
            measure(round, idle, || async move {
                let r =
                    axum::response::IntoResponse::into_response(api::json::Json(curve_answer_ref));
                std::hint::black_box(r);
            })
            .await,
        );
        row(
            "a request span made, entered and closed (method, route, path, request id)".into(),
            measure(round, idle, || async move {
                let span = tracing::info_span!(
                    "request",
                    method = %"GET",
                    route = "/launchpad/curve/{mint}",
                    path = %"/launchpad/curve/11111111111111111111111111111111",
                    request_id = %"0b6f1e0e-8c4e-4c1e-9d7a-3f1c2b4a5d6e",
                );
                drop(span.enter());
            })
            .await,
        );
        row(
            "an access line written at `info` (formatted, queued, written by the log thread)".into(),
            measure(round, idle, || async move {
                tracing::info!(
                    target: "api::request",
                    method = "GET", route = "/launchpad/curve/{mint}", status = 200u16, us = 12u64,
                    client_id = "", client_name = "", client_source = "", address = %"5d1c2b3a4f5e6d7c",
                    "request"
                );
            })
            .await,
        );
    }
    println!("\n| step alone | process CPU µs | wall µs |");
    println!("|---|---|---|");
    for (name, v) in &steps {
        let (c, w) = med(v);
        println!("| {name} | {c:.2} | {w:.2} |");
    }
    let _ = stop.send(true);
    net.shutdown().await;
    let _ = std::fs::remove_dir_all(dir.as_path());
}
