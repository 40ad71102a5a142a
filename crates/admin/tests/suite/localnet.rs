//! `launchpad-admin` run as an operator runs it, against a localnet that starts as a fresh cluster deployment
//! (the launchpad deployed with an upgrade authority, nothing initialized), over JSON-RPC.

use localnet::{Localnet, LocalnetConfig};
use solana_keypair::Keypair;
use solana_signer::Signer;
use std::path::{Path, PathBuf};

/// A keypair file in a fresh temporary directory (removed with the directory).
fn keypair_file(dir: &Path, name: &str, key: &Keypair) -> PathBuf {
    let path = dir.join(name);
    solana_keypair::write_keypair_file(key, &path).unwrap();
    path
}

/// Runs the binary; returns its stdout, or panics with its stderr when `ok` does not match its success.
async fn run(url: &str, keypair: Option<&Path>, args: &[&str], ok: bool) -> String {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_launchpad-admin"));
    cmd.arg("--url").arg(url);
    if let Some(k) = keypair {
        cmd.arg("--keypair").arg(k);
    }
    let out = cmd.args(args).kill_on_drop(true).output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.success(), ok, "{args:?}:\n{stdout}\n{stderr}");
    stdout + &stderr
}

fn sent(out: &str) -> usize {
    out.lines()
        .filter(|l| !l.ends_with("nothing to do"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_command_sets_up_and_hands_over_idempotently() {
    let authority = Keypair::new();
    let net = Localnet::start(LocalnetConfig {
        deploy_only: Some(authority.pubkey()),
        ..LocalnetConfig::ephemeral()
    })
    .await
    .unwrap();
    let url = net.rpc_url();
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new(url.clone());
    let dir = std::env::temp_dir().join(format!("launchpad-admin-{}", authority.pubkey()));
    std::fs::create_dir_all(&dir).unwrap();
    for k in [&authority] {
        let sig = rpc
            .request_airdrop(&k.pubkey(), 10_000_000_000)
            .await
            .unwrap();
        while !rpc.confirm_transaction(&sig).await.unwrap() {}
    }
    let auth_file = keypair_file(&dir, "authority.json", &authority);
    let intruder = Keypair::new();
    let sig = rpc
        .request_airdrop(&intruder.pubkey(), 1_000_000_000)
        .await
        .unwrap();
    while !rpc.confirm_transaction(&sig).await.unwrap() {}
    let intruder_file = keypair_file(&dir, "intruder.json", &intruder);
    let partner = net.partner.pubkey().to_string();
    let usdc = net.usdc_mint.to_string();

    assert!(run(&url, None, &["show"], true)
        .await
        .contains("not initialized"));
    // Only the upgrade authority initializes.
    let out = run(
        &url,
        Some(&intruder_file),
        &["initialize", "--partner", &partner, "--usdc-mint", &usdc],
        false,
    )
    .await;
    assert!(out.contains("initialize"), "{out}");
    // Once; the rerun sends nothing.
    for expected in [1, 0] {
        let init = ["initialize", "--partner", &partner, "--usdc-mint", &usdc];
        let out = run(&url, Some(&auth_file), &init, true).await;
        assert_eq!(sent(&out), expected, "{out}");
    }
    // The six configs, once.
    let out = run(&url, Some(&auth_file), &["configs"], true).await;
    assert_eq!(sent(&out), 6, "{out}");
    let out = run(&url, Some(&auth_file), &["configs"], true).await;
    assert_eq!(sent(&out), 0, "rerun: {out}");
    // Disable, idempotently; shown in the state.
    assert_eq!(
        sent(&run(&url, Some(&auth_file), &["disable", "shield", "usdc"], true).await),
        1
    );
    assert_eq!(
        sent(&run(&url, Some(&auth_file), &["disable", "shield", "usdc"], true).await),
        0
    );
    let shown = run(&url, None, &["show"], true).await;
    assert!(
        shown.contains(&format!("admin            {}", authority.pubkey())),
        "{shown}"
    );
    assert_eq!(shown.matches("disabled").count(), 1, "{shown}");
    assert_eq!(shown.matches("missing").count(), 0, "{shown}");
    assert_eq!(
        sent(&run(&url, Some(&auth_file), &["enable", "shield", "usdc"], true).await),
        1
    );

    // Partner handover: proposed by the admin, accepted by the new partner, which syncs every config in the
    // same transaction (one sent).
    let new_partner = Keypair::new();
    let sig = rpc
        .request_airdrop(&new_partner.pubkey(), 1_000_000_000)
        .await
        .unwrap();
    while !rpc.confirm_transaction(&sig).await.unwrap() {}
    let new_partner_file = keypair_file(&dir, "partner.json", &new_partner);
    let np = new_partner.pubkey().to_string();
    run(&url, Some(&new_partner_file), &["accept-partner"], false).await;
    assert_eq!(
        sent(&run(&url, Some(&auth_file), &["propose-partner", &np], true).await),
        1
    );
    assert_eq!(
        sent(&run(&url, Some(&auth_file), &["propose-partner", &np], true).await),
        0
    );
    let accepted = run(&url, Some(&new_partner_file), &["accept-partner"], true).await;
    assert_eq!(sent(&accepted), 1, "{accepted}");
    assert_eq!(
        accepted.matches("sync partner of config").count(),
        6,
        "{accepted}"
    );
    assert_eq!(
        sent(&run(&url, Some(&new_partner_file), &["accept-partner"], true).await),
        0
    );
    let shown = run(&url, None, &["show"], true).await;
    assert_eq!(
        shown.matches(&np).count(),
        7,
        "global and six configs: {shown}"
    );

    // Admin handover.
    let ia = intruder.pubkey().to_string();
    assert_eq!(
        sent(&run(&url, Some(&auth_file), &["propose-admin", &ia], true).await),
        1
    );
    assert_eq!(
        sent(&run(&url, Some(&intruder_file), &["accept-admin"], true).await),
        1
    );
    run(&url, Some(&auth_file), &["disable", "fair", "sol"], false).await;
    assert_eq!(
        sent(
            &run(
                &url,
                Some(&intruder_file),
                &["disable", "fair", "sol"],
                true
            )
            .await
        ),
        1
    );

    std::fs::remove_dir_all(&dir).unwrap();
    net.shutdown().await;
}
