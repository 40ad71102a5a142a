//! The `indexer` binary as an operator starts it: it names the database it needs instead of making one up,
//! and a SQLite index takes one writer (a second indexer is refused, naming the lock it found).

use std::process::Stdio;
use std::time::Duration;

const INDEXER: &str = env!("CARGO_BIN_EXE_indexer");

fn indexer(args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(INDEXER);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[tokio::test]
async fn refuses_to_start_without_a_database() {
    let dir = std::env::temp_dir().join(format!("indexer-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = tokio::time::timeout(
        Duration::from_secs(30),
        indexer(&[]).current_dir(&dir).output(),
    )
    .await
    .expect("exits at once")
    .unwrap();
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("--database-url") && said.contains("DATABASE_URL"),
        "names the flag and the variable: {said}"
    );
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "no database file was made up"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_sqlite_index_refuses_a_second_writer() {
    let dir = std::env::temp_dir().join(format!("indexer-writer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    // Nothing listens on port 9: the first indexer holds the lease while it retries its source.
    let args = [
        "--database-url",
        &db,
        "--rpc-url",
        "http://127.0.0.1:9",
        "--grpc-url",
        "http://127.0.0.1:9",
    ];
    let mut first = indexer(&args).spawn().unwrap();
    let lock = dir.join("index.db.indexer.lock");
    let start = std::time::Instant::now();
    while !lock.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the first takes the lease"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let out = tokio::time::timeout(Duration::from_secs(30), indexer(&args).output())
        .await
        .expect("the second exits at once")
        .unwrap();
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("index.db.indexer.lock") && said.contains("one writer"),
        "names the lock it found: {said}"
    );
    assert!(first.try_wait().unwrap().is_none(), "the first still runs");
    first.kill().await.unwrap();
    let _ = first.wait().await;
    std::fs::remove_dir_all(&dir).unwrap();
}
