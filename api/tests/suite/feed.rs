//! The live feed through real connections against a running stack (localnet streaming over gRPC, indexer,
//! API), on SQLite and PostgreSQL, with a WebSocket client (tokio-tungstenite) and an HTTP client reading
//! Server-Sent Events (reqwest): subscribers receive exactly the launches and trades that happen, in order,
//! once, with REST's numbers; a client cut mid-run resumes by sequence number and ends with the complete
//! list; two API processes on one PostgreSQL deliver the same sequence; a client that stops reading is
//! told so and dropped while another keeps receiving; malformed control messages get errors and the
//! connection stays usable; a resume point older than what is kept gets 410.

use crate::common;

use api::process::config::ApiConfig;
use common::*;
use futures::{SinkExt, StreamExt};
use localnet::testkit::{self, SOL};
use serde_json::{json, Value};
use solana_signer::Signer;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

pub(crate) const WAIT: Duration = Duration::from_secs(30);

fn ws_url(base: &str, query: &str) -> String {
    format!("{}/launchpad/ws{query}", base.replacen("http", "ws", 1))
}

pub(crate) async fn ws(
    base: &str,
    query: &str,
) -> WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    tokio_tungstenite::connect_async(ws_url(base, query))
        .await
        .unwrap()
        .0
}

async fn send_text<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut WebSocketStream<S>, text: &str) {
    ws.send(Message::Text(text.into())).await.unwrap();
}

async fn send<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut WebSocketStream<S>, v: Value) {
    send_text(ws, &v.to_string()).await;
}

/// The next JSON message within `wait` (pings and pongs skipped); `None` on timeout, close or error.
pub(crate) async fn recv<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
    wait: Duration,
) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return Some(serde_json::from_str(&t).unwrap()),
            Ok(Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)))) => continue,
            _ => return None,
        }
    }
}

/// Subscribes and returns the acknowledgement.
pub(crate) async fn subscribe<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
    sub: Value,
) -> Value {
    let id = sub["id"].clone();
    let mut msg = sub.as_object().unwrap().clone();
    msg.insert("op".into(), "subscribe".into());
    send(ws, Value::Object(msg)).await;
    let ack = recv(ws, WAIT).await.expect("no acknowledgement");
    assert_eq!(ack["type"], "subscribed", "{ack}");
    if !id.is_null() {
        assert_eq!(ack["id"], id);
    }
    ack
}

/// `n` event messages, in order.
pub(crate) async fn events<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
    n: usize,
) -> Vec<Value> {
    let mut out = Vec::new();
    while out.len() < n {
        let v = recv(ws, WAIT)
            .await
            .unwrap_or_else(|| panic!("only {} of {n} events: {out:?}", out.len()));
        assert!(v.get("type").is_none(), "an event, not {v}");
        out.push(v);
    }
    out
}

/// A Server-Sent Events stream read with reqwest.
pub(crate) struct Sse {
    response: reqwest::Response,
    buf: String,
}

/// One SSE event: its `event`, `id` and parsed `data`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SseEvent {
    pub(crate) event: String,
    pub(crate) id: Option<i64>,
    pub(crate) data: Value,
}

impl Sse {
    pub(crate) async fn open(
        http: &reqwest::Client,
        url: &str,
        last_event_id: Option<i64>,
    ) -> Result<Sse, (u16, Value)> {
        let mut req = http.get(url);
        if let Some(id) = last_event_id {
            req = req.header("Last-Event-ID", id.to_string());
        }
        let response = req.send().await.unwrap();
        if response.status() != 200 {
            let status = response.status().as_u16();
            return Err((status, response.json().await.unwrap_or(Value::Null)));
        }
        assert!(response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream"));
        Ok(Sse {
            response,
            buf: String::new(),
        })
    }

    /// The next event (comments skipped) within `wait`.
    pub(crate) async fn next(&mut self, wait: Duration) -> Option<SseEvent> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(i) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..i + 2).collect();
                let (mut event, mut id, mut data) = (String::from("message"), None, None);
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event: ") {
                        event = v.into();
                    } else if let Some(v) = line.strip_prefix("id: ") {
                        id = Some(v.parse().unwrap());
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data = Some(serde_json::from_str(v).unwrap());
                    }
                }
                match data {
                    Some(data) => return Some(SseEvent { event, id, data }),
                    None => continue,
                }
            }
            match tokio::time::timeout_at(deadline, self.response.chunk()).await {
                Ok(Ok(Some(bytes))) => self.buf.push_str(&String::from_utf8_lossy(&bytes)),
                _ => return None,
            }
        }
    }

    pub(crate) async fn take(&mut self, n: usize) -> Vec<SseEvent> {
        let mut out = Vec::new();
        while out.len() < n {
            let e = self
                .next(WAIT)
                .await
                .unwrap_or_else(|| panic!("only {} of {n} SSE events", out.len()));
            out.push(e);
        }
        out
    }
}

