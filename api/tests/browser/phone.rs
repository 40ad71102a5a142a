//! The trader's journey on a phone (issue 37, Done when): Chromium at 390x844 throughout, every tap target
//! within the screen before it is tapped (as a thumb needs it), every amount checked against the chain over
//! JSON-RPC. The development wallet connects from the header's menu and is funded from the wallet page; the
//! launch form is filled; on the token page of a SOL launch another wallet buys between the quote on screen
//! and the tap (the fill is never below the minimum shown at the tap; a re-quote worse than the tolerance is
//! shown and needs a second tap); Max on the buy that completes the curve asks for the confirmation and
//! lists the migration's rent, then lands and graduates; on the AMM the panel shows the pool's 0.25% fee, and
//! a sell's quoted fee is what the chain's swap charged. No page or menu is wider than the screen. Without
//! Chromium the test fails (it never skips).

use crate::harness::{
    assert_fits, assert_no_page_errors, chromium, go, open_wallet_menu, page_stack,
    pick_dev_wallet, reach, tap, type_into, wait_js, PHONE,
};
use crate::journey::{
    api_launch_by, fund_from_wallet_page, graduating_max_buy, sell_on_the_amm, two_wallet_race,
};

use localnet::testkit::{self, SOL};
use solana_signer::Signer;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_trader_journey_on_a_phone() {
    let s = page_stack(None).await;
    let base = s.base.clone();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    let mint = api_launch_by(&s, &creator, "Phone Cat", "PCAT", "fair", "sol", "0.5").await;
    let rival = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    let (_driver, c) = chromium(PHONE).await;

    // 1. The header's wallet menu opens within the screen; the development wallet connects from it.
    go(&c, &base, "").await;
    wait_js(
        &c,
        "document.querySelector('#launches .card')",
        30,
        "discovery with the launch",
    )
    .await;
    assert_fits(&c, "discovery (phone)").await;
    open_wallet_menu(&c).await;
    let address = pick_dev_wallet(&c).await;
    assert_fits(&c, "the header with a wallet connected (phone)").await;

    // 2. The wallet page, from the header's address: funded by the faucet's button.
    tap(&c, "#wallet-address").await;
    wait_js(
        &c,
        "document.body.dataset.page === 'wallet' && document.querySelector('#airdrop')",
        20,
        "the wallet page",
    )
    .await;
    fund_from_wallet_page(&c, &s, &address).await;
    assert_fits(&c, "the wallet page (phone)").await;

    // 3. The launch form, filled as a phone user would, with an error on a field and the rent shown.
    go(&c, &base, "#/launch").await;
    wait_js(
        &c,
        "document.querySelector('#launch-form')",
        20,
        "the launch form",
    )
    .await;
    assert_fits(&c, "the launch form (phone)").await;
    type_into(&c, "input[name=name]", &"N".repeat(40)).await;
    type_into(&c, "input[name=symbol]", "PHONE").await;
    type_into(&c, "input[name=firstBuyAmount]", "0.5").await;
    type_into(
        &c,
        "textarea[name=feeShares]",
        &format!("{address} 60\n{} 40", creator.pubkey()),
    )
    .await;
    wait_js(
        &c,
        "document.querySelector('#err-name')?.textContent.includes('At most 32') && \
         document.querySelector('#launch-rent')?.textContent.startsWith('Rent: about')",
        10,
        "the name's error and the launch's rent",
    )
    .await;
    assert_fits(&c, "the launch form with an error and its rent (phone)").await;
    reach(&c, "#launch-submit").await;

    // 4. The token page: the two-wallet race.
    go(&c, &base, &format!("#/token/{mint}")).await;
    wait_js(
        &c,
        "document.querySelector('#venue')?.textContent === 'Bonding curve' && \
         document.querySelector('#feed-status')?.textContent.startsWith('Live') && \
         !document.querySelector('#trade-submit').disabled",
        30,
        "the token page on the live feed",
    )
    .await;
    assert_fits(&c, "the token page (phone)").await;
    two_wallet_race(&c, &s, &mint, &address, &rival).await;
    assert_fits(&c, "the token page after the race (phone)").await;

    // 5. Max on the buy that completes the curve, then the AMM's fee as the pool has it.
    let shown_fee = graduating_max_buy(&c, &s, &mint, &address).await;
    assert_eq!(shown_fee, "0.25%", "the AMM pool's fee");
    assert_fits(&c, "the token page on the AMM (phone)").await;

    // 6. A sell on the AMM: the quote names the pool's fee, and the fee it shows is what the swap charged.
    let fee_shown = sell_on_the_amm(&c, &s, "PCAT", &shown_fee).await;
    assert_eq!(fee_shown, "2,500 PCAT", "0.25% of 1,000,000 PCAT");
    assert_fits(&c, "the token page after the sell (phone)").await;

    // 7. The wallet page with its holdings, from the header (its Disconnect within reach too): nothing wider
    // than the screen.
    tap(&c, "#wallet-address").await;
    wait_js(
        &c,
        &format!("document.querySelector('#holdings tr a[href=\"#/token/{mint}\"]') || [...document.querySelectorAll('#holdings tr')].some((r) => r.textContent.includes('PCAT'))"),
        30,
        "the wallet's holdings",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_fits(&c, "the wallet page with holdings (phone)").await;
    reach(&c, "#wallet-disconnect").await;
    assert_no_page_errors(&c, "on the phone").await;
    c.close().await.unwrap();
    let _ = s.stop.send(true);
}
