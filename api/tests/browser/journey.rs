//! The launchpad in a real browser: Chromium (Debian's `chromium` and `chromium-driver`, installed by
//! `.ci/run`) driven over WebDriver against a running stack on a localnet. The journey: open `/`, connect the
//! local development wallet and fund it from the faucet, show the API's error for bad form input, launch a
//! token through the form, see it appear on the discovery page without reloading, buy on its page until it
//! graduates (trades and progress update, progress reaches 100%, the page switches to the AMM), sell on the
//! AMM, and claim the creator's trading fee on the wallet page. Screenshots of every page at phone and
//! desktop widths go to `docs/screenshots/`. Without Chromium the test fails (it never skips).

use crate::common;

use crate::harness::{
    assert_fits, assert_no_page_errors, chromium, click, connect_dev_wallet, fill, go, js,
    open_wallet_menu, page_errors, page_stack, pick_dev_wallet, reach, tap, text, text_of,
    type_into, viewport, wait_js, DESKTOP, PHONE,
};

use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The journey's `--explorer-url`: every mint, wallet and transaction links there.
const EXPLORER: &str = "https://explorer.test/{kind}/{id}?cluster=custom";

fn screenshots_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Screenshots of the current page at phone and desktop widths: `docs/screenshots/<name>-{phone,desktop}.png`.
/// At both widths the page must fit its window.
async fn shoot(c: &Client, name: &str, ready: &str) {
    for (label, (w, h)) in [("phone", PHONE), ("desktop", DESKTOP)] {
        viewport(c, (w, h)).await;
        tokio::time::sleep(Duration::from_millis(400)).await;
        wait_js(c, ready, 20, &format!("{name} to render")).await;
        assert_no_page_errors(c, name).await;
        assert_fits(c, &format!("{name} ({label})")).await;
        // The whole page, not just the first screen: the window as tall as the document.
        let full = c
            .execute(
                "return Math.min(4000, document.documentElement.scrollHeight);",
                vec![],
            )
            .await
            .unwrap()
            .as_u64()
            .unwrap_or(h as u64) as u32;
        viewport(c, (w, full.max(h))).await;
        c.execute("window.scrollTo(0, 0);", vec![]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(600)).await;
        let png = c.screenshot().await.unwrap();
        std::fs::write(screenshots_dir().join(format!("{name}-{label}.png")), png).unwrap();
    }
    viewport(c, DESKTOP).await;
}

/// A Wallet Standard wallet for the test, registered the way an extension does: its key is an Ed25519 WebCrypto
/// key of its own, and it signs with the page's own transaction signer (the signature slot is found the same
/// way); it records the chain each `solana:signTransaction` call names. Returns its address.
const STANDARD_WALLET: &str = r#"
const done = arguments[arguments.length - 1];
(async () => {
  const version = document.querySelector('link[rel=stylesheet]').getAttribute('href').split('/')[2];
  const { DevWallet, base58 } = await import(`/ui/${version}/wallet.js`);
  const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  const signer = new DevWallet(pair.privateKey, base58(publicKey));
  const account = { address: signer.address, publicKey, chains: ['solana:localnet'], features: ['solana:signTransaction'] };
  window.__testWalletCalls = [];
  const wallet = {
    version: '1.0.0',
    name: 'Test Wallet',
    icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
    chains: ['solana:mainnet', 'solana:devnet', 'solana:localnet'],
    accounts: [],
    features: {
      'standard:connect': { version: '1.0.0', connect: async () => { wallet.accounts = [account]; return { accounts: [account] }; } },
      'standard:disconnect': { version: '1.0.0', disconnect: async () => { wallet.accounts = []; } },
      'standard:events': { version: '1.0.0', on: () => () => {} },
      'solana:signTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        signTransaction: (...inputs) => Promise.all(inputs.map(async (input) => {
          window.__testWalletCalls.push(input.chain);
          return { signedTransaction: await signer.signTransaction(input.transaction) };
        })),
      },
    },
  };
  window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: ({ register }) => register(wallet) }));
  done(signer.address);
})().catch((e) => done('ERR ' + e));
"#;

/// A small PNG for the launch form's image.
fn token_png() -> PathBuf {
    let img = image::RgbImage::from_fn(64, 64, |x, y| {
        image::Rgb([(x * 4) as u8, (y * 4) as u8, 0x85])
    });
    let path = std::env::temp_dir().join(format!("ui-token-{}.png", std::process::id()));
    img.save(&path).unwrap();
    path
}

/// A launch over the API by a wallet of its own (prepare, sign, submit, record), as any client would; with
/// `first_buy` empty, none.
pub(crate) async fn api_launch(
    s: &common::Stack,
    name: &str,
    symbol: &str,
    preset: &str,
    quote: &str,
    first_buy: &str,
) -> String {
    let creator = localnet::testkit::funded(&s.rpc(), 20 * localnet::testkit::SOL)
        .await
        .unwrap();
    api_launch_by(s, &creator, name, symbol, preset, quote, first_buy).await
}

/// [`api_launch`] by `creator`.
pub(crate) async fn api_launch_by(
    s: &common::Stack,
    creator: &solana_keypair::Keypair,
    name: &str,
    symbol: &str,
    preset: &str,
    quote: &str,
    first_buy: &str,
) -> String {
    use solana_signer::Signer;
    let http = reqwest::Client::new();
    let mut launch = json!({
        "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": preset, "quote": quote,
        "name": name, "symbol": symbol, "description": format!("{name}, launched over the API"),
        "totalSupply": "1000000000", "creator": creator.pubkey().to_string(),
    });
    if !first_buy.is_empty() {
        launch["firstBuyAmount"] = json!(first_buy);
    }
    let (status, prepared) =
        common::post(&http, &format!("{}/launchpad/prepare", s.base), &launch).await;
    assert_eq!(status, 200, "{prepared}");
    let signed = common::sign(prepared["solanaTransaction"].as_str().unwrap(), creator);
    let (status, sent) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{sent}");
    let mut record = launch.clone();
    record["tokenAddress"] = prepared["mint"].clone();
    record["deployTxHash"] = sent["signature"].clone();
    record["metadataURI"] = prepared["metadataURI"].clone();
    let start = Instant::now();
    loop {
        let (status, body) =
            common::post(&http, &format!("{}/launchpad/record", s.base), &record).await;
        if status == 200 {
            break;
        }
        assert!(
            body["error"]["code"] == "NOT_CONFIRMED" && start.elapsed() < Duration::from_secs(30),
            "{body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    prepared["mint"].as_str().unwrap().to_string()
}

/// A buy of `lamports` of a SOL launch's `mint` by `wallet` over the API (quote, build, sign, submit), as
/// another trader would make it: the trade the chain recorded (its signature).
pub(crate) async fn api_buy(
    s: &common::Stack,
    wallet: &solana_keypair::Keypair,
    mint: &str,
    lamports: u64,
) -> String {
    use solana_signer::Signer;
    let http = reqwest::Client::new();
    let request = json!({
        "chainKey": "solana", "tokenIn": "So11111111111111111111111111111111111111112", "tokenOut": mint,
        "amountIn": lamports.to_string(), "slippageBps": 100, "taker": wallet.pubkey().to_string(),
    });
    let (status, quote) = common::post(&http, &format!("{}/swap/quote", s.base), &request).await;
    assert_eq!(status, 200, "{quote}");
    let build = json!({
        "request": request, "route": quote["best"]["route"], "minAmountOut": quote["best"]["minAmountOut"],
    });
    let (status, built) = common::post(&http, &format!("{}/swap/build", s.base), &build).await;
    assert_eq!(status, 200, "{built}");
    let signed = common::sign(built["solanaTransaction"].as_str().unwrap(), wallet);
    let (status, sent) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{sent}");
    sent["signature"].as_str().unwrap().to_string()
}

/// What `wallet` received of `mint` in the transaction `signature` (its token balance after less before).
async fn received(s: &common::Stack, signature: &str, wallet: &str, mint: &str) -> u64 {
    let http = reqwest::Client::new();
    let (_, tx) = common::post(
        &http,
        &s.net.rpc_url(),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "getTransaction",
                "params": [signature, {"commitment": "confirmed", "maxSupportedTransactionVersion": 0, "encoding": "json"}]}),
    )
    .await;
    let meta = &tx["result"]["meta"];
    assert!(meta.is_object(), "no transaction {signature}: {tx}");
    let amount = |list: &Value| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|b| b["owner"] == wallet && b["mint"] == mint)
            .map_or(0, |b| {
                b["uiTokenAmount"]["amount"]
                    .as_str()
                    .unwrap()
                    .parse::<u64>()
                    .unwrap()
            })
    };
    amount(&meta["postTokenBalances"]) - amount(&meta["preTokenBalances"])
}

