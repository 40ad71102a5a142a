//! `dev`: the localnet, the indexer and the API in one process on a fresh SQLite file. The README's first
//! command (`cargo run -p dev`).

use clap::Parser;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _log = api::logging::init(
        std::io::stdout(),
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
    indexer::metrics::prometheus();
    let args = dev::stack::DevArgs::parse();
    let (stop, rx) = tokio::sync::watch::channel(false);
    api::process::shutdown_signal(stop);
    dev::stack::run(args, rx).await
}
