//! `api serve --otlp-endpoint` (issue 41): a local server in an OpenTelemetry collector's place receives the
//! OTLP/HTTP export (protobuf, decoded with the protocol's own definitions) and finds the span of a request
//! with its route, and, as its child in the same trace, the span of the upstream call the request made.

use localnet::testkit;
use localnet::{Localnet, LocalnetConfig};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const API: &str = env!("CARGO_BIN_EXE_api");

/// What the collector received: each export's service name and spans.
type Received = Arc<Mutex<Vec<(String, Span)>>>;

/// A server in an OTLP/HTTP collector's place (`POST /v1/traces`, protobuf); its base URL.
async fn collector(received: Received) -> String {
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let received = received.clone();
                async move {
                    assert_eq!(
                        headers.get("content-type").unwrap(),
                        "application/x-protobuf"
                    );
                    let export = ExportTraceServiceRequest::decode(body).expect("an OTLP export");
                    for resource in export.resource_spans {
                        let attributes =
                            resource.resource.map(|r| r.attributes).unwrap_or_default();
                        let service = attribute(&attributes, "service.name").unwrap_or_default();
                        for scope in resource.scope_spans {
                            for span in scope.spans {
                                received.lock().unwrap().push((service.clone(), span));
                            }
                        }
                    }
                    axum::http::StatusCode::OK
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// A string attribute's value.
fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes.iter().find(|a| a.key == key).and_then(|a| {
        match a.value.as_ref()?.value.as_ref()? {
            AnyValue::StringValue(s) => Some(s.clone()),
            _ => None,
        }
    })
}

/// A server in Jupiter's place that answers every quote 503.
async fn failing_jupiter() -> String {
    let app = axum::Router::new().route(
        "/swap/v1/quote",
        axum::routing::get(|| async {
            (axum::http::StatusCode::SERVICE_UNAVAILABLE, "overloaded")
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/swap/v1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_requests_span_and_its_upstream_call_reach_the_collector() {
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let received = Received::default();
    let otlp = collector(received.clone()).await;
    let jupiter = failing_jupiter().await;
    let dir = std::env::temp_dir().join(format!("api-traces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let port = testkit::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = tokio::process::Command::new(API)
        .args([
            "serve",
            "--otlp-endpoint",
            &otlp,
            "--rpc-url",
            &net.rpc_url(),
            "--database-url",
            &db,
            "--public-base-url",
            &base,
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--jupiter-base-url",
            &jupiter,
            "--shutdown-drain-secs",
            "0",
        ])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("RUST_LOG", "warn,api=info,ops=info")
        // Batches leave every 100 ms rather than every 5 s (the specification's variable).
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("api serve starts");
    let http = reqwest::Client::new();
    let started = Instant::now();
    while http.get(format!("{base}/livez")).send().await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the API did not start"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // A Solana quote Jupiter fails: the request's span, and the call to Jupiter inside it.
    let response = http
        .post(format!("{base}/swap/quote"))
        .json(&serde_json::json!({"chainKey": "solana",
            "tokenIn": "So11111111111111111111111111111111111111112",
            "tokenOut": net.usdc_mint.to_string(), "amountIn": "1000000"}))
        .send()
        .await
        .unwrap();
    assert!(response.status().is_client_error() || response.status().is_server_error());

    let start = Instant::now();
    let (request, call) = loop {
        let spans = received.lock().unwrap().clone();
        let request = spans.iter().find(|(_, s)| {
            s.name == "request"
                && attribute(&s.attributes, "route").as_deref() == Some("/swap/quote")
        });
        let call = spans
            .iter()
            .find(|(_, s)| attribute(&s.attributes, "upstream").as_deref() == Some("jupiter"));
        if let (Some(request), Some(call)) = (request, call) {
            break (request.clone(), call.clone());
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the collector has no span of the quote and its call: {:?}",
            spans
                .iter()
                .map(|(svc, s)| (svc.clone(), s.name.clone()))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let (service, request) = request;
    assert_eq!(service, "launchpad-api");
    assert_eq!(request.kind, SpanKind::Server as i32);
    assert_eq!(
        attribute(&request.attributes, "method").as_deref(),
        Some("POST")
    );
    assert_eq!(
        attribute(&request.attributes, "path").as_deref(),
        Some("/swap/quote")
    );
    let (_, call) = call;
    assert_eq!(call.name, "jupiter /quote");
    assert_eq!(call.kind, SpanKind::Client as i32);
    assert_eq!(
        attribute(&call.attributes, "method").as_deref(),
        Some("/quote")
    );
    assert_eq!(
        attribute(&call.attributes, "error").as_deref(),
        Some("server_error")
    );
    assert_eq!(call.trace_id, request.trace_id, "one trace");
    assert_eq!(
        call.parent_span_id, request.span_id,
        "the call is the request's child"
    );
    assert!(call.end_time_unix_nano >= call.start_time_unix_nano);

    let _ = child.kill().await;
    net.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
