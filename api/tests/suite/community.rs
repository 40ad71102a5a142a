//! The community layer through HTTP against a running stack (localnet streaming over gRPC, indexer, API):
//! wallets post comments and replies by signing the message `docs/api.md` documents (built here from that
//! document, not with the API's own code), read them back newest and top first a page at a time, and see
//! them arrive on the live feed (`kind: comment`) with their holding from the index. Every bad input gets its
//! exact error code and stores nothing: a signature from another wallet or over other text, an expired or
//! replayed message, a too-long text, markup, a flood from one wallet. An operator's hide (the store call the
//! admin command makes) takes comments and wallets out of every list. Profiles: a signed name (unique
//! case-insensitively, reserved words and look-alikes refused) and an avatar re-encoded and served by hash,
//! shown on comments, with "launched N tokens".

use crate::common;

use base64::Engine;
use common::*;
use localnet::testkit::{self, SOL};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use solana_keypair::Keypair;
use solana_signer::Signer;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn nonce() -> String {
    format!("n{}", rand::random::<u64>())
}

/// The comment message exactly as `docs/api.md` ("Signed messages") writes it.
fn comment_message(
    domain: &str,
    wallet: &str,
    mint: &str,
    reply_to: Option<i64>,
    text: &str,
    nonce: &str,
    expires_at: i64,
) -> String {
    let reply_to = reply_to.map_or("none".to_string(), |r| r.to_string());
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    format!(
        "{domain} wants you to post a comment with your Solana account:\n{wallet}\n\nToken: {mint}\n\
         Reply to: {reply_to}\nText SHA-256: {hash}\nNonce: {nonce}\nExpiration Time: {expires_at}"
    )
}

struct Poster<'a> {
    http: &'a reqwest::Client,
    base: &'a str,
    mint: String,
}

impl Poster<'_> {
    fn domain(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// A comment body signed by `signer` as `wallet`'s (the same wallet unless forging).
    fn body(
        &self,
        wallet: &Keypair,
        signer: &Keypair,
        text: &str,
        reply_to: Option<i64>,
        expires_at: i64,
    ) -> Value {
        let nonce = nonce();
        let w = wallet.pubkey().to_string();
        let message = comment_message(
            self.domain(),
            &w,
            &self.mint,
            reply_to,
            text,
            &nonce,
            expires_at,
        );
        let signature = signer.sign_message(message.as_bytes()).to_string();
        json!({ "wallet": w, "text": text, "replyTo": reply_to, "nonce": nonce,
                "expiresAt": expires_at, "signature": signature })
    }

    async fn send(&self, body: &Value) -> (u16, Value) {
        post(
            self.http,
            &format!("{}/launchpad/tokens/{}/comments", self.base, self.mint),
            body,
        )
        .await
    }

    async fn post(&self, wallet: &Keypair, text: &str, reply_to: Option<i64>) -> (u16, Value) {
        self.send(&self.body(wallet, wallet, text, reply_to, now() + 300))
            .await
    }

    async fn list(&self, query: &str) -> Value {
        let (status, v) = get(
            self.http,
            &format!(
                "{}/launchpad/tokens/{}/comments{query}",
                self.base, self.mint
            ),
        )
        .await;
        assert_eq!(status, 200, "{v}");
        v
    }
}

/// The ids of a list's comments, in order.
fn ids(list: &Value) -> Vec<i64> {
    list["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect()
}

/// The next `comment` event of an SSE stream.
async fn next_comment(response: &mut reqwest::Response, buf: &mut String) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        while let Some(i) = buf.find("\n\n") {
            let block: String = buf.drain(..i + 2).collect();
            let mut event = "";
            let mut data = None;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event: ") {
                    event = v;
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = Some(serde_json::from_str::<Value>(v).unwrap());
                }
            }
            if let (true, Some(data)) = (event == "comment", data) {
                return data;
            }
        }
        let chunk = tokio::time::timeout_at(deadline, response.chunk())
            .await
            .expect("no comment event on the feed")
            .unwrap()
            .expect("the feed ended");
        buf.push_str(&String::from_utf8_lossy(&chunk));
    }
}

