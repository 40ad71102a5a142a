//! What the end-to-end tests that run the production topology share (`topology.rs`, `failover.rs`): the
//! workspace's binaries as child processes and throwaway PostgreSQL clusters (a primary, a streaming
//! standby of it, stopped, killed hard, promoted).
#![allow(dead_code)] // each test binary uses its own part

use crate::common::wait_for;
use localnet::testkit;
use localnet::{Localnet, LocalnetConfig};
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

pub fn binary(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_BIN_EXE_dev")).parent().unwrap();
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: build the workspace's binaries first (scripts/test does: cargo test --workspace --bins)",
        path.display()
    );
    path
}

pub fn command(name: &str, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(binary(name));
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn,indexer=info,api=info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    cmd
}

/// A throwaway PostgreSQL cluster this test can stop and start.
pub struct Postgres {
    pub dir: PathBuf,
    pub url: String,
}

impl Postgres {
    pub fn start() -> Postgres {
        // One directory per cluster: the tests of this file run at once in one process.
        static CLUSTERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CLUSTERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("topology-pg-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pg-throwaway");
        let out = std::process::Command::new(script)
            .arg(&dir)
            .output()
            .expect("scripts/pg-throwaway runs");
        assert!(
            out.status.success(),
            "PostgreSQL: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let url = String::from_utf8(out.stdout).unwrap().trim().to_string();
        Postgres { dir, url }
    }

    pub fn port(&self) -> &str {
        self.url
            .rsplit(':')
            .next()
            .unwrap()
            .split('/')
            .next()
            .unwrap()
    }

    pub fn pg_ctl(&self, args: &[&str]) {
        let status = pg_command("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(args)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl {args:?}");
    }

    /// A hot standby of this cluster on its own port, streaming its changes (`pg_basebackup -R`): what an
    /// operator gives `--database-read-url`.
    pub fn standby(&self) -> Postgres {
        let dir = self.dir.with_file_name(format!(
            "{}-standby",
            self.dir.file_name().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            let status = std::process::Command::new("chown")
                .arg("postgres")
                .arg(&dir)
                .status()
                .unwrap();
            assert!(status.success());
        }
        let out = pg_command("pg_basebackup")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                self.port(),
                "-U",
                "postgres",
                "-R",
                "-X",
                "stream",
                "-D",
            ])
            .arg(dir.join("data"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_basebackup: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = testkit::free_port().to_string();
        let standby = Postgres {
            url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
            dir,
        };
        standby.restart();
        standby
    }

    pub fn stop(&self) {
        self.pg_ctl(&["-m", "fast", "-w", "stop"]);
    }

    pub fn restart(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off",
            self.port(),
            self.dir.display()
        );
        let log = self.dir.join("server.log");
        self.pg_ctl(&["-l", log.to_str().unwrap(), "-w", "-o", &options, "start"]);
    }
}

impl Postgres {
    /// SIGKILL to the server and every process of it, as a crashed machine would leave it (no shutdown
    /// checkpoint, sessions cut).
    pub fn kill_hard(&self) {
        let pidfile = std::fs::read_to_string(self.dir.join("data/postmaster.pid"))
            .expect("the server's postmaster.pid");
        let postmaster: u32 = pidfile.lines().next().unwrap().trim().parse().unwrap();
        let mut pids = vec![postmaster];
        pids.extend(children_of(postmaster));
        let status = std::process::Command::new("kill")
            .arg("-KILL")
            .args(pids.iter().map(u32::to_string))
            .status()
            .unwrap();
        assert!(status.success(), "kill -KILL {pids:?}");
    }

    /// Promotes this standby to a primary (`pg_ctl promote`, waiting until it accepts writes).
    pub fn promote(&self) {
        self.pg_ctl(&["-w", "promote"]);
    }

