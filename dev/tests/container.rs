//! The image of `deploy/Containerfile` runs the production topology: the image is built (its `prebuilt`
//! target, from this workspace's debug binaries: a release build of `api` costs ~25 minutes of two cores
//! here), then from it a migrate job, two indexers (one writes, the lease decides; the other waits) and two
//! API replicas start on the host network against a throwaway PostgreSQL (`scripts/pg-throwaway`) and a
//! localnet, each container as deploy/compose.yaml and deploy/k8s run it: a read-only root, no capabilities,
//! no new privileges, the non-root user of the image, every secret a file read through a `*_FILE` setting.
//! Checked: readiness of every process, a user's whole journey (a launch, buys to graduation, AMM trades,
//! claims) through one replica and its trades served by the other, the metrics ports, and a clean stop (the
//! writer stopped first: exit 0, and the standby takes over; then every container exits 0 on SIGTERM).
//!
//! Runs `../shared/tools/podman-setup` when it is there (idempotent; it installs podman and builds a local
//! `debian:bookworm-slim`); skipped, with a message, where podman is absent.

mod common;

use common::wait_for;

use localnet::testkit::{self, SOL};
use localnet::{Localnet, LocalnetConfig};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A binary of this workspace, beside this test's `dev` binary (`scripts/test` builds them with `--bins`).
fn binary(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_dev"))
        .parent()
        .unwrap()
        .join(name);
    assert!(
        path.exists(),
        "{} is missing: build the workspace's binaries first (scripts/test does: cargo test --workspace --bins)",
        path.display()
    );
    path
}

fn podman(args: &[&str]) -> std::process::Output {
    Command::new("podman")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("podman runs")
}