/// What the transaction that made `mint` (its oldest) cost `wallet` in lamports beyond its fee.
async fn launch_paid(s: &common::Stack, mint: &str, wallet: &str) -> u64 {
    let http = reqwest::Client::new();
    let rpc = |method: &str, params: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let http = http.clone();
        let url = s.net.rpc_url();
        async move { common::post(&http, &url, &body).await.1 }
    };
    let sigs = rpc(
        "getSignaturesForAddress",
        json!([mint, {"commitment": "confirmed"}]),
    )
    .await;
    let first = sigs["result"].as_array().unwrap().last().unwrap()["signature"]
        .as_str()
        .unwrap()
        .to_string();
    let tx = rpc(
        "getTransaction",
        json!([first, {"commitment": "confirmed", "maxSupportedTransactionVersion": 0, "encoding": "json"}]),
    )
    .await;
    let keys = tx["result"]["transaction"]["message"]["accountKeys"]
        .as_array()
        .unwrap();
    let i = keys.iter().position(|k| k == wallet).unwrap();
    let meta = &tx["result"]["meta"];
    let at = |list: &str| meta[list][i].as_u64().unwrap();
    at("preBalances") - at("postBalances") - meta["fee"].as_u64().unwrap()
}

/// A base-unit integer from the digits of a figure on the page (`5,515,082.63 UITEST` with 6 decimals).
pub(crate) fn base_units(figure: &str, decimals: u32) -> u64 {
    let number: String = figure
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let (whole, frac) = number.split_once('.').unwrap_or((&number, ""));
    let frac = format!("{frac:0<width$}", width = decimals as usize);
    format!("{whole}{}", &frac[..decimals as usize])
        .parse()
        .unwrap()
}

/// On the wallet page of the connected development wallet `address`: the faucet's button (a tap) funds it
/// with the faucet's SOL, as the chain then holds it.
pub(crate) async fn fund_from_wallet_page(c: &Client, s: &common::Stack, address: &str) {
    tap(c, "#airdrop").await;
    wait_js(
        c,
        "document.querySelector('#wallet-status')?.textContent.includes('airdropped')",
        30,
        "the airdrop",
    )
    .await;
    let balance = s
        .rpc()
        .get_balance(&address.parse().unwrap())
        .await
        .unwrap();
    assert_eq!(
        balance,
        api::routes::ui::AIRDROP_LAMPORTS,
        "the dev wallet is funded"
    );
}

/// Ticks the quote's confirmation, a tap within the screen, when it asks for one and is not ticked yet.
async fn tick_if_asked(c: &Client) {
    let asked = js(
        c,
        "const row = document.querySelector('#trade-confirm-row'); \
         return !!row && !row.hidden && !document.querySelector('#trade-confirm').checked;",
    )
    .await;
    if asked == Value::Bool(true) {
        tap(c, "#trade-confirm").await;
    }
}

/// Ticks the quote's confirmation when it asks for one, taps the trade's button, and waits for it in the trades (more
/// than `rows` of them) or for the panel's error, which fails the test.
pub(crate) async fn confirm_and_trade(c: &Client, rows: u64, what: &str) {
    tick_if_asked(c).await;
    tap(c, "#trade-submit").await;
    wait_js(
        c,
        &format!("document.querySelectorAll('#trades tr.trade-row').length > {rows} || !document.querySelector('#trade-error').hidden"),
        30,
        &format!("{what} in the trades"),
    )
    .await;
    let refused = text(c, "#trade-error").await;
    assert!(refused.is_empty(), "{what} failed: {refused}");
}

/// A JSON GET against the API.
pub(crate) async fn get_json(url: &str) -> Value {
    common::get(&reqwest::Client::new(), url).await.1
}

async fn progress_bps(c: &Client) -> u64 {
    c.execute(
        "const e = document.querySelector('#curve-panel .progress'); \
         return e ? Math.round(Number(e.getAttribute('aria-valuenow')) * 100) : -1;",
        vec![],
    )
    .await
    .unwrap()
    .as_i64()
    .unwrap_or(-1)
    .max(0) as u64
}

pub(crate) async fn trade_rows(c: &Client) -> u64 {
    c.execute(
        "return document.querySelectorAll('#trades tr.trade-row').length;",
        vec![],
    )
    .await
    .unwrap()
    .as_u64()
    .unwrap()
}

/// Taps Buy (the confirmation first, when asked), releasing the quotes the race holds, and returns the minimum
/// on screen read in the same script as the click: exactly what the user saw. The button and the
/// confirmation within the screen, as a thumb needs them.
async fn tap_reading_min(c: &Client) -> String {
    tick_if_asked(c).await;
    reach(c, "#trade-submit").await;
    text_of(
        c,
        "window.__holdQuotes = false; const m = document.querySelector('#quote-min').textContent; \
         document.querySelector('#trade-submit').click(); return m;",
    )
    .await
}

/// The two-wallet race (issue 37, scope 1) on the token page of `mint` (a SOL launch on its curve), the
/// connected wallet `address` buying 0.5 SOL: the page shows a quote, `rival` buys 2 SOL first, then the user
/// clicks. What is signed is the minimum that was on screen at the click: the page reads the price again, and
/// when the new quote no longer reaches that minimum it shows the new figures and waits for another click; the
/// fill, read from the chain, is never below the minimum the user saw. Every tap within the screen. Returns
/// the buy's signature.
pub(crate) async fn two_wallet_race(
    c: &Client,
    s: &common::Stack,
    mint: &str,
    address: &str,
    rival: &solana_keypair::Keypair,
) -> String {
    let base = &s.base;
    tap(c, "#side-buy").await;
    type_into(c, "#trade-amount", "0.5").await;
    wait_js(c, "document.querySelector('#trade-quote')?.dataset.amountIn === '500000000' && document.querySelector('#quote-min')", 20, "a quote for 0.5 SOL").await;
    let first_min = text(c, "#quote-min").await;
    let mine = format!("{base}/launchpad/trades/{mint}?wallet={address}");
    let my_trades = get_json(&mine).await["trades"].as_array().unwrap().len();
    // The user looks away: the page's own re-quotes are held (by the test, in `fetch`) until the click, so
    // the click races the rival's trade deterministically.
    c.execute(
        "window.__holdQuotes = true; const f = window.fetch; \
         window.fetch = (u, ...a) => String(u).includes('/swap/quote') && window.__holdQuotes ? new Promise(() => {}) : f(u, ...a);",
        vec![],
    )
    .await
    .unwrap();
    api_buy(s, rival, mint, 2 * localnet::testkit::SOL).await;
    s.wait_indexed().await;
    // The button is live again (whatever the page was doing has finished) before the user clicks.
    wait_js(
        c,
        "!document.querySelector('#trade-submit').disabled",
        20,
        "the Buy button enabled",
    )
    .await;
    let shown_min = tap_reading_min(c).await;
    assert_eq!(
        shown_min, first_min,
        "the quote the user saw before the rival's trade"
    );
    wait_js(
        c,
        "document.querySelector('#trade-moved') || document.querySelector('#trade-status')?.textContent.startsWith('Bought') || !document.querySelector('#trade-error').hidden",
        60,
        "the racing buy's outcome",
    )
    .await;
    // Held back: nothing signed, the new (lower) figures on screen, a new click takes them.
    let moved = text(c, "#trade-moved").await;
    assert!(
        moved.starts_with("The price moved since this quote: you would now receive about ")
            && moved.contains(text(c, "#quote-out").await.trim_start_matches("≈ ")),
        "the racing buy held back in words: {moved} / {}",
        page_errors(c).await
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        get_json(&mine).await["trades"].as_array().unwrap().len(),
        my_trades,
        "held back: nothing was signed"
    );
    let moved_min = text(c, "#quote-min").await;
    assert!(
        base_units(&moved_min, 6) < base_units(&shown_min, 6),
        "the new minimum ({moved_min}) is below the one shown before ({shown_min})"
    );
    let min_at_click = tap_reading_min(c).await;
    assert_eq!(min_at_click, moved_min);
    wait_js(c, "document.querySelector('#trade-status')?.textContent.startsWith('Bought') || !document.querySelector('#trade-error').hidden", 60, "the buy after the race").await;
    assert_eq!(text(c, "#trade-error").await, "", "the buy after the race");
    let signature = c
        .execute(
            "return document.querySelector('#trade-status').dataset.signature;",
            vec![],
        )
        .await
        .unwrap();
    let signed_min = c
        .execute(
            "return document.querySelector('#trade-status').dataset.minAmountOut;",
            vec![],
        )
        .await
        .unwrap();
    let signed_min: u64 = signed_min.as_str().unwrap().parse().unwrap();
    // The page shows at most 4 decimals (cut, never rounded up): equal to the hundredth of a base unit.
    assert_eq!(
        signed_min / 100,
        base_units(&min_at_click, 6) / 100,
        "the transaction carries the minimum on screen ({min_at_click})"
    );
    let filled = received(s, signature.as_str().unwrap(), address, mint).await;
    assert!(
        filled >= signed_min && filled >= base_units(&min_at_click, 6),
        "filled {filled}, below the minimum on screen {min_at_click}"
    );
    let signature = signature.as_str().unwrap().to_string();
    wait_js(
        c,
        &format!("document.querySelector('#trades tr.trade-row[data-signature=\"{signature}\"]')"),
        20,
        "the buy after the race in the trades",
    )
    .await;
    signature
}