    /// Ends this standby's streaming from its primary (its `primary_conninfo` emptied and reloaded) and
    /// waits until its WAL receiver has gone: from then on the primary's commits never reach it, as with a
    /// standby that lags when its primary dies.
    pub async fn stop_streaming(&self) {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&self.url).await.unwrap();
        sqlx::query("ALTER SYSTEM SET primary_conninfo = ''")
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::query("SELECT pg_reload_conf()")
            .execute(&mut conn)
            .await
            .unwrap();
        let start = std::time::Instant::now();
        loop {
            let (receivers,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM pg_stat_wal_receiver")
                .fetch_one(&mut conn)
                .await
                .unwrap();
            if receivers == 0 {
                return;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(20),
                "the standby's WAL receiver did not stop"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

/// The processes whose parent is `pid` (from `/proc`).
fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: comm may hold spaces, so read after its closing parenthesis.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push(child);
        }
    }
    out
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // Quietly: a server killed hard has nothing left to stop.
        let _ = pg_command("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// One of PostgreSQL's programs (the newest installed), run as `postgres` when this test runs as root.
pub fn pg_command(program: &str) -> std::process::Command {
    let bin = std::process::Command::new("sh")
        .args([
            "-c",
            "ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 | grep . || dirname \"$(command -v pg_ctl)\"",
        ])
        .output()
        .unwrap();
    let path = format!("{}/{program}", String::from_utf8_lossy(&bin.stdout).trim());
    if is_root() {
        let mut c = std::process::Command::new("runuser");
        c.args(["-u", "postgres", "--", &path]);
        c
    } else {
        std::process::Command::new(&path)
    }
}

pub async fn get_json(http: &reqwest::Client, url: &str) -> Option<(u16, serde_json::Value)> {
    let r = http.get(url).send().await.ok()?;
    let status = r.status().as_u16();
    Some((status, r.json().await.ok()?))
}

/// A fresh localnet, a confirmed-commitment RPC client of it, and the HTTP client the test asks the
/// processes' endpoints with (each request bounded by `http_timeout`).
pub struct Chain {
    pub net: Localnet,
    pub rpc: RpcClient,
    pub http: reqwest::Client,
}

impl Chain {
    pub async fn start(http_timeout: Duration) -> Chain {
        let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
        let rpc = RpcClient::new_with_commitment(
            net.rpc_url(),
            solana_commitment_config::CommitmentConfig::confirmed(),
        );
        let http = reqwest::Client::builder()
            .timeout(http_timeout)
            .build()
            .unwrap();
        Chain { net, rpc, http }
    }
}

/// Waits until `url` answers 200.
pub async fn wait_ready(http: &reqwest::Client, what: &str, url: &str) {
    wait_for(what, Duration::from_secs(60), || async {
        get_json(http, url).await.is_some_and(|(s, _)| s == 200)
    })
    .await;
}

/// An `indexer` process and the base URL of its health endpoints.
pub struct Indexer {
    pub child: tokio::process::Child,
    pub health: String,
}

impl Indexer {
    /// `indexer` streaming `net` into `database_url`, its health endpoints on a free port, `extra` flags last.
    pub fn spawn(net: &Localnet, database_url: &str, extra: &[&str]) -> Indexer {
        let health = format!("127.0.0.1:{}", testkit::free_port());
        let (rpc_url, grpc_url) = (net.rpc_url(), net.grpc_url());
        let mut args = vec![
            "--rpc-url",
            &rpc_url,
            "--grpc-url",
            &grpc_url,
            "--database-url",
            database_url,
            "--health-addr",
            &health,
        ];
        args.extend_from_slice(extra);
        Indexer {
            child: command("indexer", &args).spawn().expect("indexer starts"),
            health: format!("http://{health}"),
        }
    }
}

/// An `api serve` replica and its base URL.
pub struct Replica {
    pub child: tokio::process::Child,
    pub base: String,
}

impl Replica {
    /// `api serve` reading `database_url` and `net`'s RPC, listening on a free port, `extra` flags last.
    pub fn spawn(net: &Localnet, database_url: &str, extra: &[&str]) -> Replica {
        let port = testkit::free_port();
        let base = format!("http://127.0.0.1:{port}");
        let (rpc_url, listen) = (net.rpc_url(), format!("127.0.0.1:{port}"));
        let mut args = vec![
            "serve",
            "--rpc-url",
            &rpc_url,
            "--database-url",
            database_url,
            "--public-base-url",
            &base,
            "--listen",
            &listen,
        ];
        args.extend_from_slice(extra);
        let child = command("api", &args).spawn().expect("api serve starts");
        Replica { child, base }
    }
}

pub async fn role(http: &reqwest::Client, ix: &Indexer) -> String {
    match get_json(http, &format!("{}/health", ix.health)).await {
        Some((_, v)) => v["role"].as_str().unwrap_or_default().to_string(),
        None => String::new(),
    }
}
