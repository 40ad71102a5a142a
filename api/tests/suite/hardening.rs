//! The service's edges, on a real HTTP server over a SQLite index (no chain needed): every error in the
//! spec's envelope (extractor rejections, a panicking handler), CORS, and rate limits by client behind
//! trusted proxies.

use crate::common;

use api::process::config::ApiConfig;
use api::AppState;
use axum::routing::get;
use common::assert_error;
use index::Store;
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
async fn a_panic_and_a_raw_extractor_rejection_answer_in_the_envelope_and_the_service_keeps_serving(
) {
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
        .route("/fine", get(|| async { "ok" }))
        // A handler that takes axum's own extractor (as a new endpoint might by mistake).
        .route(
            "/raw",
            get(
                |axum::extract::Query(q): axum::extract::Query<
                    std::collections::HashMap<String, u32>,
                >| async move { format!("{q:?}") },
            ),
        );
    let base = serve(api::layered(endpoints, state)).await;
    let http = reqwest::Client::new();
    let (status, content_type, body) = get_json(&http, &format!("{base}/boom")).await;
    assert_eq!(status, 500, "{body}");
    assert!(content_type.starts_with("application/json"));
    assert_error(&body, "INTERNAL");
    assert!(!body.to_string().contains("made to panic"), "{body}");
    let r = http.get(format!("{base}/fine")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.text().await.unwrap(),
        "ok",
        "success bodies are untouched"
    );
    // A rejection of axum's own extractor still answers in the envelope.
    let (status, content_type, body) = get_json(&http, &format!("{base}/raw?n=x")).await;
    assert_eq!(status, 400, "{body}");
    assert!(content_type.starts_with("application/json"));
    assert_error(&body, "INVALID_PARAMS");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("n"),
        "{body}"
    );
}

/// The `Access-Control-Allow-Origin` answered to `GET /health` from `origin`.
async fn allowed_origin(http: &reqwest::Client, base: &str, origin: &str) -> Option<String> {
    let r = http
        .get(format!("{base}/health"))
        .header("origin", origin)
        .send()
        .await
        .unwrap();
    r.headers()
        .get("access-control-allow-origin")
        .map(|v| v.to_str().unwrap().to_string())
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
    assert_eq!(
        allowed_origin(&http, &base, allowed).await.as_deref(),
        Some(allowed)
    );
    assert_eq!(
        allowed_origin(&http, &base, "https://evil.example.com").await,
        None
    );

    // `*` (what `dev` uses): any origin.
    let base = serve(api::router(
        state(|c| ApiConfig {
            cors_origins: vec![axum::http::HeaderValue::from_static("*")],
            ..c
        })
        .await,
    ))
    .await;
    assert_eq!(
        allowed_origin(&http, &base, "http://localhost:5173")
            .await
            .as_deref(),
        Some("*")
    );

    // None configured (`serve`'s default): no CORS headers.
    let base = serve(api::router(state(|c| c).await)).await;
    assert_eq!(allowed_origin(&http, &base, allowed).await, None);
}

