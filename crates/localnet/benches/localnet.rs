//! Localnet throughput on loopback: JSON-RPC `getAccountInfo` and `sendTransaction`, and gRPC fan-out
//! (account updates per second delivered to 1 and to 8 subscribers). Every phase is bounded in request
//! count and in time. `cargo bench -p localnet --bench localnet`; results go in the README.

use futures::{SinkExt, StreamExt};
use localnet::{Localnet, LocalnetConfig};
use solana_commitment_config::CommitmentConfig;
use solana_keypair::Keypair;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;
use solana_transaction::Transaction;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use yellowstone_grpc_client::GeyserGrpcClient;
use yellowstone_grpc_proto::prelude::{
    subscribe_update::UpdateOneof, SubscribeRequest, SubscribeRequestFilterAccounts,
};

const MAX_PHASE: Duration = Duration::from_secs(20);

async fn get_account_info(net: &Localnet, concurrency: usize, total: usize) -> (usize, Duration) {
    let key = sdk::pda::global();
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let rpc = RpcClient::new(net.rpc_url());
        let done = done.clone();
        tasks.push(tokio::spawn(async move {
            while (done.fetch_add(1, Ordering::Relaxed) as usize) < total
                && started.elapsed() < MAX_PHASE
            {
                rpc.get_account(&key).await.expect("getAccountInfo");
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    (
        total.min(done.load(Ordering::Relaxed) as usize),
        started.elapsed(),
    )
}

async fn send_transactions(net: &Localnet, concurrency: usize, total: usize) -> (usize, Duration) {
    let rpc = RpcClient::new_with_commitment(net.rpc_url(), CommitmentConfig::confirmed());
    let mut payers = Vec::new();
    for _ in 0..concurrency {
        let k = Keypair::new();
        let sig = rpc
            .request_airdrop(&k.pubkey(), 100_000_000_000)
            .await
            .unwrap();
        rpc.confirm_transaction(&sig).await.unwrap();
        payers.push(Arc::new(k));
    }
    let sent = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for payer in payers {
        let rpc = RpcClient::new(net.rpc_url());
        let sent = sent.clone();
        tasks.push(tokio::spawn(async move {
            let mut lamports = 1_000_000u64;
            while (sent.fetch_add(1, Ordering::Relaxed) as usize) < total
                && started.elapsed() < MAX_PHASE
            {
                lamports += 1; // distinct transactions under one blockhash
                let blockhash = rpc.get_latest_blockhash().await.unwrap();
                let ix = solana_system_interface::instruction::transfer(
                    &payer.pubkey(),
                    &solana_pubkey::Pubkey::new_unique(),
                    lamports,
                );
                let tx = Transaction::new_signed_with_payer(
                    &[ix],
                    Some(&payer.pubkey()),
                    &[&*payer],
                    blockhash,
                );
                rpc.send_transaction(&tx).await.expect("sendTransaction");
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    (
        total.min(sent.load(Ordering::Relaxed) as usize),
        started.elapsed(),
    )
}

/// Subscribers to every System-owned account; a sender makes `transfers` transfers; returns updates per
/// second delivered to each subscriber (the slowest).
async fn fan_out(net: &Localnet, subscribers: usize, transfers: usize) -> f64 {
    let mut counters = Vec::new();
    let mut streams = Vec::new();
    for _ in 0..subscribers {
        let mut client = GeyserGrpcClient::build_from_shared(net.grpc_url())
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut accounts = HashMap::new();
        accounts.insert(
            "system".to_string(),
            SubscribeRequestFilterAccounts {
                owner: vec![solana_sdk_ids::system_program::ID.to_string()],
                ..Default::default()
            },
        );
        let (mut sink, mut stream) = client.subscribe().await.unwrap();
        sink.send(SubscribeRequest {
            accounts,
            ..Default::default()
        })
        .await
        .unwrap();
        let count = Arc::new(AtomicU64::new(0));
        let c = count.clone();
        streams.push(tokio::spawn(async move {
            let _keep = sink;
            while let Some(Ok(update)) = stream.next().await {
                if matches!(update.update_oneof, Some(UpdateOneof::Account(_))) {
                    c.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
        counters.push(count);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let (n, _) = send_transactions(net, 4, transfers).await;
    // Each transfer writes two System-owned accounts (payer and recipient).
    let expected = (n * 2) as u64;
    while counters
        .iter()
        .any(|c| c.load(Ordering::Relaxed) < expected)
        && started.elapsed() < MAX_PHASE
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    for s in streams {
        s.abort();
    }
    let slowest = counters
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .min()
        .unwrap_or(0);
    slowest as f64 / elapsed
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let net = Localnet::start(LocalnetConfig::ephemeral())
        .await
        .expect("localnet");
    println!("| measurement | result |");
    println!("|---|---|");
    let (n, t) = get_account_info(&net, 8, 20_000).await;
    println!(
        "| getAccountInfo, 8 concurrent clients, {n} requests | {:.0} req/s |",
        n as f64 / t.as_secs_f64()
    );
    let (n, t) = send_transactions(&net, 4, 2_000).await;
    println!("| sendTransaction (transfer, preflight on), 4 concurrent clients, {n} transactions | {:.0} tx/s |", n as f64 / t.as_secs_f64());
    for subs in [1usize, 8] {
        let rate = fan_out(&net, subs, 1_000).await;
        println!("| gRPC account updates delivered per subscriber, {subs} subscriber(s) | {rate:.0} updates/s |");
    }
    net.shutdown().await;
}
