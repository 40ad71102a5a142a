//! Cross-chain transfers from the local `base` node: LI.FI first, Relay when LI.FI has no route or fails,
//! builds with an exact approval step and a simulated bridge transaction, one bridge in flight per
//! wallet, and status polling through the state machine (completed, refunded, delayed after ~15 min of
//! simulated time, never lost).

use super::common::{assert_error, get, post};
use super::harness::*;
use super::mocks::{self, Mock, Mode, RELAY_REQUEST_ID};
use alloy::network::TransactionBuilder;
use alloy::primitives::{Address, Bytes, U256};
use alloy::providers::DynProvider;
use alloy::rpc::types::TransactionRequest;
use serde_json::{json, Value};

/// Arbitrum's native USDC: the destination token.
const ARB_USDC: &str = "0xaf88d065e77c8cC2239327C5EDb3A432268e5831";
const SOLANA_WALLET: &str = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";

fn request(c: &Contracts, amount: u128, taker: Address) -> Value {
    json!({
        "fromChainKey": "base",
        "toChainKey": "arbitrum",
        "tokenIn": c.token_a.to_string(),
        "tokenOut": ARB_USDC,
        "amountIn": amount.to_string(),
        "taker": taker.to_string(),
    })
}

/// One field of every execution step, in order.
fn steps_of(build: &Value, field: &str) -> Vec<String> {
    build["executionSteps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[field].as_str().unwrap().to_string())
        .collect()
}

async fn send_origin(p: &DynProvider, build: &Value) -> String {
    let tx = TransactionRequest::default()
        .with_to(build["to"].as_str().unwrap().parse().unwrap())
        .with_input(build["data"].as_str().unwrap().parse::<Bytes>().unwrap())
        .with_value(build["value"].as_str().unwrap().parse().unwrap())
        .with_gas_limit(build["gas"].as_str().unwrap().parse().unwrap());
    send(p, tx).await.transaction_hash.to_string()
}

async fn status(
    http: &reqwest::Client,
    base: &str,
    quote_id: &str,
    hash: Option<&str>,
) -> (u16, Value) {
    let mut url = format!(
        "{base}/swap/cross-chain/status/{quote_id}?originChainKey=base&toChainKey=arbitrum"
    );
    if let Some(h) = hash {
        url.push_str(&format!("&originTxHash={h}"));
    }
    get(http, &url).await
}

async fn flow(postgres: bool) {
    let node = EvmNode::start();
    let c = deploy(&node.url).await;
    let (lifi, relay) = (Mock::new(&c), Mock::new(&c));
    let lifi_url = serve(mocks::lifi(lifi.clone())).await;
    let relay_url = serve(mocks::relay(relay.clone())).await;
    let api = Api::start(postgres, &node.url, |cfg| {
        cfg.aggregator.lifi_base_url = lifi_url;
        cfg.aggregator.relay_base_url = relay_url;
    })
    .await;
    let base = &api.base;
    let http = reqwest::Client::new();
    let taker = address_of(TAKER_KEY);
    let amount: u128 = 10u128.pow(18);
    let url = |p: &str| format!("{base}/swap/cross-chain/{p}");

    // Requests that cannot be quoted.
    let mut same = request(&c, amount, taker);
    same["toChainKey"] = json!("base");
    let (s, e) = post(&http, &url("quote"), &same).await;
    assert_eq!(s, 400);
    assert_error(&e, "SAME_CHAIN");
    let mut to_solana = request(&c, amount, taker);
    to_solana["toChainKey"] = json!("solana");
    to_solana["tokenOut"] = json!("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    let (s, e) = post(&http, &url("quote"), &to_solana).await;
    assert_eq!(s, 400, "an EVM taker cannot receive on Solana: {e}");
    assert_error(&e, "MISSING_PARAMS");
    to_solana["recipient"] = json!(taker.to_string());
    let (s, e) = post(&http, &url("quote"), &to_solana).await;
    assert_eq!(s, 400);
    assert_error(&e, "INVALID_ADDRESS");
    let mut missing = request(&c, amount, taker);
    missing.as_object_mut().unwrap().remove("amountIn");
    let (_, e) = post(&http, &url("quote"), &missing).await;
    assert_error(&e, "MISSING_PARAMS");

    // LI.FI quotes a composite route: the token that arrives has 6 decimals.
    let (s, q) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    assert_eq!(s, 200, "{q}");
    assert_eq!(q["provider"], "lifi");
    assert_eq!(q["toToken"]["decimals"], 6);
    assert_eq!(q["toToken"]["chainKey"], "arbitrum");
    assert_eq!(q["amountOut"], (2_000_000 - 1_000).to_string());
    assert_eq!(q["estimatedDurationSeconds"], 180);
    assert_eq!(q["steps"][0]["type"], "swap");
    assert_eq!(q["steps"][1]["type"], "bridge");
    assert_eq!(q["approvalAddress"], c.router.to_string());
    assert!(q["fees"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["kind"] == "gas"));
    let quote_id = q["quoteId"].as_str().unwrap().to_string();

    // Build without an allowance: an exact approval step comes first; the bridge waits on it.
    let build_body = json!({"request": request(&c, amount, taker), "quote": q});
    let (s, b) = post(&http, &url("build"), &build_body).await;
    assert_eq!(s, 200, "{b}");
    let steps = b["executionSteps"].as_array().unwrap();
    assert_eq!(steps_of(&b, "type"), ["approve", "bridge", "wait"]);
    assert_eq!(b["simulated"], false);
    assert!(b["gas"].is_null());
    let approve = &steps[0]["transaction"];
    assert_eq!(approve["to"], c.token_a.to_string());
    let p = wallet(&node.url, TAKER_KEY);
    let approve_hash = send(
        &p,
        TransactionRequest::default()
            .with_to(c.token_a)
            .with_input(approve["data"].as_str().unwrap().parse::<Bytes>().unwrap()),
    )
    .await
    .transaction_hash
    .to_string();

    // Approved exactly: the build is simulated now and carries its gas.
    let (s, b) = post(&http, &url("build"), &build_body).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["simulated"], true);
    assert_eq!(steps_of(&b, "type"), ["bridge", "wait"]);
    let origin_hash = send_origin(&p, &b).await;

    // Status: the first poll needs the origin hash; then pending until the destination settles.
    let (s, e) = status(&http, base, &quote_id, None).await;
    assert_eq!(s, 400);
    assert_error(&e, "MISSING_PARAMS");
    // A hash the chain does not know binds nothing; the taker's transaction to another contract (its
    // approval) is not the transfer.
    let unknown = format!("0x{}", "cd".repeat(32));
    let (s, e) = status(&http, base, &quote_id, Some(&unknown)).await;
    assert_eq!(s, 409, "{e}");
    assert_error(&e, "ORIGIN_NOT_FOUND");
    let (s, e) = status(&http, base, &quote_id, Some(&approve_hash)).await;
    assert_eq!(s, 400, "{e}");
    assert_error(&e, "TX_MISMATCH");
    let (s, st) = status(&http, base, &quote_id, Some(&origin_hash)).await;
    assert_eq!(s, 200, "{st}");
    assert_eq!(
        (st["status"].as_str(), st["substatus"].as_str()),
        (Some("pending"), Some("WAIT_SOURCE_CONFIRMATIONS"))
    );

    // While it is in flight, the wallet cannot build a second bridge.
    let (_, q2) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    let (s, e) = post(
        &http,
        &url("build"),
        &json!({"request": request(&c, amount, taker), "quote": q2}),
    )
    .await;
    assert_eq!(s, 409, "{e}");
    assert_error(&e, "BRIDGE_IN_FLIGHT");

    lifi.set_status(&origin_hash, json!({"status": "PENDING", "substatus": "WAIT_DESTINATION_TRANSACTION",
        "substatusMessage": "The bridge is waiting for the destination transaction", "tool": "testbridge"}));
    let (_, st) = status(&http, base, &quote_id, Some(&origin_hash)).await;
    assert_eq!(st["substatus"], "WAIT_DESTINATION_TRANSACTION");
    let dest_hash = format!("0x{}", "ab".repeat(32));
    lifi.set_status(
        &origin_hash,
        json!({"status": "DONE", "substatus": "COMPLETED", "tool": "testbridge",
        "sending": {"txHash": origin_hash, "chainId": 8453, "amount": amount.to_string()},
        "receiving": {"txHash": dest_hash, "chainId": 42161, "amount": "1999000"}}),
    );
    let (_, st) = status(&http, base, &quote_id, Some(&origin_hash)).await;
    assert_eq!(
        (st["status"].as_str(), st["substatus"].as_str()),
        (Some("done"), Some("COMPLETED")),
        "{st}"
    );
    assert_eq!(st["destinationTxHash"], dest_hash);
    assert_eq!(st["amountReceived"], "1999000");
    assert_eq!(st["terminal"], true);
    let history: Vec<_> = st["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["substatus"].as_str().unwrap())
        .collect();
    assert_eq!(
        history,
        [
            "WAIT_SOURCE_CONFIRMATIONS",
            "WAIT_DESTINATION_TRANSACTION",
            "COMPLETED"
        ]
    );
    // Terminal: the provider is not asked again, and a later answer changes nothing.
    let polls = lifi.hits("lifi/status");
    lifi.set_status(
        &origin_hash,
        json!({"status": "FAILED", "substatus": "UNKNOWN_FAILED_ERROR"}),
    );
    let (_, st) = status(&http, base, &quote_id, None).await;
    assert_eq!(st["status"], "done");
    assert_eq!(lifi.hits("lifi/status"), polls);

    // Settled: the wallet may bridge again. LI.FI has no route now, so Relay quotes it.
    lifi.set_mode(Mode::NoRoute);
    let (s, q3) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    assert_eq!(s, 200, "{q3}");
    assert_eq!(q3["provider"], "relay");
    assert_eq!(q3["amountOut"], (2_000_000 - 2_000).to_string());
    assert_eq!(q3["estimatedDurationSeconds"], 30);
    assert_eq!(q3["approvalAddress"], c.router.to_string());
    send(&p, approve_tx(c.token_a, c.router, U256::from(amount))).await;
    let (s, b3) = post(
        &http,
        &url("build"),
        &json!({"request": request(&c, amount, taker), "quote": q3}),
    )
    .await;
    assert_eq!(s, 200, "{b3}");
    assert_eq!(b3["simulated"], true);
    let relay_hash = send_origin(&p, &b3).await;
    let q3_id = q3["quoteId"].as_str().unwrap();
    let (_, st) = status(&http, base, q3_id, Some(&relay_hash)).await;
    assert_eq!(st["status"], "pending");
    // Relay refunds it: done, refunded; and the wallet is free again.
    relay.set_status(
        RELAY_REQUEST_ID,
        json!({"status": "refund", "inTxHashes": [relay_hash], "txHashes": []}),
    );
    let (_, st) = status(&http, base, q3_id, None).await;
    assert_eq!(
        (st["status"].as_str(), st["substatus"].as_str()),
        (Some("done"), Some("REFUNDED")),
        "{st}"
    );
    assert_eq!(st["canStartAnother"], true);

    // LI.FI failing outright also falls back to Relay; both refusing is NO_CROSS_CHAIN_ROUTE (503).
    lifi.set_mode(Mode::ServerError);
    let (s, q4) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    assert_eq!((s, q4["provider"].as_str()), (200, Some("relay")), "{q4}");
    relay.set_mode(Mode::NoRoute);
    let (s, e) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    assert_eq!(s, 503, "{e}");
    assert_error(&e, "NO_CROSS_CHAIN_ROUTE");
    lifi.set_mode(Mode::RateLimited);
    let (s, e) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    assert_eq!(s, 503);
    assert_error(&e, "NO_CROSS_CHAIN_ROUTE");

    // A transfer that stays pending: after ~15 min of simulated time it is delayed, not lost or failed.
    lifi.set_mode(Mode::Ok);
    relay.set_mode(Mode::Ok);
    let (_, q5) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    assert_eq!(q5["provider"], "lifi");
    send(&p, approve_tx(c.token_a, c.router, U256::from(amount))).await;
    let (s, b5) = post(
        &http,
        &url("build"),
        &json!({"request": request(&c, amount, taker), "quote": q5}),
    )
    .await;
    assert_eq!(s, 200, "{b5}");
    let h5 = send_origin(&p, &b5).await;
    let q5_id = q5["quoteId"].as_str().unwrap();
    lifi.set_status(
        &h5,
        json!({"status": "PENDING", "substatus": "WAIT_DESTINATION_TRANSACTION"}),
    );
    let (_, st) = status(&http, base, q5_id, Some(&h5)).await;
    assert_eq!(
        (st["substatus"].as_str(), st["delayed"].as_bool()),
        (Some("WAIT_DESTINATION_TRANSACTION"), Some(false))
    );
    api.advance(14 * 60);
    let (_, st) = status(&http, base, q5_id, None).await;
    assert_eq!(st["delayed"], false);
    api.advance(61);
    let (_, st) = status(&http, base, q5_id, None).await;
    assert_eq!(
        (st["status"].as_str(), st["substatus"].as_str()),
        (Some("pending"), Some("DELAYED")),
        "{st}"
    );
    assert_eq!(st["delayed"], true);
    assert_eq!(st["canStartAnother"], false);
    // Still in flight: no second bridge.
    let (_, q6) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    let (s, e) = post(
        &http,
        &url("build"),
        &json!({"request": request(&c, amount, taker), "quote": q6}),
    )
    .await;
    assert_eq!(s, 409);
    assert_error(&e, "BRIDGE_IN_FLIGHT");
    // And it still settles when the bridge delivers.
    lifi.set_status(
        &h5,
        json!({"status": "DONE", "substatus": "PARTIAL", "receiving": {"amount": "5"}}),
    );
    let (_, st) = status(&http, base, q5_id, None).await;
    assert_eq!(
        (st["status"].as_str(), st["substatus"].as_str()),
        (Some("done"), Some("PARTIAL"))
    );
    // Quotes expire: a stale one is refused at build.
    api.advance(10 * 60);
    let (s, e) = post(
        &http,
        &url("build"),
        &json!({"request": request(&c, amount, taker), "quote": q6}),
    )
    .await;
    assert_eq!(s, 400);
    assert_error(&e, "QUOTE_EXPIRED");
    let (s, e) = status(&http, base, "xq_unknown", None).await;
    assert_eq!(s, 404);
    assert_error(&e, "NOT_FOUND");

    // Solana origin: LI.FI's serialized transaction is returned as `solanaTransaction`.
    let from_solana = json!({
        "fromChainKey": "solana", "toChainKey": "base",
        "tokenIn": "So11111111111111111111111111111111111111112",
        "tokenOut": c.token_b.to_string(),
        "amountIn": "1000000000000000000", "taker": SOLANA_WALLET, "recipient": taker.to_string(),
    });
    let (s, q7) = post(&http, &url("quote"), &from_solana).await;
    assert_eq!(s, 200, "{q7}");
    assert_eq!(q7["recipient"], taker.to_string());
    let (s, b7) = post(
        &http,
        &url("build"),
        &json!({"request": from_solana, "quote": q7}),
    )
    .await;
    assert_eq!(s, 200, "{b7}");
    assert!(b7["solanaTransaction"]
        .as_str()
        .is_some_and(|t| !t.is_empty()));
    assert_eq!(b7["executionSteps"][0]["sign"], "solana-transaction");

    // A transfer its bridge never recognizes: past the expiry time (1 h) it is failed (EXPIRED), and the
    // wallet may bridge again without anyone polling it.
    let (_, q8) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    assert_eq!(q8["provider"], "lifi", "{q8}");
    send(&p, approve_tx(c.token_a, c.router, U256::from(amount))).await;
    let (s, b8) = post(
        &http,
        &url("build"),
        &json!({"request": request(&c, amount, taker), "quote": q8}),
    )
    .await;
    assert_eq!(s, 200, "{b8}");
    let h8 = send_origin(&p, &b8).await;
    let q8_id = q8["quoteId"].as_str().unwrap();
    let (s, st) = status(&http, base, q8_id, Some(&h8)).await;
    assert_eq!(s, 200, "{st}");
    assert_eq!(st["substatus"], "WAIT_SOURCE_CONFIRMATIONS");
    api.advance(59 * 60);
    let (_, q9) = post(&http, &url("quote"), &request(&c, amount, taker)).await;
    let build9 = json!({"request": request(&c, amount, taker), "quote": q9});
    let (s, e) = post(&http, &url("build"), &build9).await;
    assert_eq!(s, 409, "not expired yet: {e}");
    assert_error(&e, "BRIDGE_IN_FLIGHT");
    api.advance(60);
    let (s, b9) = post(&http, &url("build"), &build9).await;
    assert_eq!(s, 200, "{b9}");
    let (_, st) = status(&http, base, q8_id, None).await;
    assert_eq!(
        (st["status"].as_str(), st["substatus"].as_str()),
        (Some("failed"), Some("EXPIRED")),
        "{st}"
    );
    assert_eq!(st["canStartAnother"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn cross_chain_sqlite() {
    flow(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cross_chain_postgres() {
    flow(true).await;
}

/// A Solana origin through Relay: its instructions are assembled into a v0 transaction against a real
/// localnet, simulated, signed by the wallet and submitted; the deposit lands.
#[tokio::test(flavor = "multi_thread")]
async fn solana_origin_via_relay() {
    use solana_signer::Signer;
    let net = localnet::Localnet::start(localnet::LocalnetConfig::ephemeral())
        .await
        .unwrap();
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let wallet = localnet::testkit::funded(&rpc, 5 * localnet::testkit::SOL)
        .await
        .unwrap();
    let node = EvmNode::start();
    let c = deploy(&node.url).await;
    let (lifi, relay) = (Mock::new(&c), Mock::new(&c));
    lifi.set_mode(Mode::NoRoute);
    let lifi_url = serve(mocks::lifi(lifi.clone())).await;
    let relay_url = serve(mocks::relay(relay.clone())).await;
    let api = Api::start_with_rpc(false, &node.url, &net.rpc_url(), |cfg| {
        cfg.aggregator.lifi_base_url = lifi_url;
        cfg.aggregator.relay_base_url = relay_url;
    })
    .await;
    let http = reqwest::Client::new();
    let evm_wallet = address_of(TAKER_KEY);
    let request = json!({
        "fromChainKey": "solana", "toChainKey": "base",
        "tokenIn": "So11111111111111111111111111111111111111112",
        "tokenOut": c.token_b.to_string(),
        "amountIn": localnet::testkit::SOL.to_string(),
        "taker": wallet.pubkey().to_string(), "recipient": evm_wallet.to_string(),
    });
    let (s, q) = post(
        &http,
        &format!("{}/swap/cross-chain/quote", api.base),
        &request,
    )
    .await;
    assert_eq!(s, 200, "{q}");
    assert_eq!(q["provider"], "relay");
    assert_eq!(q["amountOut"], (localnet::testkit::SOL / 1_000).to_string());
    let (s, b) = post(
        &http,
        &format!("{}/swap/cross-chain/build", api.base),
        &json!({"request": request, "quote": q}),
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["simulated"], true);
    assert_eq!(steps_of(&b, "sign"), ["solana-transaction", "none"]);
    // Assembled here: how long it can land is known.
    assert!(b["lastValidBlockHeight"].as_u64().unwrap() > 0, "{b}");
    assert!(b["blockhash"].is_string(), "{b}");
    let signed = super::common::sign(b["solanaTransaction"].as_str().unwrap(), &wallet);
    let (s, sent) = post(
        &http,
        &format!("{}/swap/submit-solana", api.base),
        &json!({"signedTransaction": signed}),
    )
    .await;
    assert_eq!((s, &sent["confirmed"]), (200, &json!(true)), "{sent}");
    let deposit: solana_pubkey::Pubkey = mocks::RELAY_SOLANA_DEPOSIT.parse().unwrap();
    assert_eq!(
        rpc.get_balance(&deposit).await.unwrap(),
        localnet::testkit::SOL
    );
    // Status follows it by Relay's request id.
    relay.set_status(
        RELAY_REQUEST_ID,
        json!({"status": "success", "txHashes": [format!("0x{}", "cd".repeat(32))]}),
    );
    let signature = sent["signature"].as_str().unwrap();
    let (s, st) = get(
        &http,
        &format!(
            "{}/swap/cross-chain/status/{}?originChainKey=solana&originTxHash={signature}&toChainKey=base",
            api.base,
            q["quoteId"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(s, 200, "{st}");
    assert_eq!(
        (st["status"].as_str(), st["substatus"].as_str()),
        (Some("done"), Some("COMPLETED"))
    );
}