/// Statuses of `n` sequential `GET /health` with the headers `headers(i)`.
async fn statuses(
    http: &reqwest::Client,
    base: &str,
    n: usize,
    headers: impl Fn(usize) -> Vec<(&'static str, String)>,
) -> Vec<u16> {
    let mut out = Vec::new();
    for i in 0..n {
        let mut r = http.get(format!("{base}/health"));
        for (k, v) in headers(i) {
            r = r.header(k, v);
        }
        out.push(r.send().await.unwrap().status().as_u16());
    }
    out
}

#[tokio::test]
async fn a_high_configured_rate_is_not_rounded_down_to_a_thousand_a_second() {
    // 100,000/s with no burst to speak of: one request every 10 us. Sequential requests over loopback are
    // far slower than that, so none is limited; at 1,000/s (the old millisecond rounding) most would be.
    let base = serve(api::router(
        state(|c| ApiConfig {
            rate_limit_per_second: 100_000,
            rate_limit_burst: 1,
            ..c
        })
        .await,
    ))
    .await;
    let http = reqwest::Client::new();
    let got = statuses(&http, &base, 400, |_| vec![("x-client-id", "one".into())]).await;
    assert!(got.iter().all(|s| *s == 200), "{got:?}");
}

#[tokio::test]
async fn clients_behind_a_trusted_proxy_are_limited_apart_and_untrusted_headers_are_ignored() {
    let limited = |trusted: &str| {
        let trusted = trusted.to_string();
        move |c: ApiConfig| ApiConfig {
            rate_limit_per_second: 1,
            rate_limit_burst: 2,
            trusted_proxies: if trusted.is_empty() {
                vec![]
            } else {
                vec![trusted.parse().unwrap()]
            },
            ..c
        }
    };
    let http = reqwest::Client::new();

    // The test client is the proxy (127.0.0.1 is trusted).
    let base = serve(api::router(state(limited("127.0.0.0/8")).await)).await;
    let a = statuses(&http, &base, 3, |_| {
        vec![("x-forwarded-for", "203.0.113.1".into())]
    })
    .await;
    assert_eq!(a, [200, 200, 429]);
    // Another client behind the same proxy has its own limit.
    let b = statuses(&http, &base, 2, |_| {
        vec![("x-forwarded-for", "198.51.100.7, 127.0.0.1".into())]
    })
    .await;
    assert_eq!(b, [200, 200]);
    // The first client cannot escape by writing other addresses left of the one the proxy appended, nor
    // through RFC 7239's header, which is not read unless chosen (--forwarded-header).
    let a = statuses(&http, &base, 3, |i| {
        vec![("x-forwarded-for", format!("192.0.2.{i}, 203.0.113.1"))]
    })
    .await;
    assert_eq!(a, [429, 429, 429]);
    let a = statuses(&http, &base, 2, |i| {
        vec![
            ("forwarded", format!("for=192.0.2.{i}")),
            ("x-forwarded-for", "203.0.113.1".into()),
        ]
    })
    .await;
    assert_eq!(a, [429, 429]);

    // With `Forwarded` chosen, X-Forwarded-For is the one never read.
    let rfc7239 = {
        let limited = limited("127.0.0.0/8");
        move |c| ApiConfig {
            forwarded_header: api::http::layers::ForwardedHeader::Forwarded,
            ..limited(c)
        }
    };
    let base = serve(api::router(state(rfc7239).await)).await;
    let c = statuses(&http, &base, 3, |i| {
        vec![
            ("forwarded", "for=\"[2001:db8::1]:4711\"".into()),
            ("x-forwarded-for", format!("192.0.2.{i}")),
        ]
    })
    .await;
    assert_eq!(c, [200, 200, 429]);

    // No trusted proxy: a spoofed header names nobody; every request is the peer's.
    let base = serve(api::router(state(limited("")).await)).await;
    let spoofed = statuses(&http, &base, 3, |i| {
        vec![("x-forwarded-for", format!("203.0.113.{i}"))]
    })
    .await;
    assert_eq!(spoofed, [200, 200, 429]);
    // Nor does trusting another network make the test client a proxy.
    let base = serve(api::router(state(limited("10.0.0.0/8")).await)).await;
    let spoofed = statuses(&http, &base, 3, |i| {
        vec![("forwarded", format!("for=203.0.113.{i}"))]
    })
    .await;
    assert_eq!(spoofed, [200, 200, 429]);
}

#[tokio::test]
async fn the_cross_chain_quote_links_to_its_status_with_the_real_quote_id() {
    let base = serve(api::router(state(|c| c).await)).await;
    let (status, _, doc) = get_json(&reqwest::Client::new(), &format!("{base}/openapi.json")).await;
    assert_eq!(status, 200);
    let link =
        &doc["paths"]["/swap/cross-chain/quote"]["post"]["responses"]["200"]["links"]["status"];
    let operation = &doc["paths"]["/swap/cross-chain/status/{quoteId}"]["get"]["operationId"];
    assert_eq!(&link["operationId"], operation, "{link}");
    assert_eq!(link["parameters"]["quoteId"], "$response.body#/quoteId");
}

async fn post_json(http: &reqwest::Client, url: &str, body: &Value) -> (u16, Value) {
    let r = http.post(url).json(body).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// The document's request schemas carry the handlers' own rules: enums from the same lists, patterns that
/// only admit what the handlers accept, every path parameter required.
#[tokio::test]
async fn request_schemas_state_what_the_handlers_enforce() {
    let base = serve(api::router(state(|c| c).await)).await;
    let http = reqwest::Client::new();
    let (_, _, doc) = get_json(&http, &format!("{base}/openapi.json")).await;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for p in op["parameters"].as_array().into_iter().flatten() {
                assert!(p["schema"].is_object(), "{method} {path}: {p}");
                if p["in"] == "path" {
                    assert_eq!(p["required"], true, "{method} {path}: {p}");
                }
            }
        }
    }
    let schemas = &doc["components"]["schemas"];
    let enum_of = |v: &Value| -> Vec<String> {
        let mut names: Vec<String> = v["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    // Every chain is named by exactly one family of each chain-dependent request.
    let mut keys: Vec<String> = api::chains::CHAINS
        .iter()
        .map(|c| c.key.to_string())
        .collect();
    keys.sort();
    for name in ["QuoteRequest", "RecordRequest"] {
        let mut seen: Vec<String> = schemas[name]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| {
                v["required"].as_array().unwrap().contains(&"txHash".into())
                    || v["properties"]["amountIn"].is_object()
            })
            .flat_map(|v| enum_of(&v["properties"]["chainKey"]))
            .collect();
        seen.sort();
        assert_eq!(seen, keys, "{name}");
    }
    let launch = &schemas["LaunchRequest"]["properties"];
    assert_eq!(enum_of(&launch["curvePreset"]), {
        let mut p: Vec<String> = curve::Preset::ALL
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        p.sort();
        p
    });
    assert_eq!(enum_of(&schemas["ClaimRequest"]["properties"]["kind"]), {
        let mut k: Vec<String> = api::routes::claim::CLAIM_KINDS.map(String::from).to_vec();
        k.sort();
        k
    });
    let supply = regex::Regex::new(launch["totalSupply"]["pattern"].as_str().unwrap()).unwrap();
    assert!(supply.is_match("1,000,000,000") && supply.is_match("1_000_000_000"));
    assert!(!supply.is_match("100,000,000") && !supply.is_match("1000000000.0"));

    // Values the document admits are accepted: each claim kind, with addresses the pattern matches, is
    // refused only because the pool is unknown; a kind outside the enum is refused as invalid.
    let address = regex::Regex::new(schemas["SolanaAddress"]["pattern"].as_str().unwrap()).unwrap();
    let pool = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
    let creator = "So11111111111111111111111111111111111111112";
    assert!(address.is_match(pool) && address.is_match(creator));
    for kind in api::routes::claim::CLAIM_KINDS
        .iter()
        .copied()
        .chain(["nope"])
    {
        let (status, body) = post_json(
            &http,
            &format!("{base}/launchpad/claim"),
            &serde_json::json!({"creator": creator, "pool": pool, "kind": kind}),
        )
        .await;
        if kind == "nope" {
            assert_eq!(status, 400, "{body}");
            assert_error(&body, "INVALID_KIND");
        } else {
            assert_eq!(status, 404, "{kind}: {body}");
        }
    }
}

/// What changed in the handlers to match their schemas: an integer written `50.0` is an integer (JSON
/// Schema says so), a chain key is matched as written, and `dexId`'s limit counts characters.
#[tokio::test]
async fn handlers_accept_what_their_schemas_admit() {
    let base = serve(api::router(state(|c| c).await)).await;
    let http = reqwest::Client::new();
    let quote = |slippage: Value| {
        serde_json::json!({
            "chainKey": "solana",
            "tokenIn": "So11111111111111111111111111111111111111112",
            "tokenOut": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
            "amountIn": "1000",
            "slippageBps": slippage,
        })
    };
    // No launch is indexed: a valid request finds no route (404); an invalid one is refused first (400).
    for (slippage, status) in [
        (serde_json::json!(50), 404),
        (serde_json::json!(50.0), 404),
        (serde_json::json!(50.5), 400),
        (serde_json::json!(5001.0), 400),
    ] {
        let (got, body) = post_json(
            &http,
            &format!("{base}/swap/quote"),
            &quote(slippage.clone()),
        )
        .await;
        assert_eq!(got, status, "slippageBps {slippage}: {body}");
    }
    let (status, _, body) =
        get_json(&http, &format!("{base}/swap/tokens?chainKey=%20solana%20")).await;
    assert_eq!(status, 400, "{body}");
    assert_error(&body, "UNSUPPORTED_CHAIN");
    let (status, _, body) = get_json(&http, &format!("{base}/swap/tokens?chainKey=")).await;
    assert_eq!(status, 200, "{body}");
    let record = |dex_id: String, hash: String| {
        serde_json::json!({
            "chainKey": "base",
            "dexId": dex_id,
            "tokenIn": "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
            "tokenOut": "0x4200000000000000000000000000000000000006",
            "amountIn": "1",
            "amountOut": "2",
            "feeBps": 30.0,
            "txHash": hash,
            "address": "0x1111111111111111111111111111111111111111",
        })
    };
    let (status, body) = post_json(
        &http,
        &format!("{base}/swap/record"),
        &record("é".repeat(64), format!("0x{}", "ab".repeat(32))),
    )
    .await;
    assert_eq!(status, 200, "64 characters (128 bytes): {body}");
    let (status, body) = post_json(
        &http,
        &format!("{base}/swap/record"),
        &record("é".repeat(65), format!("0x{}", "cd".repeat(32))),
    )
    .await;
    assert_eq!(status, 400, "{body}");
}

/// One request to `router` from `peer` (through the trusted proxy at 127.0.0.1) with `headers`: its status.
async fn oneshot(router: &axum::Router, headers: &[(&str, String)]) -> u16 {
    use tower::ServiceExt;
    let mut request = axum::http::Request::get("/no-such-route");
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let mut request = request.body(axum::body::Body::empty()).unwrap();
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(SocketAddr::from((
            [127, 0, 0, 1],
            4000,
        ))));
    router
        .clone()
        .oneshot(request)
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_flood_of_fresh_addresses_and_client_ids_leaves_the_limiters_as_they_were() {
    let state = state(|c| ApiConfig {
        rate_limit_per_second: 1,
        rate_limit_burst: 2,
        trusted_proxies: vec!["127.0.0.0/8".parse().unwrap()],
        ..c
    })
    .await;
    let router = api::router(state.clone());
    let limiters = state.limiters.get().expect("the router's limiters").clone();
    let baseline = limiters.keys();

    // 100,000 fresh addresses of one IPv6 /64, each with a fresh client id: one address, limited as one.
    let mut passed = 0;
    let started = std::time::Instant::now();
    for i in 0..100_000u64 {
        let ip =
            std::net::Ipv6Addr::from((0x2001_0db8_0001_0002u128 << 64) | (u128::from(i) * 7919));
        let status = oneshot(
            &router,
            &[
                ("x-forwarded-for", ip.to_string()),
                ("x-client-id", format!("flood-{i}")),
            ],
        )
        .await;
        passed += usize::from(status != 429);
    }
    // One address's quota (4 clients' worth: 8 at once, 4 a second) over the flood's duration.
    let quota = 8 + 4 * (started.elapsed().as_secs() as usize + 1);
    assert!(
        passed <= quota,
        "one /64 is one client address: {passed} passed, quota {quota}"
    );
    let (clients, addresses) = limiters.keys();
    assert!(
        addresses <= baseline.1 + 1 && clients <= baseline.0 + passed,
        "a /64 adds one key: {:?}",
        limiters.keys()
    );

    // 20,000 distinct IPv4 addresses, each with its own client id: each a new key of both limiters (the
    // pruning timer may already forget the oldest while the flood runs: the peak is what it held)...
    let mut peak = (0, 0);
    for i in 0..20_000u32 {
        if i % 500 == 0 {
            let (c, a) = limiters.keys();
            peak = (peak.0.max(c), peak.1.max(a));
        }
        let ip = std::net::Ipv4Addr::from(0x0a00_0000 | i);
        oneshot(
            &router,
            &[
                ("x-forwarded-for", ip.to_string()),
                ("x-client-id", format!("fresh-{i}")),
            ],
        )
        .await;
    }
    let (clients, addresses) = limiters.keys();
    peak = (peak.0.max(clients), peak.1.max(addresses));
    assert!(
        peak.0 >= baseline.0 + 2_000 && peak.1 >= baseline.1 + 2_000,
        "the flood's keys were held: peak {peak:?}"
    );
    // ...forgotten once their quota is whole again (2 s here), by the pruning timer.
    tokio::time::sleep(api::http::layers::LIMITER_PRUNE_EVERY + std::time::Duration::from_secs(3))
        .await;
    let after = limiters.keys();
    assert!(
        after.0 <= baseline.0 + 1 && after.1 <= baseline.1 + 1,
        "back to the baseline {baseline:?}: {after:?}"
    );
}

/// A signed transaction of one instruction calling `program`, base64.
fn signed_call(program: solana_pubkey::Pubkey) -> String {
    use base64::Engine as _;
    use solana_signer::Signer;
    let payer = solana_keypair::Keypair::new();
    let ix = solana_transaction::Instruction::new_with_bytes(program, &[1, 2, 3], vec![]);
    let tx = solana_transaction::Transaction::new_signed_with_payer(
        &[ix],
        Some(&payer.pubkey()),
        &[&payer],
        solana_transaction::Hash::new_unique(),
    );
    base64::engine::general_purpose::STANDARD.encode(bincode::serialize(&tx).unwrap())
}

#[tokio::test]
async fn the_relay_sends_only_the_services_programs_unless_told_otherwise() {
    let http = reqwest::Client::new();
    let stranger = solana_pubkey::Pubkey::new_unique();
    let submit = |base: String, tx: String| {
        let http = http.clone();
        async move {
            post_json(
                &http,
                &format!("{base}/swap/submit-solana"),
                &serde_json::json!({ "signedTransaction": tx }),
            )
            .await
        }
    };
    let base = serve(api::router(state(|c| c).await)).await;
    let (status, body) = submit(base.clone(), signed_call(stranger)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "PROGRAM_NOT_ALLOWED", "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains(&stranger.to_string()));
    // The launchpad's own program passes the check (and meets the unreachable RPC node).
    let (status, body) = submit(base.clone(), signed_call(sdk::LAUNCHPAD_PROGRAM_ID)).await;
    assert_eq!(status, 503, "{body}");
    // An operator can add programs, or open the relay.
    let base = serve(api::router(
        state(|c| ApiConfig {
            relay_programs: vec![stranger],
            ..c
        })
        .await,
    ))
    .await;
    assert_eq!(submit(base, signed_call(stranger)).await.0, 503);
    let base = serve(api::router(
        state(|c| ApiConfig {
            relay_any_program: true,
            ..c
        })
        .await,
    ))
    .await;
    assert_eq!(
        submit(base, signed_call(solana_pubkey::Pubkey::new_unique()))
            .await
            .0,
        503
    );
}

#[tokio::test]
async fn a_request_that_does_not_answer_in_time_is_a_504_in_the_envelope() {
    // An RPC node that accepts connections and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let rpc_url = format!("http://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((conn, _)) = silent.accept().await {
            held.push(conn);
        }
    });
    let store = Store::open(&common::database(false).await).await.unwrap();
    let config = ApiConfig {
        request_timeout_secs: 1,
        ..ApiConfig::local("127.0.0.1:0".parse().unwrap())
    };
    let state = AppState::new(
        store,
        config,
        Arc::new(solana_rpc_client::nonblocking::rpc_client::RpcClient::new(
            rpc_url,
        )),
        None,
    );
    let base = serve(api::router(state)).await;
    let http = reqwest::Client::new();
    let started = std::time::Instant::now();
    let (status, body) = post_json(
        &http,
        &format!("{base}/swap/submit-solana"),
        &serde_json::json!({ "signedTransaction": signed_call(sdk::LAUNCHPAD_PROGRAM_ID) }),
    )
    .await;
    assert_eq!(status, 504, "{body}");
    assert_eq!(body["error"]["code"], "TIMEOUT", "{body}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[tokio::test]
async fn every_operation_behind_the_rate_limit_documents_its_429() {
    let base = serve(api::router(state(|c| c).await)).await;
    let doc: Value = reqwest::get(format!("{base}/openapi.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(doc["components"]["schemas"]["ErrorBody"].is_object());
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let limited = op["responses"].get("429").is_some();
            if path == "/livez" || path == "/readyz" {
                assert!(!limited, "{method} {path} is outside the rate limit");
            } else {
                assert!(limited, "{method} {path} does not document 429");
                operations += 1;
            }
        }
    }
    assert!(operations > 20, "{operations}");
}

/// Every response carries a request id: the client's `x-request-id` sent back, else a new UUID per request.
#[tokio::test]
async fn every_response_carries_a_request_id() {
    let base = serve(api::router(state(|c| c).await)).await;
    let http = reqwest::Client::new();
    let url = format!("{base}/launchpad/launches");
    let mine = http
        .get(&url)
        .header("x-request-id", "client-42")
        .send()
        .await
        .unwrap();
    assert_eq!(mine.headers()["x-request-id"], "client-42");
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..3 {
        let r = http.get(&url).send().await.unwrap();
        let id = r.headers()["x-request-id"].to_str().unwrap().to_string();
        assert_eq!(id.len(), 36, "a UUID: {id}");
        assert!(seen.insert(id), "a new id per request");
    }
    // Errors too.
    let bad = http
        .get(format!("{base}/launchpad/launches?sort=hot"))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    assert!(bad.headers().contains_key("x-request-id"));
}

/// What a JSON-RPC node that accepts every transaction and confirms none was asked.
#[derive(Default)]
struct NodeLog {
    sends: std::sync::atomic::AtomicUsize,
    status_calls: std::sync::atomic::AtomicUsize,
    /// The most signatures one `getSignatureStatuses` call asked about.
    widest: std::sync::atomic::AtomicUsize,
}

impl NodeLog {
    /// Waits (at most 3 s) until `n` transactions were sent.
    async fn sent(&self, n: usize) {
        let started = std::time::Instant::now();
        while self.sends.load(std::sync::atomic::Ordering::Relaxed) < n {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(3),
                "{n} sends"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

/// A Solana JSON-RPC node (the documented shapes of `sendTransaction`, `getSignatureStatuses`, `getVersion`)
/// that takes every transaction and never confirms one; its URL.
async fn pending_node(log: Arc<NodeLog>) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    let app = axum::Router::new().route(
        "/",
        axum::routing::post(move |axum::Json(req): axum::Json<Value>| {
            let log = log.clone();
            async move {
                let params = &req["params"];
                let result = match req["method"].as_str().unwrap_or_default() {
                    "sendTransaction" => {
                        use base64::Engine as _;
                        log.sends.fetch_add(1, Relaxed);
                        let bytes = base64::engine::general_purpose::STANDARD
                            .decode(params[0].as_str().unwrap())
                            .unwrap();
                        let tx: solana_transaction::versioned::VersionedTransaction =
                            bincode::deserialize(&bytes).unwrap();
                        Value::String(tx.signatures[0].to_string())
                    }
                    "getSignatureStatuses" => {
                        log.status_calls.fetch_add(1, Relaxed);
                        let n = params[0].as_array().map_or(0, Vec::len);
                        log.widest.fetch_max(n, Relaxed);
                        serde_json::json!({ "context": { "slot": 1 }, "value": vec![Value::Null; n] })
                    }
                    "getVersion" => serde_json::json!({ "solana-core": "3.1.0", "feature-set": 1 }),
                    _ => Value::Null,
                };
                axum::Json(serde_json::json!({ "jsonrpc": "2.0", "id": req["id"], "result": result }))
            }
        }),
    );
    serve(app).await
}

/// Relayed transactions awaited at once are capped per client (its address after trusted proxies) and per
/// process, refused before anything is sent, and given back when their wait ends; every wait is watched by
/// one shared `getSignatureStatuses` per tick, not one per request.
#[tokio::test]
async fn relays_are_capped_and_their_confirmations_share_one_watcher() {
    use std::sync::atomic::Ordering::Relaxed;
    let log = Arc::new(NodeLog::default());
    let node = pending_node(log.clone()).await;
    let store = Store::open(&common::database(false).await).await.unwrap();
    let config = ApiConfig {
        relay_max_per_client: 2,
        relay_max_in_flight: 3,
        relay_confirm_wait_secs: 3,
        trusted_proxies: vec!["127.0.0.1/32".parse().unwrap()],
        ..ApiConfig::local("127.0.0.1:0".parse().unwrap())
    };
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new(node);
    let base = serve(api::router(AppState::new(
        store,
        config,
        Arc::new(rpc),
        None,
    )))
    .await;
    let http = reqwest::Client::new();
    let submit = |from: &'static str| {
        let (http, url) = (http.clone(), format!("{base}/swap/submit-solana"));
        async move {
            let r = http
                .post(url)
                .header("x-forwarded-for", from)
                .json(&serde_json::json!({ "signedTransaction": signed_call(sdk::LAUNCHPAD_PROGRAM_ID) }))
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    // Two of one client and one of another wait; the waits run out unconfirmed.
    let waiting = [
        tokio::spawn(submit("10.0.0.1")),
        tokio::spawn(submit("10.0.0.1")),
        tokio::spawn(submit("2001:db8::1")),
    ];
    log.sent(3).await;
    // The first client's third, and (the process's three taken) anyone's: refused, nothing sent.
    let (status, body) = submit("10.0.0.1").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["error"]["code"], "TOO_MANY_RELAYS", "{body}");
    let (status, body) = submit("10.0.0.9").await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "RELAY_BUSY", "{body}");
    assert_eq!(log.sends.load(Relaxed), 3, "a refused relay sends nothing");
    for w in waiting {
        let (status, body) = w.await.unwrap();
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["confirmed"], false, "{body}");
        assert_eq!(body["indexed"], false, "{body}");
    }
    // Three waits of 3 s each, watched together: about one call per 200 ms tick, all three in the call.
    let calls = log.status_calls.load(Relaxed);
    assert!(
        calls <= 3_000 / 200 + 3,
        "{calls} getSignatureStatuses calls"
    );
    assert_eq!(log.widest.load(Relaxed), 3);
    // An IPv6 client counts by its /64: 2001:db8::2 and ::3 are the client 2001:db8::1 was.
    let v6 = [
        tokio::spawn(submit("2001:db8::1")),
        tokio::spawn(submit("2001:db8::2")),
    ];
    log.sent(5).await;
    let (status, body) = submit("2001:db8::3").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["error"]["code"], "TOO_MANY_RELAYS", "{body}");
    for w in v6 {
        assert_eq!(w.await.unwrap().0, 200);
    }
    // Given back when the waits end: the first client relays again.
    let (status, body) = submit("10.0.0.1").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(log.sends.load(Relaxed), 6);
}