async fn stored(store: &index::Store, mint: &str) -> usize {
    store.all_comments(mint).await.unwrap().len()
}

fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(w, h, image::Rgb([10, 200, 90]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// A signed profile body for `wallet`, signed by `signer`.
fn profile_body(
    domain: &str,
    wallet: &Keypair,
    signer: &Keypair,
    name: &str,
    avatar: Option<&[u8]>,
) -> Value {
    let nonce = nonce();
    let expires_at = now() + 300;
    let hash = avatar.map_or("none".to_string(), |a| hex::encode(Sha256::digest(a)));
    let message = format!(
        "{domain} wants you to set your profile with your Solana account:\n{}\n\nName: {name}\n\
         Avatar SHA-256: {hash}\nNonce: {nonce}\nExpiration Time: {expires_at}",
        wallet.pubkey()
    );
    let signature = signer.sign_message(message.as_bytes()).to_string();
    let avatar = avatar.map(|a| base64::engine::general_purpose::STANDARD.encode(a));
    json!({ "name": name, "avatar": avatar, "nonce": nonce, "expiresAt": expires_at,
            "signature": signature })
}

async fn put(http: &reqwest::Client, url: &str, body: &Value) -> (u16, Value) {
    let r = http.put(url).json(body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn community(postgres: bool) {
    let s = stack(postgres, 1_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();
    let store = index::Store::open(&s.db).await.unwrap();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 21, "TALK")
        .await
        .unwrap();
    let buyer = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    testkit::buy(&rpc, &keys, &buyer, SOL / 10).await.unwrap();
    s.wait_indexed().await;
    let mint = keys.mint.to_string();
    let held = testkit::token_balance(
        &rpc,
        &buyer.pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await;
    assert!(held > 0);
    let p = Poster {
        http: &http,
        base: &s.base,
        mint: mint.clone(),
    };

    // The live feed of this token's comments.
    let mut feed = http
        .get(format!(
            "{}/launchpad/stream?kinds=comment&mints={mint}",
            s.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(feed.status(), 200);
    let mut buf = String::new();

    // A signed comment: stored with the author's holding from the index, and on the feed.
    let (status, first) = p.post(&buyer, "gm, this one sends", None).await;
    assert_eq!(status, 201, "{first}");
    assert_eq!(first["wallet"], buyer.pubkey().to_string());
    assert_eq!(first["text"], "gm, this one sends");
    assert_eq!(first["holding"], held.to_string());
    assert_eq!(first["replyTo"], Value::Null);
    assert_eq!(first["name"], Value::Null);
    let first_id = first["id"].as_i64().unwrap();
    let event = next_comment(&mut feed, &mut buf).await;
    assert_eq!(event["kind"], "comment");
    assert_eq!(event["mint"], mint);
    assert_eq!(event["id"], first_id);
    assert_eq!(event["wallet"], buyer.pubkey().to_string());
    assert_eq!(event["text"], "gm, this one sends");
    assert_eq!(event["holding"], held.to_string());
    assert!(event["seq"].as_i64().unwrap() > 0);
    assert_eq!(stored(&store, &mint).await, 1);

    // Bad input: each refused with its code, nothing stored.
    // (Each wallet makes at most 5 signed writes here: the sixth would be a flood, below.)
    let stranger = Keypair::new();
    let echo = Keypair::new();
    let replay = p.body(&echo, &echo, "once only", None, now() + 300);
    assert_eq!(p.send(&replay).await.0, 201);
    assert_eq!(next_comment(&mut feed, &mut buf).await["text"], "once only");
    let cases: Vec<(&str, Value, u16, &str)> = vec![
        (
            "a signature from another wallet",
            p.body(&buyer, &stranger, "forged", None, now() + 300),
            400,
            "MESSAGE_SIGNATURE_INVALID",
        ),
        (
            "a signature over other text",
            {
                let mut b = p.body(&buyer, &buyer, "what was signed", None, now() + 300);
                b["text"] = json!("what was sent");
                b
            },
            400,
            "MESSAGE_SIGNATURE_INVALID",
        ),
        (
            "a signature over another token",
            {
                let other = Poster {
                    http: &http,
                    base: &s.base,
                    mint: keys.pool.to_string(),
                };
                other.body(&buyer, &buyer, "elsewhere", None, now() + 300)
            },
            400,
            "MESSAGE_SIGNATURE_INVALID",
        ),
        ("a replay", replay.clone(), 409, "NONCE_USED"),
        (
            "an expired message",
            p.body(&buyer, &buyer, "too late", None, now() - 1),
            400,
            "MESSAGE_EXPIRED",
        ),
        (
            "an expiry too far ahead",
            p.body(&buyer, &buyer, "too early", None, now() + 3_600),
            400,
            "MESSAGE_EXPIRED",
        ),
        (
            "a too-long text",
            p.body(&buyer, &buyer, &"a".repeat(501), None, now() + 300),
            400,
            "TEXT_TOO_LONG",
        ),
        (
            "a script",
            p.body(
                &buyer,
                &buyer,
                "<script>alert(1)</script>",
                None,
                now() + 300,
            ),
            400,
            "MARKUP_NOT_ALLOWED",
        ),
        (
            "HTML",
            p.body(
                &buyer,
                &buyer,
                "nice <img src=x onerror=alert(1)>",
                None,
                now() + 300,
            ),
            400,
            "MARKUP_NOT_ALLOWED",
        ),
        (
            "a reply to no comment",
            p.body(&echo, &echo, "to whom", Some(999_999), now() + 300),
            404,
            "NOT_FOUND",
        ),
        (
            "a bad wallet",
            {
                let mut b = p.body(&buyer, &buyer, "x", None, now() + 300);
                b["wallet"] = json!("not-a-wallet");
                b
            },
            400,
            "INVALID_ADDRESS",
        ),
    ];
    for (what, body, status, code) in cases {
        let (got, v) = p.send(&body).await;
        assert_eq!(got, status, "{what}: {v}");
        assert_error(&v, code);
        assert_eq!(stored(&store, &mint).await, 2, "{what} stored something");
    }
    // The forged wallet's nonce is still free: nothing of the refused request was kept.
    let mut fresh = p.body(&buyer, &buyer, "after the forgery", None, now() + 300);
    let forged = p.body(&buyer, &stranger, "after the forgery", None, now() + 300);
    fresh["nonce"] = forged["nonce"].clone();
    let message = comment_message(
        p.domain(),
        &buyer.pubkey().to_string(),
        &mint,
        None,
        "after the forgery",
        forged["nonce"].as_str().unwrap(),
        fresh["expiresAt"].as_i64().unwrap(),
    );
    fresh["signature"] = json!(buyer.sign_message(message.as_bytes()).to_string());
    assert_eq!(p.send(&forged).await.0, 400);
    let (status, v) = p.send(&fresh).await;
    assert_eq!(status, 201, "{v}");
    let third_id = v["id"].as_i64().unwrap();
    assert_eq!(next_comment(&mut feed, &mut buf).await["id"], third_id);

    // Replies thread one level; the creator's holding is its own.
    let (status, reply) = p.post(&creator, "thanks fren", Some(first_id)).await;
    assert_eq!(status, 201, "{reply}");
    assert_eq!(reply["replyTo"], first_id);
    let reply_id = reply["id"].as_i64().unwrap();
    let event = next_comment(&mut feed, &mut buf).await;
    assert_eq!(
        (event["id"].as_i64(), event["replyTo"].as_i64()),
        (Some(reply_id), Some(first_id))
    );
    let (status, v) = p.post(&echo, "deeper", Some(reply_id)).await;
    assert_eq!(status, 400, "{v}");
    assert_error(&v, "INVALID_PARAMS");
    assert_eq!(stored(&store, &mint).await, 4);

    // Orders and pages.
    let second_id = ids(&p.list("?order=newest").await)[1];
    let newest = p.list("").await;
    assert_eq!(ids(&newest), vec![third_id, second_id, first_id]);
    assert_eq!(newest["nextCursor"], Value::Null);
    let with_reply = &newest["comments"][2];
    assert_eq!(with_reply["replyCount"], 1);
    assert_eq!(with_reply["replies"][0]["id"], reply_id);
    assert_eq!(with_reply["replies"][0]["text"], "thanks fren");
    let top = p.list("?order=top").await;
    assert_eq!(ids(&top), vec![first_id, third_id, second_id]);
    let page1 = p.list("?limit=2").await;
    assert_eq!(ids(&page1), vec![third_id, second_id]);
    let cursor = page1["nextCursor"].as_str().unwrap().to_string();
    let page2 = p.list(&format!("?limit=2&cursor={cursor}")).await;
    assert_eq!(ids(&page2), vec![first_id]);
    assert_eq!(page2["nextCursor"], Value::Null);
    let top1 = p.list("?order=top&limit=1").await;
    assert_eq!(ids(&top1), vec![first_id]);
    let top2 = p
        .list(&format!(
            "?order=top&limit=5&cursor={}",
            top1["nextCursor"].as_str().unwrap()
        ))
        .await;
    assert_eq!(ids(&top2), vec![third_id, second_id]);
    for bad in ["?order=hot", "?cursor=zzz", "?limit=0"] {
        let (status, v) = get(
            &http,
            &format!("{}/launchpad/tokens/{mint}/comments{bad}", s.base),
        )
        .await;
        assert_eq!(status, 400, "{bad}: {v}");
        assert_error(&v, "INVALID_PARAMS");
    }

    // A flood from one wallet: its sixth post within the minute is refused, and not stored.
    let flooder = Keypair::new();
    for i in 0..5 {
        let (status, v) = p.post(&flooder, &format!("buy buy buy {i}"), None).await;
        assert_eq!(status, 201, "post {i}: {v}");
        assert_eq!(v["holding"], "0");
    }
    let before = stored(&store, &mint).await;
    let r = http
        .post(format!("{}/launchpad/tokens/{mint}/comments", s.base))
        .json(&p.body(&flooder, &flooder, "buy buy buy 5", None, now() + 300))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=12).contains(&retry), "{retry}");
    assert_error(&r.json().await.unwrap(), "RATE_LIMITED");
    assert_eq!(stored(&store, &mint).await, before);
    // Another wallet from the same address still posts.
    assert_eq!(p.post(&creator, "still here", None).await.0, 201);

    // An operator hides a comment and a wallet: recorded, not deleted, no longer served.
    assert!(store
        .hide_comment(second_id, "ops-alice", "spam", now())
        .await
        .unwrap());
    assert!(store
        .hide_wallet(&flooder.pubkey().to_string(), "ops-alice", "flood", now())
        .await
        .unwrap());
    let listed = ids(&p.list("?limit=100").await);
    assert!(!listed.contains(&second_id), "{listed:?}");
    assert_eq!(listed.len(), 3, "{listed:?}");
    let all = store.all_comments(&mint).await.unwrap();
    assert_eq!(all.iter().filter(|(_, hidden)| *hidden).count(), 1);
    assert_eq!(all.len(), before + 1);
    // A hidden wallet cannot post (echo, whose comment was hidden above, is under its write limit).
    assert!(store
        .hide_wallet(&echo.pubkey().to_string(), "ops-alice", "replays", now())
        .await
        .unwrap());
    let (status, v) = p.post(&echo, "let me back", None).await;
    assert_eq!(status, 403, "{v}");
    assert_error(&v, "WALLET_HIDDEN");

    // Profiles: a signed name and avatar, shown on comments; names unique, reserved words refused.
    let domain = p.domain().to_string();
    let url = |w: &Keypair| format!("{}/launchpad/profiles/{}", s.base, w.pubkey());
    let (status, v) = get(&http, &url(&buyer)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (v["name"].clone(), v["launchCount"].clone()),
        (Value::Null, json!(0))
    );
    let avatar = png(600, 300);
    let body = profile_body(&domain, &buyer, &buyer, "  Ｄｅｇｅｎ  Ape ", Some(&avatar));
    let (status, v) = put(&http, &url(&buyer), &body).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["name"], "Degen Ape");
    let avatar_url = v["avatar"].as_str().unwrap().to_string();
    let served = http.get(&avatar_url).send().await.unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()["content-type"], "image/png");
    let bytes = served.bytes().await.unwrap();
    assert!(avatar_url.ends_with(&hex::encode(Sha256::digest(&bytes))));
    let img = image::load_from_memory(&bytes).unwrap();
    assert_eq!(
        (img.width(), img.height()),
        (256, 128),
        "re-encoded and scaled"
    );
    let (status, v) = put(&http, &url(&buyer), &body).await;
    assert_eq!(status, 409, "a replayed profile: {v}");
    assert_error(&v, "NONCE_USED");
    for (name, status, code) in [
        ("DEGEN APE", 409, "NAME_TAKEN"),
        ("ADM1N", 400, "NAME_RESERVED"),
        ("Suppоrt Desk", 400, "NAME_RESERVED"),
        ("<b>bold</b>", 400, "MARKUP_NOT_ALLOWED"),
        ("x", 400, "INVALID_DISPLAY_NAME"),
    ] {
        let (got, v) = put(
            &http,
            &url(&creator),
            &profile_body(&domain, &creator, &creator, name, None),
        )
        .await;
        assert_eq!(got, status, "{name}: {v}");
        assert_error(&v, code);
    }
    let (status, v) = put(
        &http,
        &url(&creator),
        &profile_body(&domain, &creator, &stranger, "Creator Person", None),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert_error(&v, "MESSAGE_SIGNATURE_INVALID");
    let (status, v) = get(&http, &url(&creator)).await;
    assert_eq!(status, 200);
    assert_eq!(v["name"], Value::Null, "nothing stored: {v}");
    assert_eq!(v["launchCount"], 1);
    assert_eq!(v["launches"][0]["mint"], mint);
    let (status, v) = put(
        &http,
        &url(&creator),
        &profile_body(&domain, &creator, &creator, "Creator Person", None),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    // Names on comments and replies, and for many wallets at once.
    let newest = p.list("?limit=100").await;
    let by_buyer = newest["comments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == first_id)
        .unwrap();
    assert_eq!(by_buyer["name"], "Degen Ape");
    assert_eq!(by_buyer["avatar"], avatar_url.as_str());
    assert_eq!(by_buyer["replies"][0]["name"], "Creator Person");
    let (status, v) = get(
        &http,
        &format!(
            "{}/launchpad/profiles?wallets={},{},{}",
            s.base,
            buyer.pubkey(),
            creator.pubkey(),
            stranger.pubkey()
        ),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let names: Vec<&str> = v["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"Degen Ape") && names.contains(&"Creator Person"));
    // A new comment carries the name on the feed too.
    assert_eq!(p.post(&buyer, "named now", None).await.0, 201);
    loop {
        let e = next_comment(&mut feed, &mut buf).await;
        if e["text"] == "named now" {
            assert_eq!(e["name"], "Degen Ape");
            break;
        }
    }
    let _ = s.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn comments_and_profiles_on_sqlite() {
    community(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn comments_and_profiles_on_postgres() {
    community(true).await;
}