fn podman_ok(args: &[&str]) -> String {
    let out = podman(args);
    assert!(
        out.status.success(),
        "podman {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// podman, made ready by `podman-setup` where it is available; None (skip) where podman is absent.
fn podman_ready() -> Option<()> {
    let setup = repo().join("../shared/tools/podman-setup");
    if setup.exists() {
        let out = Command::new(&setup).output().expect("podman-setup runs");
        if !out.status.success() {
            eprintln!(
                "podman-setup failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let ok = Command::new("podman")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(())
}

/// A throwaway PostgreSQL (`scripts/pg-throwaway`), stopped and removed on drop.
struct Postgres {
    dir: PathBuf,
    url: String,
}

impl Postgres {
    fn start() -> Postgres {
        let dir = std::env::temp_dir().join(format!("container-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = Command::new(repo().join("scripts/pg-throwaway"))
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
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let stop = format!(
            "pg_ctl=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)/pg_ctl; \
             [ -x \"$pg_ctl\" ] || pg_ctl=pg_ctl; \
             if [ \"$(id -u)\" = 0 ]; then runuser -u postgres -- \"$pg_ctl\" -D '{0}/data' -m immediate stop; \
             else \"$pg_ctl\" -D '{0}/data' -m immediate stop; fi",
            self.dir.display()
        );
        let _ = Command::new("sh")
            .args(["-c", &stop])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The containers and the image of one run: on drop, each container's last log lines (when the test failed)
/// and then the containers, the image and the build context are removed.
struct Run {
    image: String,
    containers: Vec<String>,
    scratch: PathBuf,
}

impl Drop for Run {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for c in &self.containers {
                let out = podman(&["logs", "--tail", "40", c]);
                eprintln!(
                    "--- podman logs {c}\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
        for c in &self.containers {
            let _ = podman(&["rm", "-f", "-t", "0", c]);
        }
        let _ = podman(&["rmi", "-f", &self.image]);
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

impl Run {
    /// `podman run -d` of one process of the topology, as deploy/compose.yaml runs it.
    fn start(&mut self, name: &str, env: &[(&str, String)], command: &[&str]) {
        let name = self.name(name);
        let secrets = format!(
            "{}:/run/secrets/launchpad:ro",
            self.scratch.join("secrets").display()
        );
        let mut args: Vec<String> = [
            "run",
            "-d",
            "--name",
            &name,
            "--network",
            "host",
            "--read-only",
            "--cap-drop",
            "ALL",
            "--security-opt",
            "no-new-privileges",
            "--stop-signal",
            "SIGTERM",
            "-v",
            &secrets,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for (k, v) in env {
            args.push("-e".into());
            args.push(format!("{k}={v}"));
        }
        args.push(self.image.clone());
        args.extend(command.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        podman_ok(&args);
        self.containers.push(name);
    }

    fn name(&self, prefix: &str) -> String {
        format!("{prefix}-{}", std::process::id())
    }

    /// Stops one container with SIGTERM (30 s before a kill) and returns its exit code.
    fn stop(&self, prefix: &str) -> String {
        let name = self.name(prefix);
        podman_ok(&["stop", "-t", "30", &name]);
        podman_ok(&["inspect", "--format", "{{.State.ExitCode}}", &name])
    }
}

async fn get(http: &reqwest::Client, url: &str) -> Option<(u16, String)> {
    let r = http.get(url).send().await.ok()?;
    let status = r.status().as_u16();
    Some((status, r.text().await.ok()?))
}

async fn role(http: &reqwest::Client, health: &str) -> String {
    match get(http, &format!("{health}/health")).await {
        Some((_, body)) => serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["role"].as_str().map(str::to_string))
            .unwrap_or_default(),
        None => String::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_image_runs_the_production_topology_a_launch_and_a_trade_and_stops_cleanly() {
    if podman_ready().is_none() {
        eprintln!(
            "skipped: podman is not installed (run ../shared/tools/podman-setup as root to run this test)"
        );
        return;
    }
    let scratch = std::env::temp_dir().join(format!("container-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let context = scratch.join("context");
    let secrets = scratch.join("secrets");
    std::fs::create_dir_all(&context).unwrap();
    std::fs::create_dir_all(&secrets).unwrap();
    let mut run = Run {
        image: format!("localhost/launchpad:test-{}", std::process::id()),
        containers: Vec::new(),
        scratch: scratch.clone(),
    };

    // The image, from the host's binaries: the Containerfile's `prebuilt` target, its context only them.
    for name in ["api", "indexer", "launchpad-admin"] {
        std::fs::copy(binary(name), context.join(name)).unwrap();
    }
    let started = Instant::now();
    let containerfile = repo().join("deploy/Containerfile");
    podman_ok(&[
        "build",
        "-q",
        "--target",
        "prebuilt",
        "-f",
        containerfile.to_str().unwrap(),
        "-t",
        &run.image,
        context.to_str().unwrap(),
    ]);
    let size = podman_ok(&["image", "inspect", "--format", "{{.Size}}", &run.image]);
    eprintln!(
        "image {} built in {:?}: {size} bytes (debug binaries)",
        run.image,
        started.elapsed()
    );
    // The image runs as its non-root user and carries the CA certificates and nothing of ours but the binaries.
    let id = podman_ok(&["run", "--rm", &run.image, "id", "-u"]);
    assert_eq!(id, "10001", "the image's user");
    let listing = podman_ok(&["run", "--rm", &run.image, "ls", "/usr/local/bin"]);
    assert_eq!(
        listing.split_whitespace().collect::<Vec<_>>(),
        ["api", "indexer", "launchpad-admin"]
    );
    podman_ok(&[
        "run",
        "--rm",
        &run.image,
        "test",
        "-s",
        "/etc/ssl/certs/ca-certificates.crt",
    ]);
    let version = podman_ok(&["run", "--rm", &run.image, "api", "--version"]);
    assert!(version.starts_with("api "), "{version}");

    let pg = Postgres::start();
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let (rpc_url, grpc_url) = (net.rpc_url(), net.grpc_url());
    // Secrets as files, as compose and Kubernetes mount them (readable by the image's user).
    for (file, value) in [
        ("database-url", pg.url.clone()),
        ("rpc-url", rpc_url.clone()),
        ("grpc-url", grpc_url.clone()),
        (
            "route-keys",
            "container-test-route-key-0123456789abcdef".to_string(),
        ),
    ] {
        std::fs::write(secrets.join(file), format!("{value}\n")).unwrap();
    }
    let status = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(&scratch)
        .status()
        .unwrap();
    assert!(status.success());
    let file = |name: &str| format!("/run/secrets/launchpad/{name}");

    // The migrate job: runs to completion (exit 0) before anything else starts.
    let migrate = podman(&[
        "run",
        "--rm",
        "--network",
        "host",
        "--read-only",
        "--cap-drop",
        "ALL",
        "--security-opt",
        "no-new-privileges",
        "-v",
        &format!("{}:/run/secrets/launchpad:ro", secrets.display()),
        "-e",
        &format!("DATABASE_URL_FILE={}", file("database-url")),
        &run.image,
        "api",
        "migrate",
    ]);
    assert!(
        migrate.status.success(),
        "api migrate: {}",
        String::from_utf8_lossy(&migrate.stderr)
    );

    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let common = |extra: Vec<(&'static str, String)>| {
        let mut env = vec![
            ("DATABASE_URL_FILE", file("database-url")),
            ("RPC_URL_FILE", file("rpc-url")),
            ("DB_NO_MIGRATE", "true".to_string()),
            (
                "RUST_LOG",
                "info,sqlx=warn,solana=warn,agave=warn".to_string(),
            ),
        ];
        env.extend(extra);
        env
    };

    // Two indexers: one takes the writer's lease, the other waits as the standby.
    let mut indexers = Vec::new();
    for n in 1..=2 {
        let addr = format!("127.0.0.1:{}", testkit::free_port());
        let env = common(vec![
            ("GRPC_URL_FILE", file("grpc-url")),
            ("INDEXER_HEALTH_ADDR", addr.clone()),
            ("INDEXER_METRICS_INTERVAL", "0".to_string()),
        ]);
        run.start(&format!("indexer-{n}"), &env, &["indexer"]);
        indexers.push((format!("indexer-{n}"), format!("http://{addr}")));
    }
    for (_, health) in &indexers {
        wait_for("an indexer is ready", Duration::from_secs(60), || async {
            get(&http, &format!("{health}/readyz"))
                .await
                .is_some_and(|(s, _)| s == 200)
        })
        .await;
    }
    wait_for(
        "one active indexer and one standby",
        Duration::from_secs(30),
        || async {
            let mut roles = vec![
                role(&http, &indexers[0].1).await,
                role(&http, &indexers[1].1).await,
            ];
            roles.sort();
            roles == ["active", "standby"]
        },
    )
    .await;

    // Two API replicas.
    let mut replicas = Vec::new();
    for n in 1..=2 {
        let port = testkit::free_port();
        let metrics = format!("127.0.0.1:{}", testkit::free_port());
        let base = format!("http://127.0.0.1:{port}");
        let env = common(vec![
            ("ROUTE_KEYS_FILE", file("route-keys")),
            ("API_ADDR", format!("127.0.0.1:{port}")),
            ("METRICS_ADDR", metrics.clone()),
            ("PUBLIC_BASE_URL", base.clone()),
        ]);
        run.start(&format!("api-{n}"), &env, &["api", "serve"]);
        replicas.push((format!("api-{n}"), base, format!("http://{metrics}")));
    }
    for (_, base, _) in &replicas {
        wait_for("a replica is ready", Duration::from_secs(60), || async {
            get(&http, &format!("{base}/readyz"))
                .await
                .is_some_and(|(s, _)| s == 200)
        })
        .await;
    }

    // A user's journey through the first replica: a launch, buys to graduation, AMM trades, claims.
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        rpc_url.clone(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let wallet = testkit::funded(&rpc, 1_000 * SOL).await.unwrap();
    let report = dev::walkthrough::run(&replicas[0].1, wallet).await.unwrap();
    assert!(report.migrated, "the launch graduated and migrated");
    assert!(report.buys.len() >= 3, "{:?}", report.buys);
    // The second replica serves the same index: the launch and its trades.
    let trades_url = format!(
        "{}/launchpad/trades/{}?limit=100",
        replicas[1].1, report.mint
    );
    wait_for(
        "the other replica serves the launch's trades",
        Duration::from_secs(30),
        || async {
            get(&http, &trades_url).await.is_some_and(|(s, body)| {
                s == 200
                    && serde_json::from_str::<serde_json::Value>(&body).is_ok_and(|v| {
                        v["trades"].as_array().map_or(0, |t| t.len()) >= report.buys.len()
                    })
            })
        },
    )
    .await;

    // The metrics ports answer with the series the alert rules watch.
    let (status, body) = get(&http, &format!("{}/metrics", replicas[0].2))
        .await
        .unwrap();
    assert_eq!(status, 200);
    for series in ["http_requests_total", "\napi_ready 1\n"] {
        assert!(body.contains(series), "{series:?} missing: {body}");
    }
    // Both indexers report their lease and readiness; the writer its lag behind the chain too.
    let (active, standby) = if role(&http, &indexers[0].1).await == "active" {
        (0, 1)
    } else {
        (1, 0)
    };
    for (n, (_, health)) in indexers.iter().enumerate() {
        let (status, body) = get(&http, &format!("{health}/metrics")).await.unwrap();
        assert_eq!(status, 200);
        let mut series = vec!["indexer_lease_active", "indexer_ready"];
        if n == active {
            series.push("indexer_chain_lag_slots");
        }
        for name in series {
            assert!(body.contains(name), "{name} missing: {body}");
        }
        let lease = format!("\nindexer_lease_active {}\n", u8::from(n == active));
        assert!(body.contains(&lease), "{lease:?} missing: {body}");
    }

    // A clean stop. The writer first: it writes its batch and exits 0, and the standby takes the lease.
    assert_eq!(
        run.stop(&indexers[active].0),
        "0",
        "the writer exits 0 on SIGTERM"
    );
    wait_for(
        "the standby takes over",
        Duration::from_secs(15),
        || async { role(&http, &indexers[standby].1).await == "active" },
    )
    .await;
    for (name, _, _) in &replicas {
        assert_eq!(run.stop(name), "0", "{name} exits 0 on SIGTERM");
    }
    assert_eq!(
        run.stop(&indexers[standby].0),
        "0",
        "the last indexer exits 0"
    );
    drop(run);
    net.shutdown().await;
    drop(pg);
}
