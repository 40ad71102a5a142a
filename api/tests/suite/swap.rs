//! Solana swaps through the API against a running stack: the catalog, quotes from the curve and, after the
//! buy that graduates and migrates in one transaction, from the AMM; builds simulated before they are
//! returned; submit and record; and the spec's errors.

use crate::common;

use common::*;
use localnet::testkit::{self, SOL};
use serde_json::{json, Value};
use solana_signer::Signer;
use std::time::{Duration, Instant};

/// Quote, build, sign, submit: the relay answers once the index holds the swap, so the next quote sees it.
async fn swap(
    s: &Stack,
    http: &reqwest::Client,
    request: Value,
    wallet: &solana_keypair::Keypair,
) -> (Value, Value) {
    let base = &s.base;
    let (status, quote) = post(http, &format!("{base}/swap/quote"), &request).await;
    assert_eq!(status, 200, "{quote}");
    let build = json!({
        "request": request,
        "route": quote["best"]["route"],
        "minAmountOut": quote["best"]["minAmountOut"],
    });
    let (status, built) = post(http, &format!("{base}/swap/build"), &build).await;
    assert_eq!(status, 200, "{built}");
    let signed = sign(built["solanaTransaction"].as_str().unwrap(), wallet);
    let (status, sent) = post(
        http,
        &format!("{base}/swap/submit-solana"),
        &json!({ "signedTransaction": signed }),
    )
    .await;
    assert_eq!(status, 200, "{sent}");
    assert_eq!(sent["confirmed"], true);
    assert_eq!(sent["indexed"], true, "{sent}");
    (quote, json!({ "built": built, "sent": sent }))
}

