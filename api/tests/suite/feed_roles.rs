//! The creator role and the fee shares on the live feed, on SQLite and PostgreSQL: a change of shares, a
//! handover proposed and accepted, and the new creator's locked shares, each done through the API's built
//! transactions and signed as a wallet would, arrive on Server-Sent Events and the WebSocket as `fee-shares`
//! and `creator` events of their transaction with the state after it, in order and once, while
//! `GET /launchpad/tokens/{mint}` already says the same; the `wallets` filter keeps a wallet's own changes.

use crate::common;
use crate::feed::{events, subscribe, ws, Sse, WAIT};

use common::*;
use localnet::testkit::{self, SOL};
use serde_json::{json, Value};
use solana_signer::Signer;
use std::time::Duration;

/// Builds `body` at `path`, signs it as `signer` and submits it; the transaction's signature.
async fn signed(
    s: &Stack,
    http: &reqwest::Client,
    path: &str,
    body: &Value,
    signer: &solana_keypair::Keypair,
) -> String {
    let (status, built) = post(http, &format!("{}{path}", s.base), body).await;
    assert_eq!(status, 200, "{path}: {built}");
    let (status, sent) = s
        .submit(
            http,
            &sign(built["solanaTransaction"].as_str().unwrap(), signer),
        )
        .await;
    assert_eq!(status, 200, "{sent}");
    assert_eq!(sent["confirmed"], true, "{sent}");
    sent["signature"].as_str().unwrap().to_string()
}

/// The token view as REST has it now.
async fn token(s: &Stack, http: &reqwest::Client, mint: &str) -> Value {
    let (status, view) = get(http, &format!("{}/launchpad/tokens/{mint}", s.base)).await;
    assert_eq!(status, 200, "{view}");
    view
}

async fn role_changes_on_the_feed(postgres: bool) {
    let s = stack(postgres, 1_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 43, "ROLE")
        .await
        .unwrap();
    let team = testkit::funded(&rpc, SOL).await.unwrap();
    let partner = anchor_lang::prelude::Pubkey::new_unique().to_string();
    s.wait_indexed().await;
    let (mint, pool) = (keys.mint.to_string(), keys.pool.to_string());
    let (a, b) = (creator.pubkey().to_string(), team.pubkey().to_string());

    // Everything of the mint (SSE, no kinds: every kind), the two kinds on the WebSocket, and the team
    // wallet's own changes.
    let mut all = Sse::open(
        &http,
        &format!("{}/launchpad/stream?mints={mint}", s.base),
        None,
    )
    .await
    .unwrap();
    let mut by_team = Sse::open(
        &http,
        &format!(
            "{}/launchpad/stream?kinds=creator,fee-shares&wallets={b}",
            s.base
        ),
        None,
    )
    .await
    .unwrap();
    let mut socket = ws(&s.base, "").await;
    subscribe(
        &mut socket,
        json!({ "id": "roles", "kinds": ["creator", "fee-shares"], "mints": [mint] }),
    )
    .await;

    // 1. The creator shares its fees: 70% to itself, 30% to a partner.
    let recipients = json!([{ "wallet": a, "bps": 7000 }, { "wallet": partner, "bps": 3000 }]);
    let sig = signed(
        &s,
        &http,
        "/launchpad/fee-shares",
        &json!({ "pool": pool, "creator": a, "recipients": recipients, "lock": false }),
        &creator,
    )
    .await;
    let e = all.next(WAIT).await.expect("the fee-shares event");
    assert_eq!(
        (e.event.as_str(), e.id),
        ("fee-shares", e.data["seq"].as_i64())
    );
    let shares = &e.data;
    assert_eq!(shares["kind"], "fee-shares");
    assert_eq!(shares["signature"], sig);
    assert_eq!(shares["mint"], mint);
    assert_eq!(shares["pool"], pool);
    assert_eq!(shares["creator"], a);
    assert_eq!(shares["recipients"], recipients);
    assert_eq!(shares["locked"], false);
    assert!(shares["slot"].as_u64().unwrap() > 0 && shares["time"].as_i64().unwrap() > 0);
    // Sent after the batch committed: REST says the same already.
    let view = token(&s, &http, &mint).await;
    assert_eq!(
        view["feeShares"],
        json!({ "recipients": recipients, "locked": false })
    );

    // 2. The creator proposes the team wallet: the role is still the creator's, the team's is pending.
    let sig = signed(
        &s,
        &http,
        "/launchpad/creator/propose",
        &json!({ "pool": pool, "creator": a, "newCreator": b }),
        &creator,
    )
    .await;
    let proposed = all.next(WAIT).await.expect("the proposal").data;
    assert_eq!(
        proposed,
        json!({
            "seq": proposed["seq"], "kind": "creator", "slot": proposed["slot"], "signature": sig,
            "time": proposed["time"], "mint": mint, "pool": pool, "change": "proposed", "creator": a,
            "pendingCreator": b, "previousCreator": null,
        })
    );
    let view = token(&s, &http, &mint).await;
    assert_eq!(
        (&view["creator"], &view["pendingCreator"]),
        (&json!(a), &json!(b))
    );

    // 3. The team wallet accepts: it holds the role, nothing is pending.
    let sig = signed(
        &s,
        &http,
        "/launchpad/creator/accept",
        &json!({ "pool": pool, "newCreator": b }),
        &team,
    )
    .await;
    let accepted = all.next(WAIT).await.expect("the acceptance").data;
    assert_eq!(
        accepted,
        json!({
            "seq": accepted["seq"], "kind": "creator", "slot": accepted["slot"], "signature": sig,
            "time": accepted["time"], "mint": mint, "pool": pool, "change": "accepted", "creator": b,
            "pendingCreator": null, "previousCreator": a,
        })
    );
    let view = token(&s, &http, &mint).await;
    assert_eq!(
        (&view["creator"], &view["pendingCreator"]),
        (&json!(b), &Value::Null)
    );
    assert_eq!(view["launchedBy"], a);

    // 4. The new creator takes all the shares and locks them.
    let mine = json!([{ "wallet": b, "bps": 10000 }]);
    let sig = signed(
        &s,
        &http,
        "/launchpad/fee-shares",
        &json!({ "pool": pool, "creator": b, "recipients": mine, "lock": true }),
        &team,
    )
    .await;
    let locked = all.next(WAIT).await.expect("the locked shares").data;
    assert_eq!(locked["kind"], "fee-shares");
    assert_eq!(locked["signature"], sig);
    assert_eq!(locked["creator"], b);
    assert_eq!(
        (&locked["recipients"], &locked["locked"]),
        (&mine, &json!(true))
    );
    let view = token(&s, &http, &mint).await;
    assert_eq!(
        view["feeShares"],
        json!({ "recipients": mine, "locked": true })
    );

    // Each once, in commit order, and nothing else of the mint.
    let seen = vec![shares.clone(), proposed, accepted.clone(), locked.clone()];
    let seqs: Vec<i64> = seen.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert!(all.next(Duration::from_secs(2)).await.is_none());
    // The WebSocket carries the same four objects.
    assert_eq!(events(&mut socket, 4).await, seen);
    // The team wallet's stream: its acceptance and its shares (the signer's changes), not the creator's.
    let team_events: Vec<Value> = by_team.take(2).await.into_iter().map(|e| e.data).collect();
    assert_eq!(team_events, vec![accepted, locked]);
    assert!(by_team.next(Duration::from_secs(2)).await.is_none());
    let _ = s.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn role_changes_on_the_feed_on_sqlite() {
    role_changes_on_the_feed(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn role_changes_on_the_feed_on_postgres() {
    role_changes_on_the_feed(true).await;
}