fn seqs(events: &[Value]) -> Vec<i64> {
    events.iter().map(|e| e["seq"].as_i64().unwrap()).collect()
}

fn assert_increasing(events: &[Value]) {
    let s = seqs(events);
    assert!(
        s.windows(2).all(|w| w[0] < w[1]),
        "seq strictly increasing: {s:?}"
    );
}

/// Every trade of `mint` over REST, oldest first.
async fn rest_trades(s: &Stack, http: &reqwest::Client, mint: &str) -> Vec<Value> {
    let (status, page) = get(
        http,
        &format!("{}/launchpad/trades/{mint}?limit=100", s.base),
    )
    .await;
    assert_eq!(status, 200, "{page}");
    let mut trades = page["trades"].as_array().unwrap().clone();
    trades.reverse();
    trades
}

/// A trade event carries the REST entry's fields with the same values.
fn assert_same_trade(event: &Value, rest: &Value) {
    assert_eq!(event["kind"], "trade", "{event}");
    for (k, v) in rest.as_object().unwrap() {
        assert_eq!(&event[k], v, "field {k} of {event} vs {rest}");
    }
}

async fn feed(postgres: bool) {
    let s = stack(postgres, 1_000_000).await;
    let http = reqwest::Client::new();
    let rpc = s.rpc();

    // Bad parameters: 400 in the envelope before any stream starts.
    for (query, code) in [
        ("kinds=bogus", "INVALID_PARAMS"),
        ("mints=xyz", "INVALID_ADDRESS"),
        ("wallets=1,2", "INVALID_ADDRESS"),
        ("since=-1", "INVALID_PARAMS"),
        ("since=abc", "INVALID_PARAMS"),
        ("since=99999999", "INVALID_PARAMS"),
    ] {
        let url = format!("{}/launchpad/stream?{query}", s.base);
        let (status, body) = Sse::open(&http, &url, None).await.err().unwrap();
        assert_eq!(status, 400, "{query}: {body}");
        assert_error(&body, code);
    }
    let (status, body) = get(&http, &format!("{}/launchpad/ws", s.base)).await;
    assert_eq!(status, 400, "{body}");
    assert_error(&body, "INVALID_PARAMS");
    // Both endpoints are in the OpenAPI document.
    let (_, doc) = get(&http, &format!("{}/openapi.json", s.base)).await;
    let stream = &doc["paths"]["/launchpad/stream"]["get"];
    assert!(
        stream["responses"]["200"]["content"]["text/event-stream"].is_object(),
        "{stream}"
    );
    assert!(stream["responses"]["410"].is_object());
    assert!(doc["paths"]["/launchpad/ws"]["get"]["responses"]["101"].is_object());

    // A subscriber to new launches.
    let mut watcher = ws(&s.base, "").await;
    subscribe(&mut watcher, json!({ "id": "new", "kinds": ["launch"] })).await;

    // Malformed control messages get errors; the connection stays usable.
    let mut control = ws(&s.base, "").await;
    for (text, code) in [
        ("not json", "INVALID_JSON"),
        (r#"{"op":"jump"}"#, "INVALID_PARAMS"),
        (r#"{"op":"subscribe","kinds":["bogus"]}"#, "INVALID_PARAMS"),
        (r#"{"op":"subscribe","kinds":"trade"}"#, "INVALID_PARAMS"),
        (r#"{"op":"subscribe","mints":["xyz"]}"#, "INVALID_ADDRESS"),
        (r#"{"op":"subscribe","mint":["xyz"]}"#, "INVALID_PARAMS"),
        (r#"{"op":"subscribe","since":-5}"#, "INVALID_PARAMS"),
        (r#"{"op":"unsubscribe","id":"none"}"#, "NOT_FOUND"),
        (r#"[1,2]"#, "INVALID_PARAMS"),
    ] {
        send_text(&mut control, text).await;
        let v = recv(&mut control, WAIT).await.expect("an error message");
        assert_eq!(v["type"], "error", "{text}: {v}");
        assert_error(&v, code);
    }
    control
        .send(Message::Binary(vec![1, 2, 3].into()))
        .await
        .unwrap();
    let v = recv(&mut control, WAIT).await.unwrap();
    assert_error(&v, "INVALID_JSON");
    // At most 16 subscriptions per connection; an error names the message's id.
    for i in 0..16 {
        subscribe(
            &mut control,
            json!({ "id": format!("c{i}"), "kinds": ["claim"] }),
        )
        .await;
    }
    send(&mut control, json!({ "op": "subscribe", "id": "one-more" })).await;
    let v = recv(&mut control, WAIT).await.unwrap();
    assert_error(&v, "TOO_MANY_SUBSCRIPTIONS");
    assert_eq!(v["id"], "one-more");
    for i in 0..16 {
        send(
            &mut control,
            json!({ "op": "unsubscribe", "id": format!("c{i}") }),
        )
        .await;
        let v = recv(&mut control, WAIT).await.unwrap();
        assert_eq!(v["type"], "unsubscribed", "{v}");
    }
    send(&mut control, json!({ "op": "ping" })).await;
    assert_eq!(recv(&mut control, WAIT).await.unwrap()["type"], "pong");
    let ack = subscribe(&mut control, json!({ "kinds": ["launch"] })).await;
    assert_eq!(ack["id"], "s1");

    // A launch reaches both.
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, launch_sig) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 7, "FEED")
        .await
        .unwrap();
    let mint = keys.mint.to_string();
    let launch = events(&mut watcher, 1).await.remove(0);
    assert_eq!(launch["kind"], "launch");
    assert_eq!(launch["mint"], mint);
    assert_eq!(launch["signature"], launch_sig.to_string());
    assert_eq!(launch["creator"], creator.pubkey().to_string());
    assert_eq!(launch["symbol"], "FEED");
    assert_eq!(launch["name"], "FEED Token");
    assert_eq!(launch["pool"], keys.pool.to_string());
    assert_eq!(launch["quoteMint"], sdk::ids::NATIVE_MINT.to_string());
    assert_eq!(launch["preset"], "fair");
    assert!(launch["slot"].as_u64().unwrap() > 0 && launch["time"].as_i64().unwrap() > 0);
    assert_eq!(events(&mut control, 1).await, vec![launch.clone()]);

    // Then one mint's trades (WebSocket), everything of the mint (SSE), and an SSE client cut mid-run.
    subscribe(
        &mut watcher,
        json!({ "id": "trades", "kinds": ["trade"], "mints": [mint] }),
    )
    .await;
    let stream_url = format!("{}/launchpad/stream?mints={mint}", s.base);
    let mut sse_all = Sse::open(&http, &stream_url, None).await.unwrap();
    let mut sse_cut = Sse::open(&http, &stream_url, None).await.unwrap();

    trade_through_migration(&rpc, &keys).await;
    testkit::claim_trading_fee(&rpc, &keys, &creator)
        .await
        .unwrap();
    s.wait_indexed().await;
    let rest = rest_trades(&s, &http, &mint).await;
    assert_eq!(rest.len(), TRADES_THROUGH_MIGRATION);

    // The WebSocket got exactly REST's trades, in order, once, and nothing else.
    let trades = events(&mut watcher, rest.len()).await;
    assert_increasing(&trades);
    for (e, t) in trades.iter().zip(&rest) {
        assert_same_trade(e, t);
        assert_eq!(e["mint"], mint);
        match t["venue"].as_str().unwrap() {
            "curve" => assert!(e["progressBps"].as_u64().unwrap() <= 10_000),
            _ => assert!(e["progressBps"].is_null()),
        }
    }
    assert!(recv(&mut watcher, Duration::from_secs(2)).await.is_none());

    // SSE: every event of the mint: 6 curve trades each followed by the curve's state, the graduation,
    // the migration, 2 AMM trades and the claim.
    let all: Vec<SseEvent> = sse_all.take(6 * 2 + 2 + 2 + 1).await;
    let data: Vec<Value> = all.iter().map(|e| e.data.clone()).collect();
    assert_increasing(&data);
    for e in &all {
        assert_eq!(e.id, e.data["seq"].as_i64());
        assert_eq!(e.event, e.data["kind"].as_str().unwrap());
        assert_eq!(e.data["mint"], mint);
    }
    let sse_trades: Vec<Value> = data
        .iter()
        .filter(|e| e["kind"] == "trade")
        .cloned()
        .collect();
    assert_eq!(
        sse_trades, trades,
        "SSE and WebSocket carry the same trade events"
    );
    let curves: Vec<&Value> = data.iter().filter(|e| e["kind"] == "curve").collect();
    assert_eq!(curves.len(), 6);
    for (c, t) in curves.iter().zip(&trades) {
        assert_eq!(c["signature"], t["signature"]);
        assert_eq!(c["price"], t["priceAfter"]);
        assert_eq!(c["progressBps"], t["progressBps"]);
    }
    assert_eq!(curves[5]["progressBps"], 10_000);
    let (_, curve) = get(&http, &format!("{}/launchpad/curve/{mint}", s.base)).await;
    assert_eq!(curves[5]["quoteRaised"], curve["quoteRaised"]);
    let kinds: Vec<&str> = data.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds[10..],
        ["trade", "curve", "complete", "migrate", "trade", "trade", "claim"]
    );
    let migrate = &data[13];
    assert_eq!(migrate["ammPool"], keys.amm_keys().pool.to_string());
    assert_eq!(migrate["pool"], keys.pool.to_string());
    let claim = &data[16];
    assert_eq!(claim["wallet"], creator.pubkey().to_string());
    assert_eq!(claim["claimKind"], "trading");
    assert!(claim["amount"].as_str().unwrap().parse::<u64>().unwrap() > 0);
    assert!(sse_all.next(Duration::from_secs(2)).await.is_none());

    // The cut client read 3 events, went away, and resumes with Last-Event-ID: the complete list.
    let mut got = sse_cut.take(3).await;
    drop(sse_cut);
    let mut resumed = Sse::open(&http, &stream_url, got[2].id).await.unwrap();
    got.extend(resumed.take(all.len() - 3).await);
    assert_eq!(got, all);
    assert!(resumed.next(Duration::from_secs(2)).await.is_none());

    // `?since=` on the WebSocket, and `since` in a subscribe message, replay the same.
    let first = data[0]["seq"].as_i64().unwrap();
    let mut late = ws(&s.base, &format!("?since={}", first - 1)).await;
    subscribe(&mut late, json!({ "mints": [mint] })).await;
    assert_eq!(events(&mut late, data.len()).await, data);
    let ack = subscribe(
        &mut control,
        json!({ "id": "replay", "mints": [mint], "since": first - 1 }),
    )
    .await;
    assert_eq!(ack["since"], first - 1);
    assert_eq!(events(&mut control, data.len()).await, data);

    // A resume point older than what is kept: 410, re-read over REST.
    let store = index::Store::open(&s.db).await.unwrap();
    assert!(store.prune_feed(i64::MAX).await.unwrap() > 0);
    let (status, body) = Sse::open(&http, &format!("{stream_url}&since=0"), None)
        .await
        .err()
        .unwrap();
    assert_eq!(status, 410, "{body}");
    assert_error(&body, "RESUME_TOO_OLD");
    match tokio_tungstenite::connect_async(ws_url(&s.base, "?since=0")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 410),
        other => panic!("expected 410, got {other:?}"),
    }
    send(
        &mut control,
        json!({ "op": "subscribe", "id": "old", "since": 0 }),
    )
    .await;
    let v = recv(&mut control, WAIT).await.unwrap();
    assert_error(&v, "RESUME_TOO_OLD");
    assert_eq!(v["id"], "old");
    let _ = s.stop.send(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn feed_on_sqlite() {
    feed(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn feed_on_postgres() {
    feed(true).await;
}

/// Two API processes on one PostgreSQL index, each woken only by `NOTIFY` (their safety-net poll is far
/// longer than the test), deliver the same events in the same order.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_api_processes_deliver_identical_sequences() {
    let no_poll = |c: ApiConfig| ApiConfig {
        feed_poll_ms: 600_000,
        ..c
    };
    let s = stack_configured(true, no_poll).await;
    let other = replica(&s, no_poll, None).await;
    let rpc = s.rpc();
    let mut a = ws(&s.base, "").await;
    let mut b = ws(&other, "").await;
    subscribe(&mut a, json!({})).await;
    subscribe(&mut b, json!({})).await;
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 9, "TWO")
        .await
        .unwrap();
    let buyer = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    for i in 1..=3 {
        testkit::buy(&rpc, &keys, &buyer, i * SOL / 10)
            .await
            .unwrap();
    }
    testkit::claim_trading_fee(&rpc, &keys, &creator)
        .await
        .unwrap();
    // The launch, 3 trades with their curve states, the claim.
    let from_a = events(&mut a, 8).await;
    let from_b = events(&mut b, 8).await;
    assert_eq!(from_a, from_b);
    assert_increasing(&from_a);
    let kinds: Vec<&str> = from_a.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["launch", "trade", "curve", "trade", "curve", "trade", "curve", "claim"]
    );
    assert!(recv(&mut b, Duration::from_secs(2)).await.is_none());
    let _ = s.stop.send(true);
}

/// A client that stops reading (a tiny receive window, on an API whose sockets have small send buffers,
/// as on a slow network) is told it fell behind, with where to resume, and dropped; another client on the
/// same API receives everything; the dropped one resumes from its last sequence number and ends with the
/// complete list.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_client_that_stops_reading_is_dropped_while_others_keep_receiving() {
    let s = stack(false, 1_000_000).await;
    let base = replica(
        &s,
        |c| ApiConfig {
            feed_send_timeout_ms: 300,
            feed_poll_ms: 100,
            ..c
        },
        Some(4_096),
    )
    .await;
    let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(2_048).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let (mut slow, _) = tokio_tungstenite::client_async(ws_url(&base, ""), stream)
        .await
        .unwrap();
    let mut fast = ws(&base, "").await;
    subscribe(&mut slow, json!({})).await;
    subscribe(&mut fast, json!({})).await;

    let rpc = s.rpc();
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 11, "SLOW")
        .await
        .unwrap();
    let mut buyers = Vec::new();
    for _ in 0..8 {
        buyers.push(testkit::funded(&rpc, SOL).await.unwrap());
    }
    let rounds = 6;
    for _ in 0..rounds {
        futures::future::join_all(
            buyers
                .iter()
                .map(|b| testkit::buy(&rpc, &keys, b, SOL / 100)),
        )
        .await
        .into_iter()
        .for_each(|r| {
            r.unwrap();
        });
    }
    let total = 1 + 2 * rounds * buyers.len();
    let everything = events(&mut fast, total).await;
    assert_increasing(&everything);

    // The slow client now reads: what its buffers held, then the notice, then the end.
    let mut held = Vec::new();
    let notice = loop {
        let v = recv(&mut slow, WAIT)
            .await
            .expect("the slow-consumer notice");
        if v.get("type").is_some() {
            break v;
        }
        held.push(v);
    };
    assert_eq!(notice["type"], "lagged", "{notice}");
    assert_error(&notice, "SLOW_CONSUMER");
    assert!(
        recv(&mut slow, WAIT).await.is_none(),
        "closed after the notice"
    );
    assert!(held.len() < total, "dropped before the end");
    let last = notice["lastSeq"].as_i64().unwrap();
    // Events after `lastSeq` may have reached it (up to one write: 256 events), never more.
    assert!(held
        .iter()
        .all(|e| e["seq"].as_i64().unwrap() <= last + 256));

    // Resuming from there ends with the complete list (events it may hold already are dropped by seq).
    let mut again = ws(&base, &format!("?since={last}")).await;
    subscribe(&mut again, json!({})).await;
    let rest = events(
        &mut again,
        everything
            .iter()
            .filter(|e| e["seq"].as_i64().unwrap() > last)
            .count(),
    )
    .await;
    let mut combined: Vec<Value> = held
        .into_iter()
        .filter(|e| e["seq"].as_i64().unwrap() <= last)
        .collect();
    combined.extend(rest);
    assert_eq!(combined, everything);
    let _ = s.stop.send(true);
}

type Ws = WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A WebSocket feed connection to `base` as `client` (behind the trusted proxy, its forwarding header).
async fn ws_as(base: &str, client: &str) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = ws_url(base, "").into_client_request().unwrap();
    req.headers_mut()
        .insert("x-forwarded-for", client.parse().unwrap());
    tokio_tungstenite::connect_async(req).await.map(|c| c.0)
}

/// `client`'s WebSocket and SSE connections are both refused with `status` and `code`.
async fn both_refused(base: &str, client: &str, status: u16, code: &str) {
    match ws_as(base, client).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
            assert_eq!(r.status(), status);
            let body: Value = serde_json::from_slice(r.body().as_deref().unwrap()).unwrap();
            assert_error(&body, code);
        }
        other => panic!("expected {status}, got {other:?}"),
    }
    let r = reqwest::Client::new()
        .get(format!("{base}/launchpad/stream"))
        .header("x-forwarded-for", client)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), status);
    assert_error(&r.json().await.unwrap(), code);
}

