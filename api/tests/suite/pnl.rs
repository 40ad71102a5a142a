//! PnL through HTTP against a running stack (localnet streaming over gRPC, indexer, API), on SQLite and
//! PostgreSQL: a wallet buys and sells a launch on the curve, buys it to graduation, and after migration buys
//! and sells on the AMM; another wallet receives tokens by transfer. `GET /launchpad/wallets/{address}/pnl`
//! and `.../pnl/{mint}` then equal a hand computation from the chain's balances (the wallet's wrapped SOL and
//! tokens before and after each trade: fees included as the wallet paid them) by the textbook average-cost
//! method, to the base unit, and in USD at the response's SOL/USD price; transfers (out, then back in
//! between two trades) move tokens at zero cost where they happened; bad addresses and unknown mints get the
//! spec's errors.

use crate::common;

use common::*;
use localnet::testkit::{self, SOL};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;
use serde_json::Value;
use solana_keypair::Keypair;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;

fn int(v: i128) -> BigRational {
    BigRational::from_integer(BigInt::from(v))
}

fn trunc(v: &BigRational) -> i128 {
    v.trunc().to_integer().to_i128().unwrap()
}

/// A decimal string as an exact rational.
fn decimal(s: &str) -> BigRational {
    let (int_part, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits: BigInt = format!("{int_part}{frac}").parse().unwrap();
    BigRational::new(digits, num_traits::pow(BigInt::from(10), frac.len()))
}

/// The hand computation: the textbook average-cost method over what the chain says moved.
#[derive(Default)]
struct Hand {
    held: i128,
    avg: BigRational,
    realized: BigRational,
    paid: i128,
    received: i128,
}

impl Hand {
    fn buy(&mut self, tokens: i128, paid: i128) {
        let cost = self.avg.clone() * int(self.held) + int(paid);
        self.held += tokens;
        self.avg = cost / int(self.held);
        self.paid += paid;
    }
    fn sell(&mut self, tokens: i128, received: i128) {
        self.realized += int(received) - self.avg.clone() * int(tokens);
        self.held -= tokens;
        self.received += received;
    }
    fn cost(&self) -> BigRational {
        self.avg.clone() * int(self.held)
    }
}

async fn balances(
    rpc: &RpcClient,
    w: &Keypair,
    mint: &anchor_lang::prelude::Pubkey,
) -> (i128, i128) {
    let tokens =
        testkit::token_balance(rpc, &w.pubkey(), mint, &sdk::ids::TOKEN_2022_PROGRAM).await;
    let wsol = testkit::token_balance(
        rpc,
        &w.pubkey(),
        &sdk::ids::NATIVE_MINT,
        &sdk::ids::TOKEN_PROGRAM,
    )
    .await;
    (i128::from(tokens), i128::from(wsol))
}

/// Sells `tokens` on the launch's AMM pool for wrapped SOL.
async fn amm_sell(rpc: &RpcClient, keys: &sdk::launchpad_ix::LaunchKeys, w: &Keypair, tokens: u64) {
    let amm = keys.amm_keys();
    let owner = w.pubkey();
    let ixs = vec![
        sdk::launchpad_ix::create_ata_idempotent(&owner, &owner, &amm.mint_a, &amm.token_program_a),
        sdk::launchpad_ix::create_ata_idempotent(&owner, &owner, &amm.mint_b, &amm.token_program_b),
        sdk::amm_ix::swap(
            &amm,
            &owner,
            sdk::amm_ix::AmmSwapArgs {
                a_to_b: amm.mint_a != sdk::ids::NATIVE_MINT,
                amount_in: tokens,
                min_amount_out: 1,
            },
        ),
    ];
    testkit::send(rpc, &ixs, &[w]).await.unwrap();
}

/// Asserts `position` (an entry of the PnL response) equals the hand computation, with `usd` the response's
/// SOL/USD price.
fn assert_position(position: &Value, hand: &Hand, usd: &Value) {
    let p = position;
    let price = decimal(p["price"].as_str().unwrap());
    // tokens (6 decimals) at the price (whole SOL per whole token) in lamports, rounded down.
    let value = trunc(&(int(hand.held) * price * int(1_000)));
    let cost = hand.cost();
    let unrealized = int(value) - &cost;
    let total = &hand.realized + &unrealized;
    let text = |v: i128| v.to_string();
    assert_eq!(p["tokens"], text(hand.held), "{p}");
    assert_eq!(p["value"], text(value), "{p}");
    assert_eq!(p["paid"], text(hand.paid), "{p}");
    assert_eq!(p["received"], text(hand.received), "{p}");
    assert_eq!(p["costBasis"], text(trunc(&cost)), "{p}");
    assert_eq!(p["realized"], text(trunc(&hand.realized)), "{p}");
    assert_eq!(p["unrealized"], text(trunc(&unrealized)), "{p}");
    assert_eq!(p["total"], text(trunc(&total)), "{p}");
    if hand.held > 0 {
        // Whole SOL per whole token, 18 decimals, toward zero: avg lamports per base unit * 10^6 / 10^9.
        let avg = trunc(&(hand.avg.clone() * int(10i128.pow(15))));
        let want = format!("{}.{:018}", avg / 10i128.pow(18), avg % 10i128.pow(18));
        assert_eq!(p["averageEntry"], want, "{p}");
    }
    // Dollars: the exact lamports times the rate, 6 decimals, toward zero.
    let rate = decimal(usd["solUsd"].as_str().unwrap());
    let dollars = |v: &BigRational| {
        let micro = trunc(&(v * &rate / int(1_000)));
        let sign = if micro < 0 { "-" } else { "" };
        let m = micro.unsigned_abs();
        format!("{sign}{}.{:06}", m / 1_000_000, m % 1_000_000)
    };
    assert_eq!(p["costBasisUsd"], dollars(&cost), "{p}");
    assert_eq!(p["realizedUsd"], dollars(&hand.realized), "{p}");
    assert_eq!(p["unrealizedUsd"], dollars(&unrealized), "{p}");
    assert_eq!(p["totalUsd"], dollars(&total), "{p}");
}

async fn run(postgres: bool) {
    let s = stack(postgres, 10_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 7, "PNL")
        .await
        .unwrap();
    let mint = keys.mint;
    let trader = testkit::funded(&rpc, 40 * SOL).await.unwrap();
    let friend = testkit::funded(&rpc, SOL).await.unwrap();
    let mut hand = Hand::default();

    // Buys wrap exactly `lamports`: what they paid is that less what stayed wrapped (a crossing buy's
    // refund); sells are paid in wrapped SOL.
    let buy = |before: (i128, i128), after: (i128, i128), lamports: u64, hand: &mut Hand| {
        let paid = i128::from(lamports) - (after.1 - before.1);
        hand.buy(after.0 - before.0, paid);
    };
    let b0 = balances(&rpc, &trader, &mint).await;
    testkit::buy(&rpc, &keys, &trader, SOL).await.unwrap();
    let b1 = balances(&rpc, &trader, &mint).await;
    buy(b0, b1, SOL, &mut hand);
    testkit::buy(&rpc, &keys, &trader, SOL / 3).await.unwrap();
    let b2 = balances(&rpc, &trader, &mint).await;
    buy(b1, b2, SOL / 3, &mut hand);
    testkit::sell(&rpc, &keys, &trader, (b2.0 / 3) as u64)
        .await
        .unwrap();
    let b3 = balances(&rpc, &trader, &mint).await;
    hand.sell(b2.0 - b3.0, b3.1 - b2.1);
    s.wait_indexed().await;

    let url = |w: &Keypair| format!("{}/launchpad/wallets/{}/pnl", s.base, w.pubkey());
    let (status, body) = get(&http, &format!("{}/{mint}", url(&trader))).await;
    assert_eq!(status, 200, "{body}");
    assert_position(&body["position"], &hand, &body["usd"]);
    assert_eq!(body["position"]["venue"], "curve");
    assert_eq!(
        (&body["position"]["buys"], &body["position"]["sells"]),
        (&Value::from(2), &Value::from(1))
    );
    assert!(body["position"]["firstBuyAt"].as_i64().unwrap() > 0);

    // To graduation (the crossing buy's refund stays wrapped), migration, then the AMM.
    testkit::buy(&rpc, &keys, &trader, 14 * SOL).await.unwrap();
    let b4 = balances(&rpc, &trader, &mint).await;
    buy(b3, b4, 14 * SOL, &mut hand);
    testkit::migrate(&rpc, &keys, &creator).await.unwrap();
    testkit::amm_buy(&rpc, &keys, &trader, SOL / 2)
        .await
        .unwrap();
    let b5 = balances(&rpc, &trader, &mint).await;
    buy(b4, b5, SOL / 2, &mut hand);
    amm_sell(&rpc, &keys, &trader, (b5.0 / 4) as u64).await;
    let b6 = balances(&rpc, &trader, &mint).await;
    hand.sell(b5.0 - b6.0, b6.1 - b5.1);
    s.wait_indexed().await;

    let (status, body) = get(&http, &url(&trader)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["total"], 1, "{body}");
    let p = &body["positions"][0];
    assert_eq!(p["mint"], mint.to_string());
    assert_eq!(p["venue"], "amm", "{p}");
    assert_eq!(
        (&p["buys"], &p["sells"]),
        (&Value::from(4), &Value::from(2))
    );
    assert_position(p, &hand, &body["usd"]);

    // Sends a tenth away: the trader's cost basis stays with fewer tokens (its average rises); the friend's
    // tokens cost nothing.
    let gift = (b6.0 / 10) as u64;
    testkit::transfer_tokens(&rpc, &mint, &trader, &friend.pubkey(), gift)
        .await
        .unwrap();
    let b7 = balances(&rpc, &trader, &mint).await;
    s.wait_indexed().await;
    let after_gift = Hand {
        held: b7.0,
        avg: hand.cost() / int(b7.0),
        realized: hand.realized.clone(),
        paid: hand.paid,
        received: hand.received,
    };
    let (status, body) = get(&http, &format!("{}/{mint}", url(&trader))).await;
    assert_eq!(status, 200, "{body}");
    assert_position(&body["position"], &after_gift, &body["usd"]);
    let (status, body) = get(&http, &format!("{}/{mint}", url(&friend))).await;
    assert_eq!(status, 200, "{body}");
    let p = &body["position"];
    assert_eq!(
        (&p["tokens"], &p["costBasis"], &p["buys"], &p["firstBuyAt"]),
        (
            &Value::from(gift.to_string()),
            &Value::from("0"),
            &Value::from(0),
            &Value::Null
        ),
        "{p}"
    );
    assert_eq!(p["unrealized"], p["value"], "{p}");

    // Between two trades: half the gift comes back (the average falls again, the cost basis stays), then the
    // trader sells a quarter on the AMM. The sale takes out the average after both transfers, where they
    // happened, not the average of the trades alone (which a reconciliation after the last trade gives).
    let back = gift / 2;
    testkit::transfer_tokens(&rpc, &mint, &friend, &trader.pubkey(), back)
        .await
        .unwrap();
    let b8 = balances(&rpc, &trader, &mint).await;
    assert_eq!(b8.0, b7.0 + i128::from(back));
    let mut hand = Hand {
        held: b8.0,
        avg: after_gift.cost() / int(b8.0),
        ..after_gift
    };
    amm_sell(&rpc, &keys, &trader, (b8.0 / 4) as u64).await;
    let b9 = balances(&rpc, &trader, &mint).await;
    hand.sell(b8.0 - b9.0, b9.1 - b8.1);
    s.wait_indexed().await;
    let (status, body) = get(&http, &format!("{}/{mint}", url(&trader))).await;
    assert_eq!(status, 200, "{body}");
    assert_position(&body["position"], &hand, &body["usd"]);
    assert_eq!(body["position"]["sells"], 3, "{body}");

    // The friend sells everything it was given on the AMM: all profit, at zero cost.
    let f0 = balances(&rpc, &friend, &mint).await;
    amm_sell(&rpc, &keys, &friend, f0.0 as u64).await;
    let f1 = balances(&rpc, &friend, &mint).await;
    s.wait_indexed().await;
    let (_, body) = get(&http, &format!("{}/{mint}", url(&friend))).await;
    let p = &body["position"];
    assert_eq!(p["tokens"], "0", "{p}");
    assert_eq!(p["realized"], (f1.1 - f0.1).to_string(), "{p}");
    assert_eq!(p["averageEntry"], Value::Null, "{p}");

    // Bad input: the spec's errors.
    let (status, body) = get(&http, &format!("{}/launchpad/wallets/nope/pnl", s.base)).await;
    assert_eq!(status, 400);
    assert_error(&body, "INVALID_ADDRESS");
    let (status, body) = get(&http, &format!("{}/{}", url(&trader), trader.pubkey())).await;
    assert_eq!(status, 404);
    assert_error(&body, "NOT_FOUND");
    let (status, body) = get(&http, &format!("{}?limit=0", url(&trader))).await;
    assert_eq!(status, 400);
    assert_error(&body, "INVALID_PARAMS");
    let (status, body) = get(&http, &format!("{}?offset=-1", url(&trader))).await;
    assert_eq!(status, 400);
    assert_error(&body, "INVALID_PARAMS");
    let (status, body) = get(&http, &format!("{}?offset=1", url(&trader))).await;
    assert_eq!(status, 200);
    assert_eq!(
        (&body["total"], body["positions"].as_array().unwrap().len()),
        (&Value::from(1), 0)
    );
    let _ = s.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pnl_equals_a_hand_computation_on_sqlite() {
    run(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pnl_equals_a_hand_computation_on_postgres() {
    run(true).await;
}
