//! Profit and loss in a real browser (Chromium over WebDriver, with the binary's `harness`) against a running stack on a
//! localnet: a wallet buys twice and sells a third of its tokens on the curve; the wallet page's "Profit and
//! loss" table then shows the cost basis, realized and unrealized PnL equal to a hand computation from the
//! chain's balances (the textbook average-cost method, fees included as the wallet paid them), to the base
//! unit. Without Chromium the test fails (it never skips).

use crate::common;

use crate::harness::{assert_no_page_errors, chromium, go, wait_js, DESKTOP};

use fantoccini::Client;
use localnet::testkit::{self, SOL};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;
use serde_json::json;
use solana_signer::Signer;

/// The `data-value` of the PnL cell `field` in `row` (a CSS selector).
async fn cell(c: &Client, row: &str, field: &str) -> String {
    let v = c
        .execute(
            "const e = document.querySelector(arguments[0] + ` td[data-field=\"${arguments[1]}\"]`); \
             return e ? [e.dataset.value, e.textContent] : null;",
            vec![json!(row), json!(field)],
        )
        .await
        .unwrap();
    assert!(v.is_array(), "no {field} cell in {row}");
    assert!(
        v[1].as_str().unwrap().contains("SOL") || field == "tokens",
        "{field}: {v}"
    );
    v[0].as_str().unwrap().to_string()
}

fn int(v: i128) -> BigRational {
    BigRational::from_integer(BigInt::from(v))
}

fn trunc(v: &BigRational) -> String {
    v.trunc().to_integer().to_i128().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_wallet_page_shows_pnl_equal_to_a_hand_computation() {
    let s = common::stack(false, 10_000).await;
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 11, "PNLB")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let balances = || async {
        let t = testkit::token_balance(
            &rpc,
            &trader.pubkey(),
            &keys.mint,
            &sdk::ids::TOKEN_2022_PROGRAM,
        )
        .await;
        let w = testkit::token_balance(
            &rpc,
            &trader.pubkey(),
            &sdk::ids::NATIVE_MINT,
            &sdk::ids::TOKEN_PROGRAM,
        )
        .await;
        (i128::from(t), i128::from(w))
    };
    // Buys wrap exactly what they spend (no refund before graduation); the sell is paid in wrapped SOL.
    let b0 = balances().await;
    testkit::buy(&rpc, &keys, &trader, SOL).await.unwrap();
    let b1 = balances().await;
    testkit::buy(&rpc, &keys, &trader, SOL / 3).await.unwrap();
    let b2 = balances().await;
    testkit::sell(&rpc, &keys, &trader, (b2.0 / 3) as u64)
        .await
        .unwrap();
    let b3 = balances().await;
    let paid = i128::from(SOL) - (b1.1 - b0.1) + i128::from(SOL / 3) - (b2.1 - b1.1);
    let bought = b2.0 - b0.0;
    let (sold, received) = (b2.0 - b3.0, b3.1 - b2.1);
    let avg = int(paid) / int(bought);
    let cost = avg.clone() * int(b3.0);
    let realized = int(received) - avg * int(sold);
    s.wait_indexed().await;

    let (_driver, c) = chromium(DESKTOP).await;
    go(&c, &s.base, &format!("#/wallet/{}", trader.pubkey())).await;
    let row = format!("#pnl tr[data-mint=\"{}\"]", keys.mint);
    wait_js(
        &c,
        &format!("document.querySelector('{row}')"),
        30,
        "the PnL row",
    )
    .await;
    assert_eq!(cell(&c, &row, "tokens").await, b3.0.to_string());
    assert_eq!(cell(&c, &row, "costBasis").await, trunc(&cost));
    assert_eq!(cell(&c, &row, "realized").await, trunc(&realized));
    let value: i128 = cell(&c, &row, "value").await.parse().unwrap();
    assert_eq!(
        cell(&c, &row, "unrealized").await,
        trunc(&(int(value) - &cost))
    );
    assert_eq!(
        cell(&c, &row, "total").await,
        trunc(&(int(value) - &cost + &realized))
    );
    assert_no_page_errors(&c, "on the wallet page").await;

    let _ = c.close().await;
    let _ = s.stop.send(true);
}