/// A request that makes the service work (a build, a launch's prepare) costs several cheap reads' worth of
/// the rate limit; reads cost one.
#[tokio::test]
async fn expensive_requests_cost_more_of_the_rate_limit() {
    let base = serve(api::router(
        state(|c| ApiConfig {
            rate_limit_per_second: 1,
            rate_limit_burst: 8,
            ..c
        })
        .await,
    ))
    .await;
    let http = reqwest::Client::new();
    let send = |client: &'static str, build: bool| {
        let request = if build {
            http.post(format!("{base}/swap/build"))
                .json(&serde_json::json!({}))
        } else {
            http.get(format!("{base}/launchpad/launches"))
        };
        async move {
            request
                .header("x-client-id", client)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    // Eight reads fit the burst of eight.
    for _ in 0..8 {
        assert_eq!(send("reader", false).await, 200);
    }
    assert_eq!(send("reader", false).await, 429);
    // Four builds (2 each) do: refused by the handler, but counted; the fifth is limited.
    for _ in 0..4 {
        assert_eq!(send("builder", true).await, 400);
    }
    assert_eq!(send("builder", true).await, 429);
    assert_eq!(
        api::http::layers::request_cost(&axum::http::Method::POST, "/launchpad/prepare"),
        3
    );
    assert_eq!(
        api::http::layers::request_cost(&axum::http::Method::GET, "/launchpad/prepare"),
        1
    );
}

/// `/readyz` checks the database at most once a second per process, whatever the request rate (anyone can
/// call it: it must not hammer the database), and says what it answers in the OpenAPI document.
#[tokio::test]
async fn readiness_checks_the_database_at_most_once_a_second_whatever_the_rate() {
    let state = state(|c| c).await;
    let base = serve(api::router(state.clone())).await;
    let http = reqwest::Client::new();
    let started = std::time::Instant::now();
    let mut answered = 0;
    while started.elapsed() < std::time::Duration::from_millis(2_500) {
        let probes = (0..50).map(|_| http.get(format!("{base}/readyz")).send());
        for r in futures::future::join_all(probes).await {
            let r = r.unwrap();
            assert_eq!(r.status(), 200);
            let body: Value = r.json().await.unwrap();
            assert_eq!(body, serde_json::json!({"status": "ready"}));
            answered += 1;
        }
    }
    let seconds = started.elapsed().as_secs() + 1;
    let checks = state.readiness.checks();
    eprintln!(
        "{answered} probes in {:?}: {checks} database checks",
        started.elapsed()
    );
    assert!(answered >= 200, "{answered}");
    assert!(
        (1..=seconds).contains(&checks),
        "{checks} database checks for {answered} probes in {seconds} s"
    );
    // Draining: 503 with its reason, and no database check.
    state.readiness.drain();
    let r = http.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 503);
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        body,
        serde_json::json!({"status": "unavailable", "reason": "shutting down"})
    );
    assert_eq!(state.readiness.checks(), checks);

    let doc: Value = http
        .get(format!("{base}/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let responses = &doc["paths"]["/readyz"]["get"]["responses"];
    assert!(
        responses["200"].is_object() && responses["503"].is_object(),
        "{responses}"
    );
    assert!(
        responses["503"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("shutting down") && d.contains("database unreachable")),
        "{responses}"
    );
    assert!(doc["paths"]["/livez"]["get"]["responses"]["200"].is_object());
}
