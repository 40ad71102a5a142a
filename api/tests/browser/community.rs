//! The community layer in real browsers (Chromium over WebDriver, as `journey.rs`) against a running stack on a
//! localnet, with two browser sessions (two profiles: their own storage, their own wallets) on one page:
//! - a trader that set a profile name over the API shows by that name on the token page's holder row and on
//!   its trade row (not its address);
//! - session A connects the development wallet, sets its profile name in the wallet page's editor (signed in
//!   the page), and posts a comment on the token page (signed in the page); session B, open on the same
//!   token page, shows the comment live from the feed, under A's name, without reloading (a comment with
//!   markup is refused first, with the API's error in words);
//! - session B stars the token on discovery (the star turns on and is kept in this browser only), the
//!   Watchlist filter then lists only the watched launch, and a trade that moves the watched token's price by
//!   more than the chosen percentage raises a toast saying by how much; a trade of the unwatched token does
//!   not.
//!
//! Without Chromium the test fails (it never skips).

use crate::common;

use crate::harness::{
    assert_no_page_errors, browser, chromedriver, click, connect_dev_wallet, fill, js, page_stack,
    wait_js,
};
use crate::journey::{api_buy, api_launch};

use fantoccini::Client;
use localnet::testkit::{self, SOL};
use serde_json::{json, Value};
use solana_keypair::Keypair;
use solana_signer::Signer;
use std::time::Duration;

/// Sets `wallet`'s profile name over the API with the message `docs/api.md` documents, signed here.
async fn set_name(s: &common::Stack, wallet: &Keypair, name: &str) {
    let nonce = format!("n{}", rand::random::<u64>());
    let expires_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 300;
    let message = format!(
        "{} wants you to set your profile with your Solana account:\n{}\n\nName: {name}\n\
         Avatar SHA-256: none\nNonce: {nonce}\nExpiration Time: {expires_at}",
        s.base.trim_start_matches("http://"),
        wallet.pubkey()
    );
    let signature = wallet.sign_message(message.as_bytes()).to_string();
    let r = reqwest::Client::new()
        .put(format!("{}/launchpad/profiles/{}", s.base, wallet.pubkey()))
        .json(&json!({ "name": name, "nonce": nonce, "expiresAt": expires_at, "signature": signature }))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    assert_eq!(status, 200, "{}", r.text().await.unwrap_or_default());
}

/// The `priceAfter` of `mint`'s newest trade, as the API serves it.
async fn last_price(s: &common::Stack, mint: &str) -> f64 {
    let (_, t) = common::get(
        &reqwest::Client::new(),
        &format!("{}/launchpad/trades/{mint}?limit=1", s.base),
    )
    .await;
    t["trades"][0]["priceAfter"]
        .as_str()
        .unwrap_or_else(|| panic!("no trade of {mint}: {t}"))
        .parse()
        .unwrap()
}