/// Max on the buy that completes the curve of `mint`, by the connected wallet `address`: it leaves room for the
/// fees, the temporary wrapped-SOL account and the rent of the accounts migration opens; its impact is computed
/// from what it uses (net of the refund) and asks for the confirmation, without which nothing is signed; it
/// lands and the curve graduates; the panel then shows the AMM pool's fee. Every tap within the screen.
/// Returns the fee as shown (`0.25%`).
pub(crate) async fn graduating_max_buy(
    c: &Client,
    s: &common::Stack,
    mint: &str,
    address: &str,
) -> String {
    let base = &s.base;
    let rpc = s.rpc();
    let rows = trade_rows(c).await;
    let lamports_before = rpc.get_balance(&address.parse().unwrap()).await.unwrap();
    tap(c, "#trade-max").await;
    wait_js(
        c,
        "document.querySelector('#quote-refund') && document.querySelector('#quote-rent-migration') && \
         !document.querySelector('#trade-confirm-row').hidden",
        20,
        "the graduating Max buy's quote: refund, migration rent, confirmation",
    )
    .await;
    let impact: f64 = text(c, "#quote-impact")
        .await
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!(impact > 10.0, "a graduating Max buy's impact: {impact}%");
    // Nothing is signed until the user ticks the confirmation.
    tap(c, "#trade-submit").await;
    wait_js(
        c,
        "document.querySelector('#trade-error')?.textContent.includes('tick the box')",
        20,
        "the graduating buy held back until confirmed",
    )
    .await;
    assert_eq!(trade_rows(c).await, rows, "nothing was bought");
    assert_eq!(text(c, "#quote-rent-migration").await, "0.01172064 SOL");
    let offered: u64 = text_of(
        c,
        "return document.querySelector('#trade-quote').dataset.amountIn;",
    )
    .await
    .parse()
    .unwrap();
    assert!(
        offered > lamports_before - 20_000_000,
        "Max offers nearly everything: {offered} of {lamports_before}"
    );
    confirm_and_trade(c, rows, "the graduating Max buy").await;
    wait_js(c, "document.querySelector('#trade-status')?.textContent.startsWith('Bought: the curve graduated')", 60, "the Max buy graduating the curve").await;
    wait_js(
        c,
        "document.querySelector('#venue')?.textContent === 'AMM'",
        30,
        "the page on the AMM",
    )
    .await;
    // After migration the panel shows the AMM pool's fee, as the chain charges it (not the curve's).
    let curve = get_json(&format!("{base}/launchpad/curve/{mint}")).await;
    let amm_fee = curve["ammFeeBps"]
        .as_u64()
        .expect("ammFeeBps after migration");
    assert_ne!(amm_fee, curve["finalFeeBps"].as_u64().unwrap(), "{curve}");
    // The fee the chain charges is the AMM pool account's, read over JSON-RPC.
    let amm_pool: anchor_lang::prelude::Pubkey =
        curve["ammPool"].as_str().unwrap().parse().unwrap();
    let pool = sdk::accounts::decode_amm_pool(&rpc.get_account_data(&amm_pool).await.unwrap())
        .expect("the AMM pool account");
    assert_eq!(
        u64::from(pool.fee_bps),
        amm_fee,
        "the API's AMM fee is the pool's"
    );
    let shown_fee = format!("{}%", amm_fee as f64 / 100.0);
    wait_js(
        c,
        &format!("document.querySelector('#current-fee')?.textContent === '{shown_fee}'"),
        20,
        "the AMM fee in the curve panel",
    )
    .await;
    shown_fee
}

