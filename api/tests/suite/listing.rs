//! Token pages and the discovery listing through HTTP against a running stack (localnet streaming over gRPC,
//! indexer, API), on SQLite and PostgreSQL: launches made through prepare and record trade through
//! graduation and on the AMM; the token view's numbers equal numbers computed here from the trade list; the
//! listing sorts, filters and searches them; pages never repeat or skip a launch at scale (seeded rows).

use crate::common;

use common::*;
use localnet::testkit::{self, SOL};
use sdk::launchpad_ix::LaunchKeys;
use serde_json::{json, Value};
use solana_keypair::Keypair;
use solana_signer::Signer;
use std::collections::BTreeSet;

fn price(v: &Value) -> u128 {
    curve::display::parse_decimal_u128(v.as_str().unwrap(), 18).unwrap()
}

fn cap(v: &Value) -> u128 {
    curve::display::parse_decimal_u128(v.as_str().unwrap(), 24).unwrap()
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn amount(v: &Value) -> u128 {
    v.as_str().unwrap().parse().unwrap()
}

pub struct Launched {
    pub keys: LaunchKeys,
    pub creator: Keypair,
    pub prepared: Value,
}

/// A launch through `POST /launchpad/prepare` (with `extra` fields), signed, submitted and recorded.
pub async fn launch_via_api(
    s: &Stack,
    http: &reqwest::Client,
    rpc: &solana_rpc_client::nonblocking::rpc_client::RpcClient,
    preset: &str,
    name: &str,
    symbol: &str,
    extra: Value,
) -> Launched {
    let creator = testkit::funded(rpc, 5 * SOL).await.unwrap();
    let mut launch = json!({
        "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": preset, "quote": "sol",
        "name": name, "symbol": symbol, "description": format!("{name}, listed"),
        "totalSupply": "1000000000", "creator": creator.pubkey().to_string(),
    });
    for (k, v) in extra.as_object().unwrap() {
        launch[k] = v.clone();
    }
    let (status, prepared) = post(http, &format!("{}/launchpad/prepare", s.base), &launch).await;
    assert_eq!(status, 200, "{prepared}");
    let quote_mint = match launch["quote"].as_str() {
        Some("usdc") => s.net.usdc_mint,
        _ => sdk::ids::NATIVE_MINT,
    };
    let keys = LaunchKeys::new(
        creator.pubkey(),
        prepared["config"].as_str().unwrap().parse().unwrap(),
        quote_mint,
        prepared["mint"].as_str().unwrap().parse().unwrap(),
    );
    let signed = sign(prepared["solanaTransaction"].as_str().unwrap(), &creator);
    let (status, submitted) = s.submit(http, &signed).await;
    assert_eq!(status, 200, "{submitted}");
    let mut record = launch.clone();
    record["tokenAddress"] = prepared["mint"].clone();
    record["deployTxHash"] = submitted["signature"].clone();
    record["metadataURI"] = prepared["metadataURI"].clone();
    let (status, recorded) = post(http, &format!("{}/launchpad/record", s.base), &record).await;
    assert_eq!(status, 200, "{recorded}");
    Launched {
        keys,
        creator,
        prepared,
    }
}

/// Every trade of `mint`, oldest first, through the paginated trade list.
async fn all_trades(http: &reqwest::Client, base: &str, mint: &str) -> Vec<Value> {
    let url = format!("{base}/launchpad/trades/{mint}?limit=100");
    let mut all = Vec::new();
    let mut next = url.clone();
    loop {
        let (status, page) = get(http, &next).await;
        assert_eq!(status, 200, "{page}");
        all.extend(page["trades"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(c) => next = format!("{url}&before={c}"),
            None => break,
        }
    }
    all.reverse();
    all
}

/// Every page of the listing at `query`, in order.
async fn pages(http: &reqwest::Client, base: &str, query: &str, limit: usize) -> (Vec<Value>, u64) {
    let mut out = Vec::new();
    loop {
        let url = format!(
            "{base}/launchpad/launches?{query}&limit={limit}&offset={}",
            out.len()
        );
        let (status, page) = get(http, &url).await;
        assert_eq!(status, 200, "{url}: {page}");
        let items = page["launches"].as_array().unwrap().clone();
        let total = page["total"].as_u64().unwrap();
        let done = items.len() < limit;
        out.extend(items);
        if done {
            assert_eq!(out.len() as u64, total, "{query}");
            return (out, total);
        }
    }
}

fn mints(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|e| e["mint"].as_str().unwrap().to_string())
        .collect()
}

/// A stack whose localnet leaves the SOL/USD price where it is (tests move it with `localnet_setSolUsd`), with
/// no rate limit in the way.
async fn still_price_stack(postgres: bool) -> Stack {
    stack_on(
        postgres,
        localnet::LocalnetConfig {
            oracle_interval: None,
            ..localnet::LocalnetConfig::ephemeral()
        },
        |c| api::process::config::ApiConfig {
            rate_limit_burst: 1_000_000,
            rate_limit_per_second: 5,
            ..c
        },
    )
    .await
}

async fn views(postgres: bool) {
    // The SOL/USD price stays put (the market cap and volume sorts compare SOL and USDC launches at it).
    let s = still_price_stack(postgres).await;
    let http = reqwest::Client::new();
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        s.net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let png = {
        let img = image::RgbaImage::from_pixel(48, 32, image::Rgba([250, 180, 20, 255]));
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    };
    let links = json!({
        "image": b64(&png),
        "website": "https://alpha.example.org/about",
        "twitter": "https://x.com/alphadog",
        "telegram": "https://t.me/alphadog",
    });
    let alpha = launch_via_api(&s, &http, &rpc, "fair", "Alpha Dog", "ALPHA", links.clone()).await;
    let beta = launch_via_api(&s, &http, &rpc, "shield", "Beta Cat", "BETA", json!({})).await;
    let gamma = launch_via_api(&s, &http, &rpc, "fair", "Gamma", "GAMMA", json!({})).await;

    let mut wallets = Vec::new();
    for _ in 0..4 {
        wallets.push(testkit::funded(&rpc, 20 * SOL).await.unwrap());
    }
    let a = &alpha.keys;
    for (i, w) in wallets.iter().enumerate() {
        testkit::buy(&rpc, a, w, (i as u64 + 1) * SOL / 4)
            .await
            .unwrap();
    }
    let held = testkit::token_balance(
        &rpc,
        &wallets[0].pubkey(),
        &a.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await;
    testkit::sell(&rpc, a, &wallets[0], held / 3).await.unwrap();
    testkit::buy(&rpc, a, &wallets[1], 12 * SOL).await.unwrap();
    testkit::migrate(&rpc, a, &wallets[2]).await.unwrap();
    testkit::amm_buy(&rpc, a, &wallets[3], SOL / 2)
        .await
        .unwrap();
    testkit::buy(&rpc, &beta.keys, &wallets[2], SOL / 10)
        .await
        .unwrap();
    s.wait_indexed().await;

    // The token view equals what the trade list says.
    let trades = all_trades(&http, &s.base, &a.mint.to_string()).await;
    assert_eq!(trades.len(), 7);
    let (status, view) = get(&http, &format!("{}/launchpad/tokens/{}", s.base, a.mint)).await;
    assert_eq!(status, 200, "{view}");
    // The mint's supply, read from its account (SPL mint layout: the u64 supply at byte 36).
    let mint_data = rpc.get_account(&a.mint).await.unwrap().data;
    let supply = u128::from(u64::from_le_bytes(mint_data[36..44].try_into().unwrap()));
    let last = price(&trades.last().unwrap()["priceAfter"]);
    let first = price(&trades[0]["priceAfter"]);
    let ath = trades
        .iter()
        .map(|t| price(&t["priceAfter"]))
        .max()
        .unwrap();
    assert_eq!(view["supply"], supply.to_string());
    assert_eq!(price(&view["price"]), last);
    assert_eq!(cap(&view["marketCap"]), last * supply);
    assert_eq!(price(&view["athPrice"]), ath);
    assert_eq!(cap(&view["athMarketCap"]), ath * supply);
    let sum = |f: &str| trades.iter().map(|t| amount(&t[f])).sum::<u128>();
    assert_eq!(amount(&view["volume24hBase"]), sum("baseAmount"));
    assert_eq!(amount(&view["volume24hQuote"]), sum("quoteAmount"));
    assert_eq!(view["trades24h"], 7);
    let traders: BTreeSet<&str> = trades
        .iter()
        .map(|t| t["wallet"].as_str().unwrap())
        .collect();
    assert_eq!(view["traders24h"], traders.len());
    let bp = (last - first) * 10_000 / first;
    assert_eq!(
        view["priceChange24h"],
        format!("{}.{:02}", bp / 100, bp % 100)
    );
    assert_eq!(view["lastTradeAt"], trades.last().unwrap()["time"]);
    assert_eq!(
        (&view["status"], &view["venue"], &view["progressBps"]),
        (&json!("migrated"), &json!("amm"), &json!(10_000))
    );
    assert!(view["completedAt"].as_i64().unwrap() >= view["createdAt"].as_i64().unwrap());
    assert!(view["migratedAt"].as_i64().unwrap() >= view["completedAt"].as_i64().unwrap());
    assert_eq!(view["description"], "Alpha Dog, listed");
    assert_eq!(view["creator"], alpha.creator.pubkey().to_string());
    assert_eq!(view["metadataUri"], alpha.prepared["metadataURI"]);
    // A token without trades: no ATH, no change, the curve's price, bonding.
    let (_, g) = get(
        &http,
        &format!("{}/launchpad/tokens/{}", s.base, gamma.keys.mint),
    )
    .await;
    assert_eq!(
        (
            &g["athPrice"],
            &g["priceChange24h"],
            &g["status"],
            &g["trades24h"]
        ),
        (&Value::Null, &Value::Null, &json!("bonding"), &json!(0))
    );
    assert!(g["completedAt"].is_null() && g["migratedAt"].is_null() && g["lastTradeAt"].is_null());
    let (status, body) = get(
        &http,
        &format!(
            "{}/launchpad/tokens/{}",
            s.base,
            anchor_lang::prelude::Pubkey::new_unique()
        ),
    )
    .await;
    assert_eq!(status, 404);
    assert_error(&body, "NOT_FOUND");
    let (status, body) = get(&http, &format!("{}/launchpad/tokens/nope", s.base)).await;
    assert_eq!(status, 400);
    assert_error(&body, "INVALID_ADDRESS");

    // The image and links: in the Metaplex metadata JSON, the image served byte for byte with its type.
    let (status, meta) = get(&http, alpha.prepared["metadataURI"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{meta}");
    let image_url = meta["image"].as_str().unwrap();
    assert_eq!(view["image"], image_url);
    assert_eq!(meta["external_url"], links["website"]);
    assert_eq!(meta["extensions"]["twitter"], links["twitter"]);
    assert_eq!(meta["extensions"]["telegram"], links["telegram"]);
    assert_eq!(meta["properties"]["files"][0]["uri"], image_url);
    assert_eq!(meta["properties"]["files"][0]["type"], "image/png");
    assert_eq!(view["links"]["twitter"], links["twitter"]);
    let served = http.get(image_url).send().await.unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()["content-type"], "image/png");
    assert!(served.headers()["cache-control"]
        .to_str()
        .unwrap()
        .contains("immutable"));
    assert_eq!(served.bytes().await.unwrap().as_ref(), png.as_slice());
    let (_, plain) = get(&http, gamma.prepared["metadataURI"].as_str().unwrap()).await;
    assert!(plain.get("image").is_none() && plain.get("extensions").is_none());
    // Bad images and links: 4xx in the spec's format, nothing prepared.
    let prepare = format!("{}/launchpad/prepare", s.base);
    let body = |extra: Value| {
        let mut b = json!({
            "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "fair", "quote": "sol",
            "name": "Bad", "symbol": "BAD", "totalSupply": "1000000000",
            "creator": alpha.creator.pubkey().to_string(),
        });
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    let mut truncated = png.clone();
    truncated.truncate(60);
    let mut big = png.clone();
    big.resize(1_100_000, 0);
    let key = bs58::encode([7u8; 64]).into_string();
    for (extra, status, code) in [
        (json!({"image": b64(&truncated)}), 400, "INVALID_IMAGE"),
        (
            json!({"image": b64(b"just some text")}),
            400,
            "INVALID_IMAGE",
        ),
        (json!({"image": "%%%"}), 400, "INVALID_IMAGE"),
        (
            json!({"image": b64(b"BM6\x00\x00\x00")}),
            400,
            "INVALID_IMAGE",
        ),
        (json!({"image": b64(&big)}), 413, "PAYLOAD_TOO_LARGE"),
        (
            json!({"website": "http://alpha.example.org"}),
            400,
            "INVALID_LINK",
        ),
        (
            json!({"website": "javascript:alert(1)"}),
            400,
            "INVALID_LINK",
        ),
        (
            json!({"twitter": "https://evil.example/x.com"}),
            400,
            "INVALID_LINK",
        ),
        (json!({"twitter": "https://x.com/"}), 400, "INVALID_LINK"),
        (
            json!({"twitter": "https://x.com/alpha/status/1"}),
            400,
            "INVALID_LINK",
        ),
        (
            json!({"twitter": "https://x.com/alpha?x=1"}),
            400,
            "INVALID_LINK",
        ),
        (
            json!({"telegram": "https://t.me.evil.org/a"}),
            400,
            "INVALID_LINK",
        ),
        (
            json!({"telegram": "https://user:pw@t.me/a"}),
            400,
            "INVALID_LINK",
        ),
        // Secrets are still caught next to an image.
        (
            json!({"image": b64(&png), "description": format!("key {key}")}),
            400,
            "SECRET_MATERIAL",
        ),
        (json!({"image": key}), 400, "SECRET_MATERIAL"),
    ] {
        let (got, resp) = post(&http, &prepare, &body(extra.clone())).await;
        assert_eq!(got, status, "{extra}: {resp}");
        assert_error(&resp, code);
    }
    let (got, resp) = post(&http, &prepare, &body(json!({"image": b64(&png)}))).await;
    assert_eq!(got, 200, "{resp}");
    let (status, _) = get(
        &http,
        &format!("{}/launchpad/images/{}", s.base, "ab".repeat(32)),
    )
    .await;
    assert_eq!(status, 404);
    let (status, _) = get(&http, &format!("{}/launchpad/images/nope", s.base)).await;
    assert_eq!(status, 400);

    // Browse responses carry an ETag and Cache-Control; a conditional request for the same tag gets 304.
    for (path, max_age) in [
        (format!("/launchpad/tokens/{}", a.mint), "max-age=2"),
        (
            "/launchpad/launches?sort=marketCap".to_string(),
            "max-age=5",
        ),
        (format!("/launchpad/trades/{}", a.mint), "max-age=1"),
        (
            format!("/launchpad/candles/{}?interval=1m", a.mint),
            "max-age=2",
        ),
        (format!("/launchpad/curve/{}", a.mint), "max-age=1"),
        (
            image_url.strip_prefix(&s.base).unwrap().to_string(),
            "immutable",
        ),
    ] {
        let url = format!("{}{path}", s.base);
        let first = http.get(&url).send().await.unwrap();
        assert_eq!(first.status(), 200, "{path}");
        let tag = first.headers()["etag"].to_str().unwrap().to_string();
        let cache = first.headers()["cache-control"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(cache.contains(max_age), "{path}: {cache}");
        let again = http
            .get(&url)
            .header("if-none-match", &tag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
        assert_eq!(again.headers()["etag"].to_str().unwrap(), tag);
        assert!(again.bytes().await.unwrap().is_empty());
        let other = http
            .get(&url)
            .header("if-none-match", "\"stale\"")
            .send()
            .await
            .unwrap();
        assert_eq!(other.status(), 200, "{path}");
    }
    // The listing: sorts, filters and search over the recorded launches.
    let (am, bm, gm) = (
        a.mint.to_string(),
        beta.keys.mint.to_string(),
        gamma.keys.mint.to_string(),
    );
    // Trades in the same second tie on time, and the mint breaks the tie.
    let (_, bv) = get(&http, &format!("{}/launchpad/tokens/{bm}", s.base)).await;
    let mut last_trade_order = vec![
        (view["lastTradeAt"].as_i64(), am.clone()),
        (bv["lastTradeAt"].as_i64(), bm.clone()),
    ];
    last_trade_order.sort();
    last_trade_order.reverse();
    let last_trade_order: Vec<String> = last_trade_order
        .into_iter()
        .map(|(_, m)| m)
        .chain([gm.clone()])
        .collect();
    for (query, expected) in [
        ("sort=new", vec![&gm, &bm, &am]),
        ("sort=new&order=asc", vec![&am, &bm, &gm]),
        ("sort=marketCap", vec![&am, &bm, &gm]),
        ("sort=volume24h", vec![&am, &bm, &gm]),
        ("sort=volume24h&order=asc", vec![&gm, &bm, &am]),
        ("sort=lastTrade", last_trade_order.iter().collect()),
        ("sort=progress", vec![&am, &bm, &gm]),
        ("status=migrated", vec![&am]),
        ("status=bonding&sort=marketCap", vec![&bm, &gm]),
        ("preset=shield", vec![&bm]),
        ("quote=usdc", vec![]),
        ("q=alpha", vec![&am]),
        ("q=eTa", vec![&bm]),
        (&format!("q={gm}") as &str, vec![&gm]),
        (
            &format!("creator={}", beta.creator.pubkey()) as &str,
            vec![&bm],
        ),
    ] {
        let (entries, _) = pages(&http, &s.base, query, 2).await;
        let expected: Vec<String> = expected.into_iter().cloned().collect();
        assert_eq!(mints(&entries), expected, "{query}");
    }
    let (entries, _) = pages(&http, &s.base, "sort=marketCap", 10).await;
    let e = &entries[0];
    // The documentation's examples (`--nocapture` shows them).
    println!("token view: {view:#}\nlisting entry: {e:#}\nmetadata: {meta:#}");
    assert_eq!(
        (&e["price"], &e["marketCap"]),
        (&view["price"], &view["marketCap"])
    );
    assert_eq!(e["volume24hQuote"], view["volume24hQuote"]);
    assert_eq!(e["lastTradeAt"], view["lastTradeAt"]);
    assert_eq!(e["holders"], view["holders"]["holderCount"]);
    assert!(e["holders"].as_u64().unwrap() > 0, "{e}");
    assert_eq!(
        (&e["status"], &e["progressBps"]),
        (&json!("migrated"), &json!(10_000))
    );
    assert!(entries.iter().all(|e| e["prepared"] == true), "{entries:?}");
    // Launched without prepare or record: listed all the same, with `prepared: false`.
    let elsewhere_creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (elsewhere, _) = testkit::launch(&rpc, &elsewhere_creator, curve::Preset::Fair, 7, "ELSE")
        .await
        .unwrap();
    let start = std::time::Instant::now();
    // (The total is counted at most every 5 seconds per filter set.)
    while get(&http, &format!("{}/launchpad/launches?limit=10", s.base))
        .await
        .1["total"]
        != 4
    {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "never listed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let (entries, _) = pages(&http, &s.base, "sort=new", 10).await;
    assert_eq!(mints(&entries)[0], elsewhere.mint.to_string());
    assert_eq!(entries[0]["prepared"], false);
    assert_eq!(entries[0]["symbol"], "ELSE");
    // The catalog lists exactly the listing's launches.
    let (_, tokens) = get(&http, &format!("{}/swap/tokens?chainKey=solana", s.base)).await;
    let catalog: BTreeSet<String> = tokens["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"] == "launch")
        .map(|t| t["address"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(catalog, mints(&entries).into_iter().collect());

    // Bad parameters: 400 in the spec's format.
    for query in [
        "sort=hot",
        "order=up",
        "status=dead",
        "preset=odd",
        "quote=eth",
        "limit=101",
        "limit=0",
        "offset=-1",
        &format!("q={}", "x".repeat(65)),
        "q=%00",
        "q=a%00zzz",
        "prefix=",
        "prefix=a%20b",
        "prefix=a%25",
        "prefix=a_",
        "prefix=%C3%A9",
        &format!("prefix={}", "1".repeat(45)),
    ] {
        let (status, body) = get(&http, &format!("{}/launchpad/launches?{query}", s.base)).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_error(&body, "INVALID_PARAMS");
    }
    let (status, body) = get(&http, &format!("{}/launchpad/launches?creator=xyz", s.base)).await;
    assert_eq!(status, 400);
    assert_error(&body, "INVALID_ADDRESS");

    // At scale: pages under every sort and order neither repeat nor skip a launch, in order.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let store = index::Store::open(&s.db).await.unwrap();
    store.seed_listing(1_000, now).await.unwrap();
    // Totals are counted at most every 5 seconds per filter set.
    tokio::time::sleep(api::LISTING_TOTAL_TTL + std::time::Duration::from_millis(200)).await;
    let (all, total) = pages(&http, &s.base, "sort=new", 100).await;
    // Every launch, whoever built it: one in ten seeded was not prepared here (and some prepared ones were
    // never recorded), listed all the same, with `prepared` saying which.
    assert_eq!(total, 4 + 1_000);
    let everyone: BTreeSet<String> = mints(&all).into_iter().collect();
    assert_eq!(everyone.len(), all.len());
    let not_prepared = all.iter().filter(|e| e["prepared"] == false).count();
    assert_eq!(not_prepared, 1 + 100);
    assert!(all.iter().all(|e| e["prepared"].is_boolean()));
    // Prefix search: exactly the launches whose mint starts with the prefix as written (base58 is
    // case-sensitive) or whose symbol starts with it in any case, on every page, counted exactly.
    let first = all[0]["mint"].as_str().unwrap().to_string();
    // A mint's start up to its first lower-case letter (seeded mints share long starts).
    let lower = all
        .iter()
        .filter_map(|e| e["mint"].as_str())
        .find_map(|m| {
            let at = m.bytes().position(|b| b.is_ascii_lowercase())?;
            Some(m[..=at].to_string())
        })
        .unwrap();
    for prefix in [
        &first[..1],
        &first[..2],
        &first[..4],
        &first,
        &lower,
        "S1",
        "s12",
        "S10",
    ] {
        let (got, total) = pages(&http, &s.base, &format!("prefix={prefix}"), 100).await;
        let expected: BTreeSet<String> = all
            .iter()
            .filter(|e| {
                e["mint"].as_str().unwrap().starts_with(prefix)
                    || e["symbol"]
                        .as_str()
                        .unwrap()
                        .to_ascii_uppercase()
                        .starts_with(&prefix.to_ascii_uppercase())
            })
            .map(|e| e["mint"].as_str().unwrap().to_string())
            .collect();
        assert!(!expected.is_empty(), "{prefix}");
        assert_eq!(
            mints(&got).into_iter().collect::<BTreeSet<_>>(),
            expected,
            "prefix={prefix}"
        );
        assert_eq!(total as usize, expected.len(), "prefix={prefix}");
    }
    // A mint's start in the wrong case is another mint's start: base58 tells `a` from `A`.
    let swapped: String = lower.to_ascii_uppercase();
    let (got, _) = pages(&http, &s.base, &format!("prefix={swapped}"), 100).await;
    assert!(
        got.iter()
            .all(|e| !e["mint"].as_str().unwrap().starts_with(&lower)),
        "prefix={swapped} found mints starting {lower}"
    );
    // Market cap and volume compare in dollars across quotes, exactly: SOL figures times the oracle's
    // price (8 places), USDC figures at one dollar, each scaled to the same places.
    let (_, first) = get(&http, &format!("{}/launchpad/launches?limit=1", s.base)).await;
    let (sol_usd, sol_places) = digits(&first["usd"]["solUsd"]);
    assert_eq!(sol_places, 8);
    let in_usd = |e: &Value, value: u128, sol_digits: u32, usdc_digits: u32| {
        use ruint::aliases::U256;
        let (rate, digits) = match e["quote"].as_str() {
            Some("sol") => (U256::from(sol_usd), sol_digits + 8),
            _ => (U256::from(1u8), usdc_digits),
        };
        let places = (sol_digits + 8).max(usdc_digits);
        U256::from(value) * rate * U256::from(10u8).pow(U256::from(places - digits))
    };
    let key = |sort: &str, e: &Value| -> (ruint::aliases::U256, u128, String) {
        use ruint::aliases::U256;
        let t = |v: &Value| v.as_i64().unwrap_or(0) as u128;
        let k = match sort {
            "new" => (U256::from(t(&e["createdAt"])), t(&e["createdSlot"])),
            "marketCap" => (in_usd(e, cap(&e["marketCap"]), 24, 24), 0),
            "volume24h" => (in_usd(e, amount(&e["volume24hQuote"]), 9, 6), 0),
            "lastTrade" => (U256::from(t(&e["lastTradeAt"])), 0),
            _ => (U256::from(t(&e["progressBps"])), 0),
        };
        (k.0, k.1, e["mint"].as_str().unwrap().to_string())
    };
    for sort in ["new", "marketCap", "volume24h", "lastTrade", "progress"] {
        for (order, filter) in [
            ("desc", ""),
            ("asc", ""),
            ("desc", "&quote=usdc&status=bonding"),
        ] {
            let query = format!("sort={sort}&order={order}{filter}");
            let (got, _) = pages(&http, &s.base, &query, 37).await;
            let unique: BTreeSet<String> = mints(&got).into_iter().collect();
            assert_eq!(unique.len(), got.len(), "{query}: duplicates");
            if filter.is_empty() {
                assert_eq!(unique, everyone, "{query}: gaps");
            } else {
                assert!(got
                    .iter()
                    .all(|e| e["quote"] == "usdc" && e["status"] == "bonding"));
                assert!(!got.is_empty());
            }
            for pair in got.windows(2) {
                let (x, y) = (key(sort, &pair[0]), key(sort, &pair[1]));
                if order == "desc" {
                    assert!(x > y, "{query}: {x:?} before {y:?}");
                } else {
                    assert!(x < y, "{query}: {x:?} before {y:?}");
                }
            }
        }
    }
    // A new trade changes the token's tag.
    let tag_of = |r: &reqwest::Response| r.headers()["etag"].to_str().unwrap().to_string();
    let gamma_view = format!("{}/launchpad/tokens/{}", s.base, gamma.keys.mint);
    let before = tag_of(&http.get(&gamma_view).send().await.unwrap());
    testkit::buy(&rpc, &gamma.keys, &wallets[0], SOL / 20)
        .await
        .unwrap();
    s.wait_indexed().await;
    let changed = http
        .get(&gamma_view)
        .header("if-none-match", &before)
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), 200);
    assert_ne!(tag_of(&changed), before);

    let _ = s.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn token_view_and_listing_on_sqlite() {
    views(false).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn token_view_and_listing_on_postgres() {
    views(true).await
}

/// A decimal string as an integer of its digits (`"142.5"` is 1425), with how many places it had.
fn digits(v: &Value) -> (u128, u32) {
    let s = v.as_str().unwrap_or_else(|| panic!("not a decimal: {v}"));
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    (format!("{int}{frac}").parse().unwrap(), frac.len() as u32)
}

/// Sets the localnet's SOL/USD price account through its JSON-RPC extension (10^-8 dollars, published
/// `age` seconds ago).
async fn set_sol_usd(http: &reqwest::Client, s: &Stack, price: i64, age: i64) {
    let r: Value = http
        .post(s.net.rpc_url())
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "localnet_setSolUsd", "params": [price, age]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(r["result"]["publishTime"].is_i64(), "{r}");
}

/// The listing once its `usd.solUsd` is `want` (the indexer streamed the oracle's write).
async fn listing_at(http: &reqwest::Client, s: &Stack, query: &str, want: &str) -> Value {
    let start = std::time::Instant::now();
    loop {
        let (status, page) = get(http, &format!("{}/launchpad/launches?{query}", s.base)).await;
        assert_eq!(status, 200, "{page}");
        if page["usd"]["solUsd"] == want {
            return page;
        }
        assert!(
            start.elapsed().as_secs() < 30,
            "SOL/USD never became {want}: {page}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// USD values against the oracle account: the localnet's SOL/USD account (moved here through
/// `localnet_setSolUsd`) reaches the API through the indexer; every USD figure is the quote figure times
/// that price, exact and rounded down (USDC at one dollar); sorting by market cap or volume compares SOL and
/// USDC launches in dollars, so the order flips when SOL's price crosses the ratio of their caps; an old
/// publish time is reported stale.
async fn usd_values(postgres: bool) {
    let s = still_price_stack(postgres).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let sol = launch_via_api(&s, &http, &rpc, "fair", "Sol Side", "SOLS", json!({})).await;
    let usdc = launch_via_api(
        &s,
        &http,
        &rpc,
        "fair",
        "Usdc Side",
        "USDCS",
        json!({"quote": "usdc"}),
    )
    .await;
    let trader = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    testkit::buy(&rpc, &sol.keys, &trader, SOL / 2)
        .await
        .unwrap();
    s.wait_indexed().await;
    let (sm, um) = (sol.keys.mint.to_string(), usdc.keys.mint.to_string());

    // Caps in whole quote (24 places): the price at which SOL's launch is worth as much as USDC's.
    let (_, sv) = get(&http, &format!("{}/launchpad/tokens/{sm}", s.base)).await;
    let (_, uv) = get(&http, &format!("{}/launchpad/tokens/{um}", s.base)).await;
    let (sol_cap, usdc_cap) = (cap(&sv["marketCap"]), cap(&uv["marketCap"]));
    let even = usdc_cap * 100_000_000 / sol_cap; // 10^-8 dollars per SOL
    for (price, sol_first) in [(even * 2, true), (even / 2, false)] {
        set_sol_usd(&http, &s, price as i64, 0).await;
        let want = page_price(price);
        let page = listing_at(&http, &s, "sort=marketCap", &page_price(price)).await;
        assert_eq!(page["usd"]["stale"], false, "{page}");
        let order = mints(page["launches"].as_array().unwrap());
        let expected = if sol_first {
            vec![sm.clone(), um.clone()]
        } else {
            vec![um.clone(), sm.clone()]
        };
        assert_eq!(order, expected, "at {want}: {page}");
        // Ascending is the reverse; a quote filter sorts that quote alone.
        let asc = listing_at(&http, &s, "sort=marketCap&order=asc", &page_price(price)).await;
        let mut reversed = expected.clone();
        reversed.reverse();
        assert_eq!(mints(asc["launches"].as_array().unwrap()), reversed);
        let by_volume = listing_at(&http, &s, "sort=volume24h", &page_price(price)).await;
        assert_eq!(mints(by_volume["launches"].as_array().unwrap())[0], sm);
        for e in page["launches"].as_array().unwrap() {
            let (cap_digits, places) = digits(&e["marketCap"]);
            assert_eq!(places, 24);
            let rate = if e["quote"] == "sol" {
                price
            } else {
                100_000_000
            };
            // floor(cap * rate / 10^(24 + 8 - 6)) (a launch's cap times any SOL price here fits 128 bits).
            let want = cap_digits.checked_mul(rate).unwrap() / 10u128.pow(26);
            let (got, places) = digits(&e["marketCapUsd"]);
            assert_eq!(places, 6, "{e}");
            assert_eq!(got, want, "{e}");
            let (p, _) = digits(&e["price"]);
            let (got, places) = digits(&e["priceUsd"]);
            assert_eq!(places, 18, "{e}");
            assert_eq!(got, p * rate / 100_000_000, "{e}");
            let quote_decimals = if e["quote"] == "sol" { 9 } else { 6 };
            let volume: u128 = e["volume24hQuote"].as_str().unwrap().parse().unwrap();
            let (got, _) = digits(&e["volume24hUsd"]);
            assert_eq!(
                got,
                volume * rate * 1_000_000 / 10u128.pow(quote_decimals + 8),
                "{e}"
            );
        }
        // The token view says the same.
        let (_, view) = get(&http, &format!("{}/launchpad/tokens/{sm}", s.base)).await;
        let entry = page["launches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["mint"] == sm.as_str())
            .unwrap();
        if view["usd"]["solUsd"] == page["usd"]["solUsd"] {
            assert_eq!(view["marketCapUsd"], entry["marketCapUsd"]);
            assert_eq!(view["priceUsd"], entry["priceUsd"]);
        }
    }
    // A price published ten minutes ago is stale (the default limit is 120 s).
    set_sol_usd(&http, &s, even as i64, 600).await;
    let page = listing_at(&http, &s, "sort=new", &page_price(even)).await;
    assert_eq!(page["usd"]["stale"], true, "{page}");
    assert!(page["usd"]["ageSecs"].as_i64().unwrap() >= 600, "{page}");
    assert_eq!(
        page["usd"]["account"],
        sdk::oracle::SOL_USD_PRICE_ACCOUNT.to_string()
    );
    let _ = s.stop.send(true);
}

/// The API's `solUsd` for a price in 10^-8 dollars: the oracle's eight places.
fn page_price(price: u128) -> String {
    format!("{}.{:08}", price / 100_000_000, price % 100_000_000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn usd_values_follow_the_oracle_on_sqlite() {
    usd_values(false).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn usd_values_follow_the_oracle_on_postgres() {
    usd_values(true).await
}
