//! `indexer --otlp-endpoint` (issue 41): a local server in an OpenTelemetry collector's place receives the
//! OTLP/HTTP export (protobuf, decoded with the protocol's own definitions) and finds the span of the
//! indexer's call to its Yellowstone source, with the call's error (nothing listens there), as the
//! `launchpad-indexer` service; and the same calls in its metrics (requests, errors by kind, latency).

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const INDEXER: &str = env!("CARGO_BIN_EXE_indexer");

/// A string attribute's value.
fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes.iter().find(|a| a.key == key).and_then(|a| {
        match a.value.as_ref()?.value.as_ref()? {
            AnyValue::StringValue(s) => Some(s.clone()),
            _ => None,
        }
    })
}

/// The sum of every sample of `name` whose line holds each of `labels` (0 when there is none).
fn total(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| {
            l.split([' ', '{']).next() == Some(name) && labels.iter().all(|x| l.contains(x))
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The body of `GET path` on `addr` (plain HTTP/1.1, as the indexer's port serves it).
async fn http_text(addr: &str, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut conn = tokio::net::TcpStream::connect(addr).await.unwrap();
    conn.write_all(
        format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut out = String::new();
    conn.read_to_string(&mut out).await.unwrap();
    out
}

#[tokio::test]
async fn the_indexers_source_calls_reach_the_collector() {
    let received: Arc<Mutex<Vec<(String, Span)>>> = Arc::default();
    let kept = received.clone();
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: axum::body::Bytes| {
            let kept = kept.clone();
            async move {
                let export = ExportTraceServiceRequest::decode(body).expect("an OTLP export");
                for resource in export.resource_spans {
                    let attributes = resource.resource.map(|r| r.attributes).unwrap_or_default();
                    let service = attribute(&attributes, "service.name").unwrap_or_default();
                    for scope in resource.scope_spans {
                        for span in scope.spans {
                            kept.lock().unwrap().push((service.clone(), span));
                        }
                    }
                }
                axum::http::StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let collector = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = std::env::temp_dir().join(format!("indexer-traces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let health = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    // Nothing listens on port 9: each try to reach the source is a failed `connect`.
    let mut child = tokio::process::Command::new(INDEXER)
        .args([
            "--database-url",
            &db,
            "--rpc-url",
            "http://127.0.0.1:9",
            "--grpc-url",
            "http://127.0.0.1:9",
            "--otlp-endpoint",
            &collector,
            "--health-addr",
            &health,
        ])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "info")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let start = Instant::now();
    let (service, span) = loop {
        let found = received
            .lock()
            .unwrap()
            .iter()
            .find(|(_, s)| attribute(&s.attributes, "upstream").as_deref() == Some("yellowstone"))
            .cloned();
        if let Some(found) = found {
            break found;
        }
        assert!(child.try_wait().unwrap().is_none(), "the indexer exited");
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no span of the source's calls reached the collector"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(service, "launchpad-indexer");
    assert_eq!(span.name, "yellowstone connect");
    assert_eq!(span.kind, SpanKind::Client as i32);
    assert_eq!(
        attribute(&span.attributes, "method").as_deref(),
        Some("connect")
    );
    assert_eq!(
        attribute(&span.attributes, "error").as_deref(),
        Some("connect")
    );

    // The same calls in the indexer's metrics: requests, errors by kind, latency.
    let metrics = http_text(&health, "/metrics").await;
    let connect = [r#"upstream="yellowstone""#, r#"method="connect""#];
    let calls = total(&metrics, "upstream_requests_total", &connect);
    assert!(calls >= 1.0, "{metrics}");
    let mut refused = connect.to_vec();
    refused.push(r#"kind="connect""#);
    assert_eq!(
        total(&metrics, "upstream_errors_total", &refused),
        calls,
        "{metrics}"
    );
    assert_eq!(
        total(
            &metrics,
            "upstream_request_duration_seconds_count",
            &connect
        ),
        calls,
        "{metrics}"
    );
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
