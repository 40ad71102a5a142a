//! Two `api serve` replicas on one index, started with no `--route-keys`: they seal routes with the keys
//! shared through the database (made by the first to start), so a route quoted by one builds on the other;
//! a rotated key verifies on a replica once it restarts. On both backends.

// The API's own test stack (a localnet, an index and an indexer), shared with the API's tests.
use crate::common;

use common::{post, stack};
use localnet::testkit::{self, SOL};
use serde_json::{json, Value};
use solana_signer::Signer;
use std::process::Stdio;
use std::time::{Duration, Instant};

const API: &str = env!("CARGO_BIN_EXE_api");

/// `api serve` on a free port over `db` and the localnet at `rpc`, with no route keys; its base URL once it
/// is ready.
async fn replica(db: &str, rpc: &str) -> (tokio::process::Child, String) {
    let port = testkit::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = tokio::process::Command::new(API)
        .args([
            "serve",
            "--rpc-url",
            rpc,
            "--database-url",
            db,
            "--public-base-url",
            &base,
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--jupiter-base-url",
            "",
            "--kyberswap-base-url",
            "",
            "--lifi-base-url",
            "",
            "--relay-base-url",
            "",
            "--shutdown-drain-secs",
            "0",
        ])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("api serve starts");
    let http = reqwest::Client::new();
    let started = Instant::now();
    loop {
        if let Ok(r) = http.get(format!("{base}/readyz")).send().await {
            if r.status() == 200 {
                break;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the replica did not get ready"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (child, base)
}

async fn quote_here_build_there(postgres: bool) {
    let s = stack(postgres, 1_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 35, "SHRD")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    s.wait_indexed().await;
    let (mut one, a) = replica(&s.db, &s.net.rpc_url()).await;
    let (mut two, b) = replica(&s.db, &s.net.rpc_url()).await;
    let request = json!({
        "chainKey": "solana", "tokenIn": sdk::ids::NATIVE_MINT.to_string(),
        "tokenOut": keys.mint.to_string(), "amountIn": (SOL / 10).to_string(),
        "taker": trader.pubkey().to_string(),
    });
    let quote_on = |base: String| {
        let (http, request) = (http.clone(), request.clone());
        async move {
            let (status, quote) = post(&http, &format!("{base}/swap/quote"), &request).await;
            assert_eq!(status, 200, "{quote}");
            json!({"request": request, "route": quote["best"]["route"],
                   "minAmountOut": quote["best"]["minAmountOut"]})
        }
    };
    let built = |base: &str, body: &Value| {
        let (http, url, body) = (http.clone(), format!("{base}/swap/build"), body.clone());
        async move { post(&http, &url, &body).await }
    };
    // Quoted on either, built on the other.
    for (here, there) in [(&a, &b), (&b, &a)] {
        let body = quote_on(here.clone()).await;
        let (status, tx) = built(there.as_str(), &body).await;
        assert_eq!(status, 200, "a replica refused another's route: {tx}");
        assert!(tx["solanaTransaction"].is_string(), "{tx}");
    }

    // A rotation (what `launchpad-admin rotate-route-keys` does): the replica restarted first already
    // verifies the new key, while both still sign with the old one within the grace.
    let store = index::Store::connect(&s.db).await.unwrap();
    let before = store.route_keys().await.unwrap();
    assert_eq!(before.len(), 1, "the first start made one key");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    store
        .rotate_route_key(&api::process::route_keys::new_secret(), now)
        .await
        .unwrap();
    let _ = one.kill().await;
    let (_one, a) = replica(&s.db, &s.net.rpc_url()).await;
    for (here, there) in [(&a, &b), (&b, &a)] {
        let body = quote_on(here.clone()).await;
        let (status, tx) = built(there.as_str(), &body).await;
        assert_eq!(status, 200, "refused during a rolling restart: {tx}");
    }
    let _ = two.kill().await;
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_route_quoted_by_one_replica_builds_on_another_on_sqlite() {
    quote_here_build_there(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_route_quoted_by_one_replica_builds_on_another_on_postgres() {
    quote_here_build_there(true).await;
}
