//! Catching up after an outage (`cargo bench -p indexer --bench recover`; results in docs/benchmarks.md).
//!
//! A localnet in this process plays the RPC provider behind a byte-counting TCP proxy. Wallets trade one
//! launch (0.0001 SOL each, so that 60,000 of them stay on the curve) as fast as the chain takes them while no
//! indexer listens (the outage); then the gap's transactions
//! are recovered from the node's history exactly as the indexer recovers them (`indexer::recover`: the
//! signatures, a block per slot, a transaction per trade, in chain order), once per concurrency, and each
//! run reports its JSON-RPC calls, bytes, time, and how many minutes of an outage at 100 trades a second it
//! recovers per minute (x real time).
//!
//! Set by environment: `RECOVER_TRADES` (3,000), `RECOVER_SENDERS` (16 wallets sending at once),
//! `RECOVER_CONCURRENCY` (`1,4,16,64`), `RECOVER_RPS` (0: no rate limit).

use futures::StreamExt;
use localnet::testkit::{self, SOL};
use localnet::{Localnet, LocalnetConfig};
use solana_commitment_config::CommitmentConfig;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Bytes through the proxy: from the client (requests) and from the node (answers).
#[derive(Default)]
struct Bytes {
    up: AtomicU64,
    down: AtomicU64,
}

/// Copies `from` into `to`, counting.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    count: Arc<Bytes>,
    up: bool,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if up { &count.up } else { &count.down }.fetch_add(n as u64, Relaxed);
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// A TCP proxy to `upstream` that counts the bytes each way; its address.
async fn counting_proxy(upstream: SocketAddr, count: Arc<Bytes>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let count = count.clone();
            tokio::spawn(async move {
                let Ok(node) = TcpStream::connect(upstream).await else {
                    return;
                };
                let (cr, cw) = client.into_split();
                let (nr, nw) = node.into_split();
                tokio::join!(
                    pipe(cr, nw, count.clone(), true),
                    pipe(nr, cw, count, false)
                );
            });
        }
    });
    addr
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let trades: u64 = env_num("RECOVER_TRADES", 3_000);
    let senders: u64 = env_num("RECOVER_SENDERS", 16);
    let rps: u32 = env_num("RECOVER_RPS", 0);
    let concurrencies: Vec<usize> = std::env::var("RECOVER_CONCURRENCY")
        .unwrap_or_else(|_| "1,4,16,64".into())
        .split(',')
        .filter_map(|c| c.trim().parse().ok())
        .collect();

    let net = Localnet::start(LocalnetConfig {
        // Every slot of the outage stays in the node's history.
        keep_slots: 1_000_000,
        ..LocalnetConfig::ephemeral()
    })
    .await
    .expect("localnet");
    let direct = RpcClient::new_with_commitment(net.rpc_url(), CommitmentConfig::confirmed());
    let creator = testkit::funded(&direct, 10 * SOL).await.expect("creator");
    let (keys, _) = testkit::launch(&direct, &creator, curve::Preset::Fair, 1, "GAP")
        .await
        .expect("launch");

    // The outage: trades nobody indexes.
    let after = direct.get_slot().await.expect("slot");
    let started = Instant::now();
    let sent = Arc::new(AtomicU64::new(0));
    let tasks: Vec<_> = (0..senders)
        .map(|_| {
            let (url, sent) = (net.rpc_url(), sent.clone());
            tokio::spawn(async move {
                let rpc = RpcClient::new_with_commitment(url, CommitmentConfig::confirmed());
                let wallet = testkit::funded(&rpc, 100 * SOL).await.expect("trader");
                while sent.fetch_add(1, Relaxed) < trades {
                    testkit::buy(&rpc, &keys, &wallet, SOL / 10_000)
                        .await
                        .expect("a buy");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("trader");
    }
    let made = started.elapsed();
    let before = direct.get_slot().await.expect("slot") + 1;
    println!(
        "outage: {trades} trades in slots {after}..{before} ({} slots), made in {:.1} s ({:.0} trades/s)\n",
        before - after,
        made.as_secs_f64(),
        trades as f64 / made.as_secs_f64()
    );

    println!("| concurrency | rate limit | transactions | calls | calls/trade | bytes down | bytes/trade | seconds | trades/s | x real time at 100 trades/s |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let rpc_addr: SocketAddr = net
        .rpc_url()
        .trim_start_matches("http://")
        .parse()
        .expect("the node's address");
    for c in concurrencies {
        let bytes = Arc::new(Bytes::default());
        let proxy = counting_proxy(rpc_addr, bytes.clone()).await;
        let rpc = RpcClient::new_with_commitment(
            format!("http://{proxy}"),
            CommitmentConfig::confirmed(),
        );
        let budget = indexer::recover::Budget::new(c, rps);
        let t0 = Instant::now();
        let (count, stream) = indexer::recover::transactions(
            &rpc,
            CommitmentConfig::confirmed(),
            after,
            before,
            &budget,
        )
        .await
        .expect("signatures");
        let got = stream
            .fold(0u64, |n, t| async move {
                t.expect("a recovered transaction");
                n + 1
            })
            .await;
        let secs = t0.elapsed().as_secs_f64();
        assert_eq!(got as usize, count);
        // The launch's own transaction lies before `after`; the funding transfers name neither program.
        assert!(got >= trades, "recovered {got} of {trades} trades");
        let calls = budget.calls.load(Relaxed);
        let down = bytes.down.load(Relaxed);
        let rate = got as f64 / secs;
        println!(
            "| {c} | {} | {got} | {calls} | {:.2} | {down} | {:.0} | {secs:.1} | {rate:.0} | {:.2} |",
            if rps == 0 { "none".to_string() } else { format!("{rps}/s") },
            calls as f64 / got as f64,
            down as f64 / got as f64,
            rate / 100.0
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(net);
}
