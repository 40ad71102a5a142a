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

/// Minimal HTTP/1.1 GET over a plain TCP connection: the status line and body.
async fn http_get(addr: &str, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut conn) = tokio::net::TcpStream::connect(addr).await else {
        return String::new();
    };
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    if conn.write_all(request.as_bytes()).await.is_err() {
        return String::new();
    }
    let mut answer = String::new();
    let _ = conn.read_to_string(&mut answer).await;
    answer
}

/// The gRPC source's and the RPC node's credentials (a token in the URL, the x-token header's value, a key
/// in the RPC URL) reach no log line and no health answer while the indexer keeps failing to reach them.
#[tokio::test]
async fn no_source_secret_reaches_a_log_or_a_health_answer() {
    const CANARY: &str = "CANARY4b8a";
    let dir = std::env::temp_dir().join(format!("indexer-canary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let health = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .to_string();
    let grpc = format!("http://127.0.0.1:9/{CANARY}0123456789abcdefghijkl?x-token={CANARY}");
    let rpc = format!("http://user:{CANARY}@127.0.0.1:9/?api-key={CANARY}");
    let token = format!("{CANARY}-x-token");
    let child = indexer(&[
        "--database-url",
        &db,
        "--grpc-url",
        &grpc,
        "--grpc-x-token",
        &token,
        "--rpc-url",
        &rpc,
        "--health-addr",
        &health,
        "--backoff-max-ms",
        "200",
    ])
    .env("RUST_LOG", "debug,hyper=info,h2=info,tower=info")
    .spawn()
    .unwrap();
    // Long enough for several failed connections and backfill attempts.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let mut answers = String::new();
    for path in ["/health", "/readyz", "/livez", "/metrics"] {
        answers.push_str(&http_get(&health, path).await);
    }
    assert!(
        answers.contains("200 OK"),
        "the health server answered: {answers}"
    );
    let pid = child.id().unwrap().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("exits")
        .unwrap();
    let log = text(&out);
    assert!(
        log.contains("127.0.0.1:9"),
        "the failures were logged: {log}"
    );
    assert!(!log.contains(CANARY), "the log carries a secret:\n{log}");
    assert!(
        !answers.contains(CANARY),
        "a health answer carries a secret:\n{answers}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
