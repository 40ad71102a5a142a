//! The browser binary's harness: chromedriver and a headless Chromium session, the page's viewport at phone
//! and desktop sizes, and the few actions every browser test takes (wait for a condition, read, click or tap,
//! type, navigate) with the checks they all make (no page errors, nothing wider than the screen).

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "chromedriver";
pub(crate) const PHONE: (u32, u32) = (390, 844);
/// The desktop window (issue 37: 1366x800).
pub(crate) const DESKTOP: (u32, u32) = (1366, 800);

/// chromedriver on a free loopback port, killed on drop.
pub(crate) struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) async fn chromedriver() -> Driver {
    assert!(
        std::path::Path::new(CHROMIUM).exists(),
        "Chromium is not installed at {CHROMIUM}: the browser test needs it \
         (apt-get install -y chromium chromium-driver; .ci/run does it)"
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {CHROMEDRIVER} ({e}): apt-get install -y chromium chromium-driver \
                 (.ci/run does it)"
            )
        });
    let url = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    while reqwest::get(format!("{url}/status")).await.is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "chromedriver never answered on {url}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Driver { child, url }
}

pub(crate) async fn browser(driver: &Driver) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": CHROMIUM,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1366,800", "--hide-scrollbars", "--force-device-scale-factor=1",
            ],
        }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("connecting to chromedriver")
}

/// chromedriver and one Chromium session on it, its viewport `size` (see [`viewport`]). The driver ends when
/// dropped: keep it as long as the session.
pub(crate) async fn chromium(size: (u32, u32)) -> (Driver, Client) {
    let driver = chromedriver().await;
    let c = browser(&driver).await;
    viewport(&c, size).await;
    (driver, c)
}

/// What the page shows as errors (for failure messages).
pub(crate) async fn page_errors(c: &Client) -> String {
    c.execute(
        "return [...document.querySelectorAll('.error')].filter(e => !e.hidden).map(e => e.textContent).join(' | ') \
         + ' @ ' + location.hash",
        vec![],
    )
    .await
    .map(|v| v.as_str().unwrap_or_default().to_string())
    .unwrap_or_default()
}

