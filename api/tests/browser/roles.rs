//! The creator role and the fee shares follow the live feed on the token page (issue 37, scope 6), in
//! Chromium against a running stack. The page's reads of the token are held back by the test once it has
//! loaded, so every change below can only reach the page through its feed stream (`creator` and
//! `fee-shares` events): another wallet's proposal shows the connected wallet its Accept button; its
//! acceptance, shares and own proposal are each confirmed by a success message when the feed reports them;
//! a handover accepted by a second wallet moves the header's creator within a few seconds, without a reload.

use crate::common;
use crate::harness::{
    assert_fits, assert_no_page_errors, chromium, click, connect_dev_wallet, fill, go, page_stack,
    text, viewport, wait_js, DESKTOP, PHONE,
};
use crate::journey::api_launch_by;

use serde_json::{json, Value};
use solana_signer::Signer;
use std::time::{Duration, Instant};

/// Builds `body` at `path` and sends it signed by `signer`, as a wallet outside the page would; waits until
/// the index has it.
async fn send(
    s: &common::Stack,
    path: &str,
    body: Value,
    signer: &solana_keypair::Keypair,
) -> Instant {
    let http = reqwest::Client::new();
    let (status, built) = common::post(&http, &format!("{}{path}", s.base), &body).await;
    assert_eq!(status, 200, "{path}: {built}");
    let signed = common::sign(built["solanaTransaction"].as_str().unwrap(), signer);
    let (status, sent) = s.submit(&http, &signed).await;
    assert_eq!((status, &sent["confirmed"]), (200, &json!(true)), "{sent}");
    s.wait_indexed().await;
    Instant::now()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_creator_role_and_fee_shares_follow_the_feed_in_chromium() {
    let s = page_stack(None).await;
    let base = s.base.clone();
    let rpc = s.rpc();
    let creator = localnet::testkit::funded(&rpc, 20 * localnet::testkit::SOL)
        .await
        .unwrap();
    let second = localnet::testkit::funded(&rpc, localnet::testkit::SOL)
        .await
        .unwrap();
    let mint = api_launch_by(&s, &creator, "Role Cat", "RCAT", "fair", "sol", "").await;
    let pool = common::get(
        &reqwest::Client::new(),
        &format!("{base}/launchpad/tokens/{mint}"),
    )
    .await
    .1["pool"]
        .as_str()
        .unwrap()
        .to_string();
    let (a, b) = (creator.pubkey().to_string(), second.pubkey().to_string());

    let (_driver, c) = chromium(DESKTOP).await;
    // The development wallet, funded, on the token's page.
    go(&c, &base, "").await;
    let me = connect_dev_wallet(&c).await;
    let (status, body) = common::post(
        &reqwest::Client::new(),
        &format!("{base}/ui/airdrop"),
        &json!({ "address": me }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    go(&c, &base, &format!("#/token/{mint}")).await;
    wait_js(
        &c,
        &format!(
            "document.querySelector('#token-creator')?.dataset.creator === '{a}' && \
             document.querySelector('#feed-status')?.textContent.startsWith('Live')"
        ),
        30,
        "the token page on the live feed, its creator the launching wallet",
    )
    .await;
    assert!(
        text(&c, "#creator-panel").await.is_empty(),
        "no creator tools for a wallet without the role"
    );
    // From here the page's reads of the token never answer: only the feed can change what it shows.
    c.execute(
        "window.__tokenReads = 0; const f = window.fetch; \
         window.fetch = (u, ...rest) => { if (String(u).includes('/launchpad/tokens/')) { window.__tokenReads++; \
         return new Promise(() => {}); } return f(u, ...rest); };",
        vec![],
    )
    .await
    .unwrap();

    // 1. The creator proposes the page's wallet (outside the page): its Accept button appears by itself.
    let sent = send(
        &s,
        "/launchpad/creator/propose",
        json!({ "pool": pool, "creator": a, "newCreator": me }),
        &creator,
    )
    .await;
    wait_js(
        &c,
        "document.querySelector('#creator-panel #creator-accept')",
        5,
        "the Accept button from the feed's proposal",
    )
    .await;
    println!("proposal shown {:?} after it was indexed", sent.elapsed());
    assert_eq!(
        text(&c, "#token-creator").await,
        format!("Creator {}", short(&a))
    );

    // 2. The page's wallet accepts: the success message once the feed confirms, the header names it.
    click(&c, "#creator-accept").await;
    wait_js(
        &c,
        &format!(
            "document.querySelector('#creator-done')?.dataset.confirmed === 'true' && \
             document.querySelector('#creator-done').textContent.startsWith('You hold the creator role now') && \
             document.querySelector('#token-creator')?.dataset.creator === '{me}' && \
             document.querySelector('#creator-panel #creator-propose')"
        ),
        30,
        "the acceptance confirmed and the header's new creator",
    )
    .await;

    // 3. It shares the creator fees: confirmed, and the header's line follows.
    fill(&c, "#f-creatorFeeShares", &format!("{me} 50\n{b} 50")).await;
    click(&c, "#fee-shares-save").await;
    wait_js(
        &c,
        "document.querySelector('#creator-done')?.dataset.confirmed === 'true' && \
         document.querySelector('#creator-done').textContent.startsWith('Fee shares saved: creator fees shared by 2 wallets.') && \
         document.querySelector('#fee-shares')?.textContent === 'Creator fees shared by 2 wallets'",
        30,
        "the shares confirmed and shown",
    )
    .await;
    let title = c
        .execute(
            "return document.querySelector('#fee-shares').title;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(title, json!(format!("{me}: 50%\n{b}: 50%")));

    // 4. It proposes the second wallet: confirmed, pending shown.
    fill(&c, "#f-newCreator", &b).await;
    click(&c, "#creator-propose").await;
    wait_js(
        &c,
        &format!(
            "document.querySelector('#creator-done')?.dataset.confirmed === 'true' && \
             document.querySelector('#creator-done').textContent.startsWith('Handover proposed to {}') && \
             document.querySelector('#creator-pending')?.textContent.includes('{b}')",
            short(&b)
        ),
        30,
        "the proposal confirmed, pending shown",
    )
    .await;

    // 5. The second wallet accepts outside the page: within a few seconds the header names it and the
    // page's wallet has no creator tools left, without a reload.
    let sent = send(
        &s,
        "/launchpad/creator/accept",
        json!({ "pool": pool, "newCreator": b }),
        &second,
    )
    .await;
    wait_js(
        &c,
        &format!(
            "document.querySelector('#token-creator')?.dataset.creator === '{b}' && \
             !document.querySelector('#creator-panel')"
        ),
        5,
        "the header's creator after another wallet's acceptance",
    )
    .await;
    println!("handover shown {:?} after it was indexed", sent.elapsed());
    assert_eq!(
        text(&c, "#token-creator").await,
        format!("Creator {}", short(&b))
    );
    let reads = c
        .execute("return window.__tokenReads;", vec![])
        .await
        .unwrap();
    println!("token reads held back meanwhile: {reads}");
    assert_no_page_errors(&c, "after the handovers").await;
    // The page fits a phone with the creator's messages on it.
    viewport(&c, PHONE).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_fits(&c, "the token page after the handovers (phone)").await;
    c.close().await.unwrap();
    let _ = s.stop.send(true);
}

/// The page's short form of an address (`format.js` `short`): first 4, an ellipsis, last 4.
fn short(address: &str) -> String {
    format!("{}…{}", &address[..4], &address[address.len() - 4..])
}
