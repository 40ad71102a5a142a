//! The API behind a real nginx (Debian's package) configured with the documented locations
//! (`deploy/nginx/launchpad-locations.conf`): a client that forges `X-Forwarded-For` or `Forwarded` keeps
//! its identity (its rate limit and its feed connection cap hold), while two real clients behind the proxy
//! (distinct loopback source addresses, so nginx sees two peers) are told apart.

use api::process::config::ApiConfig;
use api::AppState;
use index::Store;
use serde_json::Value;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common;

const NGINX: &str = "/usr/sbin/nginx";

/// nginx as a child process, on a config generated in a directory of its own; killed on drop.
struct Nginx {
    child: std::process::Child,
    dir: PathBuf,
    port: u16,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Nginx {
    /// nginx on a free loopback port in front of the API at `upstream`, with the documented locations.
    async fn start(upstream: SocketAddr) -> Nginx {
        let port = localnet::testkit::free_port();
        let dir = std::env::temp_dir().join(format!(
            "nginx-{}-{port}-{}",
            std::process::id(),
            upstream.port()
        ));
        std::fs::create_dir_all(dir.join("logs")).unwrap();
        let locations = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../deploy/nginx/launchpad-locations.conf")
            .canonicalize()
            .unwrap();
        let d = dir.display();
        let conf = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
             error_log {d}/logs/error.log warn;\nevents {{ worker_connections 256; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
               fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
               upstream launchpad_api {{ server {upstream}; keepalive 8; }}\n\
               server {{\n    listen 127.0.0.1:{port};\n    include {};\n  }}\n}}\n",
            locations.display()
        );
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let child = std::process::Command::new(NGINX)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .stdin(std::process::Stdio::null())
            .spawn()
            .expect("nginx (Debian's package) runs");
        let nginx = Nginx { child, dir, port };
        let started = Instant::now();
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not start: {}",
                std::fs::read_to_string(nginx.dir.join("logs/error.log")).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        nginx
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// An API replica (`api::serve`, as `api serve` runs it) over a fresh SQLite index, trusting the proxy on
/// 127.0.0.1 only.
async fn replica(configure: impl FnOnce(ApiConfig) -> ApiConfig) -> SocketAddr {
    let store = Store::open(&common::database(false).await).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = configure(ApiConfig {
        trusted_proxies: vec!["127.0.0.1/32".parse().unwrap()],
        ..ApiConfig::local(addr)
    });
    let state = AppState::new(
        store,
        config,
        Arc::new(solana_rpc_client::nonblocking::rpc_client::RpcClient::new(
            "http://127.0.0.1:9".into(),
        )),
        None,
    );
    tokio::spawn(api::serve(state, listener, std::future::pending()));
    addr
}

/// A client whose connections come from `source` (a loopback address of its own).
fn client_from(source: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(source.parse::<IpAddr>().unwrap())
        .build()
        .unwrap()
}

/// The forged headers of request `i`: a new "client" each time, in both headers.
fn forged(i: usize) -> [(&'static str, String); 2] {
    [
        ("x-forwarded-for", format!("198.51.100.{i}")),
        ("forwarded", format!("for=\"[2001:db8::{i:x}]\"")),
    ]
}

async fn get(http: &reqwest::Client, url: &str, headers: &[(&str, String)]) -> (u16, Value) {
    let mut r = http.get(url);
    for (k, v) in headers {
        r = r.header(*k, v);
    }
    let r = r.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_client_forging_forwarding_headers_keeps_its_rate_limit_and_clients_are_told_apart() {
    // One request a second sustained, 3 at once: a fourth within the same second is over the limit.
    let api = replica(|c| ApiConfig {
        rate_limit_per_second: 1,
        rate_limit_burst: 3,
        ..c
    })
    .await;
    let nginx = Nginx::start(api).await;
    let url = nginx.url("/health");
    let (a, b) = (client_from("127.0.0.2"), client_from("127.0.0.3"));

    // Client A's burst, every request claiming to come from someone new, in both headers.
    let mut seen = Vec::new();
    let mut refused = Value::Null;
    for i in 0..4 {
        let (status, body) = get(&a, &url, &forged(i)).await;
        seen.push(status);
        if status == 429 {
            refused = body;
        }
    }
    assert_eq!(
        seen,
        [200, 200, 200, 429],
        "A forged its way past its limit"
    );
    assert_eq!(refused["error"]["code"], "RATE_LIMITED", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("too many requests; retry after")),
        "{refused}"
    );
    // Still limited whatever it writes, either header alone.
    let (status, body) = get(&a, &url, &[("x-forwarded-for", "203.0.113.7".into())]).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (429, &"RATE_LIMITED".into())
    );
    let (status, body) = get(&a, &url, &[("forwarded", "for=203.0.113.8".into())]).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (429, &"RATE_LIMITED".into())
    );

    // Client B behind the same proxy is someone else: its own burst, untouched by A's.
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(get(&b, &url, &[]).await.0);
    }
    assert_eq!(seen, [200, 200, 200], "B was counted as A");
}

#[tokio::test]
async fn a_client_forging_forwarding_headers_keeps_its_feed_connection_cap() {
    let api = replica(|c| ApiConfig {
        feed_max_connections: 1,
        ..c
    })
    .await;
    let nginx = Nginx::start(api).await;
    let url = nginx.url("/launchpad/stream");
    let (a, b) = (client_from("127.0.0.2"), client_from("127.0.0.3"));
    let open = |http: &reqwest::Client, headers: &[(&'static str, String)]| {
        let mut r = http.get(&url);
        for (k, v) in headers {
            r = r.header(*k, v);
        }
        r.send()
    };
    let first = open(&a, &forged(1)).await.unwrap();
    assert_eq!(first.status(), 200);
    // A second stream of A's under another name is A's second: refused.
    let second = open(&a, &forged(2)).await.unwrap();
    assert_eq!(second.status(), 429);
    let body: Value = second.json().await.unwrap();
    assert_eq!(body["error"]["code"], "TOO_MANY_CONNECTIONS", "{body}");
    // B's first is its own.
    let other = open(&b, &[]).await.unwrap();
    assert_eq!(other.status(), 200, "B was counted as A");
    drop((first, other));
}
