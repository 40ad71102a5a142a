//! The upstream series an on-call reads (issue 41 item 5) for KyberSwap, 0x, LI.FI, Relay and each EVM
//! chain's RPC node: requests, errors by kind and the latency histogram, scraped from `GET /metrics` (the
//! router and recorder the binaries serve) after real calls through the API to a local EVM node and local
//! servers in each provider's shape, some answering 500 or 429 and one chain's node unreachable.
//!
//! The recorder is the test process's, shared with the binary's other tests running beside this one: each
//! series is compared before and after, and must have grown by at least this test's own calls.

use super::common::post;
use super::harness::*;
use super::mocks::{self, Mock, Mode};
use serde_json::{json, Value};

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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn upstream_series_of_the_evm_aggregators_bridges_and_nodes() {
    // The process's recorder, before anything records (as each binary installs it first).
    ops::metrics::prometheus();
    let metrics = serve(ops::metrics::metrics_router(None)).await;
    let http = reqwest::Client::new();
    let scrape = || async {
        http.get(format!("{metrics}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };

    let node = EvmNode::start();
    let c = deploy(&node.url).await;
    let (kyber, zerox, lifi, relay) = (Mock::new(&c), Mock::new(&c), Mock::new(&c), Mock::new(&c));
    let kyber_url = serve(mocks::kyberswap(kyber.clone())).await;
    let zerox_url = serve(mocks::zerox_router(zerox.clone())).await;
    let lifi_url = serve(mocks::lifi(lifi.clone())).await;
    let relay_url = serve(mocks::relay(relay.clone())).await;
    let api = Api::start(false, &node.url, |cfg| {
        cfg.aggregator.kyberswap_base_url = kyber_url;
        cfg.aggregator.zerox_base_url = zerox_url;
        cfg.aggregator.zerox_api_key = Some("test-key".into());
        cfg.aggregator.lifi_base_url = lifi_url;
        cfg.aggregator.relay_base_url = relay_url;
        // A chain whose node cannot be reached: nothing listens on port 9.
        cfg.aggregator
            .evm_rpc
            .push(("bsc".to_string(), "http://127.0.0.1:9".to_string()));
    })
    .await;
    let base = &api.base;
    let taker = address_of(TAKER_KEY);
    let before = scrape().await;

    // Same-chain quotes: both aggregators answer, then KyberSwap fails (500) and 0x rate-limits (429).
    let quote = json!({
        "chainKey": CHAIN_KEY,
        "tokenIn": c.token_a.to_string(),
        "tokenOut": c.token_b.to_string(),
        "amountIn": (5 * 10u128.pow(18)).to_string(),
        "slippageBps": 100,
        "taker": taker.to_string(),
    });
    let (s, q) = post(&http, &format!("{base}/swap/quote"), &quote).await;
    assert_eq!(s, 200, "{q}");
    kyber.set_mode(Mode::ServerError);
    zerox.set_mode(Mode::RateLimited);
    let (s, q) = post(&http, &format!("{base}/swap/quote"), &quote).await;
    assert_ne!(s, 200, "{q}");

    // Cross-chain quotes: LI.FI answers; then it fails (500) and Relay answers in its place.
    let bridge = json!({
        "fromChainKey": "base",
        "toChainKey": "arbitrum",
        "tokenIn": c.token_a.to_string(),
        "tokenOut": "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
        "amountIn": 10u128.pow(18).to_string(),
        "taker": taker.to_string(),
    });
    let url = format!("{base}/swap/cross-chain/quote");
    let (s, q) = post(&http, &url, &bridge).await;
    assert_eq!((s, q["provider"].clone()), (200, json!("lifi")), "{q}");
    lifi.set_mode(Mode::ServerError);
    let (s, q) = post(&http, &url, &bridge).await;
    assert_eq!((s, q["provider"].clone()), (200, json!("relay")), "{q}");

    // The nodes: an allowance read on `base` (eth_call), and one on `bsc`, whose node is unreachable.
    let allowance = |chain: &str, token: &str| {
        format!(
            "{base}/swap/allowance?chainKey={chain}&token={token}&owner={taker}&spender={}",
            c.router
        )
    };
    let r = http
        .get(allowance("base", &c.token_a.to_string()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    let r = http
        .get(allowance(
            "bsc",
            "0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d",
        ))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    assert!(status >= 500, "{status} {body}");

    let after = scrape().await;
    let grew =
        |name: &str, labels: &[&str]| total(&after, name, labels) - total(&before, name, labels);
    for (upstream, method, calls) in [
        ("kyberswap", "/api/v1/routes", 2.0),
        ("0x", "/price", 2.0),
        ("lifi", "/v1/quote", 2.0),
        ("relay", "/quote", 1.0),
    ] {
        let labels = [format!(r#"upstream="{upstream}""#), method.to_string()];
        let labels = [labels[0].as_str(), labels[1].as_str()];
        assert!(
            grew("upstream_requests_total", &labels) >= calls,
            "{upstream} {method}: {after}"
        );
        // Each call's latency is one sample of the histogram.
        assert!(
            grew("upstream_request_duration_seconds_count", &labels) >= calls,
            "{upstream} {method}: {after}"
        );
    }
    for (upstream, kind) in [
        ("kyberswap", "server_error"),
        ("0x", "rate_limited"),
        ("lifi", "server_error"),
    ] {
        let labels = [
            format!(r#"upstream="{upstream}""#),
            format!(r#"kind="{kind}""#),
        ];
        assert!(
            grew("upstream_errors_total", &[&labels[0], &labels[1]]) >= 1.0,
            "{upstream} {kind}: {after}"
        );
    }
    // Relay answered: no error of its own.
    assert_eq!(
        grew("upstream_errors_total", &[r#"upstream="relay""#]),
        0.0,
        "{after}"
    );
    let base_calls = [
        r#"upstream="evm-rpc""#,
        r#"chain="base""#,
        r#"method="eth_call""#,
    ];
    assert!(
        grew("upstream_requests_total", &base_calls) >= 1.0,
        "{after}"
    );
    assert!(
        grew("upstream_request_duration_seconds_count", &base_calls) >= 1.0,
        "{after}"
    );
    let dead = [r#"upstream="evm-rpc""#, r#"chain="bsc""#];
    assert!(grew("upstream_requests_total", &dead) >= 1.0, "{after}");
    assert!(
        grew(
            "upstream_errors_total",
            &[dead[0], dead[1], r#"kind="connect""#]
        ) >= 1.0,
        "{after}"
    );
    assert_eq!(
        grew("upstream_errors_total", &[dead[0], r#"chain="base""#]),
        0.0,
        "the local node answered every call: {after}"
    );
}
