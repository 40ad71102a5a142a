//! Clients no one on this project wrote (installed from the npm registry into `tests/clients` by
//! `scripts/test`): `@solana/web3.js` connects, reads a blockhash, sends a signed transfer and confirms it;
//! `@coral-xyz/anchor` builds a buy from the committed IDL given only the user's accounts.

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
    let line = node("web3_transfer.mjs", &[net.rpc_url()]).await;
    let report: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["received"], 123_456_789);
    net.shutdown().await;
}

/// Runs `node <script> <args>` in `tests/clients` and returns its last line of output.
async fn node(script: &str, args: &[String]) -> String {
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients");
    let run = tokio::process::Command::new("node")
        .arg(script)
        .args(args)
        .current_dir(&clients)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(90), run)
        .await
        .expect("node finishes within 90 s")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
    stdout.trim().lines().last().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anchor_ts_client_builds_a_buy_from_the_idl_with_only_the_users_accounts() {
    use anchor_lang::solana_program::instruction::{AccountMeta, Instruction};
    use base64::Engine;
    use curve::Preset;
    use localnet::testkit;
    use sdk::launchpad_ix::{self as lix, SwapArgs, SIDE_BUY};
    use solana_signer::Signer;

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    assert!(
        root.join("tests/clients/node_modules/@coral-xyz/anchor")
            .exists(),
        "run `npm ci` in tests/clients first (scripts/test does)"
    );
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let creator = testkit::funded(&rpc, 10 * testkit::SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, Preset::Fair, 1, "ANCH")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 10 * testkit::SOL).await.unwrap();
    let base =
        sdk::associated_token_address(&trader.pubkey(), &keys.mint, &sdk::ids::TOKEN_2022_PROGRAM);
    let quote = testkit::wsol_account(&trader.pubkey());
    let amount = testkit::SOL / 10;

    let line = node(
        "anchor_buy.mjs",
        &[
            net.rpc_url(),
            root.join("idl/launchpad.json").display().to_string(),
            trader.pubkey().to_string(),
            keys.mint.to_string(),
            base.to_string(),
            quote.to_string(),
            keys.quote_token_program.to_string(),
            amount.to_string(),
        ],
    )
    .await;
    let built: serde_json::Value = serde_json::from_str(&line).unwrap();
    let key = |v: &serde_json::Value| v.as_str().unwrap().parse().unwrap();
    let from_anchor = Instruction {
        program_id: key(&built["programId"]),
        accounts: built["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| AccountMeta {
                pubkey: key(&k["pubkey"]),
                is_signer: k["isSigner"].as_bool().unwrap(),
                is_writable: k["isWritable"].as_bool().unwrap(),
            })
            .collect(),
        data: base64::engine::general_purpose::STANDARD
            .decode(built["data"].as_str().unwrap())
            .unwrap(),
    };
    let args = SwapArgs {
        side: SIDE_BUY,
        amount_in: amount,
        min_amount_out: 1,
    };
    assert_eq!(
        from_anchor,
        lix::swap(&keys, &trader.pubkey(), &base, &quote, args)
    );

    // And it lands: wrap SOL, create the token account, the Anchor-built swap.
    let mut ixs = testkit::wrap_sol(&trader.pubkey(), amount);
    ixs.push(lix::create_ata_idempotent(
        &trader.pubkey(),
        &trader.pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    ));
    ixs.push(from_anchor);
    testkit::send(&rpc, &ixs, &[&trader]).await.unwrap();
    let bought = testkit::token_balance(
        &rpc,
        &trader.pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await;
    assert!(bought > 0);
    net.shutdown().await;
}
