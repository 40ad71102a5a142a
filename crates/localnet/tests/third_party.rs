//! A client no one on this project wrote: `@solana/web3.js` (installed from the npm registry into
//! `tests/clients` by `scripts/test`) connects, reads a blockhash, sends a signed transfer and confirms it.

use localnet::{Localnet, LocalnetConfig};
use std::path::Path;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn solana_web3_js_transfers_and_confirms() {
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients");
    assert!(
        clients.join("node_modules/@solana/web3.js").exists(),
        "run `npm ci` in tests/clients first (scripts/test does)"
    );
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let run = tokio::process::Command::new("node")
        .arg("web3_transfer.mjs")
        .arg(net.rpc_url())
        .current_dir(&clients)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(90), run)
        .await
        .expect("web3.js check finishes within 90 s")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "web3.js check failed:\n{stdout}\n{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_str(stdout.trim().lines().last().unwrap()).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["received"], 123_456_789);
    net.shutdown().await;
}
