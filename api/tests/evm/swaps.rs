//! Same-chain EVM swaps: quote (ranked across KyberSwap and 0x) -> allowance -> exact approve signed by
//! the test's key -> build (balance and allowance checked, simulated) -> send through the node ->
//! record; and the builds that must be refused.

use super::common::{assert_error, get, post};
use super::harness::*;
use super::mocks::{self, Mock, Mode};
use alloy::network::TransactionBuilder;
use alloy::primitives::{Address, Bytes, U256};
use alloy::providers::DynProvider;
use alloy::rpc::types::TransactionRequest;
use serde_json::{json, Value};

struct World {
    _node: EvmNode,
    node_url: String,
    c: Contracts,
    api: Api,
    kyber: Mock,
    zerox: Mock,
}

async fn world(postgres: bool) -> World {
    let node = EvmNode::start();
    let c = deploy(&node.url).await;
    let (kyber, zerox) = (Mock::new(&c), Mock::new(&c));
    let kyber_url = serve(mocks::kyberswap(kyber.clone())).await;
    let zerox_url = serve(mocks::zerox_router(zerox.clone())).await;
    let api = Api::start(postgres, &node.url, |cfg| {
        cfg.aggregator.kyberswap_base_url = kyber_url;
        cfg.aggregator.zerox_base_url = zerox_url;
        cfg.aggregator.zerox_api_key = Some("test-key".into());
    })
    .await;
    World {
        node_url: node.url.clone(),
        _node: node,
        c,
        api,
        kyber,
        zerox,
    }
}

fn quote_request(c: &Contracts, amount_in: u128, taker: Address) -> Value {
    json!({
        "chainKey": CHAIN_KEY,
        "tokenIn": c.token_a.to_string(),
        "tokenOut": c.token_b.to_string(),
        "amountIn": amount_in.to_string(),
        "slippageBps": 100,
        "taker": taker.to_string(),
    })
}

/// Sends a build's transaction from the wallet, with the build's gas.
async fn send_build(p: &DynProvider, build: &Value) -> alloy::rpc::types::TransactionReceipt {
    let tx = TransactionRequest::default()
        .with_to(build["to"].as_str().unwrap().parse().unwrap())
        .with_input(build["data"].as_str().unwrap().parse::<Bytes>().unwrap())
        .with_value(build["value"].as_str().unwrap().parse().unwrap())
        .with_gas_limit(build["gas"].as_str().unwrap().parse().unwrap());
    send(p, tx).await
}

/// Quotes `request`, then builds the route at `index` of `quotes` with that route's own minimum.
async fn quote_then_build(
    http: &reqwest::Client,
    base: &str,
    request: &Value,
    index: usize,
) -> (Value, u16, Value) {
    let (s, q) = post(http, &format!("{base}/swap/quote"), request).await;
    assert_eq!(s, 200, "{q}");
    let entry = &q["quotes"][index];
    let body =
        json!({"request": request, "route": entry["route"], "minAmountOut": entry["minAmountOut"]});
    let (s, b) = post(http, &format!("{base}/swap/build"), &body).await;
    (q, s, b)
}