/// The AMM's swap in the transaction `signature` as the chain recorded it (its self-CPI event).
async fn amm_swap(s: &common::Stack, signature: &str) -> sdk::events::amm_events::EvtSwap {
    let (_, tx) = common::post(
        &reqwest::Client::new(),
        &s.net.rpc_url(),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "getTransaction",
                "params": [signature, {"commitment": "confirmed", "maxSupportedTransactionVersion": 0, "encoding": "json"}]}),
    )
    .await;
    let inner = tx["result"]["meta"]["innerInstructions"]
        .as_array()
        .unwrap_or_else(|| panic!("no transaction {signature}: {tx}"));
    inner
        .iter()
        .flat_map(|set| set["instructions"].as_array().unwrap())
        .filter_map(|ix| bs58::decode(ix["data"].as_str()?).into_vec().ok())
        .find_map(|data| match sdk::events::decode_amm_event(&data) {
            Some(sdk::events::AmmEvent::Swap(swap)) => Some(swap),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no AMM swap in {signature}: {tx}"))
}

/// Sells 1,000,000 of the connected wallet's `symbol` (6 decimals) on the AMM, every tap within the screen:
/// the quote names the pool's fee `shown_fee`, the sell lands in the trades, and the swap in its transaction
/// charged the fee the quote showed, paying at least the minimum it showed. Returns the fee shown.
pub(crate) async fn sell_on_the_amm(
    c: &Client,
    s: &common::Stack,
    symbol: &str,
    shown_fee: &str,
) -> String {
    tap(c, "#side-sell").await;
    type_into(c, "#trade-amount", "1000000").await;
    wait_js(
        c,
        "document.querySelector('#trade-quote')?.dataset.amountIn === '1000000000000' && document.querySelector('#quote-fee')",
        20,
        &format!("a quote to sell 1,000,000 {symbol}"),
    )
    .await;
    let quote = text(c, "#trade-quote").await;
    assert!(
        quote.contains(&format!("AMM fee ({shown_fee})")),
        "the sell routes through the AMM, at the pool's fee: {quote}"
    );
    let fee_shown = text(c, "#quote-fee").await;
    let min_shown = text(c, "#quote-min").await;
    let rows = trade_rows(c).await;
    confirm_and_trade(c, rows, "the sell on the AMM").await;
    wait_js(
        c,
        "document.querySelector('#trade-status')?.textContent.startsWith('Sold') && \
         document.querySelector('#trades tr.trade-row')?.classList.contains('sell')",
        30,
        "the sell, and in the trades",
    )
    .await;
    let signature = text_of(
        c,
        "return document.querySelector('#trade-status').dataset.signature;",
    )
    .await;
    let swap = amm_swap(s, &signature).await;
    assert_eq!(swap.amount_in, 1_000_000_000_000, "{swap:?}");
    assert_eq!(
        swap.fee,
        base_units(&fee_shown, 6),
        "the fee shown ({fee_shown}) is what the chain charged: {swap:?}"
    );
    assert!(
        swap.amount_out >= base_units(&min_shown, 9),
        "the sell paid {} lamports, below the minimum shown ({min_shown})",
        swap.amount_out
    );
    fee_shown
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_launchpad_journey_in_chromium() {
    let s = page_stack(Some(EXPLORER)).await;
    let base = s.base.clone();
    let (_driver, c) = chromium(DESKTOP).await;

    // 1. `/` opens the discovery page: empty, on the live feed.
    go(&c, &base, "").await;
    wait_js(
        &c,
        "document.querySelector('#listing-info')?.textContent.includes('No launches yet')",
        30,
        "the empty discovery page",
    )
    .await;
    // The page is on the live feed (`/launchpad/stream`), not polling.
    wait_js(
        &c,
        "document.querySelector('#feed-status')?.textContent.startsWith('Live')",
        30,
        "the discovery page on the live feed",
    )
    .await;
    shoot(
        &c,
        "discover-empty",
        "document.querySelector('#listing-info')",
    )
    .await;

    // 2. The local development wallet, funded by the localnet's faucet. The wallet menu fits a phone's screen.
    viewport(&c, PHONE).await;
    open_wallet_menu(&c).await;
    viewport(&c, DESKTOP).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_fits(&c, "the wallet menu (desktop)").await;
    let address = pick_dev_wallet(&c).await;
    go(&c, &base, "#/wallet").await;
    fund_from_wallet_page(&c, &s, &address).await;

    // Discovery stays open in its own window: the launch must appear there without a reload.
    let launch_window = c.window().await.unwrap();
    let discover_window = c.new_window(false).await.unwrap().handle;
    c.switch_to_window(discover_window.clone()).await.unwrap();
    viewport(&c, DESKTOP).await;
    go(&c, &base, "").await;
    wait_js(
        &c,
        "document.querySelector('#listing-info')?.textContent.includes('No launches yet')",
        30,
        "discovery in the second window",
    )
    .await;
    c.switch_to_window(launch_window.clone()).await.unwrap();

    // 3. Bad input shows the API's error in words; nothing is launched. The window arrives through a referral
    // link whose wallet has no account to be paid into: its trades must go through anyway, unreferred.
    let referral = anchor_lang::prelude::Pubkey::new_unique().to_string();
    go(&c, &base, &format!("?ref={referral}#/launch")).await;
    wait_js(
        &c,
        "document.querySelector('#launch-form')",
        20,
        "the launch form",
    )
    .await;
    shoot(&c, "launch", "document.querySelector('#launch-form')").await;
    // Fields are checked as they are typed, with the API's rules, the error on the field.
    fill(&c, "input[name=name]", &"N".repeat(40)).await;
    wait_js(
        &c,
        "document.querySelector('#err-name')?.textContent.includes('At most 32') && \
         document.querySelector('input[name=name]').getAttribute('aria-invalid') === 'true'",
        10,
        "a name too long flagged as typed",
    )
    .await;
    fill(&c, "input[name=name]", "UI Test Token").await;
    fill(&c, "input[name=symbol]", "bad sym!").await;
    wait_js(
        &c,
        "document.querySelector('#err-name').hidden && \
         document.querySelector('input[name=symbol]').value === 'BAD SYM!' && \
         document.querySelector('#err-symbol')?.textContent.includes('A to Z and digits 0 to 9')",
        10,
        "the name accepted, the symbol flagged",
    )
    .await;
    // Sending with a wrong field sends nothing: the focus goes to it.
    click(&c, "#launch-submit").await;
    wait_js(
        &c,
        "document.activeElement?.name === 'symbol' && \
         document.querySelector('#launch-error')?.textContent.startsWith('Fix') && \
         !document.querySelector('#launch-steps li')",
        10,
        "the focus on the wrong field, nothing sent",
    )
    .await;
    shoot(&c, "launch-error", "document.querySelector('#err-symbol')").await;
    // What only the API can tell (a private key in the description) comes back on its field, in words.
    fill(&c, "input[name=symbol]", "UITEST").await;
    fill(
        &c,
        "textarea[name=description]",
        &format!("my key {}", bs58::encode([7u8; 64]).into_string()),
    )
    .await;
    click(&c, "#launch-submit").await;
    wait_js(
        &c,
        "document.querySelector('#err-description')?.textContent.includes('private key') && \
         document.activeElement?.name === 'description' && \
         !document.querySelector('#launch-error').hidden",
        20,
        "the API's refusal on the description field",
    )
    .await;
    let error = text(&c, "#launch-error").await;
    assert!(
        error.contains("SECRET_MATERIAL"),
        "the raw code one click away: {error}"
    );

    // 4. Launch through the form: prepare, sign in the browser, submit, record.
    fill(&c, "input[name=symbol]", "UITEST").await;
    fill(
        &c,
        "textarea[name=description]",
        "Launched by the browser test",
    )
    .await;
    fill(&c, "input[name=website]", "https://example.org").await;
    fill(&c, "input[name=firstBuyAmount]", "0.5").await;
    // The creator fees shared: 60% to the creator's wallet, 40% to a team wallet; "1,5"-style commas read
    // as decimals.
    let team = anchor_lang::prelude::Pubkey::new_unique().to_string();
    fill(
        &c,
        "textarea[name=feeShares]",
        &format!("{address} 60,0\n{team} 40%"),
    )
    .await;
    let png = token_png();
    c.find(Locator::Css("input[name=image]"))
        .await
        .unwrap()
        .send_keys(png.to_str().unwrap())
        .await
        .unwrap();
    wait_js(
        &c,
        "!document.querySelector('.preview').hidden",
        10,
        "the image preview",
    )
    .await;
    // The rent the launch leaves in its accounts, before anything is signed: the mint sized for the longest
    // mint address (its own is known at prepare), the pool, its vaults, the fee shares and the first buy's
    // token account.
    wait_js(
        &c,
        "document.querySelector('#launch-rent')?.textContent.startsWith('Rent: about') && \
         document.querySelector('#launch-rent').textContent.includes('fee shares') && \
         document.querySelector('#launch-rent').textContent.includes('token account')",
        10,
        "the launch's rent on the form",
    )
    .await;
    let rent_shown: u64 = text_of(
        &c,
        "return document.querySelector('#launch-rent').dataset.lamports;",
    )
    .await
    .parse()
    .unwrap();
    click(&c, "#launch-submit").await;
    wait_js(
        &c,
        "location.hash.startsWith('#/token/') && document.querySelector('#venue')",
        60,
        "the token page after launch",
    )
    .await;
    let url = c.current_url().await.unwrap();
    let mint = url
        .fragment()
        .unwrap()
        .trim_start_matches("/token/")
        .to_string();
    assert_eq!(text(&c, "#venue").await, "Bonding curve");
    assert_eq!(
        text(&c, "#fee-shares").await,
        "Creator fees shared by 2 wallets"
    );
    // The chain took exactly that rent: the launch transaction's cost to the creator, less its fee and the
    // 0.5 SOL first buy, is the shown figure less the rent of the mint address's bytes under 44.
    let paid = launch_paid(&s, &mint, &address).await;
    let rent_per_byte = 3_480 * 2;
    assert_eq!(
        paid - 500_000_000,
        rent_shown - (44 - mint.len() as u64) * rent_per_byte,
        "the launch's rent as the form showed it ({rent_shown} lamports for a 44-character mint)"
    );
    // Explorer links (`--explorer-url`): the mint's.
    let mint_link = c
        .execute(
            "return document.querySelector('a[data-explorer=address]')?.href;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        mint_link,
        json!(EXPLORER.replace("{kind}", "address").replace("{id}", &mint)),
        "the mint's explorer link"
    );
    // The creator's tools: the handover and the shares (not locked, so they can still change).
    wait_js(
        &c,
        "document.querySelector('#creator-panel #creator-propose') && document.querySelector('#fee-shares-save')",
        20,
        "the creator's panel",
    )
    .await;
    assert!(
        text(&c, "#f-creatorFeeShares").await.contains("60"),
        "the current shares are in the form"
    );
    let shares = get_json(&format!("{base}/launchpad/tokens/{mint}")).await;
    assert_eq!(
        shares["feeShares"]["recipients"],
        json!([{"wallet": address, "bps": 6000}, {"wallet": team, "bps": 4000}]),
        "{shares}"
    );
    let referred: Value = c
        .execute(
            "return sessionStorage.getItem('launchpad.referrer')",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(referred, json!(referral), "the referral link was kept");
    let listed = get_json(&format!("{base}/launchpad/launches?creator={address}")).await;
    assert_eq!(
        listed["launches"][0]["mint"],
        mint.as_str(),
        "recorded: {listed}"
    );

    // 5. The discovery window shows it without a reload.
    c.switch_to_window(discover_window.clone()).await.unwrap();
    wait_js(
        &c,
        &format!("document.querySelector('.card[data-mint=\"{mint}\"]')"),
        30,
        "the new launch on discovery",
    )
    .await;
    wait_js(
        &c,
        "document.querySelector('.card img')",
        10,
        "the launch's image on its card",
    )
    .await;
    // Search, as the listing's `q` allows: no match, then a match by name.
    fill(&c, "input[name=q]", "zzz").await;
    wait_js(
        &c,
        "document.querySelector('#listing-info')?.textContent === 'No launch matches these filters.'",
        10,
        "an empty search",
    )
    .await;
    fill(&c, "input[name=q]", "UI Test").await;
    wait_js(
        &c,
        &format!("document.querySelector('#listing-info')?.textContent === '1 launch' && document.querySelector('.card[data-mint=\"{mint}\"]')"),
        10,
        "the search finding the launch",
    )
    .await;
    // The search is also a prefix of a mint (as written) or of a symbol (any case).
    for prefix in [&mint[..5], "uites"] {
        fill(&c, "input[name=q]", prefix).await;
        wait_js(
            &c,
            &format!(
                "document.querySelectorAll('.card').length === 1 && document.querySelector('.card[data-mint=\"{mint}\"]') && \
                 document.querySelector('#listing-info')?.textContent === '1 launch'"
            ),
            10,
            &format!("the prefix search `{prefix}` finding the launch"),
        )
        .await;
    }
    c.switch_to_window(launch_window.clone()).await.unwrap();

    // 6. Buy until the curve graduates: trades and progress update after each buy, the graduating buy's quote
    // shows its refund, progress reaches 100% and the page continues on the AMM.
    wait_js(
        &c,
        "document.querySelectorAll('#trades tr.trade-row').length >= 1",
        30,
        "the first buy in the trades",
    )
    .await;
    shoot(
        &c,
        "token-bonding",
        "document.querySelector('#curve-panel .progress')",
    )
    .await;
    // Amounts are read as the user means them: a decimal comma is a decimal mark, thousands groups are
    // understood, what reads two ways is refused; the quote asks for exactly what the echo shows.
    click(&c, "#side-buy").await;
    for (typed, echo, base_units) in [
        ("1,5", "= 1.5 SOL", "1500000000"),
        ("1.5", "= 1.5 SOL", "1500000000"),
        ("1 000,5", "= 1000.5 SOL", "1000500000000"),
    ] {
        fill(&c, "#trade-amount", typed).await;
        wait_js(
            &c,
            &format!(
                "document.querySelector('#trade-amount-echo')?.textContent === '{echo}' && \
                 document.querySelector('#trade-quote')?.dataset.amountIn === '{base_units}'"
            ),
            20,
            &format!("{typed:?} read as {echo}"),
        )
        .await;
    }
    fill(&c, "#trade-amount", "1,500").await;
    wait_js(
        &c,
        "document.querySelector('#trade-amount-echo')?.textContent.includes('reads two ways') && \
         !document.querySelector('#quote-out')",
        20,
        "an amount that reads two ways refused, and no quote for it",
    )
    .await;
    // Quick amounts fill the field as typed; the wallet's balance is in the panel and the header.
    click(&c, "#quick-0_5").await;
    wait_js(
        &c,
        "document.querySelector('#trade-amount-echo')?.textContent === '= 0.5 SOL' && \
         document.querySelector('#trade-balance')?.textContent.startsWith('Balance: ') && \
         document.querySelector('#wallet-balance')?.textContent.includes('SOL') && \
         document.querySelector('#wallet-balance')?.textContent.includes('USDC')",
        20,
        "a quick amount, and the wallet's balances",
    )
    .await;
    // More than the wallet has: caught before anything is signed, with the way to the faucet.
    let rows_before = trade_rows(&c).await;
    fill(&c, "#trade-amount", "5000").await;
    wait_js(
        &c,
        "document.querySelector('#quote-out')",
        20,
        "a quote for 5000 SOL",
    )
    .await;
    click(&c, "#trade-submit").await;
    wait_js(
        &c,
        "document.querySelector('#trade-unfunded')?.textContent.startsWith('Your wallet has') && \
         document.querySelector('#trade-unfunded a[href=\"#/wallet\"]')",
        20,
        "an unfunded buy caught before signing",
    )
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(trade_rows(&c).await, rows_before, "nothing was signed");
    // Two wallets race: the page shows a quote, another trader buys first, then the user clicks. What is
    // signed is the minimum that was on screen at the click: the page reads the price again, and when the
    // new quote no longer reaches that minimum it shows the new figures and waits for another click; the
    // fill is never below the minimum the user saw.
    let rival = localnet::testkit::funded(&s.rpc(), 20 * localnet::testkit::SOL)
        .await
        .unwrap();
    let signature = json!(two_wallet_race(&c, &s, &mint, &address, &rival).await);
    // The buy's transaction links to the explorer, in the status and in its row of the trades.
    let sig = signature.as_str().unwrap();
    let tx_link = EXPLORER.replace("{kind}", "tx").replace("{id}", sig);
    wait_js(
        &c,
        &format!(
            "document.querySelector('#trade-status a[data-explorer=tx]')?.href === '{tx_link}' && \
             document.querySelector('#trades tr.trade-row[data-signature=\"{sig}\"] a[data-explorer=tx]')?.href === '{tx_link}'"
        ),
        20,
        "the buy's explorer links",
    )
    .await;
    // Live: with a quote on screen, another wallet's trade re-quotes the panel by itself.
    fill(&c, "#trade-amount", "0.5").await;
    wait_js(&c, "document.querySelector('#trade-quote')?.dataset.amountIn === '500000000' && document.querySelector('#quote-min')", 20, "a quote for 0.5 SOL").await;
    let before = text(&c, "#quote-out").await;
    api_buy(&s, &rival, &mint, localnet::testkit::SOL).await;
    wait_js(
        &c,
        &format!(
            "document.querySelector('#quote-out')?.textContent !== {}",
            serde_json::to_string(&before).unwrap()
        ),
        6,
        "the quote on screen re-quoted after another wallet's trade",
    )
    .await;
    assert_no_page_errors(&c, "after the race").await;
    // The header's balances with their dollars (the oracle's SOL price; USDC at a dollar).
    wait_js(
        &c,
        "/SOL ?\\(\\$[0-9.,]+[KM]?\\) · [0-9.,]+ USDC ?\\(\\$/.test(document.querySelector('#wallet-balance')?.textContent ?? '')",
        30,
        "the header's balances in dollars",
    )
    .await;
    // Copy: the mint goes to the clipboard (the page's call recorded: headless Chromium has no clipboard).
    c.execute(
        "window.__copied = null; navigator.clipboard.writeText = async (t) => { window.__copied = t; };",
        vec![],
    )
    .await
    .unwrap();
    click(&c, "#copy-mint").await;
    wait_js(
        &c,
        &format!("window.__copied === '{mint}' && document.querySelector('#copy-mint').textContent === 'Copied'"),
        5,
        "the mint copied",
    )
    .await;

    // A 3 SOL buy's cost is spelled out: network and priority fee, the total leaving the wallet. The trader's
    // own choices hold: a custom slippage of 3.5% (typed with a decimal comma) and the High priority level,
    // quoted and then signed.
    c.execute(
        "const s = document.querySelector('#slippage'); s.value = 'custom'; s.dispatchEvent(new Event('change', { bubbles: true })); \
         const p = document.querySelector('#priority'); p.value = 'high'; p.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![],
    )
    .await
    .unwrap();
    fill(&c, "#slippage-custom", "3,5").await;
    let rows = trade_rows(&c).await;
    fill(&c, "#trade-amount", "3").await;
    wait_js(&c, "document.querySelector('#trade-quote')?.dataset.amountIn === '3000000000' && document.querySelector('#quote-total') && document.querySelector('#trade-quote').textContent.includes('Minimum at 3.5% slippage')", 20, "a quote for 3 SOL at 3.5%").await;
    assert_eq!(text(&c, "#quote-network").await, "0.000005 SOL");
    let quote = text(&c, "#trade-quote").await;
    assert!(
        quote.contains("Priority fee (High)") && quote.contains("Total from your wallet"),
        "{quote}"
    );
    assert_eq!(text(&c, "#quote-priority").await, "at most 0.002 SOL");
    let (out, min) = (
        base_units(&text(&c, "#quote-out").await, 6) as f64,
        base_units(&text(&c, "#quote-min").await, 6) as f64,
    );
    assert!(
        (min / out - 0.965).abs() < 0.0002,
        "the minimum at 3.5%: {min} of {out}"
    );
    confirm_and_trade(&c, rows, "the 3 SOL buy").await;
    wait_js(
        &c,
        "document.querySelector('#trade-status')?.textContent.startsWith('Bought')",
        30,
        "the 3 SOL buy",
    )
    .await;
    let signed = c
        .execute(
            "const d = document.querySelector('#trade-status').dataset; return [d.priorityLevel, d.minAmountOut];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(signed[0], "high", "the priority signed: {signed}");
    assert!(
        (signed[1].as_str().unwrap().parse::<f64>().unwrap() - min).abs() < 100.0,
        "the 3.5% minimum signed: {signed}"
    );
    // Back to the defaults for what follows.
    c.execute(
        "const s = document.querySelector('#slippage'); s.value = '100'; s.dispatchEvent(new Event('change', { bubbles: true })); \
         const p = document.querySelector('#priority'); p.value = 'medium'; p.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![],
    )
    .await
    .unwrap();
    // Exact out beyond what the pool holds: said in words, about the quote it cannot pay.
    click(&c, "#side-sell").await;
    click(&c, "#trade-exact-out").await;
    fill(&c, "#trade-amount", "1000").await;
    wait_js(
        &c,
        "document.querySelector('#trade-error')?.textContent.includes('The pool does not hold that much SOL to pay out')",
        20,
        "an exact-out sell beyond the pool, in words",
    )
    .await;
    click(&c, "#trade-exact-out").await;
    fill(&c, "#trade-amount", "").await;
    click(&c, "#side-buy").await;
    assert_eq!(
        text(&c, "#venue").await,
        "Bonding curve",
        "the curve is not complete yet"
    );

    // Max on the buy that completes the curve: it leaves room for the fees, the temporary wrapped-SOL
    // account and the rent of the accounts migration opens; its impact is computed from what it uses (net of
    // the refund) and asks for the confirmation; it lands.
    let shown_fee = graduating_max_buy(&c, &s, &mint, &address).await;
    wait_js(
        &c,
        "document.querySelector('#progress-text')?.textContent === '100%'",
        20,
        "100% progress",
    )
    .await;
    assert_eq!(progress_bps(&c).await, 10_000);
    wait_js(
        &c,
        "document.querySelector('.chart-empty')?.hidden",
        20,
        "candles on the chart",
    )
    .await;
    let curve = get_json(&format!("{base}/launchpad/curve/{mint}")).await;
    assert_eq!(curve["venue"], "amm", "{curve}");

    // 7. Sell on the AMM. More than the wallet holds is told so, before any quote.
    click(&c, "#side-sell").await;
    fill(&c, "#trade-amount", "999999999999").await;
    wait_js(
        &c,
        "document.querySelector('#trade-amount-echo')?.textContent.startsWith('You hold') && \
         !document.querySelector('#quote-out')",
        20,
        "a sell of more than held refused in words",
    )
    .await;
    sell_on_the_amm(&c, &s, "UITEST", &shown_fee).await;
    click(&c, "button[data-interval='1s']").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    shoot(
        &c,
        "token-amm",
        "document.querySelector('#venue')?.textContent === 'AMM'",
    )
    .await;

    // The token page on a phone: the trade panel within the first screen, nothing scrolling sideways, the
    // badges and small text at 4.5:1 or more, the chart in words, the AMM's vault labelled among the holders.
    viewport(&c, PHONE).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    // With a quote on screen: the quote's total and the button within the first screen.
    click(&c, "#side-buy").await;
    fill(&c, "#trade-amount", "0.1").await;
    wait_js(
        &c,
        "document.querySelector('#quote-total')",
        20,
        "a quote on the phone",
    )
    .await;
    c.execute("window.scrollTo(0, 0);", vec![]).await.unwrap();
    let fold = c
        .execute(
            "return [document.querySelector('#quote-total').getBoundingClientRect().bottom, \
                     document.querySelector('#trade-submit').getBoundingClientRect().bottom, window.innerHeight];",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        fold[0].as_f64().unwrap() <= fold[2].as_f64().unwrap() && fold[1].as_f64().unwrap() <= fold[2].as_f64().unwrap(),
        "the quote's total and the button above the fold on a phone (total, button, screen): {fold}"
    );
    assert_fits(&c, "the token page with a quote (phone)").await;
    let phone = c
        .execute(
            r#"
            const rgb = (s) => (s.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
            const lum = ([r, g, b]) => {
              const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
              return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
            };
            const bg = (e) => {
              for (let n = e; n; n = n.parentElement) {
                const c = getComputedStyle(n).backgroundColor;
                if (c && !c.endsWith(', 0)') && c !== 'transparent') return c;
              }
              return 'rgb(13, 17, 23)';
            };
            const contrast = (e) => {
              const [a, b] = [lum(rgb(getComputedStyle(e).color)), lum(rgb(bg(e)))];
              return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
            };
            const lowest = [...document.querySelectorAll('.badge, .muted, .small, .stats dt')]
              .filter((e) => e.offsetParent && e.textContent.trim())
              .map((e) => [contrast(e), e.className + ': ' + e.textContent.trim().slice(0, 30)])
              .sort((x, y) => x[0] - y[0])[0];
            return {
              tradeTop: document.querySelector('#trade-form').getBoundingClientRect().top,
              height: window.innerHeight,
              sideways: document.documentElement.scrollWidth - window.innerWidth,
              lowest,
              creatorBadge: !!document.querySelector('#holders .badge.creator'),
              summary: document.querySelector('#chart-summary')?.textContent || '',
              ammVault: document.querySelector('#holders li.vault[data-kind="amm"]')?.textContent || '',
            };
            "#,
            vec![],
        )
        .await
        .unwrap();
    viewport(&c, DESKTOP).await;
    assert!(
        phone["tradeTop"].as_f64().unwrap() < phone["height"].as_f64().unwrap() - 100.0,
        "the trade panel within the first screen: {phone}"
    );
    assert!(
        phone["sideways"].as_f64().unwrap() <= 0.0,
        "no sideways scrolling: {phone}"
    );
    assert!(
        phone["lowest"][0].as_f64().unwrap() >= 4.5,
        "every badge and small text at 4.5:1: {phone}"
    );
    assert_eq!(phone["creatorBadge"], true, "{phone}");
    assert!(
        phone["summary"]
            .as_str()
            .unwrap()
            .starts_with("Latest price"),
        "{phone}"
    );
    assert!(
        phone["ammVault"].as_str().unwrap().contains("AMM pool"),
        "{phone}"
    );

    // 8. Claim the creator's share of the shared creator fees on the wallet page.
    go(&c, &base, "#/wallet").await;
    wait_js(
        &c,
        "document.querySelector('#claimable button[data-kind=\"share\"]')",
        30,
        "the claimable fee share",
    )
    .await;
    shoot(&c, "wallet", "document.querySelector('#holdings tr')").await;
    click(&c, "#claimable button[data-kind=\"share\"]").await;
    wait_js(
        &c,
        "document.querySelector('#wallet-status')?.textContent.startsWith('Claimed share')",
        60,
        "the claim",
    )
    .await;
    wait_js(
        &c,
        "!document.querySelector('#claimable button[data-kind=\"share\"]')",
        30,
        "the share gone from the claimables",
    )
    .await;
    let fees = get_json(&format!("{base}/launchpad/fees?creator={address}")).await;
    assert!(
        !fees["fees"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "share" || f["kind"] == "trading"),
        "claimed, and nothing as the creator role: {fees}"
    );
    let team_fees = get_json(&format!("{base}/launchpad/fees?creator={team}")).await;
    assert_eq!(team_fees["fees"][0]["kind"], "share", "{team_fees}");
    // The wallet's trades name the token, not a pool address.
    wait_js(&c, "[...document.querySelectorAll('#wallet-trades td')].some((td) => td.textContent === '$UITEST')", 20, "the trades naming the token").await;
    // A wallet address that is not one: said in words, no raw error code on the page.
    go(&c, &base, "#/wallet/garbage").await;
    wait_js(
        &c,
        "document.querySelector('#wallet-missing')",
        20,
        "an invalid wallet address in words",
    )
    .await;
    assert!(
        !text(&c, "main").await.contains("INVALID_ADDRESS"),
        "{}",
        text(&c, "main").await
    );
    assert_fits(&c, "an invalid wallet address").await;

    // 9. A Wallet Standard wallet (the way Phantom, Solflare and Backpack announce themselves): a test wallet
    // registers through the `wallet-standard:register-wallet` window event; the page lists it, connects it,
    // and a buy is signed through its `solana:signTransaction` on the localnet chain.
    click(&c, "#wallet-disconnect").await;
    wait_js(
        &c,
        "document.querySelector('#wallet-connect')",
        10,
        "disconnected",
    )
    .await;
    let standard = c
        .execute_async(STANDARD_WALLET, vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    assert!(!standard.starts_with("ERR"), "{standard}");
    click(&c, "#wallet-connect").await;
    wait_js(&c, "[...document.querySelectorAll('.wallet-option')].some(b => b.textContent.includes('Test Wallet'))", 10, "the standard wallet listed").await;
    c.execute("[...document.querySelectorAll('.wallet-option')].find(b => b.textContent.includes('Test Wallet')).click();", vec![])
        .await
        .unwrap();
    wait_js(
        &c,
        &format!("document.querySelector('#wallet-address')?.title === '{standard}'"),
        10,
        "the standard wallet connected",
    )
    .await;
    assert!(
        !text(&c, "#wallet-area").await.contains("DEV WALLET"),
        "a standard wallet is not labelled as the dev wallet"
    );
    let (status, body) = common::post(
        &reqwest::Client::new(),
        &format!("{base}/ui/airdrop"),
        &json!({ "address": standard }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // The faucet gives local USDC too, so USDC launches can be tried.
    assert_eq!(body["usdc"], 2_000_000_000u64, "{body}");
    let (_, info) = common::post(
        &reqwest::Client::new(),
        &s.net.rpc_url(),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "localnet_info", "params": []}),
    )
    .await;
    let usdc: anchor_lang::prelude::Pubkey = info["result"]["usdcMint"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let usdc_held = localnet::testkit::token_balance(
        &s.rpc(),
        &standard.parse().unwrap(),
        &usdc,
        &anchor_spl::token::ID,
    )
    .await;
    assert_eq!(
        usdc_held, 2_000_000_000,
        "the standard wallet holds the airdropped USDC"
    );
    c.execute(&format!("location.hash = '#/token/{mint}';"), vec![])
        .await
        .unwrap();
    wait_js(&c, "document.querySelector('#venue')?.textContent === 'AMM' && !document.querySelector('#trade-submit').disabled", 30, "the token page with the standard wallet").await;
    fill(&c, "#trade-amount", "0.5").await;
    wait_js(
        &c,
        "document.querySelector('#quote-out')",
        20,
        "a quote for the standard wallet",
    )
    .await;
    click(&c, "#trade-submit").await;
    wait_js(
        &c,
        "document.querySelector('#trade-status')?.textContent.startsWith('Bought')",
        60,
        "the buy signed by the standard wallet",
    )
    .await;
    let calls = c
        .execute("return window.__testWalletCalls;", vec![])
        .await
        .unwrap();
    assert_eq!(
        calls,
        json!(["solana:localnet"]),
        "signed once through solana:signTransaction"
    );
    assert_no_page_errors(&c, "after the standard wallet's buy").await;

    // Discovery with the graduated launch, at both widths.
    c.switch_to_window(discover_window).await.unwrap();
    wait_js(
        &c,
        &format!(
            "document.querySelector('.card[data-mint=\"{mint}\"] .badge')?.textContent === 'AMM'"
        ),
        30,
        "the card moving to the AMM",
    )
    .await;
    // Two more launches by another wallet over the API, for a fuller discovery page; the search cleared.
    let shield = api_launch(&s, "Shield Cat", "SCAT", "shield", "sol", "2").await;
    api_launch(&s, "Distribute DAO", "DDAO", "distribute", "sol", "6").await;
    c.execute(
        "const q = document.querySelector('input[name=q]'); q.value = ''; \
         q.dispatchEvent(new Event('input', { bubbles: true }));",
        vec![],
    )
    .await
    .unwrap();
    wait_js(
        &c,
        "document.querySelectorAll('.card').length === 3",
        30,
        "three launches on discovery",
    )
    .await;
    // The shield launch's card counts its fee's next step down, as its page does.
    let shield_line = format!("document.querySelector('.card[data-mint=\"{shield}\"] .shield-fee:not([hidden])')?.textContent");
    wait_js(
        &c,
        &format!("/^Shield fee \\d+(\\.\\d+)?%, next step in \\d+ s$/.test({shield_line} ?? '')"),
        20,
        "the shield fee's countdown on its card",
    )
    .await;
    let first_line = c
        .execute(&format!("return {shield_line};"), vec![])
        .await
        .unwrap();
    wait_js(
        &c,
        &format!("{shield_line} !== {first_line}"),
        5,
        "the card's countdown ticking",
    )
    .await;
    shoot(
        &c,
        "discover",
        "document.querySelectorAll('.card').length === 3",
    )
    .await;
    // Sorted by progress ("king of the hill"): the graduated launch first.
    c.execute(
        "const s = document.querySelector('select[name=sort]'); s.value = 'progress'; \
         s.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![],
    )
    .await
    .unwrap();
    wait_js(
        &c,
        &format!("document.querySelector('.card')?.dataset.mint === '{mint}'"),
        10,
        "the graduated launch first by progress",
    )
    .await;
    // The listing's state is in the address: a reload keeps the sort. King of the hill is the bonding launch
    // closest to graduation, and the ticker has shown launches and trades as they happened.
    wait_js(
        &c,
        "location.hash === '#/?sort=progress' && document.querySelector('#ticker .tick') && \
         document.querySelector('#king-of-the-hill a[data-mint]')",
        20,
        "the sort in the address, the ticker and the king of the hill",
    )
    .await;
    let king = c
        .execute(
            "return document.querySelector('#king-of-the-hill a[data-mint]').dataset.mint;",
            vec![],
        )
        .await
        .unwrap();
    let bonding = get_json(&format!(
        "{base}/launchpad/launches?status=bonding&sort=progress&limit=1"
    ))
    .await;
    assert_eq!(king, bonding["launches"][0]["mint"], "{bonding}");
    c.refresh().await.unwrap();
    wait_js(
        &c,
        &format!(
            "document.querySelector('select[name=sort]')?.value === 'progress' && \
             document.querySelector('.card')?.dataset.mint === '{mint}'"
        ),
        20,
        "the sort kept across a reload",
    )
    .await;
    // A USDC launch joins the listing: sorted by market cap, cards compare in dollars across quotes (the
    // API's order, which its own test checks against the oracle), each card's cap in dollars first.
    let usdc = api_launch(&s, "Dollar Dog", "DDOG", "fair", "usdc", "").await;
    wait_js(
        &c,
        "document.querySelectorAll('.card').length === 4",
        30,
        "the USDC launch on discovery",
    )
    .await;
    c.execute(
        "const s = document.querySelector('select[name=sort]'); s.value = 'marketCap'; \
         s.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![],
    )
    .await
    .unwrap();
    let by_cap = get_json(&format!("{base}/launchpad/launches?sort=marketCap")).await;
    assert!(by_cap["usd"]["solUsd"].is_string(), "{by_cap}");
    let order: Vec<String> = by_cap["launches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["mint"].as_str().unwrap().to_string())
        .collect();
    wait_js(
        &c,
        &format!(
            "JSON.stringify([...document.querySelectorAll('.card')].map((e) => e.dataset.mint)) === '{}' && \
             [...document.querySelectorAll('.card .mcap-usd')].every((e) => e.textContent.startsWith('$')) && \
             document.querySelector('#sol-usd')?.textContent.includes('$')",
            serde_json::to_string(&order).unwrap()
        ),
        30,
        "cards by market cap in dollars, across SOL and USDC",
    )
    .await;
    // The development wallet trades the USDC launch with the local USDC the faucet gave it (connected
    // again in this window: the standard wallet's test above took its place).
    c.execute(&format!("location.hash = '#/token/{usdc}';"), vec![])
        .await
        .unwrap();
    if text(&c, "#wallet-address").await.is_empty() {
        connect_dev_wallet(&c).await;
    }
    wait_js(
        &c,
        &format!("document.querySelector('#wallet-address')?.title === '{address}'"),
        10,
        "the dev wallet connected",
    )
    .await;
    wait_js(
        &c,
        "document.querySelector('#venue') && document.querySelector('#stat-mcap')?.textContent.startsWith('$')",
        30,
        "the USDC launch's page, its market cap in dollars",
    )
    .await;
    click(&c, "#side-buy").await;
    fill(&c, "#trade-amount", "10").await;
    wait_js(
        &c,
        "document.querySelector('#trade-amount-echo')?.textContent === '= 10 USDC' && document.querySelector('#quote-out')",
        20,
        "a quote for 10 USDC",
    )
    .await;
    confirm_and_trade(&c, 0, "the USDC buy").await;
    assert_no_page_errors(&c, "after the USDC buy").await;
    let usdc_trades = get_json(&format!("{base}/launchpad/trades/{usdc}")).await;
    assert_eq!(
        usdc_trades["trades"][0]["wallet"],
        address.as_str(),
        "the dev wallet bought: {usdc_trades}"
    );
    assert_eq!(
        usdc_trades["trades"][0]["amountIn"], "10000000",
        "{usdc_trades}"
    );

    // "Receive exactly": 1,000,000 tokens asked for, quoted with the most it may cost, delivered exactly.
    let rows = trade_rows(&c).await;
    click(&c, "#side-buy").await;
    click(&c, "#trade-exact-out").await;
    fill(&c, "#trade-amount", "1 000 000").await;
    wait_js(
        &c,
        "document.querySelector('#trade-amount-echo')?.textContent === '= 1000000 DDOG' && \
         document.querySelector('#trade-quote')?.dataset.amountOut === '1000000000000' && \
         document.querySelector('#quote-max-in') && \
         document.querySelector('#quote-out')?.textContent === '1,000,000 DDOG'",
        20,
        "an exact-out quote for 1,000,000 tokens",
    )
    .await;
    confirm_and_trade(&c, rows, "the exact-out buy").await;
    let last = get_json(&format!("{base}/launchpad/trades/{usdc}?limit=1")).await;
    assert_eq!(last["trades"][0]["amountOut"], "1000000000000", "{last}");

    // The shield launch's page shows its fee as it decays.
    c.execute(&format!("location.hash = '#/token/{shield}';"), vec![])
        .await
        .unwrap();
    wait_js(
        &c,
        "document.querySelector('#fee-decay')?.textContent.includes('until 1%')",
        30,
        "the shield fee's decay",
    )
    .await;
    let fee = text(&c, "#current-fee").await;
    assert!(
        fee != "1%" && fee.ends_with('%'),
        "the shield fee now: {fee}"
    );
    assert_no_page_errors(&c, "on the shield launch's page").await;

    // An address the index has no launch for: a clear state with a way out, and leaving it stops its
    // requests and never draws over the next page.
    let unknown = "SysvarRent111111111111111111111111111111111";
    c.execute(&format!("location.hash = '#/token/{unknown}';"), vec![])
        .await
        .unwrap();
    wait_js(
        &c,
        "document.querySelector('#token-missing #missing-discover')",
        20,
        "the missing token's state with a way out",
    )
    .await;
    c.execute(
        &format!(
            "window.__asked = 0; const f = window.fetch; \
             window.fetch = (u, ...a) => {{ if (String(u).includes('{unknown}')) window.__asked++; return f(u, ...a); }};"
        ),
        vec![],
    )
    .await
    .unwrap();
    click(&c, "a[data-nav=discover]").await;
    wait_js(
        &c,
        "document.body.dataset.page === 'discover' && document.querySelector('#launches .card')",
        20,
        "Discover after the missing token",
    )
    .await;
    // Counted from here: anything the left page still asks for.
    c.execute("window.__asked = 0;", vec![]).await.unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let after = c
        .execute(
            "return [window.__asked, !!document.querySelector('#token-missing')];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        after,
        json!([0, false]),
        "the left page neither polls nor draws: {after}"
    );
    c.close().await.unwrap();
    let _ = std::fs::remove_file(png);
    let _ = s.stop.send(true);
}

/// The page and its assets over plain HTTP: a strict CSP on the page, assets under a content-hashed path
/// cached immutable, the config saying whether the API runs on a localnet, and no faucet off a localnet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_with_its_csp_and_hashed_assets() {
    let s = common::stack(false, 1_000).await;
    let http = reqwest::Client::new();
    let page = http.get(format!("{}/", s.base)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert!(
        csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    assert_eq!(page.headers()["cache-control"], "no-cache");
    let html = page.text().await.unwrap();
    assert!(!html.contains("{{VERSION}}"));
    assert!(
        !html.contains("<script>") && !html.contains("onclick="),
        "no inline script"
    );
    let version = api::routes::ui::VERSION.as_str();
    for asset in ["app.js", "style.css", "vendor/lightweight-charts-4.2.3.mjs"] {
        let path = format!("/ui/{version}/{asset}");
        if asset != "vendor/lightweight-charts-4.2.3.mjs" {
            assert!(html.contains(&path), "the page names {path}");
        }
        let r = http.get(format!("{}{path}", s.base)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(
            r.headers()["cache-control"],
            "public, max-age=31536000, immutable",
            "{path}"
        );
    }
    // Another version (a page from before an upgrade) gets today's file, never cached; unknown files 404.
    let r = http
        .get(format!("{}/ui/0000000000000000/app.js", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["cache-control"], "no-cache");
    let (status, body) = common::get(&http, &format!("{}/ui/{version}/nope.js", s.base)).await;
    assert_eq!(status, 404);
    common::assert_error(&body, "NOT_FOUND");

    let (status, config) = common::get(&http, &format!("{}/ui/config.json", s.base)).await;
    assert_eq!(status, 200);
    assert_eq!(config["localnet"], false, "{config}");
    // No explorer unless `--explorer-url` names one.
    assert_eq!(config["explorerUrl"], Value::Null, "{config}");
    assert_eq!(config["version"], version);
    let (status, body) = common::post(
        &http,
        &format!("{}/ui/airdrop", s.base),
        &json!({ "address": "11111111111111111111111111111111" }),
    )
    .await;
    assert_eq!(status, 404, "no faucet off a localnet: {body}");
    common::assert_error(&body, "NOT_FOUND");
    let _ = s.stop.send(true);
}
