//! The series an on-call reads (issue 41 item 5), scraped from a real `api serve` process after calls through
//! it to a local validator (Solana RPC) and a local server in Jupiter's shapes that fails: upstream calls by
//! method with errors by kind and latency, relay outcomes, feed connections, the database pool, the process's
//! memory and files, the build; and the access line each request writes at info with its request id.

use localnet::testkit::{self, SOL};
use localnet::{Localnet, LocalnetConfig};
use solana_signer::Signer;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::AsyncBufReadExt;

const API: &str = env!("CARGO_BIN_EXE_api");

/// The value of the first sample of `name` whose line holds every one of `labels`.
fn series(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| l.split([' ', '{']).next() == Some(name) && labels.iter().all(|x| l.contains(x)))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

/// A server in Jupiter's place that answers every quote 503 (counting them).
async fn failing_jupiter(calls: Arc<AtomicU64>) -> String {
    let app = axum::Router::new().route(
        "/swap/v1/quote",
        axum::routing::get(move || {
            let calls = calls.clone();
            async move {
                calls.fetch_add(1, Ordering::SeqCst);
                (axum::http::StatusCode::SERVICE_UNAVAILABLE, "overloaded")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/swap/v1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_on_calls_series_and_the_access_line_after_real_calls() {
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let jupiter_calls = Arc::new(AtomicU64::new(0));
    let jupiter = failing_jupiter(jupiter_calls.clone()).await;
    let dir = std::env::temp_dir().join(format!("api-metrics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let (api_port, metrics_port) = (testkit::free_port(), testkit::free_port());
    let base = format!("http://127.0.0.1:{api_port}");
    let mut child = tokio::process::Command::new(API)
        .args([
            "serve",
            "--log-format",
            "json",
            "--rpc-url",
            &net.rpc_url(),
            "--database-url",
            &db,
            "--public-base-url",
            &base,
            "--listen",
            &format!("127.0.0.1:{api_port}"),
            "--metrics-addr",
            &format!("127.0.0.1:{metrics_port}"),
            "--jupiter-base-url",
            &jupiter,
            "--shutdown-drain-secs",
            "0",
        ])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn,api=info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("api serve starts");
    // The log, line by line, kept for the assertions.
    let lines = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let kept = lines.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = out.next_line().await {
            kept.lock().unwrap().push(line);
        }
    });
    let http = reqwest::Client::new();
    let started = Instant::now();
    while http.get(format!("{base}/health")).send().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the API did not start"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let scrape = || async {
        http.get(format!("http://127.0.0.1:{metrics_port}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };

    // A relayed transfer: sent, then confirmed (sendTransaction and getSignatureStatuses on the node).
    let payer = testkit::funded(&rpc, SOL).await.unwrap();
    let ix = solana_system_interface::instruction::transfer(
        &payer.pubkey(),
        &solana_pubkey::Pubkey::new_unique(),
        1_000_000,
    );
    let blockhash = rpc.get_latest_blockhash().await.unwrap();
    let tx = solana_transaction::Transaction::new_signed_with_payer(
        &[ix],
        Some(&payer.pubkey()),
        &[&payer],
        blockhash,
    );
    use base64::Engine;
    let signed = base64::engine::general_purpose::STANDARD.encode(bincode::serialize(&tx).unwrap());
    let answer: serde_json::Value = http
        .post(format!("{base}/swap/submit-solana"))
        .json(&serde_json::json!({ "signedTransaction": signed }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["confirmed"], true, "{answer}");

    // Two quotes Jupiter fails (503) are two calls of /quote, two server errors.
    let sol = "So11111111111111111111111111111111111111112";
    let other = net.usdc_mint.to_string();
    for _ in 0..2 {
        let _ = http
            .post(format!("{base}/swap/quote"))
            .json(
                &serde_json::json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": other,
                "amountIn": SOL.to_string()}),
            )
            .send()
            .await
            .unwrap();
    }
    assert_eq!(
        jupiter_calls.load(Ordering::SeqCst),
        2,
        "each quote asked Jupiter"
    );

    // A feed connection held open while scraping.
    let stream = http
        .get(format!("{base}/launchpad/stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let text = scrape().await;
    assert_eq!(series(&text, "feed_connections", &[]), Some(1.0), "{text}");
    drop(stream);

    let jupiter = [r#"upstream="jupiter""#, r#"method="/quote""#];
    assert_eq!(
        series(&text, "upstream_requests_total", &jupiter),
        Some(2.0),
        "{text}"
    );
    let mut failed = jupiter.to_vec();
    failed.push(r#"kind="server_error""#);
    assert_eq!(
        series(&text, "upstream_errors_total", &failed),
        Some(2.0),
        "{text}"
    );
    let mut bucket = jupiter.to_vec();
    bucket.push(r#"le="+Inf""#);
    assert_eq!(
        series(&text, "upstream_request_duration_seconds_bucket", &bucket),
        Some(2.0),
        "{text}"
    );
    let sends = [r#"upstream="solana-rpc""#, r#"method="sendTransaction""#];
    assert_eq!(
        series(&text, "upstream_requests_total", &sends),
        Some(1.0),
        "{text}"
    );
    assert!(
        series(
            &text,
            "upstream_requests_total",
            &[
                r#"upstream="solana-rpc""#,
                r#"method="getSignatureStatuses""#
            ]
        )
        .unwrap_or(0.0)
            >= 1.0,
        "{text}"
    );
    assert_eq!(
        series(
            &text,
            "upstream_errors_total",
            &[r#"upstream="solana-rpc""#]
        ),
        None,
        "the node answered every call: {text}"
    );
    for outcome in ["sent", "confirmed"] {
        let label = format!(r#"outcome="{outcome}""#);
        assert_eq!(
            series(&text, "relay_transactions_total", &[&label]),
            Some(1.0),
            "{outcome}: {text}"
        );
    }
    assert_eq!(
        series(&text, "relay_transactions_total", &[r#"outcome="expired""#]),
        None
    );
    let max = series(&text, "db_pool_max_connections", &[r#"pool="primary""#]);
    assert_eq!(max, Some(4.0), "SQLite's pool: {text}");
    let in_use = series(&text, "db_pool_connections", &[r#"state="in_use""#]).unwrap();
    let idle = series(&text, "db_pool_connections", &[r#"state="idle""#]).unwrap();
    assert!(in_use + idle >= 1.0 && in_use + idle <= 4.0, "{text}");
    assert_eq!(
        series(&text, "db_pool_waits_total", &[]),
        Some(0.0),
        "{text}"
    );
    assert!(series(&text, "process_resident_memory_bytes", &[]).unwrap() > 1e6);
    assert!(series(&text, "process_open_fds", &[]).unwrap() >= 3.0);
    let version = format!(r#"version="{}""#, env!("CARGO_PKG_VERSION"));
    assert_eq!(
        series(
            &text,
            "launchpad_build_info",
            &[r#"binary="api""#, &version]
        ),
        Some(1.0),
        "{text}"
    );

    // The access line of one request, by its id: JSON, at info, with the route's template, the status,
    // the latency and a hashed address (never the address itself).
    let mint = solana_pubkey::Pubkey::new_unique();
    let response = http
        .get(format!("{base}/launchpad/curve/{mint}"))
        .header("x-request-id", "metrics-test-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let start = Instant::now();
    let line = loop {
        let found = lines
            .lock()
            .unwrap()
            .iter()
            .find(|l| l.contains("metrics-test-1") && l.contains("\"api::request\""))
            .cloned();
        if let Some(line) = found {
            break line;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no access line: {:?}",
            lines.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let line: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
    assert_eq!(line["level"], "INFO", "{line}");
    assert_eq!(line["fields"]["route"], "/launchpad/curve/{mint}", "{line}");
    assert_eq!(line["fields"]["status"], 404, "{line}");
    assert!(line["fields"]["us"].as_u64().is_some(), "{line}");
    assert_eq!(line["span"]["request_id"], "metrics-test-1", "{line}");
    let address = line["fields"]["address"].as_str().unwrap();
    assert_eq!(address.len(), 16, "a hash, not 127.0.0.1: {line}");
    let _ = child.kill().await;
    let _ = std::fs::remove_dir_all(&dir);
}
