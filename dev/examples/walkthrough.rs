//! Plays a user against a running stack over HTTP only: `cargo run -p dev` in one terminal, then
//! `cargo run -p dev --example walkthrough` (uses the dev wallet `.dev/wallet.json`; `--api` and `--wallet`
//! to point elsewhere).

use clap::Parser;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    api: String,
    /// A funded keypair file (Solana CLI format). It signs locally; it is never sent anywhere.
    #[arg(long, default_value = ".dev/wallet.json")]
    wallet: std::path::PathBuf,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let wallet = solana_keypair::read_keypair_file(&args.wallet)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", args.wallet.display()))?;
    dev::walkthrough::run(&args.api, wallet).await?;
    Ok(())
}
