//! `localnet`: runs the embedded chain with JSON-RPC (default 8899) and Yellowstone gRPC (default 10000).

use anyhow::Context;
use clap::Parser;
use solana_signer::Signer;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    about = "An embedded Solana chain running the launchpad and AMM, with JSON-RPC and Yellowstone gRPC"
)]
struct Args {
    /// JSON-RPC listen address.
    #[arg(long, env = "LOCALNET_RPC_ADDR", default_value = "127.0.0.1:8899")]
    rpc_addr: SocketAddr,
    /// Yellowstone gRPC listen address.
    #[arg(long, env = "LOCALNET_GRPC_ADDR", default_value = "127.0.0.1:10000")]
    grpc_addr: SocketAddr,
    /// Slot length in milliseconds (a slot also closes after every transaction).
    #[arg(long, env = "LOCALNET_SLOT_MS", default_value_t = 400)]
    slot_ms: u64,
    /// Recent slots kept for gRPC `from_slot` replay.
    #[arg(long, env = "LOCALNET_KEEP_SLOTS", default_value_t = 1_000)]
    keep_slots: u64,
    /// Seconds between moves of the SOL/USD price account (0: seed it once, then only
    /// `localnet_setSolUsd` moves it).
    #[arg(long, env = "LOCALNET_ORACLE_SECS", default_value_t = 10)]
    oracle_secs: u64,
    /// Serve Yellowstone gRPC over TLS with this certificate (PEM; with --grpc-tls-key).
    #[arg(long, env = "LOCALNET_GRPC_TLS_CERT", requires = "grpc_tls_key")]
    grpc_tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --grpc-tls-cert.
    #[arg(long, env = "LOCALNET_GRPC_TLS_KEY", requires = "grpc_tls_cert")]
    grpc_tls_key: Option<PathBuf>,
    /// Only deploy the programs, with this key as the launchpad's upgrade authority, as a fresh cluster (or
    /// `anchor test`'s validator) starts: nothing initialized and no configs (the TypeScript SDK's
    /// end-to-end tests set them up, as on such a cluster).
    #[arg(long, env = "LOCALNET_DEPLOY_ONLY")]
    deploy_only: Option<solana_pubkey::Pubkey>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,solana=warn,agave=warn".into()),
        )
        .init();
    let args = Args::parse();
    let read = |flag: &str, path: &PathBuf| {
        std::fs::read(path).with_context(|| format!("reading {flag} {}", path.display()))
    };
    let grpc_tls = match (&args.grpc_tls_cert, &args.grpc_tls_key) {
        (Some(cert), Some(key)) => Some(localnet::GrpcTls {
            cert_pem: read("--grpc-tls-cert", cert)?,
            key_pem: read("--grpc-tls-key", key)?,
        }),
        _ => None,
    };
    let net = localnet::Localnet::start(localnet::LocalnetConfig {
        rpc_addr: args.rpc_addr,
        grpc_addr: args.grpc_addr,
        slot_duration: Duration::from_millis(args.slot_ms),
        keep_slots: args.keep_slots,
        deploy_only: args.deploy_only,
        grpc_tls,
        oracle_interval: (args.oracle_secs > 0).then(|| Duration::from_secs(args.oracle_secs)),
    })
    .await?;
    println!("localnet running");
    println!("  JSON-RPC          {}", net.rpc_url());
    println!(
        "  PubSub            ws://{}:{}",
        net.rpc_addr.ip(),
        net.rpc_addr.port() + 1
    );
    println!("  Yellowstone gRPC  {}", net.grpc_url());
    println!("  launchpad program {}", launchpad::ID);
    println!("  AMM program       {}", amm::ID);
    println!("  USDC mint         {}", net.usdc_mint);
    println!("  partner           {}", net.partner.pubkey());
    println!("  SOL/USD (Pyth)    {}", sdk::oracle::SOL_USD_PRICE_ACCOUNT);
    println!(
        "Fund a wallet: solana airdrop 10 <ADDRESS> --url {}, or JSON-RPC localnet_mintUsdc.",
        net.rpc_url()
    );
    tokio::signal::ctrl_c().await?;
    net.shutdown().await;
    Ok(())
}
