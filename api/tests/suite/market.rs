//! Market data through HTTP against a running stack (localnet streaming over gRPC, indexer, API), on SQLite
//! and PostgreSQL: wallets trade a launch through graduation and on the AMM; the trade list pages without
//! duplicates or gaps; candles of every interval equal candles computed here from the trade list; bad
//! parameters get 400 in the spec's format.

use crate::common;

use common::*;
use localnet::testkit::{self, SOL};
use serde_json::Value;
use solana_signer::Signer;
use std::collections::BTreeMap;

/// A candle as compared here: open, high, low, close, volume in base, volume in quote, trades.
type Ohlcv = (u128, u128, u128, u128, u128, u128, u64);

fn price(v: &Value) -> u128 {
    curve::display::parse_decimal_u128(v.as_str().unwrap(), 18).unwrap()
}

fn amount(v: &Value) -> u128 {
    v.as_str().unwrap().parse().unwrap()
}

async fn market(postgres: bool) {
    let s = stack(postgres, 1_000_000).await;
    let http = reqwest::Client::new();
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        s.net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 3, "MKT")
        .await
        .unwrap();
    let wallets = trade_through_migration(&rpc, &keys).await;
    let sent = TRADES_THROUGH_MIGRATION;
    s.wait_indexed().await;

    // Every trade once, newest first, across pages of 3.
    let base = format!("{}/launchpad/trades/{}", s.base, keys.mint);
    let mut all: Vec<Value> = Vec::new();
    let mut url = format!("{base}?limit=3");
    loop {
        let (status, page) = get(&http, &url).await;
        assert_eq!(status, 200, "{page}");
        all.extend(page["trades"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(c) => url = format!("{base}?limit=3&before={c}"),
            None => break,
        }
    }
    assert_eq!(all.len(), sent, "{all:?}");
    // A page that holds exactly the last trades is the last page.
    let (_, page) = get(&http, &format!("{base}?limit={sent}")).await;
    assert_eq!(page["trades"].as_array().unwrap().len(), sent);
    assert!(page["nextCursor"].is_null(), "{page}");
    let cursors: Vec<&str> = all.iter().map(|t| t["cursor"].as_str().unwrap()).collect();
    assert!(
        cursors.windows(2).all(|w| w[0] > w[1]),
        "strictly newest first, no duplicates"
    );
    assert_eq!(all.iter().filter(|t| t["venue"] == "amm").count(), 2);
    assert!(all[..2]
        .iter()
        .all(|t| t["venue"] == "amm" && t["side"] == "buy"));
    assert_eq!(all.iter().filter(|t| t["side"] == "sell").count(), 1);
    // The last AMM trade's price is the pool's spot price on chain.
    let amm =
        sdk::accounts::decode_amm_pool(&rpc.get_account(&keys.amm_keys().pool).await.unwrap().data)
            .unwrap();
    let (q, b) = if amm.mint_a == sdk::ids::NATIVE_MINT {
        (amm.reserve_a, amm.reserve_b)
    } else {
        (amm.reserve_b, amm.reserve_a)
    };
    assert_eq!(
        price(&all[0]["priceAfter"]),
        curve::display::reserves_to_fixed(q, b, 6, 9).unwrap()
    );
    // The curve reports the AMM's price and venue after migration, as every endpoint prices (18 digits,
    // rounded down): the price after the last AMM trade.
    let (_, c) = get(&http, &format!("{}/launchpad/curve/{}", s.base, keys.mint)).await;
    assert_eq!(c["venue"], "amm");
    // The fee a swap there pays is the pool's, not the curve's.
    assert_eq!(c["ammFeeBps"], amm.fee_bps, "{c}");
    assert_eq!(
        c["price"],
        curve::display::fixed_price_to_decimal(
            curve::display::reserves_to_fixed(q, b, 6, 9).unwrap()
        )
    );
    assert_eq!(c["price"], all[0]["priceAfter"]);
    // One wallet's trades.
    let w = wallets[0].pubkey().to_string();
    let (_, mine) = get(&http, &format!("{base}?wallet={w}")).await;
    let mine = mine["trades"].as_array().unwrap();
    assert_eq!(mine.len(), 2);
    assert!(mine.iter().all(|t| t["wallet"] == w.as_str()));

    // Candles of every interval equal candles computed here from the trade list.
    for (name, secs) in index::market::INTERVALS {
        let mut expected: BTreeMap<i64, Ohlcv> = BTreeMap::new();
        for t in all.iter().rev() {
            let (time, p) = (t["time"].as_i64().unwrap(), price(&t["priceAfter"]));
            let start = time - time.rem_euclid(secs);
            let e = expected.entry(start).or_insert((p, p, p, p, 0, 0, 0));
            e.1 = e.1.max(p);
            e.2 = e.2.min(p);
            e.3 = p;
            e.4 += amount(&t["baseAmount"]);
            e.5 += amount(&t["quoteAmount"]);
            e.6 += 1;
        }
        let (status, body) = get(
            &http,
            &format!(
                "{}/launchpad/candles/{}?interval={name}&from=0&limit=1000",
                s.base, keys.mint
            ),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let got: BTreeMap<i64, Ohlcv> = body["candles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["time"].as_i64().unwrap(),
                    (
                        price(&c["open"]),
                        price(&c["high"]),
                        price(&c["low"]),
                        price(&c["close"]),
                        amount(&c["volumeBase"]),
                        amount(&c["volumeQuote"]),
                        c["trades"].as_u64().unwrap(),
                    ),
                )
            })
            .collect();
        assert_eq!(got, expected, "interval {name}");
        // Filled: every interval from the first trade on, empty ones at the previous close.
        let first = *expected.keys().next().unwrap();
        let last = *expected.keys().last().unwrap();
        let (_, filled) = get(&http, &format!("{}/launchpad/candles/{}?interval={name}&from={first}&to={last}&fill=true&limit=1000", s.base, keys.mint)).await;
        let filled = filled["candles"].as_array().unwrap();
        assert_eq!(
            filled.len() as i64,
            (last - first) / secs + 1,
            "interval {name}"
        );
        for pair in filled.windows(2) {
            assert_eq!(
                pair[1]["time"].as_i64().unwrap() - pair[0]["time"].as_i64().unwrap(),
                secs
            );
            if pair[1]["trades"] == 0 {
                assert_eq!(pair[1]["open"], pair[0]["close"]);
                assert_eq!(pair[1]["close"], pair[0]["close"]);
                assert_eq!(pair[1]["volumeQuote"], "0");
            }
        }
    }

    // A filled series ends at the interval running now: none made up for the future.
    let candles = format!("{}/launchpad/candles/{}", s.base, keys.mint);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let (status, body) = get(
        &http,
        &format!("{candles}?interval=1h&to={}&fill=true", now + 5 * 86_400),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let last = body["candles"].as_array().unwrap().last().unwrap()["time"]
        .as_i64()
        .unwrap();
    assert!(last <= now, "{body}");

    // Bad parameters: 400 in the spec's format.
    for url in [
        format!("{candles}?interval=2m"),
        format!("{candles}?from=20&to=10"),
        format!("{candles}?limit=1001"),
        format!("{candles}?fill=yes"),
        format!("{base}?before=nope"),
        format!("{base}?limit=0"),
    ] {
        let (status, body) = get(&http, &url).await;
        assert_eq!(status, 400, "{url}: {body}");
        assert_error(&body, "INVALID_PARAMS");
    }
    let (status, body) = get(&http, &format!("{base}?wallet=xyz")).await;
    assert_eq!(status, 400);
    assert_error(&body, "INVALID_ADDRESS");
    let (status, _) = get(
        &http,
        &format!(
            "{}/launchpad/trades/{}",
            s.base,
            anchor_lang::prelude::Pubkey::new_unique()
        ),
    )
    .await;
    assert_eq!(status, 404);
    let _ = s.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn trades_and_candles_on_sqlite() {
    market(false).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn trades_and_candles_on_postgres() {
    market(true).await
}