/// The launch's curve view, once the index serves it (within 30 s of the launch).
async fn indexed_curve(http: &reqwest::Client, base: &str, mint: &str) -> Value {
    let start = Instant::now();
    loop {
        let (status, curve) = get(http, &format!("{base}/launchpad/curve/{mint}")).await;
        if status == 200 {
            return curve;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the launch {mint} was never indexed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn eventually_dex(http: &reqwest::Client, base: &str, request: &Value, dex: &str) {
    let start = Instant::now();
    loop {
        let (status, q) = post(http, &format!("{base}/swap/quote"), request).await;
        if status == 200 && q["best"]["dexId"] == dex {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "never routed via {dex}: {q}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn swaps(postgres: bool) {
    // A platform fee configured: Solana routes take none, and say so at the top and in every entry.
    let s = stack_configured(postgres, |c| api::process::config::ApiConfig {
        rate_limit_burst: 1_000,
        rate_limit_per_second: 5,
        platform_fee_bps: 100,
        ..c
    })
    .await;
    let base = s.base.clone();
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 21, "SWAP")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 40 * SOL).await.unwrap();
    let sol = sdk::ids::NATIVE_MINT.to_string();
    let mint = keys.mint.to_string();

    let (status, chains) = get(&http, &format!("{base}/swap/chains")).await;
    assert_eq!(status, 200);
    let solana = chains["chains"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["chainKey"] == "solana")
        .unwrap();
    assert_eq!(solana["kind"], "solana");
    assert_eq!(solana["nativeToken"]["decimals"], 9);
    indexed_curve(&http, &base, &mint).await;
    // The catalog lists every launch the index has, as the listing does: this one was launched without
    // `POST /launchpad/record` and is listed all the same.
    let (_, tokens) = get(&http, &format!("{base}/swap/tokens?chainKey=solana&q=swap")).await;
    assert!(
        tokens["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["address"] == mint),
        "{tokens}"
    );

    // A curve buy in human units.
    let buy = json!({
        "chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "amount": "0.5", "amountUnit": "human",
        "slippageBps": 100, "taker": trader.pubkey().to_string(),
    });
    let (quote, done) = swap(&s, &http, buy.clone(), &trader).await;
    assert_eq!(quote["best"]["dexId"], "launchpad-solana");
    assert_eq!(quote["best"]["amountIn"], "500000000");
    assert!(
        quote["best"]["estimatedGas"]["computeUnits"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(quote["feeBps"], 0);
    for entry in quote["quotes"].as_array().unwrap() {
        assert_eq!(entry["platformFee"]["bps"], quote["feeBps"], "{entry}");
        assert_eq!(entry["platformFee"]["amount"], "0", "{entry}");
    }
    let held = testkit::token_balance(
        &rpc,
        &trader.pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await;
    assert_eq!(
        held.to_string(),
        quote["best"]["amountOut"].as_str().unwrap(),
        "exact as quoted"
    );
    let tx_hash = done["sent"]["signature"].as_str().unwrap().to_string();
    let record = json!({
        "chainKey": "solana", "dexId": "launchpad-solana", "tokenIn": sol, "tokenOut": mint,
        "amountIn": "500000000", "amountOut": quote["best"]["amountOut"], "protocolFee": "0", "feeBps": 0,
        "txHash": tx_hash, "address": trader.pubkey().to_string(), "status": "confirmed", "source": "agent",
        "clientId": "test",
    });
    let (status, first) = post(&http, &format!("{base}/swap/record"), &record).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["duplicate"], false);
    assert_eq!(
        first["verified"], true,
        "the chain shows this swap: {first}"
    );
    assert_eq!(first["status"], "confirmed");
    let (status, again) = post(&http, &format!("{base}/swap/record"), &record).await;
    assert_eq!(status, 200);
    assert_eq!(again["duplicate"], true);
    // The solana build says how long its transaction can land.
    assert!(
        done["built"]["lastValidBlockHeight"].as_u64().unwrap() > 0,
        "{done}"
    );
    assert!(done["built"]["blockhash"].as_str().unwrap().len() >= 32);

    // A build that would fail is refused: more out than the curve gives.
    let (_, q) = post(&http, &format!("{base}/swap/quote"), &buy).await;
    let greedy = json!({ "request": buy, "route": q["best"]["route"], "minAmountOut": "999999999999999999" });
    let (status, body) = post(&http, &format!("{base}/swap/build"), &greedy).await;
    assert_eq!(status, 422, "{body}");
    assert_error(&body, "SIMULATION_FAILED");

    // A curve route quoted now is stale once the curve migrates.
    let (_, before_graduation) = post(&http, &format!("{base}/swap/quote"), &buy).await;

    // The buy that crosses the threshold also migrates, in the same transaction.
    let big = json!({
        "chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "amountIn": (12 * SOL).to_string(),
        "taker": trader.pubkey().to_string(),
    });
    let (quote, done) = swap(&s, &http, big, &trader).await;
    assert!(
        quote["best"]["refund"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 0
    );
    assert_eq!(done["built"]["migrates"], true);
    let pool =
        sdk::accounts::decode_pool(&rpc.get_account(&keys.pool).await.unwrap().data).unwrap();
    assert_eq!(pool.status, sdk::accounts::PoolStatus::Migrated);

    // Later swaps route through the AMM, both ways.
    let amm_buy = json!({
        "chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "amountIn": SOL.to_string(),
        "taker": trader.pubkey().to_string(),
    });
    eventually_dex(&http, &base, &amm_buy, "launchpad-amm-solana").await;
    let stale = json!({
        "request": buy, "route": before_graduation["best"]["route"],
        "minAmountOut": before_graduation["best"]["minAmountOut"],
    });
    let (status, body) = post(&http, &format!("{base}/swap/build"), &stale).await;
    assert_eq!(status, 409, "{body}");
    assert_error(&body, "ROUTE_STALE");
    swap(&s, &http, amm_buy, &trader).await;
    let held = testkit::token_balance(
        &rpc,
        &trader.pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await;
    let amm_sell = json!({
        "chainKey": "solana", "tokenIn": mint, "tokenOut": sol, "amountIn": (held / 2).to_string(),
        "taker": trader.pubkey().to_string(),
    });
    let before = rpc.get_balance(&trader.pubkey()).await.unwrap();
    let (quote, _) = swap(&s, &http, amm_sell, &trader).await;
    let after = rpc.get_balance(&trader.pubkey()).await.unwrap();
    let out: u64 = quote["best"]["amountOut"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        after > before && after - before <= out,
        "the sale is paid in SOL (unwrapped)"
    );

    // Errors.
    let cases = [
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": sol, "amountIn": "1"}),
            400,
            "SAME_TOKEN",
        ),
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": mint}),
            400,
            "MISSING_PARAMS",
        ),
        (
            json!({"tokenIn": sol, "tokenOut": mint, "amountIn": "1"}),
            400,
            "MISSING_PARAMS",
        ),
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "amount": "1", "amountUnit": "wei"}),
            400,
            "INVALID_PARAMS",
        ),
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": "bad", "amountIn": "1"}),
            400,
            "INVALID_ADDRESS",
        ),
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": anchor_lang::prelude::Pubkey::new_unique().to_string(), "amountIn": "1000"}),
            404,
            "NO_ROUTE",
        ),
        (
            json!({"chainKey": "dogechain", "tokenIn": sol, "tokenOut": mint, "amountIn": "1"}),
            400,
            "UNSUPPORTED_CHAIN",
        ),
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "amountIn": "-5"}),
            400,
            "INVALID_PARAMS",
        ),
        (
            json!({"chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "amountIn": "1000", "amount": "1", "amountUnit": "human"}),
            400,
            "INVALID_PARAMS",
        ),
    ];
    for (body, want, code) in cases {
        let (status, resp) = post(&http, &format!("{base}/swap/quote"), &body).await;
        assert_eq!(status, want, "{body}: {resp}");
        assert_error(&resp, code);
    }
    let (status, resp) = post(
        &http,
        &format!("{base}/swap/build"),
        &json!({"request": buy, "route": {"venue": "moon"}, "minAmountOut": "1"}),
    )
    .await;
    assert_eq!(status, 400);
    assert_error(&resp, "INVALID_ROUTE");
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn solana_swaps_on_sqlite() {
    swaps(false).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn solana_swaps_on_postgres() {
    swaps(true).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_keeper_migrates_a_curve_completed_by_another_client() {
    let s = stack(false, 1_000).await;
    let rpc = std::sync::Arc::new(
        solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
            s.net.rpc_url(),
            solana_commitment_config::CommitmentConfig::confirmed(),
        ),
    );
    let operator = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let store = index::Store::open(&s.db).await.unwrap();
    tokio::spawn(api::chain::keeper::run(
        store,
        rpc.clone(),
        operator,
        api::solana::FeePolicy {
            percentile: 50,
            cap: 1_000_000,
        },
        s.stop.subscribe(),
    ));
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 77, "KEEP")
        .await
        .unwrap();
    let whale = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    // A client that buys to completion without appending `migrate`.
    testkit::buy(&rpc, &keys, &whale, 12 * SOL).await.unwrap();
    let http = reqwest::Client::new();
    let start = Instant::now();
    loop {
        let (_, curve) = get(&http, &format!("{}/launchpad/curve/{}", s.base, keys.mint)).await;
        if curve["migrated"] == true {
            assert!(curve["ammPool"].is_string());
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the keeper never migrated: {curve}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// The compute budget of a built transaction: (limit, micro-lamports per unit).
fn compute_budget(b64: &str) -> (u32, u64) {
    use base64::Engine;
    let tx: solana_transaction::versioned::VersionedTransaction = bincode::deserialize(
        &base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap(),
    )
    .unwrap();
    let budget: anchor_lang::prelude::Pubkey = "ComputeBudget111111111111111111111111111111"
        .parse()
        .unwrap();
    let keys = tx.message.static_account_keys();
    let (mut limit, mut price) = (None, None);
    for ix in tx.message.instructions() {
        if keys[usize::from(ix.program_id_index)] != budget {
            continue;
        }
        match ix.data[0] {
            2 => limit = Some(u32::from_le_bytes(ix.data[1..5].try_into().unwrap())),
            3 => price = Some(u64::from_le_bytes(ix.data[1..9].try_into().unwrap())),
            _ => {}
        }
    }
    (
        limit.expect("a compute-unit limit"),
        price.expect("a compute-unit price"),
    )
}

/// A buy of `keys`' token paying `micro_lamports` per compute unit: it writes the pool.
async fn priced_buy(
    rpc: &solana_rpc_client::nonblocking::rpc_client::RpcClient,
    keys: &sdk::launchpad_ix::LaunchKeys,
    buyer: &solana_keypair::Keypair,
    micro_lamports: u64,
) {
    let mut ixs = vec![
        solana_compute_budget_interface::ComputeBudgetInstruction::set_compute_unit_price(
            micro_lamports,
        ),
    ];
    ixs.extend(testkit::buy_instructions(keys, &buyer.pubkey(), SOL / 100));
    testkit::send(rpc, &ixs, &[buyer]).await.unwrap();
}

/// Builds ask for what their simulation used plus 10%, and offer the configured percentile of the recent
/// prioritization fees of the accounts they write (here the highest), at most the cap; a caller may ask for
/// none. The localnet answers `getRecentPrioritizationFees` like a validator.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn builds_budget_compute_from_simulation_and_price_from_recent_fees() {
    let s = stack_configured(false, |c| api::process::config::ApiConfig {
        rate_limit_burst: 1_000,
        priority_fee_percentile: 100,
        priority_fee_cap: 1_000_000,
        ..c
    })
    .await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 33, "FEES")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let request = json!({
        "chainKey": "solana", "tokenIn": sdk::ids::NATIVE_MINT.to_string(), "tokenOut": keys.mint.to_string(),
        "amountIn": "100000000", "slippageBps": 500, "taker": trader.pubkey().to_string(),
    });
    let build = |level: Option<&str>| {
        let http = http.clone();
        let base = s.base.clone();
        let request = request.clone();
        let level = level.map(str::to_string);
        async move {
            let (status, quote) = post(&http, &format!("{base}/swap/quote"), &request).await;
            assert_eq!(status, 200, "{quote}");
            let mut body = json!({
                "request": request, "route": quote["best"]["route"],
                "minAmountOut": quote["best"]["minAmountOut"],
            });
            if let Some(l) = level {
                body["priorityLevel"] = json!(l);
            }
            let (status, built) = post(&http, &format!("{base}/swap/build"), &body).await;
            assert_eq!(status, 200, "{built}");
            let (limit, price) = compute_budget(built["solanaTransaction"].as_str().unwrap());
            let gas = &built["estimatedGas"];
            assert_eq!(gas["computeUnits"], limit, "{built}");
            assert_eq!(gas["microLamportsPerComputeUnit"], price, "{built}");
            let used = built["simulatedUnits"].as_u64().unwrap();
            assert_eq!(u64::from(limit), used + used / 10, "{built}");
            let priority = (u64::from(limit) * price).div_ceil(1_000_000);
            assert_eq!(gas["lamports"], 5_000 + priority, "{built}");
            (built, limit, price)
        }
    };
    // No fee paid recently: none offered; the limit is the simulation's, not a fixed 600,000.
    let (_, limit, price) = build(None).await;
    assert_eq!(price, 0);
    assert!(limit < 600_000, "{limit}");

    // A buy paying 50,000 micro-lamports per unit writes the pool: the localnet reports it for the pool.
    priced_buy(&rpc, &keys, &creator, 50_000).await;
    let fees = rpc
        .get_recent_prioritization_fees(&[keys.pool])
        .await
        .unwrap();
    assert!(
        fees.iter().any(|f| f.prioritization_fee == 50_000),
        "{fees:?}"
    );
    assert!(fees.windows(2).all(|w| w[0].slot < w[1].slot));
    let (_, _, price) = build(None).await;
    assert_eq!(price, 50_000);
    let (_, _, price) = build(Some("none")).await;
    assert_eq!(price, 0);

    // Past the cap: the cap.
    priced_buy(&rpc, &keys, &creator, 5_000_000).await;
    let (built, _, price) = build(None).await;
    assert_eq!(price, 1_000_000);
    // It lands, paying what estimatedGas said.
    let signed = sign(built["solanaTransaction"].as_str().unwrap(), &trader);
    let (status, sent) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{sent}");
    let fee = transaction_fee(&rpc, sent["signature"].as_str().unwrap()).await;
    assert_eq!(json!(fee), built["estimatedGas"]["lamports"]);
    // A level that is not one is refused in the envelope.
    let (status, quote) = post(&http, &format!("{}/swap/quote", s.base), &request).await;
    assert_eq!(status, 200);
    let (status, body) = post(
        &http,
        &format!("{}/swap/build", s.base),
        &json!({"request": request, "route": quote["best"]["route"],
            "minAmountOut": quote["best"]["minAmountOut"], "priorityLevel": "urgent"}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_error(&body, "INVALID_PARAMS");
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// The chain's unix time (the Clock sysvar), as the programs read it.
async fn chain_unix(rpc: &solana_rpc_client::nonblocking::rpc_client::RpcClient) -> i64 {
    let clock = rpc
        .get_account(&api::chain::clock::CLOCK_SYSVAR)
        .await
        .unwrap();
    api::chain::clock::unix_timestamp(&clock.data).unwrap()
}

/// Moves the localnet's clock forward (`localnet_advanceClock`), as a test of a time-based fee would.
async fn advance_clock(http: &reqwest::Client, s: &Stack, seconds: i64) {
    let (status, body) = post(
        http,
        &s.net.rpc_url(),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "localnet_advanceClock", "params": [seconds]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["result"]["unixTimestamp"].is_i64(), "{body}");
}

/// The trader's balance of the launch's token.
async fn held(
    s: &Stack,
    keys: &sdk::launchpad_ix::LaunchKeys,
    wallet: &solana_keypair::Keypair,
) -> u64 {
    testkit::token_balance(
        &s.rpc(),
        &wallet.pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await
}

/// The shield fee decays by the chain's clock (50% falling 4.9 points a minute to 1%). With the chain's
/// clock moved through every step, the curve view shows the chain's fee and a quote at zero slippage is
/// delivered to the base unit; a buy quoted in one step that lands in the next gets at least its minimum
/// (the fee only falls), exactly what a quote in that step says.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn quotes_price_the_fee_by_the_chains_clock_through_the_shield_decay() {
    let s = stack(false, 1_000).await;
    let base = s.base.clone();
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Shield, 33, "SHLD")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    let mint = keys.mint.to_string();
    let curve_url = format!("{base}/launchpad/curve/{mint}");
    let launched = indexed_curve(&http, &base, &mint).await["launchedAt"]
        .as_i64()
        .unwrap();
    let schedule = curve::Preset::Shield.fee_schedule();
    let buy = |lamports: u64| {
        json!({
            "chainKey": "solana", "tokenIn": sdk::ids::NATIVE_MINT.to_string(), "tokenOut": mint,
            "amountIn": lamports.to_string(), "slippageBps": 0, "taker": trader.pubkey().to_string(),
        })
    };
    let mut seen = Vec::new();
    for step in 0..=10i64 {
        // The middle of the step, so that no boundary falls between quote and landing.
        let target = launched + step * 60 + 30;
        let now = chain_unix(&rpc).await;
        if target > now {
            advance_clock(&http, &s, target - now).await;
        }
        // (Past the response cache's 100 ms.)
        tokio::time::sleep(Duration::from_millis(150)).await;
        let elapsed = chain_unix(&rpc).await - launched;
        let fee = schedule.fee_bps_at(elapsed);
        let (_, view) = get(&http, &curve_url).await;
        assert_eq!(view["currentFeeBps"], fee, "step {step}: {view}");
        let next = schedule.next_change_after(elapsed).map(|n| launched + n);
        assert_eq!(view["feeChangesAt"].as_i64(), next, "step {step}: {view}");
        let before = held(&s, &keys, &trader).await;
        let (quote, _) = swap(&s, &http, buy(SOL / 20), &trader).await;
        assert_eq!(quote["best"]["poolFee"]["bps"], fee, "step {step}: {quote}");
        assert_eq!(quote["best"]["poolFee"]["changesAt"].as_i64(), next);
        let got = held(&s, &keys, &trader).await - before;
        assert_eq!(
            got.to_string(),
            quote["best"]["amountOut"].as_str().unwrap(),
            "step {step} at {fee} bps: the chain delivered exactly the quote"
        );
        seen.push(fee);
    }
    assert_eq!(seen.first(), Some(&5_000));
    assert_eq!(seen.last(), Some(&100));
    assert!(seen.windows(2).all(|w| w[0] > w[1]), "{seen:?}");

    // Quoted in one step, landing in the next: the fee fell, so at least the minimum arrives, and exactly
    // what a quote in the later step says. (The chain is past the decay now: a fresh launch.)
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Shield, 34, "SHLE")
        .await
        .unwrap();
    let mint = keys.mint.to_string();
    let launched = indexed_curve(&http, &base, &mint).await["launchedAt"]
        .as_i64()
        .unwrap();
    let now = chain_unix(&rpc).await;
    if launched + 30 > now {
        advance_clock(&http, &s, launched + 30 - now).await;
    }
    let request = json!({
        "chainKey": "solana", "tokenIn": sdk::ids::NATIVE_MINT.to_string(), "tokenOut": mint,
        "amountIn": (SOL / 20).to_string(), "slippageBps": 50, "taker": trader.pubkey().to_string(),
    });
    let (_, early) = post(&http, &format!("{base}/swap/quote"), &request).await;
    assert_eq!(early["best"]["poolFee"]["bps"], 5_000, "{early}");
    advance_clock(&http, &s, 60).await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    let (_, later) = post(&http, &format!("{base}/swap/quote"), &request).await;
    assert_eq!(later["best"]["poolFee"]["bps"], 4_510, "{later}");
    let build = json!({
        "request": request, "route": early["best"]["route"], "minAmountOut": early["best"]["minAmountOut"],
    });
    let (status, built) = post(&http, &format!("{base}/swap/build"), &build).await;
    assert_eq!(status, 200, "{built}");
    let signed = sign(built["solanaTransaction"].as_str().unwrap(), &trader);
    let before = held(&s, &keys, &trader).await;
    let (status, sent) = post(
        &http,
        &format!("{base}/swap/submit-solana"),
        &json!({ "signedTransaction": signed }),
    )
    .await;
    assert_eq!(status, 200, "{sent}");
    let got = held(&s, &keys, &trader).await - before;
    let min: u64 = early["best"]["minAmountOut"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(got >= min, "{got} < {min}");
    assert_eq!(
        got.to_string(),
        later["best"]["amountOut"].as_str().unwrap()
    );
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// What a quote promises cannot be edited, a record must be true, and a secret is refused wherever in a
/// request it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn routes_cannot_be_edited_records_are_checked_and_secrets_are_refused_anywhere() {
    let s = stack(false, 1_000).await;
    let base = s.base.clone();
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, deploy) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 35, "EDIT")
        .await
        .unwrap();
    let (other, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 36, "OTHR")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    let sol = sdk::ids::NATIVE_MINT.to_string();
    let mint = keys.mint.to_string();
    for m in [&keys.mint, &other.mint] {
        indexed_curve(&http, &base, &m.to_string()).await;
    }
    let request = json!({
        "chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "amountIn": (SOL / 10).to_string(),
        "taker": trader.pubkey().to_string(),
    });
    let (status, quote) = post(&http, &format!("{base}/swap/quote"), &request).await;
    assert_eq!(status, 200, "{quote}");
    assert_eq!(quote["slippageBps"], 50);
    let route = quote["best"]["route"].clone();
    assert!(route["tag"].is_string(), "{route}");
    assert_eq!(quote["expiresAt"], route["expiresAt"]);
    let build = |route: &Value| json!({"request": request, "route": route, "minAmountOut": quote["best"]["minAmountOut"]});
    // Edits: the expiry pushed out, the amount tripled, another token's pool, another venue.
    let tripled = (route["amountOut"].as_str().unwrap().parse::<u64>().unwrap() * 3).to_string();
    for (field, value) in [
        (
            "expiresAt",
            json!(route["expiresAt"].as_i64().unwrap() + 3_600),
        ),
        ("amountOut", json!(tripled)),
        ("pool", json!(other.pool.to_string())),
        ("venue", json!("amm")),
    ] {
        let mut edited = route.clone();
        edited[field] = value;
        let (status, body) = post(&http, &format!("{base}/swap/build"), &build(&edited)).await;
        assert_eq!(status, 400, "{field}: {body}");
        assert_error(&body, "INVALID_ROUTE");
    }
    // Keys in another order are the same route; the whole entry is accepted too.
    let reordered: serde_json::Map<String, Value> = route
        .as_object()
        .unwrap()
        .iter()
        .rev()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let (status, built) = post(
        &http,
        &format!("{base}/swap/build"),
        &build(&Value::Object(reordered)),
    )
    .await;
    assert_eq!(status, 200, "{built}");
    let (status, built) = post(&http, &format!("{base}/swap/build"), &build(&quote["best"])).await;
    assert_eq!(status, 200, "{built}");

    // A real buy, then records of it: true, false, and not yet known.
    let signed = sign(built["solanaTransaction"].as_str().unwrap(), &trader);
    let (status, sent) = post(
        &http,
        &format!("{base}/swap/submit-solana"),
        &json!({ "signedTransaction": signed }),
    )
    .await;
    assert_eq!(status, 200, "{sent}");
    let signature = sent["signature"].as_str().unwrap().to_string();
    let record = |tx: &str, address: String, amount_out: &str| {
        json!({
            "chainKey": "solana", "dexId": "launchpad-solana", "tokenIn": sol, "tokenOut": mint,
            "amountIn": (SOL / 10).to_string(), "amountOut": amount_out, "txHash": tx, "address": address,
        })
    };
    let amount_out = quote["best"]["amountOut"].as_str().unwrap();
    // Another address, the deploy transaction as a swap: refused, nothing stored.
    for (body, why) in [
        (
            record(&signature, creator.pubkey().to_string(), amount_out),
            "another signer",
        ),
        (
            record(
                &deploy.to_string(),
                creator.pubkey().to_string(),
                amount_out,
            ),
            "the deploy as a swap",
        ),
    ] {
        let (status, resp) = post(&http, &format!("{base}/swap/record"), &body).await;
        assert_eq!(status, 400, "{why}: {resp}");
        assert_error(&resp, "INVALID_PARAMS");
    }
    // A signature that never landed: kept, unverified.
    let unknown = solana_signature::Signature::from([7u8; 64]).to_string();
    let (status, resp) = post(
        &http,
        &format!("{base}/swap/record"),
        &record(&unknown, trader.pubkey().to_string(), amount_out),
    )
    .await;
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["verified"], false, "{resp}");
    // The real swap with an invented amount: verified, and stored with what the chain shows moved.
    let inflated = record(&signature, trader.pubkey().to_string(), &tripled);
    let (status, resp) = post(&http, &format!("{base}/swap/record"), &inflated).await;
    assert_eq!(status, 200, "{resp}");
    assert_eq!(
        (&resp["verified"], &resp["status"], &resp["duplicate"]),
        (&json!(true), &json!("confirmed"), &json!(false)),
        "{resp}"
    );
    assert_eq!(
        resp["amountOut"], amount_out,
        "what moved, not what was claimed"
    );
    // The true record of the same hash: idempotent.
    let truth = record(&signature, trader.pubkey().to_string(), amount_out);
    let (_, again) = post(&http, &format!("{base}/swap/record"), &truth).await;
    assert_eq!(
        (&again["duplicate"], &again["amountOut"]),
        (&json!(true), &json!(amount_out))
    );

    // Secrets in a query string, a header, a path: refused like secrets in a body.
    let keypair = solana_keypair::Keypair::new();
    let base58 = keypair.to_base58_string();
    let phrase =
        "abandon ability able about above absent absorb abstract absurd abuse access accident";
    let wallet = trader.pubkey().to_string();
    for url in [
        format!("{base}/swap/allowance?chainKey=ethereum&token=0xA0b86991c6218b36c1d19d4a2e9eB0cE3606eB48&owner=0x0000000000000000000000000000000000000001&spender=0x0000000000000000000000000000000000000002&privateKey={base58}"),
        format!("{base}/launchpad/fees?creator={wallet}&mnemonic={}", phrase.replace(' ', "+")),
        format!("{base}/launchpad/fees?creator={wallet}&note={base58}"),
        format!("{base}/launchpad/curve/{base58}"),
    ] {
        let (status, body) = get(&http, &url).await;
        assert_eq!(status, 400, "{url}: {body}");
        assert_error(&body, "SECRET_MATERIAL");
        assert!(!body.to_string().contains(&base58), "the answer never repeats it");
    }
    for (name, value) in [
        ("x-private-key", "anything".to_string()),
        ("x-client-id", base58.clone()),
        ("x-note", phrase.to_string()),
    ] {
        let r = http
            .get(format!("{base}/launchpad/fees?creator={wallet}"))
            .header(name, value)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{name}");
        let body: Value = r.json().await.unwrap();
        assert_error(&body, "SECRET_MATERIAL");
    }
    // What looks alike but is not a key passes: a signature where signatures belong, an ETag.
    let (_, body) = get(
        &http,
        &format!("{base}/launchpad/fees?creator={wallet}&txSignature={signature}"),
    )
    .await;
    assert_ne!(body["error"]["code"], "SECRET_MATERIAL", "{body}");
    let r = http
        .get(format!("{base}/launchpad/curve/{mint}"))
        .header("if-none-match", format!("\"{}\"", "ab".repeat(32)))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// The newest trade of `mint` in the index.
async fn last_trade(http: &reqwest::Client, base: &str, mint: &str) -> Value {
    let (status, page) = get(http, &format!("{base}/launchpad/trades/{mint}?limit=1")).await;
    assert_eq!(status, 200, "{page}");
    page["trades"][0].clone()
}

/// Exact out through the API: a quote with `swapMode: "ExactOut"` and `amountOut` prices the input, the route
/// carries the most it may take (`maxAmountIn`, the quote's input plus the slippage, rounded up), and the
/// built transaction delivers exactly the amount asked for, on the curve (a buy of exactly 100,000,000
/// tokens, a sell for exactly 0.1 SOL) and on the AMM after graduation. Refused: both amounts, an EVM
/// chain, an unknown mode, a route used for the other mode, a maximum below the price.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn exact_out_swaps_through_the_api() {
    let s = stack(false, 1_000).await;
    let base = s.base.clone();
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 31, "EXOUT")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 40 * SOL).await.unwrap();
    let (sol, mint) = (sdk::ids::NATIVE_MINT.to_string(), keys.mint.to_string());
    indexed_curve(&http, &base, &mint).await;
    let taker = trader.pubkey().to_string();

    // Buy exactly 100,000,000 tokens.
    let tokens = 100_000_000_000_000u64;
    let buy = json!({
        "chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "swapMode": "ExactOut",
        "amountOut": tokens.to_string(), "slippageBps": 100, "taker": taker,
    });
    let (quote, _) = swap(&s, &http, buy.clone(), &trader).await;
    let best = &quote["best"];
    assert_eq!(quote["swapMode"], "ExactOut");
    assert_eq!(best["dexId"], "launchpad-solana");
    assert_eq!(best["amountOut"], tokens.to_string());
    assert_eq!(best["minAmountOut"], tokens.to_string());
    let paid: u128 = best["amountIn"].as_str().unwrap().parse().unwrap();
    let most: u128 = best["maxAmountIn"].as_str().unwrap().parse().unwrap();
    assert_eq!(most, (paid * 10_100).div_ceil(10_000), "{best}");
    assert_eq!(
        held(&s, &keys, &trader).await,
        tokens,
        "exactly the tokens asked for"
    );
    let t = last_trade(&http, &base, &mint).await;
    assert_eq!(
        (
            t["side"].as_str(),
            t["amountIn"].as_str(),
            t["amountOut"].as_str()
        ),
        (
            Some("buy"),
            best["amountIn"].as_str(),
            Some(tokens.to_string().as_str())
        ),
        "{t}"
    );

    // Sell for exactly 0.1 SOL.
    let sell = json!({
        "chainKey": "solana", "tokenIn": mint, "tokenOut": sol, "swapMode": "ExactOut",
        "amountOut": "100000000", "slippageBps": 100, "taker": taker,
    });
    let (quote, _) = swap(&s, &http, sell, &trader).await;
    let sold: u64 = quote["best"]["amountIn"].as_str().unwrap().parse().unwrap();
    assert_eq!(held(&s, &keys, &trader).await, tokens - sold);
    let t = last_trade(&http, &base, &mint).await;
    assert_eq!(
        (t["side"].as_str(), t["amountOut"].as_str()),
        (Some("sell"), Some("100000000")),
        "{t}"
    );

    // Refused requests.
    let mut both = buy.clone();
    both["amountIn"] = json!("1000");
    let mut evm = buy.clone();
    evm["chainKey"] = json!("ethereum");
    evm["tokenIn"] = json!("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE");
    evm["tokenOut"] = json!("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
    evm["taker"] = json!(null);
    let mut sideways = buy.clone();
    sideways["swapMode"] = json!("Sideways");
    let mut no_amount = buy.clone();
    no_amount.as_object_mut().unwrap().remove("amountOut");
    for (request, code) in [
        (both, "INVALID_PARAMS"),
        (evm, "INVALID_PARAMS"),
        (sideways, "INVALID_PARAMS"),
        (no_amount, "MISSING_PARAMS"),
    ] {
        let (status, body) = post(&http, &format!("{base}/swap/quote"), &request).await;
        assert_eq!(status, 400, "{request}: {body}");
        assert_error(&body, code);
    }
    // An exact-out route built as exact in (or for another amount) is not the route that was quoted.
    let (_, quote) = post(&http, &format!("{base}/swap/quote"), &buy).await;
    let mut as_exact_in = buy.clone();
    as_exact_in.as_object_mut().unwrap().remove("swapMode");
    as_exact_in.as_object_mut().unwrap().remove("amountOut");
    as_exact_in["amountIn"] = json!(tokens.to_string());
    let (status, body) = post(
        &http,
        &format!("{base}/swap/build"),
        &json!({"request": as_exact_in, "route": quote["best"]["route"], "minAmountOut": "1"}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_error(&body, "INVALID_ROUTE");
    // A maximum below the price fails in simulation, before anything is signed.
    let (status, body) = post(
        &http,
        &format!("{base}/swap/build"),
        &json!({"request": buy, "route": quote["best"]["route"], "minAmountOut": tokens.to_string(),
                "maxAmountIn": "1000"}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_error(&body, "SIMULATION_FAILED");

    // After graduation and migration, exact out on the AMM.
    let whale = testkit::funded(&rpc, 40 * SOL).await.unwrap();
    testkit::buy(&rpc, &keys, &whale, 12 * SOL).await.unwrap();
    testkit::migrate(&rpc, &keys, &whale).await.unwrap();
    let amm_buy = json!({
        "chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "swapMode": "ExactOut",
        "amountOut": "1000000000000", "slippageBps": 100, "taker": taker,
    });
    eventually_dex(&http, &base, &amm_buy, "launchpad-amm-solana").await;
    let before = held(&s, &keys, &trader).await;
    let (quote, _) = swap(&s, &http, amm_buy, &trader).await;
    assert_eq!(quote["best"]["dexId"], "launchpad-amm-solana");
    assert_eq!(quote["best"]["amountOut"], "1000000000000");
    assert_eq!(held(&s, &keys, &trader).await - before, 1_000_000_000_000);
    let _ = s.stop.send(true);
}