async fn toasts(c: &Client) -> Vec<String> {
    serde_json::from_value(
        js(c, "return [...document.querySelectorAll('#toasts .toast-item span')].map((e) => e.textContent);")
        .await,
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn comments_names_and_the_watchlist_across_two_browsers() {
    let s = page_stack(None).await;
    let base = s.base.clone();
    let watched = api_launch(&s, "Watched Coin", "WTCH", "fair", "sol", "").await;
    let other = api_launch(&s, "Other Coin", "OTHR", "fair", "sol", "").await;
    let trader = testkit::funded(&s.rpc(), 40 * SOL).await.unwrap();
    let trader_address = trader.pubkey().to_string();
    set_name(&s, &trader, "Trader Joe").await;
    api_buy(&s, &trader, &watched, SOL).await;
    s.wait_indexed().await;

    let driver = chromedriver().await;
    let a = browser(&driver).await;
    let b = browser(&driver).await;

    // 1. Session B on the token page: the trader by its name on the holder row and on its trade row.
    b.goto(&format!("{base}/#/token/{watched}")).await.unwrap();
    let named = |list: &str| {
        format!(
            "[...document.querySelectorAll('{list} a.who[title=\"{trader_address}\"]')]\
             .some((a) => a.textContent === 'Trader Joe')"
        )
    };
    wait_js(
        &b,
        &named("#holders li"),
        40,
        "the trader's name on its holder row",
    )
    .await;
    wait_js(
        &b,
        &named("#trades tr.trade-row td.trader"),
        40,
        "the trader's name on its trade row",
    )
    .await;
    // Until the page reloads, this mark stays: what arrives below arrives live.
    js(&b, "window.__sameView = true;").await;

    // 2. Session A: the development wallet names itself in the wallet page's editor, then comments.
    a.goto(&format!("{base}/")).await.unwrap();
    let dev = connect_dev_wallet(&a).await;
    js(&a, "location.hash = '#/wallet';").await;
    wait_js(
        &a,
        "document.querySelector('#profile-form')",
        40,
        "the profile editor",
    )
    .await;
    fill(&a, "#profile-name", "Dev Poster").await;
    click(&a, "#profile-save").await;
    wait_js(
        &a,
        "document.querySelector('#profile-status')?.textContent === 'Saved.' && \
         document.querySelector('#profile-display-name')?.textContent === 'Dev Poster'",
        40,
        "the signed profile saved",
    )
    .await;
    js(&a, &format!("location.hash = '#/token/{watched}';")).await;
    wait_js(
        &a,
        "document.querySelector('#comment-form')",
        40,
        "the thread",
    )
    .await;
    // Markup is refused with the API's error in words, and nothing is posted.
    fill(&a, "#comment-text", "gm <b>bold</b>").await;
    click(&a, "#comment-post").await;
    wait_js(
        &a,
        "document.querySelector('#comment-status')?.textContent.includes('MARKUP_NOT_ALLOWED')",
        40,
        "the markup refused",
    )
    .await;
    let text = "gm from session A: see you at graduation";
    fill(&a, "#comment-text", text).await;
    click(&a, "#comment-post").await;
    wait_js(
        &a,
        "document.querySelector('#comment-status')?.textContent === 'Posted.'",
        40,
        "the comment posted",
    )
    .await;
    let (_, list) = common::get(
        &reqwest::Client::new(),
        &format!("{base}/launchpad/tokens/{watched}/comments"),
    )
    .await;
    assert_eq!(list["comments"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["comments"][0]["wallet"], dev.as_str(), "{list}");
    assert_eq!(list["comments"][0]["text"], text, "{list}");
    assert_eq!(list["comments"][0]["name"], "Dev Poster", "{list}");
    let id = list["comments"][0]["id"].as_i64().unwrap();

    // 3. Session B shows it live, under A's name, as text.
    wait_js(
        &b,
        &format!(
            "(() => {{ const li = document.querySelector('#comments li[data-id=\"{id}\"]'); \
             return li && li.querySelector('.comment-text').textContent === {text:?} \
             && li.querySelector('a.who').textContent === 'Dev Poster' \
             && li.querySelector('a.who').title === '{dev}'; }})()"
        ),
        40,
        "the comment live in session B",
    )
    .await;
    assert_eq!(
        js(&b, "return window.__sameView === true;").await,
        json!(true),
        "session B reloaded instead of following the feed"
    );

    // 4. Session B's watchlist: the star on discovery, kept in B only; the Watchlist filter.
    b.goto(&format!("{base}/")).await.unwrap();
    let star = format!("button[data-star=\"{watched}\"]");
    wait_js(&b, &format!(
            "document.querySelector('{star}') && document.querySelector('button[data-star=\"{other}\"]')"
        ), 40, "both launches' stars on discovery")
    .await;
    assert_eq!(
        js(
            &b,
            &format!("return document.querySelector('{star}').getAttribute('aria-pressed');")
        )
        .await,
        json!("false")
    );
    click(&b, &star).await;
    wait_js(&b, &format!("document.querySelector('{star}').getAttribute('aria-pressed') === 'true' && document.querySelector('{star}').textContent === '★'"), 40, "the star on")
    .await;
    assert_eq!(
        js(&b, "return localStorage.getItem('launchpad.watchlist');").await,
        json!(json!([watched]).to_string())
    );
    // A's browser keeps its own (empty) watchlist.
    assert_eq!(
        js(&a, "return localStorage.getItem('launchpad.watchlist');").await,
        Value::Null
    );
    js(
        &b,
        "const p = document.querySelector('input[name=alertPercent]'); p.value = '1'; \
         p.dispatchEvent(new Event('change'));",
    )
    .await;
    assert_eq!(
        js(&b, "return localStorage.getItem('launchpad.alertPercent');").await,
        json!("1")
    );
    js(
        &b,
        "const s = document.querySelector('select[name=list]'); s.value = 'watchlist'; \
         s.dispatchEvent(new Event('change'));",
    )
    .await;
    wait_js(&b, &format!(
            "document.querySelector('#listing-info')?.textContent === '1 watched launch' && \
             !document.querySelector('button[data-star=\"{other}\"]') && document.querySelector('{star}')"
        ), 40, "the Watchlist filter listing only the watched launch")
    .await;
    assert!(
        js(&b, "return location.hash;")
            .await
            .as_str()
            .unwrap()
            .contains("list=watchlist"),
        "the filter is kept in the address"
    );

    // 5. Alerts. The first trade seen sets the reference price; the unwatched token's trade says nothing;
    // a move past 1% from the reference raises a toast with the move.
    wait_js(
        &b,
        "document.querySelector('#feed-status')?.textContent === 'Live'",
        40,
        "session B on the live feed",
    )
    .await;
    api_buy(&s, &trader, &watched, SOL / 10).await;
    s.wait_indexed().await;
    let reference = last_price(&s, &watched).await;
    api_buy(&s, &trader, &other, 5 * SOL).await;
    // The reference is taken from the feed: give it the time to arrive before the move.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(toasts(&b).await, Vec::<String>::new(), "no toast yet");
    api_buy(&s, &trader, &watched, 5 * SOL).await;
    s.wait_indexed().await;
    let moved = last_price(&s, &watched).await;
    let expected = (moved - reference) / reference * 100.0;
    assert!(expected >= 1.0, "the buy moved the price {expected}%");
    let prefix = format!("Watched token {}… up ", &watched[..4]);
    wait_js(&b, &format!(
            "[...document.querySelectorAll('#toasts .toast-item span')].some((e) => e.textContent.startsWith({prefix:?}))"
        ), 40, "the watched token's move toast")
    .await;
    let shown = toasts(&b).await;
    assert_eq!(shown.len(), 1, "{shown:?}");
    let pct: f64 = shown[0]
        .trim_start_matches(&prefix)
        .trim_end_matches('%')
        .parse()
        .unwrap_or_else(|_| panic!("{shown:?}"));
    assert!(
        (pct - expected).abs() <= 0.051,
        "the toast says {pct}%, the prices {reference} -> {moved} moved {expected}%"
    );
    assert!(!shown[0].contains(&other[..4]), "{shown:?}");

    assert_no_page_errors(&a, "in session A").await;
    assert_no_page_errors(&b, "in session B").await;
    let _ = a.close().await;
    let _ = b.close().await;
    let _ = s.stop.send(true);
}
