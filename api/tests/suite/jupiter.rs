//! The Jupiter adapter against a local server that answers in Jupiter's documented shapes (`GET /quote`,
//! `POST /swap-instructions`, its no-route, rate-limit and server errors): ranking against our own pools,
//! a build assembled from its instructions, simulated, signed and confirmed on the localnet.

use crate::common;

use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use common::*;
use localnet::testkit::{self, SOL};
use serde_json::{json, Value};
use solana_signer::Signer;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Where the mock's "swap" sends lamports (a system transfer stands in for the route's program).
fn sink() -> anchor_lang::prelude::Pubkey {
    "Sink111111111111111111111111111111111111111"
        .parse()
        .unwrap_or_else(|_| anchor_lang::prelude::Pubkey::new_from_array([9; 32]))
}

fn ix_json(ix: &anchor_lang::solana_program::instruction::Instruction) -> Value {
    use base64::Engine;
    json!({
        "programId": ix.program_id.to_string(),
        "accounts": ix.accounts.iter().map(|m| json!({
            "pubkey": m.pubkey.to_string(), "isSigner": m.is_signer, "isWritable": m.is_writable,
        })).collect::<Vec<_>>(),
        "data": base64::engine::general_purpose::STANDARD.encode(&ix.data),
    })
}

/// Jupiter's keyed API: the same answers, only with the right `x-api-key` (401 otherwise, as api.jup.ag).
async fn keyed_quote(
    headers: axum::http::HeaderMap,
    query: Query<HashMap<String, String>>,
) -> axum::response::Response {
    if headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some("test-key") {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": "Unauthorized"})),
        )
            .into_response();
    }
    quote(query).await.into_response()
}

async fn quote(Query(q): Query<HashMap<String, String>>) -> impl IntoResponse {
    let amount: u64 = q["amount"].parse().unwrap();
    let slippage: u64 = q["slippageBps"].parse().unwrap();
    if q["inputMint"] == q["outputMint"] {
        return (StatusCode::BAD_REQUEST, Json(json!({"error": "Circular arbitrage is disabled", "errorCode": "CIRCULAR_ARBITRAGE_IS_DISABLED"}))).into_response();
    }
    if amount == 999 {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            Json(json!({"error": "Too many requests"})),
        )
            .into_response();
    }
    if amount == 777 {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"error": "internal"})),
        )
            .into_response();
    }
    // Only the all-zero key is routed nowhere (a random mint may also start with '1' in base58: one in 256).
    if q["outputMint"] == anchor_lang::prelude::Pubkey::default().to_string() {
        return (StatusCode::BAD_REQUEST, Json(json!({"error": "Could not find any route", "errorCode": "COULD_NOT_FIND_ANY_ROUTE"}))).into_response();
    }
    let out = amount / 1000;
    Json(json!({
        "inputMint": q["inputMint"], "inAmount": amount.to_string(),
        "outputMint": q["outputMint"], "outAmount": out.to_string(),
        "otherAmountThreshold": (out * (10_000 - slippage) / 10_000).to_string(),
        "swapMode": "ExactIn", "slippageBps": slippage, "platformFee": null, "priceImpactPct": "0.001",
        "routePlan": [{"swapInfo": {"ammKey": sink().to_string(), "label": "Mock AMM",
            "inputMint": q["inputMint"], "outputMint": q["outputMint"], "inAmount": amount.to_string(),
            "outAmount": out.to_string(), "feeAmount": "0", "feeMint": q["inputMint"]}, "percent": 100}],
        "contextSlot": 1, "timeTaken": 0.01
    }))
    .into_response()
}

async fn swap_instructions(Json(body): Json<Value>) -> impl IntoResponse {
    let user: anchor_lang::prelude::Pubkey =
        body["userPublicKey"].as_str().unwrap().parse().unwrap();
    assert!(
        body["quoteResponse"]["outAmount"].is_string(),
        "the quote comes back unchanged"
    );
    let budget =
        solana_compute_budget_interface::ComputeBudgetInstruction::set_compute_unit_limit(300_000);
    let swap = solana_system_interface::instruction::transfer(&user, &sink(), 1_000_000);
    Json(json!({
        "tokenLedgerInstruction": null,
        "computeBudgetInstructions": [ix_json(&budget)],
        "setupInstructions": [],
        "swapInstruction": ix_json(&swap),
        "cleanupInstruction": null,
        "otherInstructions": [],
        "addressLookupTableAddresses": [],
    }))
}

