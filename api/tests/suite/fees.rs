//! Shared creator fees and referral fees end to end through the API against the running stack (localnet,
//! indexer over gRPC, API): a launch prepared with three fee recipients, each recipient claiming exactly its
//! share (one to another wallet), after migration the locked creator position's fees through the shares, the
//! shares changed and locked; a swap built with a `referrer` paying it at trade time, and what it earned.

use crate::common;

use common::*;
use localnet::testkit::{self, SOL};
use serde_json::{json, Value};
use solana_signer::Signer;

async fn shares_on_chain(
    rpc: &solana_rpc_client::nonblocking::rpc_client::RpcClient,
    keys: &sdk::launchpad_ix::LaunchKeys,
) -> sdk::accounts::FeeShares {
    sdk::accounts::decode_fee_shares(&rpc.get_account(&keys.fee_shares()).await.unwrap().data)
        .unwrap()
}

fn parts(amount: u64, bps: &[u16]) -> Vec<u64> {
    let mut out = vec![0; bps.len()];
    curve::distribute(amount, bps, &mut out).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_fee_recipients_each_claim_their_share_through_the_api() {
    let s = stack(false, 1_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let mut recipients = Vec::new();
    for _ in 0..3 {
        recipients.push(testkit::funded(&rpc, SOL).await.unwrap());
    }
    let bps = [5_000u16, 3_000, 2_000];
    let shares: Vec<Value> = recipients
        .iter()
        .zip(bps)
        .map(|(r, b)| json!({"wallet": r.pubkey().to_string(), "bps": b}))
        .collect();
    let mut launch = json!({
        "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "fair", "quote": "sol",
        "name": "Shared Fees", "symbol": "SHARE", "totalSupply": "1000000000",
        "creator": creator.pubkey().to_string(), "feeShares": shares,
    });
    // Invalid lists are refused with what is wrong.
    for bad in [
        json!([{"wallet": creator.pubkey().to_string(), "bps": 9_999}]),
        json!([{"wallet": creator.pubkey().to_string(), "bps": 5_000},
               {"wallet": creator.pubkey().to_string(), "bps": 5_000}]),
        json!([]),
    ] {
        let mut wrong = launch.clone();
        wrong["feeShares"] = bad;
        let (status, body) = post(&http, &format!("{}/launchpad/prepare", s.base), &wrong).await;
        assert_eq!(status, 400, "{body}");
        assert_error(&body, "INVALID_FEE_SHARES");
    }
    let prepared = build_sign_submit(&s, &http, "/launchpad/prepare", &launch, &creator).await;
    let mint: sdk::Pubkey = prepared["mint"].as_str().unwrap().parse().unwrap();
    let keys = sdk::launchpad_ix::LaunchKeys::new(
        creator.pubkey(),
        prepared["config"].as_str().unwrap().parse().unwrap(),
        sdk::ids::NATIVE_MINT,
        mint,
    );
    launch["tokenAddress"] = prepared["mint"].clone();
    let trader = testkit::funded(&rpc, 40 * SOL).await.unwrap();
    testkit::buy(&rpc, &keys, &trader, 2 * SOL).await.unwrap();
    s.wait_indexed().await;
    let pool = keys.pool.to_string();
    let accrued = sdk::accounts::decode_pool(&rpc.get_account(&keys.pool).await.unwrap().data)
        .unwrap()
        .creator_fee_unclaimed;
    let expected = parts(accrued, &bps);

    // The token view and the shares view show them; each recipient sees its claim.
    let (_, token) = get(&http, &format!("{}/launchpad/tokens/{mint}", s.base)).await;
    assert_eq!(
        token["feeShares"]["recipients"].as_array().unwrap().len(),
        3,
        "{token}"
    );
    assert_eq!(token["feeShares"]["locked"], false);
    let (status, view) = get(&http, &format!("{}/launchpad/fee-shares/{pool}", s.base)).await;
    assert_eq!(status, 200, "{view}");
    for (i, r) in recipients.iter().enumerate() {
        assert_eq!(view["recipients"][i]["wallet"], r.pubkey().to_string());
        assert_eq!(
            view["recipients"][i]["claimableQuote"],
            expected[i].to_string(),
            "{view}"
        );
        let (_, fees) = get(
            &http,
            &format!("{}/launchpad/fees?creator={}", s.base, r.pubkey()),
        )
        .await;
        assert_eq!(fees["fees"][0]["kind"], "share", "{fees}");
        assert_eq!(fees["fees"][0]["role"], "recipient");
        assert_eq!(fees["fees"][0]["quoteAmount"], expected[i].to_string());
    }

    // The creator role no longer claims the creator fees; a stranger is no recipient.
    let creator_claim =
        json!({"creator": creator.pubkey().to_string(), "pool": pool, "kind": "trading"});
    let (status, body) = post(
        &http,
        &format!("{}/launchpad/claim", s.base),
        &creator_claim,
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_error(&body, "FEES_SHARED");
    let stranger = json!({"creator": trader.pubkey().to_string(), "pool": pool, "kind": "share"});
    let (status, body) = post(&http, &format!("{}/launchpad/claim", s.base), &stranger).await;
    assert_eq!(status, 403, "{body}");
    assert_error(&body, "NOT_ENTITLED");

    // Each claims exactly its share; the third to another wallet (paid as wrapped SOL there).
    let elsewhere = solana_keypair::Keypair::new();
    for (i, r) in recipients.iter().enumerate() {
        let mut claim = json!({"creator": r.pubkey().to_string(), "pool": pool, "kind": "share"});
        if i == 2 {
            claim["recipient"] = json!(elsewhere.pubkey().to_string());
        }
        let built = build_sign_submit(&s, &http, "/launchpad/claim", &claim, r).await;
        assert_eq!(built["quoteAmount"], expected[i].to_string(), "{built}");
    }
    let on_chain = shares_on_chain(&rpc, &keys).await;
    for (i, slot) in on_chain.slots[..3].iter().enumerate() {
        assert_eq!((slot.quote_claimed, slot.quote_unclaimed), (expected[i], 0));
    }
    let wsol = sdk::launchpad_ix::wsol_account(&elsewhere.pubkey());
    let paid = rpc.get_token_account_balance(&wsol).await.unwrap().amount;
    assert_eq!(paid, expected[2].to_string());
    let again =
        json!({"creator": recipients[0].pubkey().to_string(), "pool": pool, "kind": "share"});
    let (status, body) = post(&http, &format!("{}/launchpad/claim", s.base), &again).await;
    assert_eq!(status, 409, "{body}");
    assert_error(&body, "NOTHING_TO_CLAIM");

    // After graduation and migration the creator position's AMM fees follow the shares: the claim collects
    // them first, in the same transaction.
    testkit::buy(&rpc, &keys, &trader, 12 * SOL).await.unwrap();
    testkit::migrate(&rpc, &keys, &trader).await.unwrap();
    testkit::amm_buy(&rpc, &keys, &trader, SOL).await.unwrap();
    s.wait_indexed().await;
    let claim =
        json!({"creator": recipients[1].pubkey().to_string(), "pool": pool, "kind": "share"});
    let built = build_sign_submit(&s, &http, "/launchpad/claim", &claim, &recipients[1]).await;
    assert_ne!(built["quoteAmount"], "0", "{built}");
    let on_chain = shares_on_chain(&rpc, &keys).await;
    assert_eq!(
        on_chain.slots[1].quote_claimed.to_string(),
        (expected[1]
            + built["quoteAmount"]
                .as_str()
                .unwrap()
                .parse::<u64>()
                .unwrap())
        .to_string()
    );
    assert!(
        on_chain.slots[0].quote_unclaimed > 0,
        "the others were credited too"
    );

    // The creator role changes and locks the shares; then nothing changes them.
    let change = json!({"pool": pool, "creator": creator.pubkey().to_string(), "lock": true,
        "recipients": [{"wallet": recipients[0].pubkey().to_string(), "bps": 10_000}]});
    build_sign_submit(&s, &http, "/launchpad/fee-shares", &change, &creator).await;
    assert!(shares_on_chain(&rpc, &keys).await.locked);
    let (status, body) = post(&http, &format!("{}/launchpad/fee-shares", s.base), &change).await;
    assert_eq!(status, 409, "{body}");
    assert_error(&body, "FEE_SHARES_LOCKED");
    let not_creator = json!({"pool": pool, "creator": trader.pubkey().to_string(),
        "recipients": [{"wallet": trader.pubkey().to_string(), "bps": 10_000}]});
    let (status, body) = post(
        &http,
        &format!("{}/launchpad/fee-shares", s.base),
        &not_creator,
    )
    .await;
    assert_eq!(status, 403, "{body}");
    let _ = s.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_referred_swap_pays_its_referrer_at_trade_time_on_sqlite() {
    referred_swap(false).await
}

/// The referrer's earnings are summed by the database: PostgreSQL's exact NUMERIC sum too.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_referred_swap_pays_its_referrer_at_trade_time_on_postgres() {
    referred_swap(true).await
}

async fn referred_swap(postgres: bool) {
    let s = stack(postgres, 1_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 51, "REFER")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let referrer = testkit::funded(&rpc, SOL).await.unwrap();
    let no_account = testkit::funded(&rpc, SOL).await.unwrap();
    // The referrer opens its wrapped-SOL account once, to be paid into.
    testkit::send(
        &rpc,
        &[sdk::launchpad_ix::create_ata_idempotent(
            &referrer.pubkey(),
            &referrer.pubkey(),
            &sdk::ids::NATIVE_MINT,
            &sdk::ids::TOKEN_PROGRAM,
        )],
        &[&referrer],
    )
    .await
    .unwrap();
    s.wait_indexed().await;
    let (sol, mint) = (sdk::ids::NATIVE_MINT.to_string(), keys.mint.to_string());
    let request = json!({
        "chainKey": "solana", "tokenIn": sol, "tokenOut": mint, "amountIn": "1000000000",
        "slippageBps": 100, "taker": trader.pubkey().to_string(),
    });
    let (status, quote) = post(&http, &format!("{}/swap/quote", s.base), &request).await;
    assert_eq!(status, 200, "{quote}");
    let build = |referrer: &str| {
        json!({"request": request, "route": quote["best"]["route"],
               "minAmountOut": quote["best"]["minAmountOut"], "referrer": referrer})
    };
    for (who, code) in [
        (trader.pubkey(), "SELF_REFERRAL"),
        (no_account.pubkey(), "REFERRER_ACCOUNT_MISSING"),
    ] {
        let (status, body) = post(
            &http,
            &format!("{}/swap/build", s.base),
            &build(&who.to_string()),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        assert_error(&body, code);
    }
    let built = build_sign_submit(
        &s,
        &http,
        "/swap/build",
        &build(&referrer.pubkey().to_string()),
        &trader,
    )
    .await;
    assert_eq!(built["referred"], true, "{built}");
    let wsol = sdk::launchpad_ix::wsol_account(&referrer.pubkey());
    let paid: u64 = rpc
        .get_token_account_balance(&wsol)
        .await
        .unwrap()
        .amount
        .parse()
        .unwrap();
    // 20% of the partner's half of the trade's fee, rounded down.
    let (_, page) = get(
        &http,
        &format!("{}/launchpad/trades/{mint}?limit=1", s.base),
    )
    .await;
    let fee: u64 = page["trades"][0]["fee"].as_str().unwrap().parse().unwrap();
    assert!(fee > 0, "{page}");
    let split = curve::split_fee(fee, 5_000).unwrap();
    assert_eq!(
        paid,
        curve::split_referral(split.partner, 2_000)
            .unwrap()
            .referral
    );
    let (status, earned) = get(
        &http,
        &format!("{}/launchpad/referrals/{}", s.base, referrer.pubkey()),
    )
    .await;
    assert_eq!(status, 200, "{earned}");
    assert_eq!(earned["shareBps"], 2_000);
    assert_eq!(earned["earned"][0]["quoteMint"], sol);
    assert_eq!(earned["earned"][0]["amount"], paid.to_string(), "{earned}");
    assert_eq!(earned["earned"][0]["trades"], 1);
    assert_eq!(earned["recent"][0]["mint"], mint);
    assert_eq!(earned["recent"][0]["trader"], trader.pubkey().to_string());
    let pool =
        sdk::accounts::decode_pool(&rpc.get_account(&keys.pool).await.unwrap().data).unwrap();
    assert_eq!(pool.partner_fee_unclaimed, split.partner - paid);
    assert_eq!(pool.creator_fee_unclaimed, split.creator);
    let _ = s.stop.send(true);
}
