//! Every launch of the program is listed, whoever built it (issue 42 item 5): launches created directly on the
//! localnet (the program's instruction, no prepare, no record) appear in `GET /launchpad/launches`, the token
//! view and the token catalog with `prepared: false`, their description, image and links read from a local
//! URI answering in Metaplex's JSON shape; a prepared launch (signed and sent, never recorded) is listed with
//! `prepared: true`. The fetcher against the same local server: oversized (declared and streamed), slow
//! (headers and body), non-JSON, redirect loops and chains, a redirect to `file:`, a 404, and loopback refused
//! without `--metadata-fetch-private` (a literal address, and a name resolving to one).

use crate::common;

use api::chain::offchain::fetch::{FetchError, Fetcher, MAX_JSON_BYTES};
use api::chain::offchain::{parse, Metadata};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect};
use axum::routing::get as route;
use common::*;
use localnet::testkit::{self, SOL};
use sdk::launchpad_ix::{CreateLaunchArgs, LaunchKeys};
use serde_json::{json, Value};
use solana_keypair::Keypair;
use solana_signer::Signer;
use std::time::{Duration, Instant};

fn png() -> Vec<u8> {
    let img = image::RgbImage::from_pixel(16, 16, image::Rgb([10, 200, 90]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// A local server answering as a stranger's metadata host would, at `base`.
struct Fixture {
    base: String,
    port: u16,
}

impl Fixture {
    async fn start() -> Fixture {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let base = format!("http://127.0.0.1:{port}");
        let meta = json!({
            "name": "Good Token", "symbol": "GOOD", "description": "Read from its URI",
            "image": format!("{base}/img.png"),
            "external_url": "https://good.example.org",
            "extensions": { "twitter": "https://x.com/goodtoken", "telegram": "https://t.me/goodtoken" },
            "properties": { "files": [{ "uri": format!("{base}/img.png"), "type": "image/png" }], "category": "image" },
        });
        let bad_image =
            json!({ "description": "its image is text", "image": format!("{base}/page.html") });
        let json_of = |v: Value| {
            move || {
                let v = v.clone();
                async move { axum::Json(v) }
            }
        };
        let app = axum::Router::new()
            .route("/meta.json", route(json_of(meta)))
            .route("/bad-image.json", route(json_of(bad_image)))
            .route(
                "/img.png",
                route(|| async { ([(header::CONTENT_TYPE, "image/png")], png()) }),
            )
            .route(
                "/big.json",
                route(|| async {
                    let filler = "x".repeat(MAX_JSON_BYTES);
                    axum::Json(json!({ "description": filler }))
                }),
            )
            .route(
                "/stream.json",
                route(|| async {
                    // No Content-Length: the cap is met while reading.
                    let chunks = (0..20).map(|_| Ok::<_, std::io::Error>(vec![b' '; 8 * 1024]));
                    axum::body::Body::from_stream(futures::stream::iter(chunks))
                }),
            )
            .route(
                "/slow.json",
                route(|| async {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    axum::Json(json!({}))
                }),
            )
            .route(
                "/drip.json",
                route(|| async {
                    let chunks =
                        futures::StreamExt::then(futures::stream::iter(0..10), |_| async {
                            tokio::time::sleep(Duration::from_millis(400)).await;
                            Ok::<_, std::io::Error>(b" ".to_vec())
                        });
                    axum::body::Body::from_stream(chunks)
                }),
            )
            .route(
                "/page.html",
                route(|| async {
                    (
                        [(header::CONTENT_TYPE, "text/html")],
                        "<html><body>hello</body></html>",
                    )
                }),
            )
            .route("/loop-a", route(|| async { Redirect::to("/loop-b") }))
            .route("/loop-b", route(|| async { Redirect::to("/loop-a") }))
            .route(
                "/hop/{n}",
                route(
                    |axum::extract::Path(n): axum::extract::Path<u32>| async move {
                        Redirect::to(&format!("/hop/{}", n + 1))
                    },
                ),
            )
            .route("/to-meta", route(|| async { Redirect::to("/meta.json") }))
            .route(
                "/to-file",
                route(|| async { Redirect::to("file:///etc/passwd") }),
            )
            .route(
                "/to-ftp",
                route(|| async { Redirect::to("ftp://example.org/meta.json") }),
            )
            .route(
                "/missing.json",
                route(|| async { StatusCode::NOT_FOUND.into_response() }),
            );
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Fixture { base, port }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fetcher_reads_metaplex_json_within_its_limits() {
    let f = Fixture::start().await;
    let fetcher = Fetcher::new(Duration::from_secs(1), true).unwrap();
    let get = |path: &'static str| {
        let fetcher = fetcher.clone();
        let url = f.url(path);
        async move { fetcher.get(&url, MAX_JSON_BYTES).await }
    };
    let body = get("/meta.json").await.unwrap();
    assert_eq!(
        parse(&body).unwrap(),
        Metadata {
            description: "Read from its URI".into(),
            image: Some(f.url("/img.png")),
            website: Some("https://good.example.org".into()),
            twitter: Some("https://x.com/goodtoken".into()),
            telegram: Some("https://t.me/goodtoken".into()),
        }
    );
    // One redirect is followed.
    assert_eq!(get("/to-meta").await.unwrap(), body);
    // Oversized, declared or streamed.
    assert_eq!(
        get("/big.json").await,
        Err(FetchError::TooLarge(MAX_JSON_BYTES))
    );
    assert_eq!(
        get("/stream.json").await,
        Err(FetchError::TooLarge(MAX_JSON_BYTES))
    );
    // Slow: no headers within the timeout, or a body still dripping at it.
    let start = Instant::now();
    assert_eq!(get("/slow.json").await, Err(FetchError::Timeout));
    assert_eq!(get("/drip.json").await, Err(FetchError::Timeout));
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    // Not JSON.
    assert!(matches!(
        parse(&get("/page.html").await.unwrap()),
        Err(FetchError::NotJson(_))
    ));
    // Redirect loops and chains.
    match get("/loop-a").await {
        Err(FetchError::Redirects(why)) => assert!(why.contains("a loop back to"), "{why}"),
        other => panic!("{other:?}"),
    }
    match get("/hop/0").await {
        Err(FetchError::Redirects(why)) => assert_eq!(why, "more than 3"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        get("/to-file").await,
        Err(FetchError::Redirects(
            "to a location that is no http or https URL".into()
        ))
    );
    assert_eq!(get("/to-ftp").await, Err(FetchError::Scheme("ftp".into())));
    assert_eq!(get("/missing.json").await, Err(FetchError::Status(404)));
    assert_eq!(
        fetcher
            .get("ipfs://bafybeigdyr/meta.json", MAX_JSON_BYTES)
            .await,
        Err(FetchError::Scheme("ipfs".into()))
    );
    // Without --metadata-fetch-private: loopback refused, literal or resolved, before connecting.
    let strict = Fetcher::new(Duration::from_secs(1), false).unwrap();
    assert_eq!(
        strict.get(&f.url("/meta.json"), MAX_JSON_BYTES).await,
        Err(FetchError::Address("127.0.0.1".into()))
    );
    assert_eq!(
        strict
            .get(
                &format!("http://localhost:{}/meta.json", f.port),
                MAX_JSON_BYTES
            )
            .await,
        Err(FetchError::Address("localhost".into()))
    );
    // Permanent refusals are not retried; what may pass is.
    assert!(FetchError::TooLarge(1).permanent() && FetchError::NotJson(String::new()).permanent());
    assert!(!FetchError::Timeout.permanent() && !FetchError::Status(404).permanent());
}

/// A launch built and sent without this service: the program's instruction, with `uri`.
async fn launch_elsewhere(
    rpc: &solana_rpc_client::nonblocking::rpc_client::RpcClient,
    creator: &Keypair,
    salt: u64,
    symbol: &str,
    uri: String,
) -> LaunchKeys {
    let keys = LaunchKeys::derive(
        creator.pubkey(),
        salt,
        curve::Preset::Fair as u8,
        sdk::ids::NATIVE_MINT,
    );
    let args = CreateLaunchArgs {
        name: format!("{symbol} Token"),
        symbol: symbol.into(),
        uri,
        salt,
    };
    testkit::send(
        rpc,
        &[sdk::launchpad_ix::create_launch(&keys, args)],
        &[creator],
    )
    .await
    .unwrap();
    keys
}

async fn every_launch_listed(postgres: bool) {
    let f = Fixture::start().await;
    let s = stack_configured(postgres, |c| api::process::config::ApiConfig {
        metadata_fetch_private: true,
        metadata_fetch_timeout_secs: 2,
        metadata_poll_ms: 100,
        ..c
    })
    .await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 10 * SOL).await.unwrap();
    let good = launch_elsewhere(&rpc, &creator, 1, "GOOD", f.url("/meta.json")).await;
    let html = launch_elsewhere(&rpc, &creator, 2, "HTML", f.url("/page.html")).await;
    let text_image = launch_elsewhere(&rpc, &creator, 3, "TXTIMG", f.url("/bad-image.json")).await;
    // Prepared here, signed and sent, never recorded.
    let launch = json!({
        "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "fair", "quote": "sol",
        "name": "Prepared Token", "symbol": "PREP", "description": "through the API",
        "totalSupply": "1000000000", "creator": creator.pubkey().to_string(),
    });
    let (status, prepared) = post(&http, &format!("{}/launchpad/prepare", s.base), &launch).await;
    assert_eq!(status, 200, "{prepared}");
    let signed = sign(prepared["solanaTransaction"].as_str().unwrap(), &creator);
    let (status, submitted) = s.submit(&http, &signed).await;
    assert_eq!(status, 200, "{submitted}");
    let prepared_mint = prepared["mint"].as_str().unwrap().to_string();

    // Listed, all four; the good one once its metadata is read.
    let url = format!(
        "{}/launchpad/launches?creator={}&limit=10",
        s.base,
        creator.pubkey()
    );
    let start = Instant::now();
    let entry = |list: &Value, mint: &str| {
        list["launches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["mint"] == mint)
            .cloned()
    };
    let list = loop {
        let (status, list) = get(&http, &url).await;
        assert_eq!(status, 200, "{list}");
        let read = entry(&list, &good.mint.to_string()).is_some_and(|e| !e["image"].is_null());
        if list["launches"].as_array().unwrap().len() == 4 && read {
            break list;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "not all listed, or the metadata never read: {list}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let good_entry = entry(&list, &good.mint.to_string()).unwrap();
    assert_eq!(good_entry["prepared"], false, "{good_entry}");
    assert_eq!(good_entry["symbol"], "GOOD");
    assert_eq!(good_entry["uri"], f.url("/meta.json"));
    let image = good_entry["image"].as_str().unwrap().to_string();
    assert!(image.contains("/launchpad/images/"), "{image}");
    let html_entry = entry(&list, &html.mint.to_string()).unwrap();
    assert_eq!(html_entry["prepared"], false);
    assert!(html_entry["image"].is_null());
    let prepared_entry = entry(&list, &prepared_mint).unwrap();
    assert_eq!(prepared_entry["prepared"], true, "{prepared_entry}");

    // The image, through the launch form's pipeline, served by this service: the same bytes.
    let served = http.get(&image).send().await.unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.bytes().await.unwrap().to_vec(), png());

    // The token view: the metadata read from the URI, the on-chain name and symbol.
    let (status, view) = get(&http, &format!("{}/launchpad/tokens/{}", s.base, good.mint)).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["prepared"], false);
    assert_eq!(view["name"], "GOOD Token");
    assert_eq!(view["description"], "Read from its URI");
    assert_eq!(view["image"], image.as_str());
    assert_eq!(view["links"]["website"], "https://good.example.org");
    assert_eq!(view["links"]["twitter"], "https://x.com/goodtoken");
    assert_eq!(view["links"]["telegram"], "https://t.me/goodtoken");
    let (_, view) = get(
        &http,
        &format!("{}/launchpad/tokens/{prepared_mint}", s.base),
    )
    .await;
    assert_eq!(view["prepared"], true);
    assert_eq!(view["description"], "through the API");

    // What was not read leaves the on-chain fields: a page that is not JSON is given up at once (it cannot
    // pass); an image that is not one leaves the metadata without it.
    let store = index::Store::open(&s.db).await.unwrap();
    let start = Instant::now();
    loop {
        let states = (
            store.metadata_state(&html.mint.to_string()).await.unwrap(),
            store
                .metadata_state(&text_image.mint.to_string())
                .await
                .unwrap(),
            store.metadata_state(&prepared_mint).await.unwrap(),
        );
        match &states {
            (Some((a, _, _)), Some((b, _, _)), Some((c, _, _)))
                if a == "failed" && b == "fetched" && c == "prepared" =>
            {
                let (_, attempts, error) = states.0.clone().unwrap();
                assert_eq!(attempts, 1);
                assert!(
                    error.as_deref().unwrap().starts_with("not a JSON object"),
                    "{error:?}"
                );
                break;
            }
            _ => assert!(
                start.elapsed() < Duration::from_secs(30),
                "metadata states {states:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (_, view) = get(&http, &format!("{}/launchpad/tokens/{}", s.base, html.mint)).await;
    assert_eq!(
        (view["prepared"].clone(), view["description"].clone()),
        (json!(false), json!(""))
    );
    assert_eq!(view["name"], "HTML Token");
    let (_, view) = get(
        &http,
        &format!("{}/launchpad/tokens/{}", s.base, text_image.mint),
    )
    .await;
    assert_eq!(view["description"], "its image is text");
    assert!(view["image"].is_null(), "{view}");

    // The token catalog lists them too (exactly the listing's launches).
    let (status, tokens) = get(&http, &format!("{}/swap/tokens?chainKey=solana", s.base)).await;
    assert_eq!(status, 200);
    let addresses: Vec<&str> = tokens["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["address"].as_str())
        .collect();
    for mint in [good.mint.to_string(), html.mint.to_string(), prepared_mint] {
        assert!(
            addresses.contains(&mint.as_str()),
            "{mint} not in the catalog"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_launch_is_listed_on_sqlite() {
    every_launch_listed(false).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_launch_is_listed_on_postgres() {
    every_launch_listed(true).await
}
