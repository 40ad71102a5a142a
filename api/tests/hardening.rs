//! The service's edges, on a real HTTP server over a SQLite index (no chain needed): every error in the
//! spec's envelope (extractor rejections, a panicking handler), CORS, and rate limits by client behind
//! trusted proxies.

mod common;

use api::config::ApiConfig;
use api::AppState;
use axum::routing::get;
use common::assert_error;
use indexer::Store;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;

/// `app` served on a free loopback port; its base URL.
async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    });
    format!("http://{addr}")
}

/// The API's state over a fresh SQLite index; its Solana RPC points at a closed port (nothing here reads
/// the chain).
async fn state(config: impl FnOnce(ApiConfig) -> ApiConfig) -> AppState {
    let store = Store::open(&common::database(false).await).await.unwrap();
    let config = config(ApiConfig::local("127.0.0.1:0".parse().unwrap()));
    AppState::new(
        store,
        config,
        Arc::new(solana_rpc_client::nonblocking::rpc_client::RpcClient::new(
            "http://127.0.0.1:9".into(),
        )),
        None,
    )
}

async fn get_json(http: &reqwest::Client, url: &str) -> (u16, String, Value) {
    let r = http.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    let content_type = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, content_type, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn query_and_path_rejections_are_in_the_envelope() {
    let base = serve(api::router(state(|c| c).await)).await;
    let http = reqwest::Client::new();
    for url in [
        // A repeated query key.
        format!("{base}/launchpad/launches?limit=1&limit=2"),
        format!("{base}/swap/tokens?chainKey=base&chainKey=solana"),
        format!("{base}/launchpad/fees?creator=a&creator=b"),
        // A path segment that is not UTF-8.
        format!("{base}/launchpad/curve/%FF%FE"),
        format!("{base}/launchpad/trades/%C3%28"),
    ] {
        let (status, content_type, body) = get_json(&http, &url).await;
        assert_eq!(status, 400, "{url}: {body}");
        assert!(content_type.starts_with("application/json"), "{url}");
        assert_error(&body, "INVALID_PARAMS");
    }
}

#[tokio::test]
async fn a_panicking_handler_answers_500_in_the_envelope_and_the_service_keeps_serving() {
    let state = state(|c| c).await;
    let endpoints = axum::Router::new()
        .route(
            "/boom",
            get(|| async {
                if true {
                    panic!("made to panic");
                }
                "unreachable"
            }),
        )
        .route("/fine", get(|| async { "ok" }));
    let base = serve(api::layered(endpoints, state)).await;
    let http = reqwest::Client::new();
    let (status, content_type, body) = get_json(&http, &format!("{base}/boom")).await;
    assert_eq!(status, 500, "{body}");
    assert!(content_type.starts_with("application/json"));
    assert_error(&body, "INTERNAL");
    assert!(!body.to_string().contains("made to panic"), "{body}");
    let r = http.get(format!("{base}/fine")).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn cors_allows_the_configured_origins_only() {
    let allowed = "https://app.example.com";
    let base = serve(api::router(
        state(|c| ApiConfig {
            cors_origins: vec![axum::http::HeaderValue::from_static(allowed)],
            ..c
        })
        .await,
    ))
    .await;
    let http = reqwest::Client::new();
    // A preflight from the allowed origin.
    let r = http
        .request(reqwest::Method::OPTIONS, format!("{base}/swap/quote"))
        .header("origin", allowed)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(r.headers()["access-control-allow-origin"], allowed);
    assert!(r.headers()["access-control-allow-methods"]
        .to_str()
        .unwrap()
        .contains("POST"));
    // A simple request from it, and one from elsewhere.
    let r = http
        .get(format!("{base}/health"))
        .header("origin", allowed)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["access-control-allow-origin"], allowed);
    let r = http
        .get(format!("{base}/health"))
        .header("origin", "https://evil.example.com")
        .send()
        .await
        .unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());

    // `*` (what `api dev` uses): any origin.
    let base = serve(api::router(
        state(|c| ApiConfig {
            cors_origins: vec![axum::http::HeaderValue::from_static("*")],
            ..c
        })
        .await,
    ))
    .await;
    let r = http
        .get(format!("{base}/health"))
        .header("origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["access-control-allow-origin"], "*");

    // None configured (`serve`'s default): no CORS headers.
    let base = serve(api::router(state(|c| c).await)).await;
    let r = http
        .get(format!("{base}/health"))
        .header("origin", allowed)
        .send()
        .await
        .unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());
}
