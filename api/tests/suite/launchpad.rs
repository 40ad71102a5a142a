//! The launchpad endpoints through real HTTP against a running stack (localnet, indexer over gRPC,
//! API), on SQLite and PostgreSQL: happy paths, errors in the spec's format, the OpenAPI document, and a
//! request flood answered with 429 while other clients are served, and rotating client ids limited by
//! address.

use crate::common;

use common::*;
use localnet::testkit::{self, SOL};
use serde_json::Value;
use solana_signer::Signer;
use std::time::{Duration, Instant};

async fn reads(postgres: bool) {
    let s = stack(postgres, 1_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let launch = serde_json::json!({
        "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "shield", "quote": "sol",
        "name": "Read Token", "symbol": "READ", "description": "through the API",
        "totalSupply": "1000000000", "creator": creator.pubkey().to_string(), "firstBuyAmount": "0.25",
    });
    let (status, prepared) = post(&http, &format!("{}/launchpad/prepare", s.base), &launch).await;
    assert_eq!(status, 200, "{prepared}");
    let mint: anchor_lang::prelude::Pubkey = prepared["mint"].as_str().unwrap().parse().unwrap();
    let keys = sdk::launchpad_ix::LaunchKeys::new(
        creator.pubkey(),
        prepared["config"].as_str().unwrap().parse().unwrap(),
        sdk::ids::NATIVE_MINT,
        mint,
    );
    assert_eq!(prepared["pool"], keys.pool.to_string());
    let (status, meta) = get(&http, prepared["metadataURI"].as_str().unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(meta["symbol"], "READ");
    let signed = sign(prepared["solanaTransaction"].as_str().unwrap(), &creator);
    let (status, submitted) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{submitted}");
    assert_eq!(submitted["confirmed"], true);
    // The first buy's wrapped SOL is unwrapped in the same transaction.
    let wsol = sdk::launchpad_ix::wsol_account(&creator.pubkey());
    assert!(
        rpc.get_account(&wsol).await.is_err(),
        "no wrapped-SOL account is left behind"
    );
    let mut record = launch.clone();
    record["tokenAddress"] = prepared["mint"].clone();
    record["deployTxHash"] = submitted["signature"].clone();
    record["metadataURI"] = prepared["metadataURI"].clone();
    let (status, recorded) = post(&http, &format!("{}/launchpad/record", s.base), &record).await;
    assert_eq!(status, 200, "{recorded}");
    assert_eq!(recorded["listed"], true);
    // Idempotent.
    let (status, again) = post(&http, &format!("{}/launchpad/record", s.base), &record).await;
    assert_eq!(status, 200);
    assert_eq!(again["recordedAt"], recorded["recordedAt"]);
    // A record that differs from what was prepared in any field is refused.
    for (field, value) in [
        (
            "creator",
            anchor_lang::prelude::Pubkey::new_unique().to_string(),
        ),
        ("name", "Other Token".into()),
        ("symbol", "OTHER".into()),
        ("curvePreset", "fair".into()),
        ("description", "something else".into()),
    ] {
        let mut wrong = record.clone();
        wrong[field] = serde_json::json!(value);
        let (status, body) = post(&http, &format!("{}/launchpad/record", s.base), &wrong).await;
        assert_eq!(status, 400, "{field}: {body}");
        assert_error(&body, "TX_MISMATCH");
    }
    let buyer = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    testkit::buy(&rpc, &keys, &buyer, SOL).await.unwrap();
    let pool =
        sdk::accounts::decode_pool(&rpc.get_account(&keys.pool).await.unwrap().data).unwrap();

    // The curve, once the index has the buy.
    let url = format!("{}/launchpad/curve/{}", s.base, keys.mint);
    let start = Instant::now();
    let curve = loop {
        let (status, body) = get(&http, &url).await;
        if status == 200
            && body["quoteReserve"].as_str() == Some(pool.quote_reserve.to_string().as_str())
        {
            break body;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "curve never indexed: {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(curve["preset"], "shield");
    assert_eq!(curve["quote"], "sol");
    assert_eq!(curve["status"], "bonding");
    assert_eq!(curve["migrated"], false);
    assert_eq!(curve["quoteRaised"], pool.quote_reserve.to_string());
    assert!(
        pool.quote_reserve > SOL / 2,
        "the first buy and the buy both landed (after the shield fee)"
    );
    assert_eq!(curve["graduationThreshold"], "10000000000");
    assert_eq!(curve["finalFeeBps"], 100);
    let fee = curve["currentFeeBps"].as_u64().unwrap();
    assert!(
        (100..=5000).contains(&fee),
        "the shield fee decays from 50%: {fee}"
    );
    assert!(curve["progressBps"].as_u64().unwrap() > 0);
    assert!(curve["ammPool"].is_null());

    let start = Instant::now();
    let list = loop {
        let (status, list) = get(&http, &format!("{}/launchpad/launches?limit=5", s.base)).await;
        assert_eq!(status, 200);
        if list["total"] == 1 || start.elapsed() > Duration::from_secs(30) {
            break list;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(list["total"], 1);
    assert_eq!(list["launches"][0]["mint"], keys.mint.to_string());
    assert_eq!(list["launches"][0]["symbol"], "READ");
    assert_eq!(list["launches"][0]["prepared"], true);

    let (status, fees) = get(
        &http,
        &format!("{}/launchpad/fees?creator={}", s.base, creator.pubkey()),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(fees["fees"][0]["kind"], "trading");
    assert_eq!(fees["fees"][0]["role"], "creator");
    assert_eq!(
        fees["fees"][0]["quoteAmount"],
        pool.creator_fee_unclaimed.to_string()
    );

    // The creator claims its trading fees through the API; nobody else can, and nothing is left after.
    let claim = serde_json::json!({"creator": creator.pubkey().to_string(), "pool": keys.pool.to_string(), "kind": "trading"});
    let (status, claimed) = post(&http, &format!("{}/launchpad/claim", s.base), &claim).await;
    assert_eq!(status, 200, "{claimed}");
    assert_eq!(
        claimed["quoteAmount"],
        pool.creator_fee_unclaimed.to_string()
    );
    let signed = sign(claimed["solanaTransaction"].as_str().unwrap(), &creator);
    let before = rpc.get_balance(&creator.pubkey()).await.unwrap();
    let (status, submitted) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{submitted}");
    // Paid as SOL to the wallet: the claim less the network fee, nothing left wrapped.
    let fee = transaction_fee(&rpc, submitted["signature"].as_str().unwrap()).await;
    assert_eq!(
        rpc.get_balance(&creator.pubkey()).await.unwrap() + fee,
        before + pool.creator_fee_unclaimed
    );
    assert!(rpc.get_account(&wsol).await.is_err());
    // A client retrying the same transaction is told it landed, not that it failed.
    let (status, again) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["signature"], submitted["signature"]);
    assert_eq!(again["confirmed"], true);
    let after =
        sdk::accounts::decode_pool(&rpc.get_account(&keys.pool).await.unwrap().data).unwrap();
    assert_eq!(after.creator_fee_unclaimed, 0);
    assert_eq!(after.creator_fee_claimed, pool.creator_fee_unclaimed);
    let claim_errors = [
        (
            serde_json::json!({"creator": buyer.pubkey().to_string(), "pool": keys.pool.to_string(), "kind": "trading"}),
            403,
            "NOT_ENTITLED",
        ),
        (
            serde_json::json!({"creator": creator.pubkey().to_string(), "pool": keys.pool.to_string(), "kind": "surplus"}),
            409,
            "NOTHING_TO_CLAIM",
        ),
        (
            serde_json::json!({"creator": creator.pubkey().to_string(), "pool": keys.pool.to_string(), "kind": "bonus"}),
            400,
            "INVALID_KIND",
        ),
        (
            serde_json::json!({"creator": creator.pubkey().to_string(), "pool": "nope", "kind": "trading"}),
            400,
            "INVALID_ADDRESS",
        ),
        (
            serde_json::json!({"creator": creator.pubkey().to_string(), "kind": "trading"}),
            400,
            "MISSING_PARAMS",
        ),
    ];
    for (body, want, code) in claim_errors {
        let (status, resp) = post(&http, &format!("{}/launchpad/claim", s.base), &body).await;
        assert_eq!(status, want, "{body}: {resp}");
        assert_error(&resp, code);
    }

    // Bad launches are refused before anything is built.
    let bad_launches = [
        ("name", serde_json::json!("x".repeat(33)), "INVALID_NAME"),
        ("symbol", serde_json::json!("lower"), "INVALID_SYMBOL"),
        ("curvePreset", serde_json::json!("moon"), "INVALID_PRESET"),
        ("quote", serde_json::json!("eth"), "INVALID_QUOTE"),
        ("totalSupply", serde_json::json!("5"), "INVALID_SUPPLY"),
        (
            "creator",
            serde_json::json!("not-a-wallet"),
            "INVALID_ADDRESS",
        ),
        ("firstBuyAmount", serde_json::json!("-1"), "INVALID_AMOUNT"),
        ("name", serde_json::json!(7), "INVALID_PARAMS"),
    ];
    for (field, value, code) in bad_launches {
        let mut body = launch.clone();
        body[field] = value;
        let (status, resp) = post(&http, &format!("{}/launchpad/prepare", s.base), &body).await;
        assert_eq!(status, 400, "{field}: {resp}");
        assert_error(&resp, code);
    }
    let mut missing = launch.clone();
    missing.as_object_mut().unwrap().remove("symbol");
    let (status, resp) = post(&http, &format!("{}/launchpad/prepare", s.base), &missing).await;
    assert_eq!(status, 400);
    assert_error(&resp, "MISSING_PARAMS");
    let mut secret = launch.clone();
    secret["privateKey"] = serde_json::json!("whatever");
    let (status, resp) = post(&http, &format!("{}/launchpad/prepare", s.base), &secret).await;
    assert_eq!(status, 400);
    assert_error(&resp, "SECRET_MATERIAL");
    let r = http
        .post(format!("{}/launchpad/prepare", s.base))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    assert_error(&r.json::<Value>().await.unwrap(), "INVALID_JSON");
    let r = http
        .post(format!("{}/launchpad/prepare", s.base))
        .header("content-type", "application/json")
        // Prepare takes up to about 1.4 MiB (a launch can carry a 1 MiB image in base64).
        .body(format!(
            "{{\"name\": \"{}\"}}",
            "a".repeat(api::routes::launch::images::PREPARE_BODY_LIMIT + 1)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    assert_error(&r.json::<Value>().await.unwrap(), "PAYLOAD_TOO_LARGE");
    let unsigned = prepared["solanaTransaction"].as_str().unwrap();
    let (status, resp) = s.submit(&http, unsigned).await;
    assert_eq!(status, 400);
    assert_error(&resp, "NOT_SIGNED");

    // Errors, in the spec's format.
    let cases = [
        ("/launchpad/curve/not-an-address", 400, "INVALID_ADDRESS"),
        (
            "/launchpad/curve/11111111111111111111111111111111",
            404,
            "NOT_FOUND",
        ),
        ("/launchpad/fees", 400, "MISSING_PARAMS"),
        ("/launchpad/fees?creator=xyz", 400, "INVALID_ADDRESS"),
        ("/launchpad/launches?limit=0", 400, "INVALID_PARAMS"),
        ("/launchpad/launches?limit=abc", 400, "INVALID_PARAMS"),
        ("/launchpad/launches?offset=-1", 400, "INVALID_PARAMS"),
        ("/no/such/endpoint", 404, "NOT_FOUND"),
    ];
    for (path, want, code) in cases {
        let (status, body) = get(&http, &format!("{}{path}", s.base)).await;
        assert_eq!(status, want, "{path}: {body}");
        assert_error(&body, code);
    }

    // The OpenAPI document, generated from the handlers.
    let (status, doc) = get(&http, &format!("{}/openapi.json", s.base)).await;
    assert_eq!(status, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert!(doc["paths"]["/launchpad/curve/{mint}"]["get"].is_object());
    // Every schema name is one type: the launch record is not the swap record.
    let record_ref = &doc["paths"]["/launchpad/record"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"]["$ref"];
    assert_eq!(record_ref, "#/components/schemas/LaunchRecordRequest");
    let schema = &doc["components"]["schemas"]["LaunchRecordResponse"];
    assert!(schema["properties"]["deployTxHash"].is_object(), "{schema}");
    let (status, health) = get(&http, &format!("{}/health", s.base)).await;
    assert_eq!(status, 200);
    assert_eq!(health["status"], "ok");

    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// `POST /launchpad/record` takes only the transaction that holds the program's `create_launch` of this mint by
/// this creator: a later buy of the creator's, which mentions the mint too, is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn record_takes_the_create_launch_transaction_only() {
    let s = stack(false, 1_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let launch = serde_json::json!({
        "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "shield", "quote": "sol",
        "name": "Record Token", "symbol": "REC", "description": "deployed once",
        "totalSupply": "1000000000", "creator": creator.pubkey().to_string(),
    });
    let (status, prepared) = post(&http, &format!("{}/launchpad/prepare", s.base), &launch).await;
    assert_eq!(status, 200, "{prepared}");
    let signed = sign(prepared["solanaTransaction"].as_str().unwrap(), &creator);
    let (status, deployed) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{deployed}");
    let keys = sdk::launchpad_ix::LaunchKeys::new(
        creator.pubkey(),
        prepared["config"].as_str().unwrap().parse().unwrap(),
        sdk::ids::NATIVE_MINT,
        prepared["mint"].as_str().unwrap().parse().unwrap(),
    );
    let later_buy = testkit::buy(&rpc, &keys, &creator, SOL / 100)
        .await
        .unwrap();
    let mut record = launch.clone();
    record["tokenAddress"] = prepared["mint"].clone();
    record["metadataURI"] = prepared["metadataURI"].clone();
    record["deployTxHash"] = serde_json::json!(later_buy.to_string());
    let url = format!("{}/launchpad/record", s.base);
    let (status, body) = post(&http, &url, &record).await;
    assert_eq!(status, 400, "{body}");
    assert_error(&body, "TX_MISMATCH");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("create_launch"),
        "{body}"
    );
    // Nothing was recorded: the deploy transaction still records.
    record["deployTxHash"] = deployed["signature"].clone();
    let (status, body) = post(&http, &url, &record).await;
    assert_eq!(status, 200, "{body}");
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// A prepared launch that is neither recorded nor launched expires after `--prepared-ttl-secs`; one that
/// landed keeps the metadata its on-chain URI serves, recorded or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn prepared_launches_never_deployed_expire() {
    let s = stack_configured(false, |c| api::process::config::ApiConfig {
        rate_limit_burst: 1_000,
        prepared_ttl_secs: 1,
        prepared_sweep_secs: 1,
        ..c
    })
    .await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let launch = |name: &str| {
        serde_json::json!({
            "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "shield", "quote": "sol",
            "name": name, "symbol": "EXP", "description": "expiry",
            "totalSupply": "1000000000", "creator": creator.pubkey().to_string(),
        })
    };
    let prepare = |body: Value| {
        let http = http.clone();
        let url = format!("{}/launchpad/prepare", s.base);
        async move {
            let (status, prepared) = post(&http, &url, &body).await;
            assert_eq!(status, 200, "{prepared}");
            prepared
        }
    };
    let abandoned = prepare(launch("Abandoned")).await;
    let landed = prepare(launch("Landed")).await;
    let signed = sign(landed["solanaTransaction"].as_str().unwrap(), &creator);
    let (status, body) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{body}");
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    // The sweeper, on its own timer: no prepare is called from here on.
    let fresh = prepare(launch("Fresh")).await;
    let meta = |p: &Value| p["metadataURI"].as_str().unwrap().to_string();
    let start = Instant::now();
    loop {
        let (status, _) = get(&http, &meta(&abandoned)).await;
        if status == 404 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the abandoned launch never expired"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for kept in [&landed, &fresh] {
        let (status, body) = get(&http, &meta(kept)).await;
        assert_eq!(status, 200, "{body}");
    }
    let mut record = launch("Abandoned");
    record["tokenAddress"] = abandoned["mint"].clone();
    record["metadataURI"] = abandoned["metadataURI"].clone();
    record["deployTxHash"] = body["signature"].clone();
    let (status, body) = post(&http, &format!("{}/launchpad/record", s.base), &record).await;
    assert_eq!(status, 404, "{body}");
    assert_error(&body, "NOT_FOUND");
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn launchpad_reads_on_sqlite() {
    reads(false).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn launchpad_reads_on_postgres() {
    reads(true).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_is_answered_with_429_and_other_clients_are_served() {
    let s = stack(false, 10).await;
    let http = reqwest::Client::new();
    let url = format!("{}/launchpad/launches", s.base);
    let as_client = |id: String| {
        let request = http.get(&url).header("X-Client-Id", id);
        async move { request.send().await.unwrap() }
    };
    let mut limited = None;
    for _ in 0..50 {
        let r = as_client("flooder".into()).await;
        if r.status().as_u16() == 429 {
            let retry = r.headers().get("retry-after").cloned();
            limited = Some((retry, r.json::<Value>().await.unwrap()));
            break;
        }
        assert_eq!(r.status().as_u16(), 200);
    }
    let (retry, body) = limited.expect("the flood is limited");
    assert!(retry.is_some(), "429 carries Retry-After");
    assert_error(&body, "RATE_LIMITED");
    // Another client is unaffected, and the flooder is served again after backing off.
    assert_eq!(as_client("polite".into()).await.status().as_u16(), 200);
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(as_client("flooder".into()).await.status().as_u16(), 200);
    // A new client id per request does not escape the limit: one address shares a few clients' worth.
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    let mut rotated = None;
    for i in 0..400 {
        let status = as_client(format!("rotating-{i}")).await.status().as_u16();
        if status == 429 {
            rotated = Some(i);
            break;
        }
        assert_eq!(status, 200);
    }
    let rotated = rotated.expect("rotating client ids are limited by address");
    assert!(
        rotated >= 40,
        "the address allows 4 clients' bursts first ({rotated})"
    );
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// The creator role's handover through the API, then the new creator's claims: the fees accrued before the
/// handover, and after migration the locked creator position's AMM fees; the previous creator is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_creator_role_is_handed_over_and_the_new_creator_claims() {
    let s = stack(false, 1_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 41, "HAND")
        .await
        .unwrap();
    let trader = testkit::funded(&rpc, 40 * SOL).await.unwrap();
    testkit::buy(&rpc, &keys, &trader, 2 * SOL).await.unwrap();
    let team = testkit::funded(&rpc, SOL).await.unwrap();
    s.wait_indexed().await;
    let pool = keys.pool.to_string();
    let accrued = sdk::accounts::decode_pool(&rpc.get_account(&keys.pool).await.unwrap().data)
        .unwrap()
        .creator_fee_unclaimed;

    // Only the creator proposes, only the proposed wallet accepts.
    let propose = serde_json::json!({"pool": pool, "creator": creator.pubkey().to_string(),
        "newCreator": team.pubkey().to_string()});
    let not_creator = serde_json::json!({"pool": pool, "creator": trader.pubkey().to_string(),
        "newCreator": team.pubkey().to_string()});
    let (status, body) = post(
        &http,
        &format!("{}/launchpad/creator/propose", s.base),
        &not_creator,
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_error(&body, "NOT_ENTITLED");
    let early = serde_json::json!({"pool": pool, "newCreator": team.pubkey().to_string()});
    let (status, body) = post(
        &http,
        &format!("{}/launchpad/creator/accept", s.base),
        &early,
    )
    .await;
    assert_eq!(status, 409, "{body}");
    assert_error(&body, "NOT_PROPOSED");
    build_sign_submit(&s, &http, "/launchpad/creator/propose", &propose, &creator).await;
    build_sign_submit(&s, &http, "/launchpad/creator/accept", &early, &team).await;
    let on_chain =
        sdk::accounts::decode_pool(&rpc.get_account(&keys.pool).await.unwrap().data).unwrap();
    assert_eq!(on_chain.creator, team.pubkey());

    // The fees accrued before the handover are the new creator's; the previous one has nothing.
    let (_, fees) = get(
        &http,
        &format!("{}/launchpad/fees?creator={}", s.base, team.pubkey()),
    )
    .await;
    assert_eq!(fees["fees"][0]["role"], "creator", "{fees}");
    assert_eq!(
        fees["fees"][0]["quoteAmount"],
        accrued.to_string(),
        "{fees}"
    );
    let old = serde_json::json!({"creator": creator.pubkey().to_string(), "pool": pool, "kind": "trading"});
    let (status, body) = post(&http, &format!("{}/launchpad/claim", s.base), &old).await;
    assert_eq!(status, 403, "{body}");
    let before = rpc.get_balance(&team.pubkey()).await.unwrap();
    let claim =
        serde_json::json!({"creator": team.pubkey().to_string(), "pool": pool, "kind": "trading"});
    let built = build_sign_submit(&s, &http, "/launchpad/claim", &claim, &team).await;
    assert_eq!(built["quoteAmount"], accrued.to_string());
    assert!(rpc.get_balance(&team.pubkey()).await.unwrap() + 10_000 > before + accrued);

    // After migration, the locked creator position's AMM fees go to the new creator as well.
    testkit::buy(&rpc, &keys, &trader, 12 * SOL).await.unwrap();
    testkit::migrate(&rpc, &keys, &trader).await.unwrap();
    testkit::amm_buy(&rpc, &keys, &trader, SOL).await.unwrap();
    s.wait_indexed().await;
    let lp = serde_json::json!({"creator": team.pubkey().to_string(), "pool": pool, "kind": "locked-lp"});
    let built = build_sign_submit(&s, &http, "/launchpad/claim", &lp, &team).await;
    assert_eq!(built["role"], "creator");
    assert_ne!(built["quoteAmount"], "0", "{built}");
    let old_lp = serde_json::json!({"creator": creator.pubkey().to_string(), "pool": pool, "kind": "locked-lp"});
    let (status, body) = post(&http, &format!("{}/launchpad/claim", s.base), &old_lp).await;
    assert_eq!(status, 403, "{body}");
    let _ = s.stop.send(true);
}
