//! The TypeScript SDK's REST client is generated from the API's OpenAPI document, committed as
//! `clients/ts/openapi.json`: this test fails when the served document differs from it (run with
//! `UPDATE_OPENAPI=1` to rewrite it, then `npm run generate` in clients/ts), as the IDL test does for the
//! programs.

mod common;

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_typescript_sdk_has_the_served_openapi_document() {
    let s = stack(false, 1_000).await;
    let http = reqwest::Client::new();
    let (status, doc) = get(&http, &format!("{}/openapi.json", s.base)).await;
    assert_eq!(status, 200);
    let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../clients/ts/openapi.json");
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &text).unwrap();
    } else {
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "clients/ts/openapi.json is stale: run `UPDATE_OPENAPI=1 cargo test -p api --test openapi` and \
             `npm run generate` in clients/ts, and commit both"
        );
    }
    let _ = s.stop.send(true);
}

/// OpenAPI requires every operation's `operationId` to be unique (client generators refuse the document
/// otherwise).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_operation_id_is_unique() {
    let s = stack(false, 1_000).await;
    let http = reqwest::Client::new();
    let (_, doc) = get(&http, &format!("{}/openapi.json", s.base)).await;
    let mut seen = std::collections::BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if let Some(id) = op.get("operationId").and_then(|v| v.as_str()) {
                if let Some(other) = seen.insert(id.to_string(), format!("{method} {path}")) {
                    panic!("operationId {id} is used by {other} and {method} {path}");
                }
            }
        }
    }
    let _ = s.stop.send(true);
}
