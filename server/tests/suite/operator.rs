//! The `api` binary as an operator runs it: `serve` refuses to start on local defaults, `/metrics` is
//! scraped while the stack works, SIGTERM drains a request in flight and stops the indexer cleanly, and
//! every flag is in `docs/operations.md`.

use localnet::testkit::{self, SOL};
use localnet::{Localnet, LocalnetConfig};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const API: &str = env!("CARGO_BIN_EXE_api");

/// Every variable the binary reads a setting from is removed, so that the test sees only its flags (scripts/test
/// exports DATABASE_URL).
fn api_command(args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(API);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn,api=info,indexer=info,ops=info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

async fn output_of(args: &[&str]) -> (bool, String) {
    let out = tokio::time::timeout(Duration::from_secs(120), api_command(args).output())
        .await
        .expect("exits within 120 s")
        .expect("runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[tokio::test]
async fn serve_refuses_to_start_on_local_defaults_and_names_each_setting() {
    let (ok, text) = output_of(&["serve"]).await;
    assert!(!ok, "serve started without settings: {text}");
    for needed in [
        "--rpc-url (RPC_URL)",
        "--database-url (DATABASE_URL)",
        "--public-base-url (PUBLIC_BASE_URL)",
    ] {
        assert!(text.contains(needed), "names {needed}: {text}");
    }
    assert!(!text.contains("--grpc-url (GRPC_URL)"), "{text}");
    let (ok, text) =
        output_of(&["serve", "--with-indexer", "--rpc-url", "http://127.0.0.1:9"]).await;
    assert!(!ok);
    assert!(
        text.contains("--grpc-url (GRPC_URL)") && !text.contains("--rpc-url (RPC_URL)"),
        "{text}"
    );
    let (ok, text) = output_of(&[
        "serve",
        "--rpc-url",
        "http://127.0.0.1:9",
        "--database-url",
        "sqlite://unused.db",
        "--public-base-url",
        "not a url",
    ])
    .await;
    assert!(
        !ok && text.contains("--public-base-url (PUBLIC_BASE_URL) `not a url`"),
        "{text}"
    );
}

/// The value of one series in Prometheus text (`name{labels} value`), by its name and labels it carries.
#[tokio::test]
async fn migrate_brings_a_schema_up_to_date_and_exits() {
    let dir = std::env::temp_dir().join(format!("api-migrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let (ok, said) = output_of(&["migrate", "--database-url", &db]).await;
    assert!(ok, "{said}");
    let store = index::Store::connect(&db).await.unwrap();
    assert_eq!(
        store.cursor("main").await.unwrap(),
        None,
        "the schema is there"
    );
    let (ok, said) = output_of(&["migrate", "--database-url", &db]).await;
    assert!(ok, "a second run finds nothing to do: {said}");
    let (ok, said) = output_of(&["migrate"]).await;
    assert!(!ok && said.contains("--database-url"), "{said}");

    // The URL (a credential) from a file, as container secrets are mounted: by flag or by `<ENV>_FILE`.
    let file = dir.join("database-url");
    std::fs::write(&file, format!("{db}\n")).unwrap();
    let path = file.to_str().unwrap();
    let (ok, said) = output_of(&["migrate", "--database-url-file", path]).await;
    assert!(ok, "{said}");
    let out = api_command(&["migrate"])
        .env("DATABASE_URL_FILE", path)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Both ways at once is refused, naming both; a missing file names the option and the path only.
    let (ok, said) = output_of(&[
        "migrate",
        "--database-url",
        &db,
        "--database-url-file",
        path,
    ])
    .await;
    assert!(
        !ok && said.contains("--database-url or --database-url-file"),
        "{said}"
    );
    let (ok, said) = output_of(&["migrate", "--database-url-file=/nonexistent/url"]).await;
    assert!(
        !ok && said.contains("--database-url-file: reading /nonexistent/url"),
        "{said}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn series(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| l.split([' ', '{']).next() == Some(name) && labels.iter().all(|x| l.contains(x)))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

const CURVE_404: [&str; 3] = [
    r#"method="GET""#,
    r#"route="/launchpad/curve/{mint}""#,
    r#"status="404""#,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn serve_exports_metrics_and_sigterm_drains_requests_in_flight() {
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let dir = std::env::temp_dir().join(format!("api-operator-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let (api_port, metrics_port, health_port) = (
        testkit::free_port(),
        testkit::free_port(),
        testkit::free_port(),
    );
    let base = format!("http://127.0.0.1:{api_port}");
    let metrics_url = format!("http://127.0.0.1:{metrics_port}/metrics");
    let (listen, metrics_addr) = (
        format!("127.0.0.1:{api_port}"),
        format!("127.0.0.1:{metrics_port}"),
    );
    let mut child = api_command(&[
        "serve",
        "--with-indexer",
        "--rpc-url",
        &net.rpc_url(),
        "--grpc-url",
        &net.grpc_url(),
        "--database-url",
        &db,
        "--public-base-url",
        &base,
        "--listen",
        &listen,
        "--metrics-addr",
        &metrics_addr,
        "--health-addr",
        &format!("127.0.0.1:{health_port}"),
        // This test watches the drain itself; readiness's drain period has its own test.
        "--shutdown-drain-secs",
        "0",
    ])
    .spawn()
    .expect("api serve starts");
    let http = reqwest::Client::new();
    let started = Instant::now();
    while http.get(format!("{base}/health")).send().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the API did not start"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let scrape = || async {
        http.get(&metrics_url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let first = scrape().await;
    assert!(series(&first, "indexer_slot_lag", &[]).is_some(), "{first}");
    let batches = |t: &str| series(t, "indexer_committed_batches_total", &[]).unwrap_or(0.0);
    let changes = |t: &str| series(t, "indexer_committed_changes_total", &[]).unwrap_or(0.0);
    let curve_404s = |t: &str| series(t, "http_requests_total", &CURVE_404).unwrap_or(0.0);
    // A launch and a buy move the indexer's series; two reads of an unknown curve move the API's.
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 1, "OPS")
        .await
        .unwrap();
    testkit::buy(&rpc, &keys, &creator, SOL / 10).await.unwrap();
    let mut unknown_mints = Vec::new();
    for _ in 0..2 {
        let unknown = solana_pubkey::Pubkey::new_unique();
        unknown_mints.push(unknown.to_string());
        let status = http
            .get(format!("{base}/launchpad/curve/{unknown}"))
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, 404);
    }
    let start = Instant::now();
    let last = loop {
        let last = scrape().await;
        if batches(&last) > batches(&first)
            && changes(&last) >= changes(&first) + 2.0
            && curve_404s(&last) == curve_404s(&first) + 2.0
        {
            break last;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the indexer's and the API's series did not move:\n{first}\n---\n{last}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let mut bucket = CURVE_404.to_vec();
    bucket.push("le=\"+Inf\"");
    assert_eq!(
        series(&last, "http_request_duration_seconds_bucket", &bucket),
        Some(curve_404s(&last)),
        "latency histogram by route and status: {last}"
    );
    assert!(series(&last, "indexer_batch_latency_seconds_count", &[]).unwrap_or(0.0) > 0.0);
    assert!(series(&last, "indexer_batch_write_seconds_count", &[]).unwrap_or(0.0) > 0.0);
    assert_eq!(series(&last, "indexer_gaps_total", &[]), Some(0.0));
    assert_eq!(
        series(&last, "indexer_decode_failures_total", &[]),
        Some(0.0)
    );
    for mint in &unknown_mints {
        assert!(
            !last.contains(mint.as_str()),
            "routes are labelled by pattern, not path"
        );
    }
    // The in-process indexer's own endpoints on --health-addr.
    let health: serde_json::Value = http
        .get(format!("http://127.0.0.1:{health_port}/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["connected"], true, "{health}");
    assert!(health["cursor_slot"].as_u64().unwrap() > 0, "{health}");
    let indexer_metrics = http
        .get(format!("http://127.0.0.1:{health_port}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(series(&indexer_metrics, "indexer_slot_lag", &[]).is_some());
    // The in-process indexer's calls to its Yellowstone source: its `connect` (GetVersion) and its
    // `subscribe`, each answered, with its latency; none failed.
    for method in ["connect", "subscribe"] {
        let method = format!(r#"method="{method}""#);
        let labels = [r#"upstream="yellowstone""#, method.as_str()];
        let calls = series(&indexer_metrics, "upstream_requests_total", &labels).unwrap_or(0.0);
        assert!(calls >= 1.0, "{method}: {indexer_metrics}");
        assert_eq!(
            series(
                &indexer_metrics,
                "upstream_request_duration_seconds_count",
                &labels
            ),
            Some(calls),
            "{method}: {indexer_metrics}"
        );
    }
    assert_eq!(
        series(
            &indexer_metrics,
            "upstream_errors_total",
            &[r#"upstream="yellowstone""#]
        ),
        None,
        "the localnet's gRPC answered: {indexer_metrics}"
    );

    // Live subscribers when SIGTERM arrives: one SSE stream and one WebSocket with a subscription.
    let mut sse = http
        .get(format!("{base}/launchpad/stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(sse.status(), 200);
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{listen}/launchpad/ws"))
        .await
        .unwrap();
    {
        use futures::SinkExt;
        ws.send(tokio_tungstenite::tungstenite::Message::Text(
            r#"{"op":"subscribe","kinds":["trade"]}"#.into(),
        ))
        .await
        .unwrap();
    }

    // A request in flight when SIGTERM arrives: its headers are in, its body is not yet.
    let body = br#"{"chainKey":"solana","dexId":"launchpad-solana"}"#;
    let mut conn = tokio::net::TcpStream::connect(("127.0.0.1", api_port))
        .await
        .unwrap();
    conn.write_all(
        format!(
            "POST /swap/record HTTP/1.1\r\nhost: {listen}\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    conn.write_all(&body[..10]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pid = child.id().expect("running").to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let terminated = Instant::now();
    // Each stream ends with its last word: where to resume.
    let mut said = String::new();
    while let Ok(Some(chunk)) = tokio::time::timeout(Duration::from_secs(10), sse.chunk())
        .await
        .expect("the SSE stream ends within 10 s of SIGTERM")
    {
        said.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(
        said.contains("event: shutdown") && said.contains("lastSeq"),
        "{said}"
    );
    let mut closed = None;
    let mut words = String::new();
    while let Some(msg) = tokio::time::timeout(Duration::from_secs(10), {
        use futures::StreamExt;
        ws.next()
    })
    .await
    .expect("the WebSocket closes within 10 s of SIGTERM")
    {
        match msg {
            Ok(tokio_tungstenite::tungstenite::Message::Text(t)) => words.push_str(t.as_str()),
            Ok(tokio_tungstenite::tungstenite::Message::Close(frame)) => {
                closed = frame.map(|f| u16::from(f.code));
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert!(words.contains("\"shutdown\""), "{words}");
    assert_eq!(closed, Some(1012), "closed as a service restart");
    tokio::time::sleep(Duration::from_millis(500)).await;
    // New connections are no longer accepted...
    assert!(
        http.get(format!("{base}/health")).send().await.is_err(),
        "the listener closes on SIGTERM"
    );
    // ...but the request in flight is answered.
    conn.write_all(&body[10..]).await.unwrap();
    let mut response = String::new();
    tokio::time::timeout(Duration::from_secs(10), conn.read_to_string(&mut response))
        .await
        .expect("answered")
        .unwrap();
    assert!(
        response.starts_with("HTTP/1.1 4") && response.contains(r#"{"error":{"#),
        "the request in flight is answered in full: {response}"
    );
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("exits within 30 s of SIGTERM")
        .unwrap();
    eprintln!(
        "exited {:?} after SIGTERM, with an SSE and a WebSocket subscriber",
        terminated.elapsed()
    );
    let mut log = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut log).await;
    }
    let mut out = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out).await;
    }
    assert!(
        status.success(),
        "a clean exit, not a kill: {status:?}\n{out}{log}"
    );
    assert!(format!("{out}{log}").contains("SIGTERM"), "{out}{log}");
    net.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM as a load balancer sees it: `/readyz` turns 503 (`shutting down`) for `--shutdown-drain-secs`
/// while every other route still answers, then the listener closes (connection refused) and the process
/// exits cleanly.
#[tokio::test]
async fn sigterm_turns_readiness_503_for_the_drain_while_the_replica_serves_then_closes() {
    let dir = std::env::temp_dir().join(format!("api-drain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let port = testkit::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let listen = format!("127.0.0.1:{port}");
    let mut child = api_command(&[
        "serve",
        "--rpc-url",
        "http://127.0.0.1:9",
        "--database-url",
        &db,
        "--public-base-url",
        &base,
        "--listen",
        &listen,
        "--shutdown-drain-secs",
        "3",
    ])
    .spawn()
    .expect("api serve starts");
    // A fresh connection per probe, as a load balancer's health check makes: a pooled keep-alive connection
    // that the server closes as the drain ends would fail the next request mid-send (CI saw "error sending
    // request" there), which says nothing about the listener.
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let started = Instant::now();
    loop {
        match http.get(format!("{base}/readyz")).send().await {
            Ok(r) if r.status() == 200 => break,
            _ => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the API did not get ready"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pid = child.id().expect("running").to_string();
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let terminated = Instant::now();
    // What the poller saw, in order, runs of the same answer merged; and how long it saw 503.
    let mut seen: Vec<String> = Vec::new();
    let (mut first_503, mut last_503) = (None, None);
    while terminated.elapsed() < Duration::from_secs(15) {
        let answer = match http.get(format!("{base}/readyz")).send().await {
            Ok(r) => {
                let status = r.status().as_u16();
                let body: serde_json::Value = r.json().await.unwrap_or_default();
                if status == 503 {
                    assert_eq!(
                        body,
                        serde_json::json!({"status": "unavailable", "reason": "shutting down"})
                    );
                    first_503.get_or_insert(terminated.elapsed());
                    last_503 = Some(terminated.elapsed());
                    // Every other route still answers meanwhile.
                    match http.get(format!("{base}/health")).send().await {
                        Ok(other) => {
                            assert_eq!(other.status(), 200, "a draining replica still serves")
                        }
                        // The drain may end between the two requests.
                        Err(_) if terminated.elapsed() >= Duration::from_millis(2_500) => {}
                        Err(e) => panic!("a draining replica stopped serving: {e}"),
                    }
                }
                status.to_string()
            }
            Err(e) if e.is_connect() => "refused".to_string(),
            // The listener closing between accept and answer, once the drain is over, is the close itself.
            Err(e) if terminated.elapsed() >= Duration::from_millis(2_500) => {
                eprintln!("closed mid-request after the drain: {e}");
                "refused".to_string()
            }
            Err(e) => panic!("neither an answer nor a refusal: {e}"),
        };
        if seen.last() != Some(&answer) {
            seen.push(answer.clone());
        }
        if answer == "refused" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (first, last) = (first_503.unwrap(), last_503.unwrap());
    eprintln!("after SIGTERM: {seen:?}, 503 from {first:?} to {last:?}");
    assert!(
        seen == ["503", "refused"] || seen == ["200", "503", "refused"],
        "{seen:?}"
    );
    assert!(
        first < Duration::from_millis(500),
        "503 only after {first:?}"
    );
    assert!(
        last - first >= Duration::from_millis(2_500),
        "503 for only {:?} of a 3 s drain",
        last - first
    );
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("exits after the drain")
        .unwrap();
    assert!(status.success(), "a clean exit: {status:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `(flag, env var)` of every option a `--help` text lists.
fn flags_in_help(help: &str) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for line in help.lines() {
        let line = line.trim();
        if line.starts_with("--") || line.starts_with('-') && line.contains(", --") {
            let flag = line
                .split_whitespace()
                .find(|w| w.starts_with("--"))
                .unwrap()
                .trim_end_matches(',')
                .to_string();
            if flag != "--help" && flag != "--version" {
                out.push((flag, None));
            }
        } else if let Some(env) = line.strip_prefix("[env: ") {
            let name = env.split(['=', ']']).next().unwrap().to_string();
            if let Some(last) = out.last_mut() {
                last.1 = Some(name);
            }
        }
    }
    out
}

#[tokio::test]
async fn every_flag_of_api_and_indexer_is_in_the_operations_reference() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/operations.md"
    ))
    .unwrap();
    let mut flags = Vec::new();
    for sub in ["serve", "keeper"] {
        let (ok, help) = output_of(&[sub, "--help"]).await;
        assert!(ok, "{help}");
        flags.extend(flags_in_help(&help));
    }
    // The indexer binary's flags are `IndexerConfig`'s (which `serve` flattens too).
    let indexer =
        <indexer::IndexerConfig as clap::Args>::augment_args(clap::Command::new("indexer"));
    for arg in indexer.get_arguments() {
        if let Some(long) = arg.get_long() {
            flags.push((
                format!("--{long}"),
                arg.get_env().map(|e| e.to_string_lossy().into_owned()),
            ));
        }
    }
    assert!(flags.len() > 30, "{flags:?}");
    let mut missing = Vec::new();
    for (flag, env) in &flags {
        // A flag's row in a table: `| `--flag` | `ENV` | default | what |`.
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{flag}` |")));
        match (row, env) {
            (None, _) => missing.push(flag.clone()),
            (Some(row), Some(env)) if !row.contains(&format!("`{env}`")) => {
                missing.push(format!("{flag} ({env})"))
            }
            _ => {}
        }
    }
    assert!(missing.is_empty(), "not in docs/operations.md: {missing:?}");
}

/// `scripts/rekey` on a scratch copy of the files it edits: every address of both programs is replaced by the
/// public half of the given keypair files, in the sources, each cluster of Anchor.toml and the IDLs.
#[test]
fn rekey_gives_both_programs_the_keypairs_addresses_everywhere() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scratch = std::env::temp_dir().join(format!("rekey-{}", std::process::id()));
    let files = [
        "scripts/rekey",
        "programs/launchpad/src/lib.rs",
        "programs/amm/src/lib.rs",
        "Anchor.toml",
        "idl/launchpad.json",
        "idl/amm.json",
    ];
    for file in files {
        let to = scratch.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo.join(file), &to).unwrap();
    }
    // Keypair files in the Solana CLI's format; only their public halves matter here.
    let keypair = |name: &str, seed: u8| {
        let bytes: Vec<u8> = (0..64u8)
            .map(|i| i.wrapping_mul(31).wrapping_add(seed))
            .collect();
        std::fs::write(scratch.join(name), serde_json::to_string(&bytes).unwrap()).unwrap();
        bs58::encode(&bytes[32..]).into_string()
    };
    let (launchpad, amm) = (keypair("l.json", 1), keypair("a.json", 2));
    let out = std::process::Command::new(scratch.join("scripts/rekey"))
        .args([
            "--launchpad-keypair",
            "l.json",
            "--amm-keypair",
            "a.json",
            "--no-idl",
        ])
        .current_dir(&scratch)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |f: &str| std::fs::read_to_string(scratch.join(f)).unwrap();
    assert!(
        read("programs/launchpad/src/lib.rs").contains(&format!("declare_id!(\"{launchpad}\");"))
    );
    assert!(read("programs/amm/src/lib.rs").contains(&format!("declare_id!(\"{amm}\");")));
    let anchor = read("Anchor.toml");
    for cluster in ["localnet", "devnet", "mainnet"] {
        let section = anchor
            .split(&format!("[programs.{cluster}]"))
            .nth(1)
            .unwrap_or_else(|| panic!("no [programs.{cluster}]: {anchor}"));
        let section = section.split("\n[").next().unwrap();
        assert!(
            section.contains(&format!("launchpad = \"{launchpad}\""))
                && section.contains(&format!("amm = \"{amm}\"")),
            "{cluster}: {section}"
        );
    }
    let idl: serde_json::Value = serde_json::from_str(&read("idl/launchpad.json")).unwrap();
    assert_eq!(idl["address"], launchpad.as_str());
    let idl: serde_json::Value = serde_json::from_str(&read("idl/amm.json")).unwrap();
    assert_eq!(idl["address"], amm.as_str());
    for old in [launchpad::ID.to_string(), amm_id()] {
        for file in &files[1..] {
            assert!(!read(file).contains(&old), "{old} is left in {file}");
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The AMM's address as compiled into this build (the launchpad's IDL names it).
fn amm_id() -> String {
    let idl: serde_json::Value =
        serde_json::from_str(include_str!("../../../idl/amm.json")).unwrap();
    idl["address"].as_str().unwrap().to_string()
}

/// A canary secret in every upstream URL `serve` takes (the Solana RPC node, Jupiter, an EVM RPC node), each
/// upstream failing (nothing listens on port 9): no response and no log line carries the canary.
#[tokio::test]
async fn no_upstream_secret_reaches_a_caller_or_a_log() {
    use solana_signer::Signer;
    const CANARY: &str = "CANARY7c1f";
    let dir = std::env::temp_dir().join(format!("api-canary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let port = testkit::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let rpc = format!("http://127.0.0.1:9/?api-key={CANARY}");
    let jupiter = format!("http://user:{CANARY}@127.0.0.1:9/swap/v1?api-key={CANARY}");
    let evm = format!("ethereum=http://127.0.0.1:9/{CANARY}0123456789abcdefghijkl/");
    // The aggregators answer, and their errors repeat what they were sent: the URL with its query and
    // every header (the worst an upstream does). 0x refuses the key (401); the others fail (500).
    let leaky = leaky_upstream().await;
    let kyberswap = format!(
        "http://user:{CANARY}@{leaky}/kyberswap/{CANARY}0123456789abcdefghijkl?key={CANARY}"
    );
    let zerox = format!("http://{leaky}/zerox?key={CANARY}");
    let lifi = format!("http://{leaky}/lifi?key={CANARY}");
    let relay = format!("http://{leaky}/relay/{CANARY}0123456789abcdefghijkl");
    let child = api_command(&[
        "serve",
        "--rpc-url",
        &rpc,
        "--database-url",
        &db,
        "--public-base-url",
        &base,
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--jupiter-base-url",
        &jupiter,
        "--evm-rpc",
        &evm,
        "--kyberswap-base-url",
        &kyberswap,
        "--zerox-base-url",
        &zerox,
        "--zerox-api-key",
        CANARY,
        "--lifi-base-url",
        &lifi,
        "--relay-base-url",
        &relay,
    ])
    .env("RUST_LOG", "debug,hyper=info,h2=info,rustls=info,sqlx=info")
    // JSON lines, as a log collector takes them: the redaction must hold in them too.
    .env(ops::logging::LOG_FORMAT_ENV, "json")
    .spawn()
    .expect("api serve starts");
    let http = reqwest::Client::new();
    let started = Instant::now();
    while http.get(format!("{base}/livez")).send().await.is_err() {
        assert!(started.elapsed() < Duration::from_secs(60), "serve starts");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A well-formed signed transaction (a transfer with a made-up blockhash): relayed to the failing node.
    let payer = solana_keypair::Keypair::new();
    let tx = solana_transaction::Transaction::new_signed_with_payer(
        &[solana_system_interface::instruction::transfer(
            &payer.pubkey(),
            &solana_pubkey::Pubkey::new_unique(),
            1,
        )],
        Some(&payer.pubkey()),
        &[&payer],
        solana_transaction::Hash::new_unique(),
    );
    use base64::Engine as _;
    let signed = base64::engine::general_purpose::STANDARD.encode(bincode::serialize(&tx).unwrap());
    let sol = "So11111111111111111111111111111111111111112";
    let usdc = "EPjFWdd5AufqSSqeM2qJxdTJwYBYBCTPsaQ6yd8A8mpK";
    let owner = "0x1111111111111111111111111111111111111111";
    let token = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
    let posts = [
        (
            "/swap/submit-solana",
            serde_json::json!({ "signedTransaction": signed }),
        ),
        (
            "/swap/quote",
            serde_json::json!({ "chainKey": "solana", "tokenIn": sol, "tokenOut": usdc, "amountIn": "1000000" }),
        ),
        (
            "/swap/build",
            serde_json::json!({ "chainKey": "solana", "tokenIn": sol, "tokenOut": usdc, "amountIn": "1000000",
                                "taker": payer.pubkey().to_string() }),
        ),
        // KyberSwap and 0x.
        (
            "/swap/quote",
            serde_json::json!({ "chainKey": "ethereum", "tokenIn": "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE",
                                "tokenOut": token, "amountIn": "1000000000000000000", "taker": owner }),
        ),
        // LI.FI, then Relay.
        (
            "/swap/cross-chain/quote",
            serde_json::json!({ "fromChainKey": "ethereum", "toChainKey": "solana",
                                "tokenIn": "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE", "tokenOut": usdc,
                                "amountIn": "1000000000000000000", "taker": owner,
                                "recipient": payer.pubkey().to_string() }),
        ),
    ];
    let gets = [
        format!("/swap/allowance?chainKey=ethereum&token={token}&owner={owner}&spender={owner}"),
        format!("/launchpad/claimable/{}", payer.pubkey()),
        format!("/launchpad/fees?wallet={}", payer.pubkey()),
        "/health".to_string(),
        "/readyz".to_string(),
    ];
    let mut answers = String::new();
    for (path, body) in &posts {
        let r = http
            .post(format!("{base}{path}"))
            .json(body)
            .send()
            .await
            .unwrap();
        answers.push_str(&format!(
            "{path} {} {}\n",
            r.status(),
            r.text().await.unwrap()
        ));
    }
    for path in &gets {
        let r = http.get(format!("{base}{path}")).send().await.unwrap();
        answers.push_str(&format!(
            "{path} {} {}\n",
            r.status(),
            r.text().await.unwrap()
        ));
    }
    eprintln!("{answers}");
    assert!(
        answers.contains("/swap/submit-solana 503"),
        "the relay failed upstream: {answers}"
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
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !answers.contains(CANARY),
        "a response carries the secret:\n{answers}"
    );
    assert!(
        log.contains("127.0.0.1:9"),
        "the upstream failures were logged (with the secret removed)"
    );
    // The Basic authorization a URL's user information becomes (KyberSwap's, echoed back) is its secret too.
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("user:{CANARY}"));
    assert!(
        !log.contains(&basic) && !answers.contains(&basic),
        "the Basic authorization leaked:\n{log}"
    );
    let asked = LEAKY_REQUESTS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(asked >= 4, "every aggregator was asked ({asked} requests)");
    assert!(!log.contains(CANARY), "the log carries the secret:\n{log}");
    // Every stdout line is one JSON object; a request's lines carry its id.
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(v["level"].is_string() && v["fields"].is_object(), "{line}");
    }
    assert!(
        stdout.contains("\"request_id\""),
        "request lines carry their id:\n{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

static LEAKY_REQUESTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// An aggregator that fails every request and repeats it in its error: method, path and query, and every
/// header. 401 under `/zerox` (a refused key), 500 elsewhere. Its address.
async fn leaky_upstream() -> std::net::SocketAddr {
    let app = axum::Router::new().fallback(
        |method: axum::http::Method, uri: axum::http::Uri, headers: axum::http::HeaderMap| async move {
            LEAKY_REQUESTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let status = if uri.path().starts_with("/zerox") {
                axum::http::StatusCode::UNAUTHORIZED
            } else {
                axum::http::StatusCode::INTERNAL_SERVER_ERROR
            };
            let echo = serde_json::json!({
                "message": format!("cannot serve {method} {uri}"),
                "headers": format!("{headers:?}"),
            });
            (status, axum::Json(echo))
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// `--help` names each setting's variable but never shows a value it holds (URLs carry providers' keys).
#[tokio::test]
async fn help_never_shows_a_secret_from_the_environment() {
    const CANARY: &str = "CANARY9d2e";
    let mut cmd = api_command(&["serve", "--help"]);
    for var in [
        "RPC_URL",
        "GRPC_URL",
        "DATABASE_URL",
        "GRPC_X_TOKEN",
        "JUPITER_BASE_URL",
        "ZEROX_API_KEY",
    ] {
        cmd.env(var, format!("http://127.0.0.1:9/?api-key={CANARY}"));
    }
    cmd.env(
        "EVM_RPC_URLS",
        format!("ethereum=http://127.0.0.1:9/?k={CANARY}"),
    );
    let out = cmd.output().await.unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("RPC_URL"), "{help}");
    assert!(!help.contains(CANARY), "{help}");
}
