//! Holders and wallets through HTTP against a running stack (localnet streaming over gRPC, indexer, API), on
//! SQLite and PostgreSQL: wallets buy and sell a launch through graduation and on the AMM, one sends tokens
//! to another (a plain `transfer_checked`), one sells to zero, one empties and closes its account. The index's
//! token accounts then equal the chain's (read over JSON-RPC with `getTokenAccountsByOwner`), vaults are
//! labelled and not counted, the endpoint's counts, shares and snipers match what the test computes from the
//! chain, and a second indexer stopped and restarted mid-run, and a third backfilling from an empty database,
//! end with the same holders as the continuous run.

use crate::common;

use anchor_lang::prelude::Pubkey;
use common::*;
use index::Store;
use indexer::{Indexer, IndexerConfig};
use localnet::testkit::{self, SOL};
use serde_json::Value;
use solana_keypair::Keypair;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;
use sqlx::Row;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use tokio::sync::watch;

/// Token accounts of `mint` owned by `owners`, on chain: address -> (owner, amount).
async fn chain_accounts(
    rpc: &RpcClient,
    mint: &Pubkey,
    owners: &[Pubkey],
) -> BTreeMap<String, (String, u64)> {
    use solana_rpc_client_api::request::TokenAccountsFilter;
    let mut out = BTreeMap::new();
    for owner in owners {
        for ka in rpc
            .get_token_accounts_by_owner(owner, TokenAccountsFilter::Mint(*mint))
            .await
            .unwrap()
        {
            let data = serde_json::to_value(&ka.account.data).unwrap();
            let info = &data["parsed"]["info"];
            assert_eq!(info["owner"], owner.to_string(), "{data}");
            let amount = info["tokenAmount"]["amount"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            out.insert(ka.pubkey, (owner.to_string(), amount));
        }
    }
    out
}

/// Open token accounts of `mint` in an index: address -> (owner, amount, vault).
async fn indexed_accounts(store: &Store, mint: &Pubkey) -> BTreeMap<String, (String, u64, bool)> {
    sqlx::query(
        "SELECT address, owner, amount, vault FROM token_accounts WHERE mint = $1 AND closed = 0",
    )
    .bind(mint.to_string())
    .fetch_all(store.pool())
    .await
    .unwrap()
    .iter()
    .map(|r| {
        (
            r.get::<String, _>(0),
            (
                r.get::<String, _>(1),
                r.get::<i64, _>(2) as u64,
                r.get::<i64, _>(3) != 0,
            ),
        )
    })
    .collect()
}

async fn holder_count(store: &Store, mint: &Pubkey) -> i64 {
    sqlx::query("SELECT holders FROM holder_counts WHERE mint = $1")
        .bind(mint.to_string())
        .fetch_optional(store.pool())
        .await
        .unwrap()
        .map_or(0, |r| r.get(0))
}

/// An indexer of its own over `db`, until `stop` turns true.
fn spawn_indexer(
    net: &localnet::Localnet,
    db: &str,
) -> (watch::Sender<bool>, tokio::task::JoinHandle<()>) {
    let cfg = IndexerConfig {
        metrics_interval_secs: 0,
        ..IndexerConfig::local(net.rpc_url(), net.grpc_url(), db.to_string())
    };
    let (stop, rx) = watch::channel(false);
    let handle = tokio::spawn(async move {
        let store = Store::open(&cfg.database_url).await.unwrap();
        Indexer::new(cfg, store).run(rx).await
    });
    (stop, handle)
}

async fn slot_of(rpc: &RpcClient, sig: &solana_signature::Signature) -> u64 {
    rpc.get_signature_statuses(&[*sig]).await.unwrap().value[0]
        .as_ref()
        .unwrap()
        .slot
}

fn share(amount: u64) -> String {
    index::read::share(amount)
}

async fn holders(postgres: bool) {
    // Slots a second long (each transaction also ends its slot), so that the buys sent right after the
    // launch land within its first slots however loaded the machine is.
    let s = stack_on(
        postgres,
        localnet::LocalnetConfig {
            slot_duration: Duration::from_secs(1),
            ..localnet::LocalnetConfig::ephemeral()
        },
        |c| api::process::config::ApiConfig {
            rate_limit_burst: 1_000_000,
            rate_limit_per_second: 5,
            ..c
        },
    )
    .await;
    let http = reqwest::Client::new();
    let rpc = RpcClient::new_with_commitment(
        s.net.rpc_url(),
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    // A second indexer that is stopped and restarted mid-run.
    let restarted_db = database(postgres).await;
    // Migrated before any indexer opens it (two first opens would race to create the tables).
    let restarted = Store::open(&restarted_db).await.unwrap();
    let (stop_b, run_b) = spawn_indexer(&s.net, &restarted_db);

    let creator = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    let w: Vec<Keypair> = {
        let mut w = Vec::new();
        for _ in 0..5 {
            w.push(testkit::funded(&rpc, 20 * SOL).await.unwrap());
        }
        w
    };
    let (keys, launch_sig) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 5, "HLD")
        .await
        .unwrap();
    let mint = keys.mint;
    let program = sdk::ids::TOKEN_2022_PROGRAM;
    let balance = |k: &Keypair| {
        let rpc = &rpc;
        let owner = k.pubkey();
        async move { testkit::token_balance(rpc, &owner, &mint, &program).await }
    };
    // Buys right after the launch (snipers, if they land within its first slots), by the creator too.
    let mut first_buys: BTreeMap<String, u64> = BTreeMap::new();
    for (k, lamports) in [(&w[0], SOL), (&creator, SOL / 2), (&w[1], 2 * SOL)] {
        let sig = testkit::buy(&rpc, &keys, k, lamports).await.unwrap();
        first_buys
            .entry(k.pubkey().to_string())
            .or_insert(slot_of(&rpc, &sig).await);
    }
    let sig = testkit::buy(&rpc, &keys, &w[2], SOL).await.unwrap();
    first_buys.insert(w[2].pubkey().to_string(), slot_of(&rpc, &sig).await);

    // The restarted indexer goes away mid-run.
    s.wait_indexed().await;
    let _ = stop_b.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(20), run_b).await;

    let held = balance(&w[0]).await;
    testkit::sell(&rpc, &keys, &w[0], held / 2).await.unwrap();
    // w1 sends a third of its tokens to w4 (a wallet that never traded).
    let sent = balance(&w[1]).await / 3;
    testkit::transfer_tokens(&rpc, &mint, &w[1], &w[4].pubkey(), sent)
        .await
        .unwrap();
    // w2 sells everything (its account stays, at zero).
    let all = balance(&w[2]).await;
    testkit::sell(&rpc, &keys, &w[2], all).await.unwrap();
    let (stop_b, run_b) = spawn_indexer(&s.net, &restarted_db);
    // Graduation, migration, AMM trades.
    let sig = testkit::buy(&rpc, &keys, &w[3], 12 * SOL).await.unwrap();
    first_buys.insert(w[3].pubkey().to_string(), slot_of(&rpc, &sig).await);
    testkit::migrate(&rpc, &keys, &w[3]).await.unwrap();
    testkit::amm_buy(&rpc, &keys, &w[1], SOL / 2).await.unwrap();
    // w4 sends everything back to w0 and closes its account.
    let back = balance(&w[4]).await;
    assert_eq!(back, sent);
    testkit::transfer_tokens(&rpc, &mint, &w[4], &w[0].pubkey(), back)
        .await
        .unwrap();
    testkit::close_token_account(&rpc, &mint, &w[4])
        .await
        .unwrap();
    s.wait_indexed().await;
    let tip = rpc.get_slot().await.unwrap();

    // The index's token accounts are the chain's.
    let amm = keys.amm_keys();
    let mut owners: Vec<Pubkey> = w.iter().map(|k| k.pubkey()).collect();
    owners.extend([creator.pubkey(), keys.pool, amm.pool]);
    let chain = chain_accounts(&rpc, &mint, &owners).await;
    let store = Store::open(&s.db).await.unwrap();
    let index = indexed_accounts(&store, &mint).await;
    let as_chain: BTreeMap<String, (String, u64)> = index
        .iter()
        .map(|(a, (o, n, _))| (a.clone(), (o.clone(), *n)))
        .collect();
    assert_eq!(as_chain, chain);
    let w4_ata = sdk::associated_token_address(&w[4].pubkey(), &mint, &program).to_string();
    assert!(!chain.contains_key(&w4_ata), "closed on chain");
    assert!(
        sqlx::query("SELECT closed FROM token_accounts WHERE address = $1")
            .bind(w4_ata.clone())
            .fetch_one(store.pool())
            .await
            .unwrap()
            .get::<i64, _>(0)
            == 1,
        "the closed account is kept at zero, closed"
    );
    // Vaults: the launchpad's base vault and the AMM's vault of the token, nothing else.
    let vaults: BTreeSet<String> = index
        .iter()
        .filter(|(_, v)| v.2)
        .map(|(a, _)| a.clone())
        .collect();
    let amm_vault = if amm.mint_a == mint {
        amm.vault_a
    } else {
        amm.vault_b
    };
    assert_eq!(
        vaults,
        BTreeSet::from([keys.base_vault.to_string(), amm_vault.to_string()])
    );
    // Holders: distinct non-vault owners with a positive balance (w2 sold out, w4 closed).
    let holding: BTreeSet<&String> = index
        .values()
        .filter(|(_, n, vault)| *n > 0 && !vault)
        .map(|(o, _, _)| o)
        .collect();
    assert!(!holding.contains(&w[2].pubkey().to_string()));
    assert!(!holding.contains(&w[4].pubkey().to_string()));
    assert_eq!(holding.len(), 4, "creator, w0, w1, w3");
    assert_eq!(holder_count(&store, &mint).await, 4);

    // The endpoint.
    let url = format!("{}/launchpad/tokens/{mint}/holders", s.base);
    let (status, body) = get(&http, &url).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["holderCount"], 4);
    // The token page embeds the same summary (its top 20, as the endpoint's default).
    let (status, token) = get(&http, &format!("{}/launchpad/tokens/{mint}", s.base)).await;
    assert_eq!(status, 200, "{token}");
    assert_eq!(token["holders"], body);
    let mut expected: Vec<(u64, String, String)> = index
        .iter()
        .filter(|(_, (_, n, vault))| *n > 0 && !vault)
        .map(|(a, (o, n, _))| (*n, a.clone(), o.clone()))
        .collect();
    expected.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let got: Vec<(u64, String, String)> = body["holders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            assert_eq!(
                h["share"],
                share(h["amount"].as_str().unwrap().parse().unwrap())
            );
            (
                h["amount"].as_str().unwrap().parse().unwrap(),
                h["tokenAccount"].as_str().unwrap().to_string(),
                h["owner"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    // The vaults, listed apart and labelled: the curve's (emptied by migration, so absent) and the AMM's,
    // with the chain's balances.
    let vault_list = body["vaults"].as_array().unwrap();
    let mut want_vaults = Vec::new();
    for (kind, address) in [("curve", keys.base_vault), ("amm", amm_vault)] {
        let amount = rpc
            .get_token_account_balance(&address)
            .await
            .unwrap()
            .amount;
        if amount != "0" {
            want_vaults.push((kind.to_string(), address.to_string(), amount));
        }
    }
    want_vaults.sort_by(|x, y| {
        let n = |v: &(String, String, String)| v.2.parse::<u64>().unwrap();
        n(y).cmp(&n(x)).then(x.1.cmp(&y.1))
    });
    let got_vaults: Vec<(String, String, String)> = vault_list
        .iter()
        .map(|v| {
            (
                v["kind"].as_str().unwrap().to_string(),
                v["tokenAccount"].as_str().unwrap().to_string(),
                v["amount"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(!got_vaults.is_empty(), "{body}");
    assert_eq!(got_vaults, want_vaults, "{body}");
    let top10: u64 = expected.iter().take(10).map(|e| e.0).sum();
    assert_eq!(body["top10Share"], share(top10));
    assert_eq!(body["creatorShare"], share(balance(&creator).await));
    // Snipers: wallets other than the creator whose first buy landed within 2 slots of the launch.
    let launched = slot_of(&rpc, &launch_sig).await;
    let snipers: Vec<&String> = first_buys
        .iter()
        .filter(|(wallet, slot)| {
            **slot <= launched + index::read::SNIPER_SLOTS
                && **wallet != creator.pubkey().to_string()
        })
        .map(|(wallet, _)| wallet)
        .collect();
    assert!(
        !snipers.is_empty(),
        "w0 bought in the slot after the launch"
    );
    let sniper_held: u64 = index
        .values()
        .filter(|(o, _, vault)| !vault && snipers.contains(&o))
        .map(|(_, n, _)| n)
        .sum();
    assert_eq!(body["snipers"]["count"], snipers.len());
    assert_eq!(body["snipers"]["share"], share(sniper_held));
    assert_eq!(body["snipers"]["fromSlot"], launched);
    let (_, two) = get(&http, &format!("{url}?limit=2")).await;
    assert_eq!(two["holders"].as_array().unwrap().len(), 2);
    assert_eq!(two["top10Share"], body["top10Share"]);

    // The restarted indexer, and one backfilling from an empty database, end with the same holders.
    wait_cursor(&restarted, tip).await;
    let _ = stop_b.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(20), run_b).await;
    assert_eq!(indexed_accounts(&restarted, &mint).await, index);
    assert_eq!(holder_count(&restarted, &mint).await, 4);
    let empty_db = database(postgres).await;
    let backfilled = Store::open(&empty_db).await.unwrap();
    let (stop_c, run_c) = spawn_indexer(&s.net, &empty_db);
    wait_cursor(&backfilled, tip).await;
    let _ = stop_c.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(20), run_c).await;
    assert_eq!(indexed_accounts(&backfilled, &mint).await, index);
    assert_eq!(holder_count(&backfilled, &mint).await, 4);

    // Wallets: holdings valued at the AMM price, claimables as /launchpad/fees, launches, trades.
    let amm_state =
        sdk::accounts::decode_amm_pool(&rpc.get_account(&amm.pool).await.unwrap().data).unwrap();
    let (q, b) = if amm_state.mint_a == sdk::ids::NATIVE_MINT {
        (amm_state.reserve_a, amm_state.reserve_b)
    } else {
        (amm_state.reserve_b, amm_state.reserve_a)
    };
    let price = curve::display::reserves_to_fixed(q, b, 6, 9).unwrap();
    let (status, wallet) = get(
        &http,
        &format!("{}/launchpad/wallets/{}", s.base, w[1].pubkey()),
    )
    .await;
    assert_eq!(status, 200, "{wallet}");
    let h = &wallet["holdings"].as_array().unwrap()[..];
    assert_eq!(h.len(), 1, "{wallet}");
    let amount = balance(&w[1]).await;
    assert_eq!(h[0]["mint"], mint.to_string());
    assert_eq!(h[0]["symbol"], "HLD");
    assert_eq!(h[0]["amount"], amount.to_string());
    assert_eq!(h[0]["venue"], "amm");
    assert_eq!(h[0]["price"], curve::display::fixed_price_to_decimal(price));
    // amount * price / 10^18, in lamports (10^9 per SOL, 10^6 base units per token), rounded down.
    let value = amount as u128 * price / 10u128.pow(15);
    assert_eq!(h[0]["value"], value.to_string());
    let trades = wallet["trades"].as_array().unwrap();
    assert_eq!(trades.len(), 2, "a curve buy and an AMM buy");
    assert_eq!(trades[0]["venue"], "amm");
    assert!(trades
        .iter()
        .all(|t| t["wallet"] == w[1].pubkey().to_string()));
    assert!(wallet["launches"].as_array().unwrap().is_empty());
    assert!(wallet["claimable"].as_array().unwrap().is_empty());
    // Its SOL as the chain has it (nothing moved since the trades), and USDC: none, then what was minted.
    let lamports = rpc.get_balance(&w[1].pubkey()).await.unwrap();
    assert_eq!(wallet["balances"]["sol"], lamports.to_string(), "{wallet}");
    assert_eq!(wallet["balances"]["usdc"], "0", "{wallet}");
    assert_eq!(wallet["balances"]["usdcMint"], s.net.usdc_mint.to_string());
    let minted: serde_json::Value = http
        .post(s.net.rpc_url())
        .json(
            &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "localnet_mintUsdc",
            "params": [w[1].pubkey().to_string(), 12_345_678]}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(minted.get("result").is_some(), "{minted}");
    let start = std::time::Instant::now();
    loop {
        let (_, again) = get(
            &http,
            &format!("{}/launchpad/wallets/{}", s.base, w[1].pubkey()),
        )
        .await;
        if again["balances"]["usdc"] == "12345678" {
            break;
        }
        // The wallet view is cached for a second.
        assert!(start.elapsed().as_secs() < 10, "USDC never showed: {again}");
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    // A wallet the chain has never seen: zero of both.
    let (_, fresh) = get(
        &http,
        &format!(
            "{}/launchpad/wallets/{}",
            s.base,
            solana_keypair::Keypair::new().pubkey()
        ),
    )
    .await;
    assert_eq!(fresh["balances"]["sol"], "0", "{fresh}");
    assert_eq!(fresh["balances"]["usdc"], "0", "{fresh}");
    // w2 sold out: no holdings, two trades.
    let (_, w2) = get(
        &http,
        &format!("{}/launchpad/wallets/{}", s.base, w[2].pubkey()),
    )
    .await;
    assert!(w2["holdings"].as_array().unwrap().is_empty());
    assert_eq!(w2["trades"].as_array().unwrap().len(), 2);
    // The creator: its launch, its claimables exactly as /launchpad/fees lists them.
    let (_, c) = get(
        &http,
        &format!("{}/launchpad/wallets/{}", s.base, creator.pubkey()),
    )
    .await;
    let launches = c["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 1);
    assert_eq!(launches[0]["mint"], mint.to_string());
    let (_, fees) = get(
        &http,
        &format!("{}/launchpad/fees?creator={}", s.base, creator.pubkey()),
    )
    .await;
    assert!(!fees["fees"].as_array().unwrap().is_empty());
    assert_eq!(c["claimable"], fees["fees"]);
    assert_eq!(
        c["holdings"][0]["amount"],
        balance(&creator).await.to_string()
    );

    // Bad input.
    let (status, body) = get(&http, &format!("{}/launchpad/wallets/nope", s.base)).await;
    assert_eq!(status, 400);
    assert_error(&body, "INVALID_ADDRESS");
    for bad in ["limit=0", "limit=101", "limit=x"] {
        let (status, body) = get(&http, &format!("{url}?{bad}")).await;
        assert_eq!(status, 400, "{bad}");
        assert_error(&body, "INVALID_PARAMS");
    }
    let (status, body) = get(
        &http,
        &format!(
            "{}/launchpad/tokens/{}/holders",
            s.base,
            Pubkey::new_unique()
        ),
    )
    .await;
    assert_eq!(status, 404);
    assert_error(&body, "NOT_FOUND");
    let (status, body) = get(&http, &format!("{}/launchpad/tokens/xyz/holders", s.base)).await;
    assert_eq!(status, 400);
    assert_error(&body, "INVALID_ADDRESS");
    let _: Value = body;

    // Both endpoints are in the OpenAPI document, with their response schemas.
    let (_, doc) = get(&http, &format!("{}/openapi.json", s.base)).await;
    for path in [
        "/launchpad/tokens/{mint}/holders",
        "/launchpad/wallets/{address}",
    ] {
        assert!(doc["paths"][path]["get"].is_object(), "{path}");
    }
    let schemas = &doc["components"]["schemas"];
    assert!(schemas["HolderSummary"]["properties"]["holderCount"].is_object());
    assert!(schemas["Snipers"]["properties"]["fromSlot"].is_object());
    assert!(schemas["WalletResponse"]["properties"]["holdings"].is_object());
    let _ = s.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn holders_and_wallets_on_sqlite() {
    holders(false).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn holders_and_wallets_on_postgres() {
    holders(true).await
}
