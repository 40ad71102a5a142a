//! The keeper as its own process (`api keeper`, issue 40 item 6): two copies on one PostgreSQL index and a
//! localnet, each with its own key. Only the one holding the keeper's lease migrates a curve another client
//! completed (the standby's key pays nothing); SIGKILL of the active one, and the standby takes the lease
//! and migrates the next. `serve` no longer takes the keeper's key.

use crate::common;

use localnet::testkit::{self, SOL};
use solana_keypair::Keypair;
use solana_signer::Signer;
use std::process::Stdio;
use std::time::{Duration, Instant};

const API: &str = env!("CARGO_BIN_EXE_api");

/// The value of the first sample of `name` whose line holds every one of `labels`.
fn series(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| l.split([' ', '{']).next() == Some(name) && labels.iter().all(|x| l.contains(x)))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

/// One `api keeper` process.
struct Keeper {
    child: tokio::process::Child,
    key: Keypair,
    port: u16,
}

impl Keeper {
    /// `api keeper` over `db` and the localnet at `rpc`, paying with `key` (written to a file in `dir`); once
    /// its `/readyz` answers 200.
    async fn start(db: &str, rpc: &str, key: Keypair, dir: &std::path::Path) -> Keeper {
        let path = dir.join(format!("{}.json", key.pubkey()));
        std::fs::write(
            &path,
            serde_json::to_string(&key.to_bytes().to_vec()).unwrap(),
        )
        .unwrap();
        let port = testkit::free_port();
        let child = tokio::process::Command::new(API)
            .args([
                "keeper",
                "--rpc-url",
                rpc,
                "--database-url",
                db,
                "--keypair",
                path.to_str().unwrap(),
                "--metrics-addr",
                &format!("127.0.0.1:{port}"),
            ])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("RUST_LOG", "warn,api=info")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("api keeper starts");
        let keeper = Keeper { child, key, port };
        let started = Instant::now();
        while keeper.ready().await.is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the keeper did not get ready"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        keeper
    }

    /// `/readyz`'s `active` when it answers 200.
    async fn ready(&self) -> Option<bool> {
        let r = reqwest::get(format!("http://127.0.0.1:{}/readyz", self.port))
            .await
            .ok()?;
        if r.status() != 200 {
            return None;
        }
        let body: serde_json::Value = r.json().await.ok()?;
        assert_eq!(body["status"], "ready", "{body}");
        body["active"].as_bool()
    }

