//! The TypeScript SDK's REST client is generated from the API's OpenAPI document, committed as
//! `clients/ts/openapi.json`: this test fails when the served document differs from it (run with
//! `UPDATE_OPENAPI=1` to rewrite it, then `npm run generate` in clients/ts), as the IDL test does for the
//! programs.

use crate::common;

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
            "clients/ts/openapi.json is stale: run `UPDATE_OPENAPI=1 cargo test -p api --test suite openapi` and \
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

/// Every code a handler answers with is documented, with its status: the served document's `ErrorCode`
/// schema lists exactly `ErrorCode::ALL`, and `docs/api.md`'s table of codes lists every code named in the
/// sources of the API and of the crates it mounts (`ErrorCode::X`), each with the status the code carries.
/// Every code a response's description names is a code.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_error_code_a_handler_uses_is_documented() {
    use api::error::ErrorCode;
    use std::collections::{BTreeMap, BTreeSet};
    let s = stack(false, 1_000).await;
    let http = reqwest::Client::new();
    let (_, doc) = get(&http, &format!("{}/openapi.json", s.base)).await;
    let _ = s.stop.send(true);
    let schema = &doc["components"]["schemas"]["ErrorCode"];
    let listed: BTreeSet<&str> = schema["enum"]
        .as_array()
        .expect("the document has the ErrorCode schema")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let all: BTreeSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(listed, all, "the document's ErrorCode is the enum");
    assert_eq!(
        doc["components"]["schemas"]["ErrorDetail"]["properties"]["code"]["$ref"],
        "#/components/schemas/ErrorCode"
    );
    // The codes the sources name, by variant.
    let by_variant: BTreeMap<String, ErrorCode> = ErrorCode::ALL
        .iter()
        .map(|c| (format!("{c:?}"), *c))
        .collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let named = regex::Regex::new(r"ErrorCode::([A-Z][A-Za-z]+)\b").unwrap();
    let mut used = BTreeSet::new();
    let mut files = Vec::new();
    for dir in [
        "api/src",
        "crates/aggregator/src",
        "crates/web/src",
        "crates/swap-core/src",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for cap in named.captures_iter(&text) {
            if &cap[1] == "ALL" {
                continue;
            }
            let code = by_variant
                .get(&cap[1])
                .unwrap_or_else(|| panic!("{}: ErrorCode::{} is no code", file.display(), &cap[1]));
            used.insert(*code);
        }
    }
    assert!(used.len() > 40, "the scan sees the handlers: {used:?}");
    // docs/api.md's table: | `CODE` | status | meaning |
    let api_md = std::fs::read_to_string(root.join("docs/api.md")).unwrap();
    let row = regex::Regex::new(r"(?m)^\| `([A-Z_]+)` \| (\d{3}) \|").unwrap();
    let documented: BTreeMap<&str, u16> = row
        .captures_iter(&api_md)
        .map(|c| (c.get(1).unwrap().as_str(), c[2].parse().unwrap()))
        .collect();
    let mut wrong = Vec::new();
    for code in &used {
        if !listed.contains(code.as_str()) {
            wrong.push(format!("{code} is missing from the OpenAPI document"));
        }
        match documented.get(code.as_str()) {
            None => wrong.push(format!("{code} is missing from docs/api.md")),
            Some(status) if *status != code.status().as_u16() => wrong.push(format!(
                "{code} is {status} in docs/api.md, {} in the code",
                code.status().as_u16()
            )),
            Some(_) => {}
        }
    }
    // Every code a response's description names exists.
    let mentioned = regex::Regex::new(r"\b[A-Z]{2,}(?:_[A-Z0-9]{2,})+\b").unwrap();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (status, response) in op["responses"].as_object().into_iter().flatten() {
                let text = response["description"].as_str().unwrap_or_default();
                for m in mentioned.find_iter(text) {
                    if !all.contains(m.as_str()) {
                        wrong.push(format!(
                            "{method} {path} {status} names {}, no code",
                            m.as_str()
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