/// Closes `open` and waits until `client` connects again (the closed connection freed its place).
async fn freed(base: &str, mut open: Ws, client: &str) {
    open.close(None).await.unwrap();
    let start = std::time::Instant::now();
    loop {
        match ws_as(base, client).await {
            Ok(_) => return,
            Err(e) => assert!(start.elapsed() < WAIT, "never freed: {e:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Open feed connections are capped per client address, the address the rate limits use (behind a trusted
/// proxy, the client its forwarding header names); a closed connection frees its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn feed_connections_are_capped_per_client_address() {
    let s = stack(false, 1_000_000).await;
    let base = replica(
        &s,
        |c| ApiConfig {
            feed_max_connections: 2,
            trusted_proxies: vec!["127.0.0.1/32".parse().unwrap()],
            ..c
        },
        None,
    )
    .await;
    let first = ws_as(&base, "203.0.113.1").await.unwrap();
    let _second = ws_as(&base, "203.0.113.1").await.unwrap();
    // WebSocket and SSE count together; another client is not affected.
    both_refused(&base, "203.0.113.1", 429, "TOO_MANY_CONNECTIONS").await;
    let _other = ws_as(&base, "203.0.113.2").await.unwrap();
    freed(&base, first, "203.0.113.1").await;
    let _ = s.stop.send(true);
}

/// Open feed connections are capped per process too, all clients together: many addresses (a /64 of IPv6, a
/// botnet) cannot exhaust a replica. Past the cap a new connection gets 503 `FEED_FULL`; a closed one frees a
/// place.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn feed_connections_are_capped_per_process() {
    let s = stack(false, 1_000_000).await;
    let base = replica(
        &s,
        |c| ApiConfig {
            feed_max_connections: 10,
            feed_max_total_connections: 3,
            trusted_proxies: vec!["127.0.0.1/32".parse().unwrap()],
            ..c
        },
        None,
    )
    .await;
    let mut open = Vec::new();
    for i in 1..=3 {
        open.push(ws_as(&base, &format!("198.51.100.{i}")).await.unwrap());
    }
    both_refused(&base, "198.51.100.9", 503, "FEED_FULL").await;
    freed(&base, open.pop().unwrap(), "198.51.100.9").await;
    let _ = s.stop.send(true);
}
