//! `dev`: the localnet, the indexer and the API in one process on a fresh SQLite file. The README's first
//! command (`cargo run -p dev`).

use clap::Parser;

fn main() -> anyhow::Result<()> {
    // Secrets given as files first, while this is the only thread.
    let args = indexer::secret_files::resolve(std::env::args_os())?;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run(args))
}

async fn run(args: Vec<std::ffi::OsString>) -> anyhow::Result<()> {
    let _log = api::logging::init(
        std::io::stdout(),
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
    indexer::metrics::prometheus();
    let args = dev::stack::DevArgs::parse_from(args);
    let (stop, rx) = tokio::sync::watch::channel(false);
    api::process::shutdown_signal(stop);
    dev::stack::run(args, rx).await
}
