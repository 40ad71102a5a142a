//! `dev`: the localnet, the indexer and the API in one process on a fresh SQLite file. The README's first
//! command (`cargo run -p dev`).

use clap::Parser;

fn main() -> anyhow::Result<()> {
    // Secrets given as files (`--database-url-file`, `DATABASE_URL_FILE`, ...) are read first.
    ops::secret_files::main_with_secrets(run)
}

async fn run(args: Vec<std::ffi::OsString>) -> anyhow::Result<()> {
    let _log = ops::logging::init(
        std::io::stdout(),
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
    ops::metrics::prometheus();
    let args = dev::stack::DevArgs::parse_from(args);
    let (stop, rx) = tokio::sync::watch::channel(false);
    ops::signal::raise_on_signal(stop, "finishing requests in flight, then stopping");
    dev::stack::run(args, rx).await
}