    async fn metrics(&self) -> String {
        reqwest::get(format!("http://127.0.0.1:{}/metrics", self.port))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// `keeper_migrations_total{outcome}` (0 when the series is absent: this keeper never tried).
    async fn migrations(&self, outcome: &str) -> f64 {
        let label = format!(r#"outcome="{outcome}""#);
        series(&self.metrics().await, "keeper_migrations_total", &[&label]).unwrap_or(0.0)
    }
}

/// A curve completed by a buyer who does not append `migrate`: waits until the index has it migrated.
async fn complete_and_wait_migrated(s: &common::Stack, symbol: &str, seed: u64) {
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, seed, symbol)
        .await
        .unwrap();
    let whale = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    testkit::buy(&rpc, &keys, &whale, 12 * SOL).await.unwrap();
    let http = reqwest::Client::new();
    let start = Instant::now();
    loop {
        let (_, curve) =
            common::get(&http, &format!("{}/launchpad/curve/{}", s.base, keys.mint)).await;
        if curve["migrated"] == true {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no keeper migrated {symbol}: {curve}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_keeper_acts_and_the_standby_takes_over_when_it_is_killed() {
    let s = common::stack(true, 1_000).await;
    let rpc = s.rpc();
    let dir = std::env::temp_dir().join(format!("api-keeper-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fund = 10 * SOL;
    let one = Keeper::start(
        &s.db,
        &s.net.rpc_url(),
        testkit::funded(&rpc, fund).await.unwrap(),
        &dir,
    )
    .await;
    let two = Keeper::start(
        &s.db,
        &s.net.rpc_url(),
        testkit::funded(&rpc, fund).await.unwrap(),
        &dir,
    )
    .await;
    // Exactly one holds the lease, however the two started.
    let started = Instant::now();
    let (mut active, standby) = loop {
        match (one.ready().await, two.ready().await) {
            (Some(true), Some(false)) => break (one, two),
            (Some(false), Some(true)) => break (two, one),
            (a, b) => {
                assert_ne!(
                    (a, b),
                    (Some(true), Some(true)),
                    "two keepers active at once"
                );
                assert!(
                    started.elapsed() < Duration::from_secs(15),
                    "no keeper took the lease: {a:?} {b:?}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    assert_eq!(
        series(&active.metrics().await, "keeper_active", &[]),
        Some(1.0)
    );
    assert_eq!(
        series(&standby.metrics().await, "keeper_active", &[]),
        Some(0.0)
    );

    // A curve completed without `migrate`: the active keeper migrates it, the standby sends nothing.
    complete_and_wait_migrated(&s, "KPA", 101).await;
    assert_eq!(active.migrations("done").await, 1.0);
    assert_eq!(active.migrations("failed").await, 0.0);
    assert_eq!(standby.migrations("done").await, 0.0);
    assert_eq!(standby.migrations("failed").await, 0.0);
    assert!(
        rpc.get_balance(&active.key.pubkey()).await.unwrap() < fund,
        "the active keeper paid for the migration"
    );
    assert_eq!(
        rpc.get_balance(&standby.key.pubkey()).await.unwrap(),
        fund,
        "the standby sent no transaction"
    );

    // SIGKILL of the active keeper: its session, and with it the lease, goes; the standby takes over.
    active.child.start_kill().unwrap();
    active.child.wait().await.unwrap();
    let killed = Instant::now();
    while standby.ready().await != Some(true) {
        assert!(
            killed.elapsed() < Duration::from_secs(15),
            "the standby did not take the lease"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    complete_and_wait_migrated(&s, "KPB", 102).await;
    assert_eq!(standby.migrations("done").await, 1.0);
    assert_eq!(
        series(&standby.metrics().await, "keeper_active", &[]),
        Some(1.0)
    );
    assert!(rpc.get_balance(&standby.key.pubkey()).await.unwrap() < fund);
    // Its balance, read each round: the next round's reading shows what the migration cost.
    let paid = Instant::now();
    loop {
        let balance = series(&standby.metrics().await, "keeper_balance_lamports", &[]).unwrap();
        if balance > 0.0 && balance < fund as f64 {
            break;
        }
        assert!(
            paid.elapsed() < Duration::from_secs(10),
            "keeper_balance_lamports {balance}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let _ = s.stop.send(true);
    s.net.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

async fn output_of(args: &[&str]) -> (bool, String) {
    let out = tokio::process::Command::new(API)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[tokio::test]
async fn serve_takes_no_keeper_key_and_the_keeper_names_its_settings() {
    let (ok, text) = output_of(&[
        "serve",
        "--rpc-url",
        "http://127.0.0.1:9",
        "--database-url",
        "sqlite://unused.db",
        "--public-base-url",
        "http://127.0.0.1:9",
        "--keeper-keypair",
        "/nonexistent/keeper.json",
    ])
    .await;
    assert!(
        !ok && text.contains("api keeper --keypair"),
        "serve took the keeper's key: {text}"
    );
    let (ok, text) = output_of(&["keeper"]).await;
    assert!(!ok, "{text}");
    for needed in ["--database-url", "--rpc-url", "--keypair"] {
        assert!(text.contains(needed), "names {needed}: {text}");
    }
    let (ok, text) = output_of(&[
        "keeper",
        "--rpc-url",
        "http://127.0.0.1:9",
        "--database-url",
        "sqlite://unused.db",
        "--keypair",
        "/nonexistent/keeper.json",
    ])
    .await;
    assert!(
        !ok && text.contains("--keypair (KEEPER_KEYPAIR)")
            && text.contains("/nonexistent/keeper.json"),
        "{text}"
    );
}
