//! Profit and loss in a real browser (Chromium over WebDriver, as `browser.rs`) against a running stack on a
//! localnet: a wallet buys twice and sells a third of its tokens on the curve; the wallet page's "Profit and
//! loss" table then shows the cost basis, realized and unrealized PnL equal to a hand computation from the
//! chain's balances (the textbook average-cost method, fees included as the wallet paid them), to the base
//! unit. Without Chromium the test fails (it never skips).

use crate::common;

use fantoccini::{Client, ClientBuilder};
use localnet::testkit::{self, SOL};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;
use serde_json::{json, Value};
use solana_signer::Signer;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";

/// chromedriver on a free loopback port, killed on drop.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn browser() -> (Driver, Client) {
    assert!(
        std::path::Path::new(CHROMIUM).exists(),
        "Chromium is not installed at {CHROMIUM} (apt-get install -y chromium chromium-driver)"
    );
    let port = testkit::free_port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver (apt-get install -y chromium-driver)");
    let url = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    while reqwest::get(format!("{url}/status")).await.is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "no chromedriver");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": CHROMIUM, "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
            "--disable-dev-shm-usage", "--window-size=1280,900"] }),
    );
    let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&url)
        .await
        .expect("connecting to chromedriver");
    (Driver(child), client)
}

/// Waits until the JavaScript expression `cond` is true on the page.
async fn wait_js(c: &Client, cond: &str, what: &str) {
    let start = Instant::now();
    loop {
        let ok = c.execute(&format!("return !!({cond});"), vec![]).await;
        if ok.is_ok_and(|v| v == Value::Bool(true)) {
            return;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let page = c
                .execute(
                    "return location.hash + ' | ' + (window.__errors || []).join(' ; ') + ' | ' \
                     + document.body.innerText.slice(0, 3000)",
                    vec![],
                )
                .await
                .unwrap_or_default();
            panic!("timed out waiting for {what} ({cond}); the page: {page}");
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

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

    let (_driver, c) = browser().await;
    c.goto(&format!("{}/#/wallet/{}", s.base, trader.pubkey()))
        .await
        .unwrap();
    js(
        &c,
        "window.__errors = []; window.addEventListener('error', (e) => __errors.push(e.message)); \
         window.addEventListener('unhandledrejection', (e) => __errors.push(String(e.reason)));",
    )
    .await;
    let row = format!("#pnl tr[data-mint=\"{}\"]", keys.mint);
    wait_js(
        &c,
        &format!("document.querySelector('{row}')"),
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

    let _ = c.close().await;
    let _ = s.stop.send(true);
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap()
}