/// Waits until the JavaScript expression `cond` is true on the page.
pub(crate) async fn wait_js(c: &Client, cond: &str, secs: u64, what: &str) {
    let start = Instant::now();
    loop {
        let ok = c
            .execute(&format!("return !!({cond});"), vec![])
            .await
            .map(|v| v == Value::Bool(true))
            .unwrap_or(false);
        if ok {
            return;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let shown = c
                .execute(
                    "return (document.querySelector('main')?.innerText || '').slice(0, 2000);",
                    vec![],
                )
                .await
                .unwrap_or_default();
            panic!(
                "timed out after {secs}s waiting for {what} ({cond}); page errors: {}; the page showed: {shown}",
                page_errors(c).await
            );
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

pub(crate) async fn text(c: &Client, css: &str) -> String {
    c.execute(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
        vec![json!(css)],
    )
    .await
    .unwrap()
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// Clicks `css`. The page re-renders panels as the feed reports trades, so an element found an instant
/// before can be replaced before the click lands: a stale element is found again (a few times) and clicked.
pub(crate) async fn click(c: &Client, css: &str) {
    for attempt in 0.. {
        let element = c
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css}: {e}"));
        match element.click().await {
            Ok(_) => return,
            Err(fantoccini::error::CmdError::Standard(e))
                if e.error == fantoccini::error::ErrorStatus::StaleElementReference
                    && attempt < 5 =>
            {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(e) => panic!("clicking {css}: {e}"),
        }
    }
}

/// Asserts that `css` is within a thumb's reach: scrolled into view (vertically, as a thumb scrolls), it lies
/// wholly inside the screen, neither off its side nor wider or taller than it, and it is what a tap on its
/// centre hits (nothing covers it).
pub(crate) async fn reach(c: &Client, css: &str) {
    let at = c
        .execute(
            "const e = document.querySelector(arguments[0]); if (!e) return null; \
             e.scrollIntoView({ block: 'center', inline: 'nearest' }); window.scrollTo(0, window.scrollY); \
             const r = e.getBoundingClientRect(); \
             const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2); \
             return [r.left, r.top, r.right, r.bottom, window.innerWidth, window.innerHeight, \
                     !!hit && (hit === e || e.contains(hit) || (e.labels && [...e.labels].some((l) => l.contains(hit))))];",
            vec![json!(css)],
        )
        .await
        .unwrap();
    assert!(at.is_array(), "no {css} to tap");
    let n = |i: usize| at[i].as_f64().unwrap();
    assert!(
        n(0) >= -0.5 && n(1) >= -0.5 && n(2) <= n(4) + 0.5 && n(3) <= n(5) + 0.5 && n(2) > n(0) && n(3) > n(1),
        "{css} is not within the screen (left, top, right, bottom, screen width, height, hit): {at}"
    );
    assert_eq!(
        at[6], true,
        "a tap on the centre of {css} hits something else: {at}"
    );
}

/// Taps `css` as a thumb would: within reach (see [`reach`]), then clicked.
pub(crate) async fn tap(c: &Client, css: &str) {
    reach(c, css).await;
    click(c, css).await;
}

/// Types `value` into the field `css` after checking it is within reach (see [`reach`]).
pub(crate) async fn type_into(c: &Client, css: &str, value: &str) {
    reach(c, css).await;
    fill(c, css, value).await;
}

/// Runs `script` on the page and returns what it returns.
pub(crate) async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("{script}: {e}"))
}

pub(crate) async fn fill(c: &Client, css: &str, value: &str) {
    let e = c
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css}: {e}"));
    e.clear().await.unwrap();
    e.send_keys(value).await.unwrap();
}

pub(crate) async fn go(c: &Client, base: &str, hash: &str) {
    c.goto(&format!("{base}/{hash}")).await.unwrap();
}

/// Script errors, failed promises and CSP violations the page recorded (`window.__errors`): none allowed.
pub(crate) async fn assert_no_page_errors(c: &Client, when: &str) {
    let errors = c
        .execute(
            "return window.__errors || ['the page never loaded errors.js'];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(errors, json!([]), "page errors {when}");
}

/// Nothing on the page is wider than the window (it never scrolls sideways) or cut off at its left edge.
pub(crate) async fn assert_fits(c: &Client, what: &str) {
    let sizes = c
        .execute(
            "const clipped = (e) => { for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) { if (getComputedStyle(a).overflowX !== 'visible') return true; } return false; };              const wide = [...document.querySelectorAll('body *')].filter((e) => (e.getBoundingClientRect().right > window.innerWidth + 0.5 || (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible' && e.getBoundingClientRect().left + e.scrollWidth > window.innerWidth + 0.5)) && (e.offsetParent || getComputedStyle(e).position === 'fixed') && !clipped(e))                .slice(0, 3).map((e) => e.tagName + '#' + e.id + '.' + e.className);              return [document.documentElement.scrollWidth, window.innerWidth, wide];",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        sizes[0].as_u64().unwrap() <= sizes[1].as_u64().unwrap(),
        "{what} scrolls sideways (scrollWidth, innerWidth, widest): {sizes}"
    );
    // A page never scrolls left: what starts before the screen's left edge and reaches into it is cut off
    // (wholly off-screen elements, such as the skip link until it has the focus, are hidden by design).
    let cut = c
        .execute(
            "const clipped = (e) => { for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) { if (getComputedStyle(a).overflowX !== 'visible') return true; } return false; }; \
             return [...document.querySelectorAll('body *')].filter((e) => { const r = e.getBoundingClientRect(); \
               return r.left < -0.5 && r.right > 0.5 && (e.offsetParent || getComputedStyle(e).position === 'fixed') && !clipped(e); }) \
             .slice(0, 3).map((e) => [e.tagName + '#' + e.id + '.' + e.className, e.getBoundingClientRect().left]);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        cut,
        json!([]),
        "{what} is cut off at the screen's left edge"
    );
}

/// Sizes the window so that the page's viewport (`innerWidth` x `innerHeight`) is `(w, h)`: the browser's own
/// bars are added to the height (headless Chromium keeps about 65 px of a desktop window's height for them).
/// The width is the viewport's already (`outerWidth` is clamped to at least 500 px while the page gets 390).
pub(crate) async fn viewport(c: &Client, (w, h): (u32, u32)) {
    c.set_window_size(w, h).await.unwrap();
    let bar = c
        .execute("return window.outerHeight - window.innerHeight;", vec![])
        .await
        .unwrap()
        .as_i64()
        .unwrap_or(0)
        .max(0) as u32;
    if bar > 0 {
        c.set_window_size(w, h + bar).await.unwrap();
    }
    let inner = c
        .execute("return [window.innerWidth, window.innerHeight];", vec![])
        .await
        .unwrap();
    assert_eq!(inner, json!([w, h]), "the viewport");
}

/// The stack the page's tests run against: a localnet (the faucet and the development wallet on), rate limits
/// a browser's burst of reads never meets, and the explorer links `explorer_url` names (none without it).
pub(crate) async fn page_stack(explorer_url: Option<&str>) -> crate::common::Stack {
    crate::common::stack_configured(false, |c| api::process::config::ApiConfig {
        localnet: true,
        rate_limit_per_second: 1_000,
        rate_limit_burst: 2_000,
        explorer_url: explorer_url.map(Into::into),
        ..c
    })
    .await
}

/// Opens the header's wallet menu (a tap within the screen): it lists the development wallet and fits the
/// screen.
pub(crate) async fn open_wallet_menu(c: &Client) {
    tap(c, "#wallet-connect").await;
    wait_js(
        c,
        "document.querySelector('#wallet-menu').open && document.querySelector('#dev-wallet')?.offsetParent",
        10,
        "the wallet menu",
    )
    .await;
    assert_fits(c, "the wallet menu").await;
    reach(c, "#wallet-menu .menu").await;
}

/// Picks the development wallet in the open wallet menu; returns its address once the header shows it.
pub(crate) async fn pick_dev_wallet(c: &Client) -> String {
    tap(c, "#dev-wallet").await;
    wait_js(
        c,
        "document.querySelector('#wallet-address')?.title",
        10,
        "the dev wallet connected",
    )
    .await;
    text_of(c, "return document.querySelector('#wallet-address').title;").await
}

/// Connects the development wallet from the header's menu; its address.
pub(crate) async fn connect_dev_wallet(c: &Client) -> String {
    open_wallet_menu(c).await;
    pick_dev_wallet(c).await
}

/// The string `script` returns.
pub(crate) async fn text_of(c: &Client, script: &str) -> String {
    js(c, script)
        .await
        .as_str()
        .unwrap_or_else(|| panic!("{script} returned no string"))
        .to_string()
}