async fn swap_flow(postgres: bool) {
    let w = world(postgres).await;
    let http = reqwest::Client::new();
    let (base, c) = (&w.api.base, &w.c);
    let taker = address_of(TAKER_KEY);
    let amount: u128 = 5 * 10u128.pow(18);

    // Chains and catalog know the seven chains.
    let (s, chains) = get(&http, &format!("{base}/swap/chains")).await;
    assert_eq!(s, 200);
    assert_eq!(chains["chains"].as_array().unwrap().len(), 7);
    let (s, tokens) = get(&http, &format!("{base}/swap/tokens?chainKey=bsc&q=usdc")).await;
    assert_eq!(s, 200);
    assert_eq!(
        tokens["tokens"][0]["decimals"], 18,
        "Binance-Peg USDC: {tokens}"
    );

    // Quote: both sources, ranked by amountOut.
    let (s, q) = post(
        &http,
        &format!("{base}/swap/quote"),
        &quote_request(c, amount, taker),
    )
    .await;
    assert_eq!(s, 200, "{q}");
    let quotes = q["quotes"].as_array().unwrap();
    assert_eq!(quotes.len(), 2, "{q}");
    assert_eq!(q["best"]["dexId"], "kyberswap-base");
    assert_eq!(quotes[1]["dexId"], "zerox-base");
    assert_eq!(q["best"]["amountOut"], (amount * 2).to_string());
    assert_eq!(q["best"]["spender"], c.router.to_string());
    assert_eq!(q["best"]["estimatedGas"]["gas"], "125000");
    assert_eq!(q["best"]["platformFee"]["bps"], 0);
    assert!(w.zerox.hits("0x/price") == 1);

    // Allowance is zero; building now is refused with a clear code, not calldata.
    let allowance_url = format!(
        "{base}/swap/allowance?chainKey=base&token={}&owner={taker}&spender={}",
        c.token_a, c.router
    );
    let (s, a) = get(&http, &allowance_url).await;
    assert_eq!((s, a["allowance"].as_str()), (200, Some("0")), "{a}");
    let build_body = json!({
        "request": quote_request(c, amount, taker),
        "route": q["best"]["route"],
        "minAmountOut": q["best"]["minAmountOut"],
    });
    let (s, e) = post(&http, &format!("{base}/swap/build"), &build_body).await;
    assert_eq!(s, 422, "{e}");
    assert_error(&e, "INSUFFICIENT_ALLOWANCE");

    // Approve exactly amountIn, signed by the test's key.
    let p = wallet(&w.node_url, TAKER_KEY);
    send(&p, approve_tx(c.token_a, c.router, U256::from(amount))).await;
    let (_, a) = get(&http, &allowance_url).await;
    assert_eq!(a["allowance"], amount.to_string());

    // Build: simulated server-side; EVM fields at the top level.
    let (s, b) = post(&http, &format!("{base}/swap/build"), &build_body).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["to"], c.router.to_string());
    assert_eq!(b["from"], taker.to_string());
    assert_eq!(b["chainId"], CHAIN_ID);
    assert_eq!(b["value"], "0");
    assert_eq!(b["simulated"], true);
    assert!(b["gas"].as_str().unwrap().parse::<u64>().unwrap() > 21_000);
    assert!(b.get("evm").is_none());

    // Send it through the node: the wallet receives at least minAmountOut.
    let before = balance_of(&p, c.token_b, taker).await;
    let receipt = send_build(&p, &b).await;
    let received = balance_of(&p, c.token_b, taker).await - before;
    assert!(
        received
            >= q["best"]["minAmountOut"]
                .as_str()
                .unwrap()
                .parse::<U256>()
                .unwrap()
    );
    assert_eq!(received, U256::from(amount * 2));

    // Record it (idempotent on the hash).
    let record = json!({
        "chainKey": "base", "dexId": "kyberswap-base",
        "tokenIn": c.token_a.to_string(), "tokenOut": c.token_b.to_string(),
        "amountIn": amount.to_string(), "amountOut": received.to_string(),
        "protocolFee": "0", "feeBps": 0,
        "txHash": receipt.transaction_hash.to_string(),
        "address": taker.to_string(), "status": "confirmed", "source": "agent", "clientId": "evm-test"
    });
    let (s, r) = post(&http, &format!("{base}/swap/record"), &record).await;
    assert_eq!((s, &r["duplicate"]), (200, &json!(false)), "{r}");
    let (_, r) = post(&http, &format!("{base}/swap/record"), &record).await;
    assert_eq!(r["duplicate"], true);

    // The allowance was exact: it is used up, so the same build is refused again.
    let (s, e) = post(&http, &format!("{base}/swap/build"), &build_body).await;
    assert_eq!(s, 422);
    assert_error(&e, "INSUFFICIENT_ALLOWANCE");

    // The 0x route builds too (a firm quote for the taker, simulated).
    send(&p, approve_tx(c.token_a, c.router, U256::from(amount))).await;
    let (_, s, b) = quote_then_build(&http, base, &quote_request(c, amount, taker), 1).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["dexId"], "zerox-base");
    assert_eq!(w.zerox.hits("0x/quote"), 1);
    send_build(&p, &b).await;

    // A wallet without tokenIn: refused before any calldata.
    let poor = Address::repeat_byte(0x42);
    let (_, s, e) = quote_then_build(&http, base, &quote_request(c, amount, poor), 0).await;
    assert_eq!(s, 422);
    assert_error(&e, "INSUFFICIENT_BALANCE");

    // A build that would revert (the router's price fell below minAmountOut): the simulation refuses it.
    send(&p, approve_tx(c.token_a, c.router, U256::from(amount))).await;
    let (_, q) = post(
        &http,
        &format!("{base}/swap/quote"),
        &quote_request(c, amount, taker),
    )
    .await;
    let set_rate = TestRouter::setRateCall {
        tokenIn: c.token_a,
        tokenOut: c.token_b,
        numerator: U256::from(1),
        denominator: U256::from(1),
    };
    use alloy::sol_types::SolCall;
    send(
        &c.deployer,
        TransactionRequest::default()
            .with_to(c.router)
            .with_input(set_rate.abi_encode()),
    )
    .await;
    let (s, e) = post(
        &http,
        &format!("{base}/swap/build"),
        &json!({"request": quote_request(c, amount, taker), "route": q["best"]["route"], "minAmountOut": q["best"]["minAmountOut"]}),
    )
    .await;
    assert_eq!(s, 422, "{e}");
    assert_error(&e, "SIMULATION_FAILED");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("insufficient output"),
        "{e}"
    );

    // Bad requests change nothing and say why.
    let mut same = quote_request(c, amount, taker);
    same["tokenOut"] = same["tokenIn"].clone();
    let (s, e) = post(&http, &format!("{base}/swap/quote"), &same).await;
    assert_eq!(s, 400);
    assert_error(&e, "SAME_TOKEN");
    let tickers =
        json!({"chainKey": "ethereum", "tokenIn": "ETH", "tokenOut": "eth", "amountIn": "1"});
    let (s, e) = post(&http, &format!("{base}/swap/quote"), &tickers).await;
    assert_eq!(s, 400);
    assert_error(&e, "SAME_TOKEN");
    let mut bad = quote_request(c, amount, taker);
    bad["tokenIn"] = json!("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD");
    let (_, e) = post(&http, &format!("{base}/swap/quote"), &bad).await;
    assert_error(&e, "INVALID_ADDRESS");
    let (s, e) = get(
        &http,
        &format!("{base}/swap/allowance?chainKey=solana&token=x&owner=y&spender=z"),
    )
    .await;
    assert_eq!(s, 400);
    assert_error(&e, "UNSUPPORTED_CHAIN");
    let (s, e) = get(
        &http,
        &format!("{base}/swap/allowance?chainKey=base&token={}", c.token_a),
    )
    .await;
    assert_eq!(s, 400);
    assert_error(&e, "MISSING_PARAMS");

    // Human amounts only for catalog tokens.
    let mut human = quote_request(c, amount, taker);
    human.as_object_mut().unwrap().remove("amountIn");
    human["amount"] = json!("1.5");
    human["amountUnit"] = json!("human");
    let (s, e) = post(&http, &format!("{base}/swap/quote"), &human).await;
    assert_eq!(s, 400);
    assert_error(&e, "INVALID_PARAMS");

    // Native ETH in: no approval, the value rides along.
    let eth = api::chains::EVM_NATIVE;
    let req = json!({"chainKey": "base", "tokenIn": eth.to_string(), "tokenOut": c.token_b.to_string(),
                     "amount": "0.5", "amountUnit": "human", "taker": taker.to_string()});
    let (q, s, b) = quote_then_build(&http, base, &req, 0).await;
    assert_eq!(q["best"]["amountIn"], (5 * 10u128.pow(17)).to_string());
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["value"], (5 * 10u128.pow(17)).to_string());
    send_build(&p, &b).await;

    // Unknown pair: KyberSwap's 4008 and 0x's liquidityAvailable=false are "no route".
    let mut unknown = quote_request(c, amount, taker);
    unknown["tokenOut"] = json!(Address::repeat_byte(0x11).to_string());
    let (s, e) = post(&http, &format!("{base}/swap/quote"), &unknown).await;
    assert_eq!(s, 404, "{e}");
    assert_error(&e, "NO_ROUTE");

    // KyberSwap rate limited: 0x still answers; both rate limited: a retryable 503, not "no route".
    w.kyber.set_mode(Mode::RateLimited);
    let (s, q) = post(
        &http,
        &format!("{base}/swap/quote"),
        &quote_request(c, amount, taker),
    )
    .await;
    assert_eq!(s, 200, "{q}");
    assert_eq!(q["best"]["dexId"], "zerox-base");
    w.zerox.set_mode(Mode::RateLimited);
    let r = http
        .post(format!("{base}/swap/quote"))
        .json(&quote_request(c, amount, taker))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "2");
    let e: Value = r.json().await.unwrap();
    assert_error(&e, "UPSTREAM_RATE_LIMITED");
}

#[tokio::test(flavor = "multi_thread")]
async fn evm_swap_flow_sqlite() {
    swap_flow(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn evm_swap_flow_postgres() {
    swap_flow(true).await;
}
