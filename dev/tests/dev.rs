//! The `dev` binary as a developer runs it (the README's first command): it names a port it cannot bind,
//! it serves a whole stack that the walkthrough plays to the end, it stops on SIGTERM, and every flag of
//! its own is in `docs/operations.md`.

use localnet::testkit;
use std::process::Stdio;
use std::time::{Duration, Instant};

const DEV: &str = env!("CARGO_BIN_EXE_dev");

/// Every variable the binary reads a setting from is removed, so that the test sees only its flags (scripts/test
/// exports DATABASE_URL).
fn dev_command(args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(DEV);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn,api=info,indexer=info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

async fn output_of(args: &[&str]) -> (bool, String) {
    let out = tokio::time::timeout(Duration::from_secs(120), dev_command(args).output())
        .await
        .expect("exits within 120 s")
        .expect("runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn scratch_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("dev-{name}-{}", std::process::id()))
}

#[tokio::test]
async fn dev_names_the_port_it_cannot_bind() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let dir = scratch_dir("ports");
    let dir = dir.to_str().unwrap();
    let api_addr = format!("127.0.0.1:{}", testkit::free_port());
    let (ok, text) = output_of(&[
        "--dir",
        dir,
        "--listen",
        &api_addr,
        "--rpc-port",
        &port,
        "--grpc-port",
        "0",
    ])
    .await;
    assert!(!ok, "dev started on a taken port: {text}");
    assert!(
        text.contains(&format!("JSON-RPC port {port}")) && text.contains("--rpc-port/DEV_RPC_PORT"),
        "{text}"
    );
    let (ok, text) = output_of(&["--dir", dir, "--listen", &format!("127.0.0.1:{port}")]).await;
    assert!(!ok);
    assert!(
        text.contains(&format!("--listen (API_ADDR): port {port}")),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_walkthrough_plays_a_user_against_the_dev_stack_which_stops_on_sigterm() {
    let dir = scratch_dir("walkthrough");
    let api = format!("127.0.0.1:{}", testkit::free_port());
    let mut child = dev_command(&[
        "--dir",
        dir.to_str().unwrap(),
        "--listen",
        &api,
        "--rpc-port",
        "0",
        "--grpc-port",
        "0",
    ])
    .spawn()
    .unwrap();
    let base = format!("http://{api}");
    let http = reqwest::Client::new();
    let wallet_path = dir.join("wallet.json");
    let started = Instant::now();
    loop {
        let up = http.get(format!("{base}/health")).send().await;
        if matches!(&up, Ok(r) if r.status().is_success()) && wallet_path.exists() {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("dev exited before serving: {status}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "dev serves within 120 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The development wallet the stack funded and wrote in the Solana CLI's format.
    let wallet = solana_keypair::read_keypair_file(&wallet_path).unwrap();
    let report = dev::walkthrough::run(&base, wallet).await.unwrap();
    assert!(report.migrated);
    assert!(report.buys.len() >= 3);
    let kinds: Vec<&str> = report.claims.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(kinds, ["trading", "surplus", "locked-lp"]);
    assert!(report.claims.iter().all(|c| c.2 != "0" || c.3 != "0"));

    let pid = child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("dev stops within 30 s of SIGTERM")
        .unwrap();
    assert!(status.success(), "{status}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_flag_of_dev_is_in_the_operations_reference() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/operations.md"
    ))
    .unwrap();
    let cmd = <dev::stack::DevArgs as clap::CommandFactory>::command();
    let mut missing = Vec::new();
    let mut flags = 0;
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if long == "help" || long == "version" {
            continue;
        }
        flags += 1;
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `--{long}` |")));
        let env = arg.get_env().map(|e| e.to_string_lossy().into_owned());
        match (row, env) {
            (None, _) => missing.push(format!("--{long}")),
            (Some(row), Some(env)) if !row.contains(&format!("`{env}`")) => {
                missing.push(format!("--{long} ({env})"))
            }
            _ => {}
        }
    }
    assert!(flags > 20, "{flags}");
    assert!(missing.is_empty(), "not in docs/operations.md: {missing:?}");
}
