//! `POST /launchpad/prepare` within bounds (issue 40): pending prepares limited per creator and per client
//! address with their exact errors; the sweeper, on its own timer, removing every expired prepare and its
//! image from the image store with no prepare called; launch images through an S3-compatible store (an
//! S3 server in this process), images kept in the database before the image store moved into it.

use crate::common;

use common::*;
use localnet::testkit::{self, SOL};
use serde_json::Value;
use solana_signer::Signer;
use std::time::{Duration, Instant};

fn png(w: u32, h: u32, rgb: [u8; 3]) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(w, h, image::Rgb(rgb));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

fn launch(creator: &str, name: &str, image: Option<&[u8]>) -> Value {
    let mut body = serde_json::json!({
        "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "shield", "quote": "sol",
        "name": name, "symbol": "BND", "description": "bounds",
        "totalSupply": "1000000000", "creator": creator,
    });
    if let Some(image) = image {
        body["image"] = b64(image).into();
    }
    body
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pending_prepares_are_limited_per_creator_and_per_address() {
    let s = stack_configured(false, |c| api::process::config::ApiConfig {
        rate_limit_burst: 1_000,
        max_pending_prepares_per_creator: 2,
        max_pending_prepares_per_address: 3,
        ..c
    })
    .await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let url = format!("{}/launchpad/prepare", s.base);
    let store = index::Store::open(&s.db).await.unwrap();
    let a = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let b = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let c = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let pending = |creator: String| {
        let store = store.clone();
        async move {
            store
                .pending_prepares(&creator, Some("127.0.0.1"), 0)
                .await
                .unwrap()
        }
    };
    let a_key = a.pubkey().to_string();
    let first = post(&http, &url, &launch(&a_key, "A one", None)).await;
    assert_eq!(first.0, 200, "{}", first.1);
    let second = post(&http, &url, &launch(&a_key, "A two", None)).await;
    assert_eq!(second.0, 200, "{}", second.1);
    // The creator's third: refused, with an image that is then never decoded nor stored.
    let image = png(8, 8, [1, 2, 3]);
    let (status, body) = post(&http, &url, &launch(&a_key, "A three", Some(&image))).await;
    assert_eq!(status, 429, "{body}");
    assert_error(&body, "TOO_MANY_PENDING_LAUNCHES");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("at most 2"));
    assert_eq!(pending(a_key.clone()).await, (2, 2));
    let (status, _) = get(
        &http,
        &format!("{}/launchpad/images/{}", s.base, sha256(&image)),
    )
    .await;
    assert_eq!(status, 404, "a refused prepare stored its image");
    // Another creator from the same address: one more, then the address is at its limit.
    let b_key = b.pubkey().to_string();
    let (status, body) = post(&http, &url, &launch(&b_key, "B one", None)).await;
    assert_eq!(status, 200, "{body}");
    let c_key = c.pubkey().to_string();
    let (status, body) = post(&http, &url, &launch(&c_key, "C one", None)).await;
    assert_eq!(status, 429, "{body}");
    assert_error(&body, "TOO_MANY_PENDING_LAUNCHES_ADDRESS");
    assert_eq!(pending(c_key.clone()).await, (0, 3));
    // A launch that lands is no longer pending: once indexed, its creator and its address prepare again.
    let signed = sign(first.1["solanaTransaction"].as_str().unwrap(), &a);
    let (status, body) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{body}");
    let start = Instant::now();
    while pending(a_key.clone()).await != (1, 2) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the landed launch never stopped counting"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, body) = post(&http, &url, &launch(&c_key, "C again", None)).await;
    assert_eq!(status, 200, "{body}");
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sweeper_removes_expired_prepares_and_their_images_on_its_own_timer() {
    let images = tempfile::tempdir().unwrap();
    let image_dir = images.path().to_str().unwrap().to_string();
    let s = stack_configured(false, |c| api::process::config::ApiConfig {
        rate_limit_burst: 1_000,
        prepared_ttl_secs: 2,
        // Rounds 3 s apart: one round must take the whole backlog (a sweep with a ceiling per round leaves
        // some for the next).
        prepared_sweep_secs: 3,
        image_store: image_dir,
        ..c
    })
    .await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let url = format!("{}/launchpad/prepare", s.base);
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let key = creator.pubkey().to_string();
    let abandoned_png = png(8, 8, [9, 9, 9]);
    let landed_png = png(8, 8, [7, 7, 7]);
    let on_disk = |png: &[u8]| images.path().join("launches").join(sha256(png));
    let (status, abandoned) = post(
        &http,
        &url,
        &launch(&key, "Abandoned", Some(&abandoned_png)),
    )
    .await;
    assert_eq!(status, 200, "{abandoned}");
    let abandoned_at = Instant::now();
    let (status, landed) = post(&http, &url, &launch(&key, "Landed", Some(&landed_png))).await;
    assert_eq!(status, 200, "{landed}");
    assert!(on_disk(&abandoned_png).is_file() && on_disk(&landed_png).is_file());
    let signed = sign(landed["solanaTransaction"].as_str().unwrap(), &creator);
    let (status, body) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{body}");
    let meta = |p: &Value| p["metadataURI"].as_str().unwrap().to_string();
    let image_url = |png: &[u8]| format!("{}/launchpad/images/{}", s.base, sha256(png));
    // A round takes the abandoned prepare once it is 2 s old; the backlog goes in right after that round,
    // so the next round starts after the whole backlog is written (rounds are 3 s apart).
    while get(&http, &meta(&abandoned)).await.0 != 404 {
        assert!(
            abandoned_at.elapsed() < Duration::from_secs(30),
            "the sweeper never took the abandoned prepare"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // More expired prepares than a sweep's chunk, written straight to the index: all of them go, with no
    // prepare called from here on.
    let store = index::Store::open(&s.db).await.unwrap();
    let backlog = api::routes::launch::SWEEP_CHUNK as usize * 2 + 7;
    for i in 0..backlog {
        let mint = solana_pubkey::Pubkey::new_unique().to_string();
        store
            .insert_prepared(&index::store::PreparedLaunch {
                mint: mint.clone(),
                creator: key.clone(),
                name: format!("Old {i}"),
                symbol: "OLD".into(),
                description: String::new(),
                preset: "shield".into(),
                quote: "sol".into(),
                salt: i.to_string(),
                uri: format!("{}/launchpad/metadata/{mint}.json", s.base),
                prepared_at: now() - 3_600,
                client_id: None,
                image_hash: None,
                website: None,
                twitter: None,
                telegram: None,
                client_addr: None,
            })
            .await
            .unwrap();
    }
    let start = Instant::now();
    let initial = store
        .stale_prepared(i64::MAX, None, 10_000)
        .await
        .unwrap()
        .len();
    assert!(initial >= backlog, "{initial}");
    // Wait for a round to begin (any row gone), then give it a second: less than the time to the next.
    while store
        .stale_prepared(i64::MAX, None, 10_000)
        .await
        .unwrap()
        .len()
        == initial
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the sweeper never ran"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // That round must leave nothing for the next one, 3 s later: look for 2.5 s.
    let round = Instant::now();
    let mut left = store.stale_prepared(i64::MAX, None, 10_000).await.unwrap();
    while round.elapsed() < Duration::from_millis(2_500)
        && !left.iter().all(|(_, m)| landed["mint"] == m.as_str())
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
        left = store.stale_prepared(i64::MAX, None, 10_000).await.unwrap();
    }
    // The one left may be the landed launch (unrecorded, on chain) until the index has it.
    assert!(
        left.iter().all(|(_, m)| landed["mint"] == m.as_str()),
        "one round of the sweeper left {} of {initial} expired prepares",
        left.len()
    );
    let (status, _) = get(&http, &meta(&abandoned)).await;
    assert_eq!(status, 404);
    assert!(!on_disk(&abandoned_png).exists());
    let (status, body) = get(&http, &image_url(&abandoned_png)).await;
    assert_eq!(status, 404, "{body}");
    assert_error(&body, "NOT_FOUND");
    // The launch that landed keeps its metadata and its image.
    let (status, body) = get(&http, &meta(&landed)).await;
    assert_eq!(status, 200, "{body}");
    assert!(on_disk(&landed_png).is_file());
    let served = http.get(image_url(&landed_png)).send().await.unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()["content-type"], "image/png");
    assert_eq!(served.bytes().await.unwrap(), landed_png);
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}

/// The S3 settings go in through the configuration: a test must not set the environment of a process whose
/// other tests run on other threads.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn launch_images_round_trip_through_an_s3_store_and_old_rows_move_into_it() {
    let root = tempfile::tempdir().unwrap();
    let s3 = image_store::test_s3::S3Server::start(root.path(), &["launchpad"])
        .await
        .unwrap();
    let options = s3.options().into_iter().map(|(k, v)| (k.to_string(), v));
    let s = stack_configured(false, |c| api::process::config::ApiConfig {
        rate_limit_burst: 1_000,
        image_store: "s3://launchpad/prod".into(),
        image_store_options: options.collect(),
        ..c
    })
    .await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let picture = png(16, 12, [200, 10, 10]);
    let (status, prepared) = post(
        &http,
        &format!("{}/launchpad/prepare", s.base),
        &launch(&creator.pubkey().to_string(), "On S3", Some(&picture)),
    )
    .await;
    assert_eq!(status, 200, "{prepared}");
    let hash = sha256(&picture);
    // In the bucket (the S3 server wrote it), not in the database.
    let object = root.path().join("launchpad/prod/launches").join(&hash);
    assert_eq!(std::fs::read(&object).unwrap(), picture);
    let store = index::Store::open(&s.db).await.unwrap();
    assert!(store.images_in_database(10).await.unwrap().is_empty());
    let (status, meta) = get(&http, prepared["metadataURI"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{meta}");
    assert_eq!(meta["properties"]["files"][0]["type"], "image/png");
    let served = http
        .get(meta["image"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()["etag"], format!("\"{hash}\""));
    assert_eq!(served.headers()["content-type"], "image/png");
    assert_eq!(served.bytes().await.unwrap(), picture);

    // An image stored in the database before the image store: moved at start, then served from the bucket.
    let old = png(4, 4, [1, 200, 1]);
    let old_hash = sha256(&old);
    let pool = sqlx::SqlitePool::connect(&s.db).await.unwrap();
    sqlx::query(
        "INSERT INTO images (hash, content_type, data, created_at) VALUES ($1, 'image/png', $2, 1)",
    )
    .bind(&old_hash)
    .bind(&old)
    .execute(&pool)
    .await
    .unwrap();
    let bucket = s3.open("s3://launchpad/prod").unwrap();
    let moved = api::routes::launch::images::move_to_store(&store, &bucket)
        .await
        .unwrap();
    assert_eq!(moved, 1);
    assert!(store.images_in_database(10).await.unwrap().is_empty());
    assert_eq!(
        std::fs::read(root.path().join("launchpad/prod/launches").join(&old_hash)).unwrap(),
        old
    );
    let served = http
        .get(format!("{}/launchpad/images/{old_hash}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.bytes().await.unwrap(), old);
    let _ = s.stop.send(true);
    s.net.shutdown().await;
}
