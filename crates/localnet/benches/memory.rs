//! The localnet's resident memory over time: the `localnet` binary runs in its own process, first idle (no
//! client at all) and then under steady trading on one launch, and its `VmRSS` is printed every sample
//! period (a minute by default), with its open file descriptors (the accounts store is made of files) and
//! the number of transactions that landed in the period.
//!
//! `cargo bench -p localnet --bench memory` measures the release binary; `cargo test -p localnet --bench
//! memory` the debug one (both build the `localnet` binary of their profile first). Linux only (it reads
//! `/proc`). Set by environment:
//!
//! - `MEMORY_IDLE_MINUTES` (10) and `MEMORY_TRADE_MINUTES` (10): the length of each phase;
//! - `MEMORY_SAMPLE_SECS` (60): the sample period;
//! - `MEMORY_TRADERS` (4): concurrent traders, each alternating a 0.01 SOL buy and the sell of what it holds,
//!   at most `MEMORY_TRADES_PER_SEC` (2) transactions a second each;
//! - `LOCALNET_BIN`: another `localnet` binary to measure (for example one built from an older commit);
//! - `DEV_BIN`: measure the development stack instead (the `dev` binary: the same chain with the indexer
//!   writing every trade to SQLite, the keeper and the API in one process), on a fresh directory.

use localnet::testkit;
use solana_commitment_config::CommitmentConfig;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A field of `/proc/<pid>/status` in KiB (`VmRSS`, `VmHWM`).
fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// The localnet child process; killed when dropped.
struct Node {
    child: Child,
    rpc_url: String,
}

impl Node {
    /// Starts `bin` with `args` (free loopback ports) and waits for it to print its JSON-RPC address.
    fn start(bin: &str, args: &[&str]) -> Node {
        let mut child = Command::new(bin)
            .args(args)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {bin}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let rpc_url = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|l| {
                l.trim()
                    .strip_prefix("JSON-RPC")
                    .map(|u| u.trim().to_string())
            })
            .expect("localnet prints its JSON-RPC address");
        // Keep draining stdout so that the child never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Node { child, rpc_url }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Prints one sample row.
async fn sample(node: &Node, rpc: &RpcClient, started: Instant, phase: &str, landed: u64) {
    let pid = node.pid();
    let slot = rpc.get_slot().await.unwrap_or(0);
    println!(
        "| {:>5.1} | {phase:<5} | {:>8.1} | {:>8.1} | {:>5} | {:>7} | {:>6} |",
        started.elapsed().as_secs_f64() / 60.0,
        status_kib(pid, "VmRSS") as f64 / 1024.0,
        status_kib(pid, "VmHWM") as f64 / 1024.0,
        open_fds(pid),
        slot,
        landed,
    );
}

/// One trader: buys 0.01 SOL of the token, sells all it holds, and again, paced to `per_sec`, until `stop`.
async fn trade(
    url: String,
    keys: sdk::launchpad_ix::LaunchKeys,
    per_sec: u64,
    landed: Arc<AtomicU64>,
    failed: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) {
    let rpc = RpcClient::new_with_commitment(url, CommitmentConfig::confirmed());
    let trader = testkit::funded(&rpc, 100 * testkit::SOL)
        .await
        .expect("trader funded");
    let mut tick = tokio::time::interval(Duration::from_millis(1_000 / per_sec.max(1)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut buying = true;
    while !stop.load(Ordering::Relaxed) {
        tick.tick().await;
        let result = if buying {
            testkit::buy(&rpc, &keys, &trader, testkit::SOL / 100).await
        } else {
            let held = testkit::token_balance(
                &rpc,
                &trader.pubkey(),
                &keys.mint,
                &sdk::ids::TOKEN_2022_PROGRAM,
            )
            .await;
            testkit::sell(&rpc, &keys, &trader, held).await
        };
        match result {
            Ok(_) => landed.fetch_add(1, Ordering::Relaxed),
            Err(_) => failed.fetch_add(1, Ordering::Relaxed),
        };
        buying = !buying;
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let idle = Duration::from_secs(60 * env_u64("MEMORY_IDLE_MINUTES", 10));
    let trading = Duration::from_secs(60 * env_u64("MEMORY_TRADE_MINUTES", 10));
    let period = Duration::from_secs(env_u64("MEMORY_SAMPLE_SECS", 60).max(1));
    let traders = env_u64("MEMORY_TRADERS", 4);
    let per_sec = env_u64("MEMORY_TRADES_PER_SEC", 2);
    let dev = std::env::var("DEV_BIN").ok();
    // The development stack's own files (its SQLite database among them), removed at the end.
    let dir = std::env::temp_dir().join(format!("memory-bench-{}", std::process::id()));
    let dev_dir = dir.join(".dev");
    let (what, bin, args) = match &dev {
        Some(bin) => (
            "dev stack",
            bin.clone(),
            vec![
                "--dir",
                dev_dir.to_str().expect("a UTF-8 temporary directory"),
                "--listen",
                "127.0.0.1:0",
                "--rpc-port",
                "0",
                "--grpc-port",
                "0",
                "--jupiter-base-url",
                "",
                "--kyberswap-base-url",
                "",
                "--lifi-base-url",
                "",
                "--relay-base-url",
                "",
            ],
        ),
        None => (
            "localnet",
            std::env::var("LOCALNET_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_localnet").into()),
            vec!["--rpc-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0"],
        ),
    };

    let node = Node::start(&bin, &args);
    let rpc = RpcClient::new_with_commitment(node.rpc_url.clone(), CommitmentConfig::confirmed());
    println!("{what} {bin} (pid {}) at {}", node.pid(), node.rpc_url);
    println!("| minute | phase | RSS MiB | peak MiB | fds | slot | txs |");
    println!("|---|---|---|---|---|---|---|");
    let started = Instant::now();
    sample(&node, &rpc, started, "start", 0).await;

    // Idle: no client at all between samples.
    let mut next = started + period;
    while next <= started + idle {
        tokio::time::sleep_until(next.into()).await;
        sample(&node, &rpc, started, "idle", 0).await;
        next += period;
    }

    // Trading: one launch, `traders` wallets buying and selling it.
    let creator = testkit::funded(&rpc, 10 * testkit::SOL)
        .await
        .expect("creator funded");
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 1, "MEM")
        .await
        .expect("launch");
    let landed = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let tasks: Vec<_> = (0..traders)
        .map(|_| {
            tokio::spawn(trade(
                node.rpc_url.clone(),
                keys,
                per_sec,
                landed.clone(),
                failed.clone(),
                stop.clone(),
            ))
        })
        .collect();
    let trade_start = Instant::now();
    let mut next = trade_start + period;
    let mut counted = 0;
    while next <= trade_start + trading {
        tokio::time::sleep_until(next.into()).await;
        let now = landed.load(Ordering::Relaxed);
        sample(&node, &rpc, started, "trade", now - counted).await;
        counted = now;
        next += period;
    }
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        let _ = t.await;
    }
    println!(
        "trades landed: {}, failed: {}",
        landed.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed)
    );
    drop(node);
    let _ = std::fs::remove_dir_all(&dir);
}