async fn mock_jupiter() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .route("/swap/v1/quote", axum::routing::get(quote))
        .route("/keyed/swap/v1/quote", axum::routing::get(keyed_quote))
        .route(
            "/swap/v1/swap-instructions",
            axum::routing::post(swap_instructions),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/swap/v1")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn jupiter_routes_rank_build_and_confirm() {
    let jupiter = mock_jupiter().await;
    let s = stack_with(false, 1_000, &jupiter).await;
    let http = reqwest::Client::new();
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        s.net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let sol = sdk::ids::NATIVE_MINT.to_string();
    let usdc = s.net.usdc_mint.to_string();
    let trader = testkit::funded(&rpc, 10 * SOL).await.unwrap();

    // No pool of ours trades SOL/USDC: Jupiter's route is the best.
    let request = json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": usdc, "amountIn": SOL.to_string(),
        "slippageBps": 100, "taker": trader.pubkey().to_string()});
    let (status, q) = post(&http, &format!("{}/swap/quote", s.base), &request).await;
    assert_eq!(status, 200, "{q}");
    assert_eq!(q["best"]["dexId"], "jupiter-solana");
    assert_eq!(q["best"]["amountOut"], "1000000");
    assert_eq!(q["best"]["minAmountOut"], "990000");
    let build = json!({"request": request, "route": q["best"]["route"], "minAmountOut": q["best"]["minAmountOut"]});
    let (status, built) = post(&http, &format!("{}/swap/build", s.base), &build).await;
    assert_eq!(status, 200, "{built}");
    assert!(built["simulatedUnits"].is_u64());
    let before = rpc.get_balance(&sink()).await.unwrap_or(0);
    let signed = sign(built["solanaTransaction"].as_str().unwrap(), &trader);
    let (status, sent) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{sent}");
    assert_eq!(sent["confirmed"], true);
    assert_eq!(rpc.get_balance(&sink()).await.unwrap(), before + 1_000_000);

    // A launched token: our curve and Jupiter both quote; ours gives more and ranks first.
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 5, "JUP")
        .await
        .unwrap();
    let request = json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": keys.mint.to_string(),
        "amountIn": SOL.to_string()});
    let start = Instant::now();
    let q = loop {
        let (status, q) = post(&http, &format!("{}/swap/quote", s.base), &request).await;
        if status == 200 && q["quotes"].as_array().is_some_and(|a| a.len() == 2) {
            break q;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{q}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(q["best"]["dexId"], "launchpad-solana");
    assert_eq!(q["quotes"][1]["dexId"], "jupiter-solana");

    // Jupiter's errors: no route is NO_ROUTE; a rate limit or a server error is UNAVAILABLE when nothing
    // else routes, and skipped when our pools do.
    let nowhere = anchor_lang::prelude::Pubkey::new_from_array([0; 32]).to_string();
    let cases = [
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": nowhere, "amountIn": "1000"}),
            404,
            "NO_ROUTE",
        ),
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": usdc, "amountIn": "999"}),
            503,
            "UNAVAILABLE",
        ),
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": usdc, "amountIn": "777"}),
            503,
            "UNAVAILABLE",
        ),
    ];
    for (body, want, code) in cases {
        let (status, resp) = post(&http, &format!("{}/swap/quote", s.base), &body).await;
        assert_eq!(status, want, "{body}: {resp}");
        assert_error(&resp, code);
    }
    let ours = json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": keys.mint.to_string(), "amountIn": "777"});
    let (status, q) = post(&http, &format!("{}/swap/quote", s.base), &ours).await;
    assert_eq!(status, 200, "{q}");
    assert_eq!(q["quotes"].as_array().unwrap().len(), 1);
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// Jupiter's current API wants a key: the adapter sends `--jupiter-api-key` as `x-api-key`, and a missing or
/// refused key is an outage (`UNAVAILABLE` where no pool of ours routes the pair), not "no route".
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_jupiter_api_key_is_sent_and_a_refusal_is_an_outage() {
    let jupiter = mock_jupiter().await;
    let keyed = jupiter.replace("/swap/v1", "/keyed/swap/v1");
    let http = reqwest::Client::new();
    for (key, want) in [
        (Some("test-key"), 200),
        (Some("wrong-key"), 503),
        (None, 503),
    ] {
        let s = stack_configured(false, |c| api::process::config::ApiConfig {
            jupiter_base_url: keyed.clone(),
            jupiter_api_key: key.map(str::to_string),
            ..c
        })
        .await;
        let request = json!({"chainKey": "solana", "tokenIn": sdk::ids::NATIVE_MINT.to_string(),
            "tokenOut": s.net.usdc_mint.to_string(), "amountIn": SOL.to_string()});
        let (status, q) = post(&http, &format!("{}/swap/quote", s.base), &request).await;
        assert_eq!(status, want, "{key:?}: {q}");
        if want == 200 {
            assert_eq!(q["best"]["dexId"], "jupiter-solana");
        } else {
            assert_error(&q, "UNAVAILABLE");
            assert!(
                !q.to_string().contains("wrong-key"),
                "the key never reaches a caller"
            );
        }
        let _ = s.stop.send(true);
    }
}
