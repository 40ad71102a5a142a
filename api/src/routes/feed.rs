//! `GET /launchpad/stream` (Server-Sent Events) and `GET /launchpad/ws` (WebSocket): the live feed of
//! launches, trades, curve progress, graduations, migrations and claims, in commit order, resumable by
//! sequence number (see `docs/live-feed.md`).

use crate::error::{ApiError, ErrorCode};
use crate::extract::ApiQuery;
use crate::feed::{lagged_message, list, Admission, FeedEvent, Filter, Follower, Hub, Next};
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::header;
use axum::http::{Extensions, HeaderMap};
use axum::response::{IntoResponse, Response};
use futures::SinkExt;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use utoipa::IntoParams;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Keep-alives: an SSE comment (`: ping`) and a WebSocket ping this often.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How long a WebSocket client that fell behind has to take the message telling it so.
pub const SLOW_GRACE: Duration = Duration::from_secs(30);

/// Largest WebSocket message a client may send.
const MAX_CONTROL_BYTES: usize = 16 * 1024;

/// Bytes a WebSocket reads at a time. Control messages are small and rare; tungstenite zero-fills this much
/// of its read buffer on every poll of the connection (each time an event wakes the session), and its default
/// (128 KiB) made that half of the server's time in the feed bench and 128 KiB of each connection's memory.
const READ_BUFFER_BYTES: usize = 4 * 1024;

/// Events written to a WebSocket before one flush at most (those already received when one arrives).
const MAX_BATCH: usize = 256;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Comma-separated subset of `launch,trade,curve,complete,migrate,claim,comment,creator,fee-shares`; default all.
    pub kinds: Option<String>,
    /// Comma-separated mints: only their events.
    pub mints: Option<String>,
    /// Comma-separated wallets: only the events by them (trades, claims, comments, creator and fee-share changes).
    pub wallets: Option<String>,
    /// Resume: events with `seq` greater than this (the `Last-Event-ID` header wins when both are sent).
    pub since: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WsQuery {
    /// Resume: the connection's subscriptions receive events with `seq` greater than this.
    pub since: Option<String>,
}

fn parse_since(value: Option<&str>, what: &str) -> Result<Option<i64>, ApiError> {
    value
        .map(|v| {
            v.trim()
                .parse::<i64>()
                .ok()
                .filter(|s| *s >= 0)
                .ok_or_else(|| ApiError::invalid(format!("`{what}` must be a sequence number")))
        })
        .transpose()
}

/// The client's address (the trusted-proxy rules of the rate limits).
fn client(
    state: &AppState,
    headers: &HeaderMap,
    extensions: &Extensions,
) -> Option<std::net::IpAddr> {
    crate::http::layers::client_of(&state.config, headers, extensions)
}

/// Validates the resume point and counts the connection; the follower starts here.
async fn open(
    state: &AppState,
    headers: &HeaderMap,
    extensions: &Extensions,
    since: Option<i64>,
) -> Result<(Arc<Hub>, Follower, Admission), ApiError> {
    let hub = state.feed().await?;
    if let Some(s) = since {
        hub.check_since(s).await?;
    }
    let admission = hub
        .admit(client(state, headers, extensions))
        .map_err(|refusal| match refusal {
            crate::feed::Refusal::PerClient => ApiError::new(ErrorCode::TooManyConnections,
                format!(
                    "at most {} feed connections per client are open at once",
                    state.config.feed_max_connections
                ),
            ),
            crate::feed::Refusal::Full => ApiError::new(ErrorCode::FeedFull,
                format!(
                    "this replica serves {} feed connections already: retry shortly (another replica may take it)",
                    state.config.feed_max_total_connections
                ),
            ),
        })?;
    let follower = hub.follow(since);
    Ok((hub, follower, admission))
}

#[utoipa::path(
    get,
    path = "/launchpad/stream",
    params(
        StreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this `seq` (browsers send it on reconnect)"),
    ),
    responses(
        (status = 200, content_type = "text/event-stream", body = String,
         description = "Events as `id: <seq>`, `event: <kind>`, `data: <event JSON>`; `: ping` every 15 s; a client \
                        too far behind gets `event: lagged` and the stream ends"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_PARAMS or INVALID_ADDRESS (kinds, mints, wallets, since)"),
        (status = 410, body = crate::error::ErrorBody, description = "RESUME_TOO_OLD: re-read the state over REST"),
        (status = 429, body = crate::error::ErrorBody, description = "TOO_MANY_CONNECTIONS or RATE_LIMITED"),
        (status = 503, body = crate::error::ErrorBody, description = "FEED_FULL (this replica has --feed-max-total-connections open) or UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn stream(
    State(state): State<AppState>,
    headers: HeaderMap,
    extensions: Extensions,
    ApiQuery(q): ApiQuery<StreamQuery>,
) -> Result<Response, ApiError> {
    let filter = Filter::parse(
        list(q.kinds.as_deref()),
        list(q.mints.as_deref()),
        list(q.wallets.as_deref()),
        state.config.feed_max_filter_values,
    )?;
    let since = match headers.get("last-event-id") {
        Some(v) => parse_since(Some(v.to_str().unwrap_or("?")), "Last-Event-ID")?,
        None => parse_since(q.since.as_deref(), "since")?,
    };
    let (_, follower, admission) = open(&state, &headers, &extensions, since).await?;
    let closing = state.closing.subscribe();
    // Each event goes out as the frame the hub made once for every connection (a clone is a reference
    // count); hyper writes the frames at hand together. `: ping` every KEEP_ALIVE, on one timer per stream.
    let ping = Box::pin(tokio::time::sleep(KEEP_ALIVE));
    let events = futures::stream::unfold(
        Some((follower, filter, admission, closing, ping)),
        |open| async move {
            let (mut follower, filter, admission, mut closing, mut ping) = open?;
            loop {
                let next = tokio::select! {
                    next = follower.next() => next,
                    () = &mut ping => {
                        ping.as_mut().reset(tokio::time::Instant::now() + KEEP_ALIVE);
                        return Some((
                            Ok::<_, Infallible>(Bytes::from_static(SSE_PING)),
                            Some((follower, filter, admission, closing, ping)),
                        ));
                    }
                    changed = closing.changed() => {
                        if changed.is_ok() && !*closing.borrow_and_update() {
                            continue;
                        }
                        let last = follower.last();
                        return Some((Ok(sse_frame("shutdown", &shutdown_message(last))), None));
                    }
                };
                let frame = match next {
                    Ok(Next::Event(e)) if filter.matches(&e) => {
                        crate::feed::series().sent.increment(1);
                        e.sse.clone()
                    }
                    Ok(Next::Event(_)) => continue,
                    Ok(Next::Lagged) => {
                        crate::feed::series().lagged.increment(1);
                        let last = follower.last();
                        return Some((Ok(sse_frame("lagged", &lagged_message(last))), None));
                    }
                    Err(e) => {
                        return Some((Ok(sse_frame("error", &error_message(None, &e))), None))
                    }
                };
                return Some((
                    Ok(frame),
                    Some((follower, filter, admission, closing, ping)),
                ));
            }
        },
    );
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(events),
    )
        .into_response())
}

/// The keep-alive comment.
const SSE_PING: &[u8] = b": ping\n\n";

/// A control frame (`shutdown`, `lagged`, `error`): made for one connection, rarely.
fn sse_frame(event: &str, data: &Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

#[utoipa::path(
    get,
    path = "/launchpad/ws",
    params(WsQuery),
    responses(
        (status = 101, description = "Switching Protocols: a WebSocket carrying JSON control messages \
                                      (`subscribe`, `unsubscribe`, `ping`) and event objects (see docs/live-feed.md)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_PARAMS (not a WebSocket upgrade, since)"),
        (status = 410, body = crate::error::ErrorBody, description = "RESUME_TOO_OLD: re-read the state over REST"),
        (status = 429, body = crate::error::ErrorBody, description = "TOO_MANY_CONNECTIONS or RATE_LIMITED"),
        (status = 503, body = crate::error::ErrorBody, description = "FEED_FULL (this replica has --feed-max-total-connections open) or UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn ws(
    State(state): State<AppState>,
    headers: HeaderMap,
    extensions: Extensions,
    ApiQuery(q): ApiQuery<WsQuery>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = upgrade.map_err(|r| {
        ApiError::new(
            ErrorCode::InvalidParams,
            format!("not a WebSocket upgrade: {}", r.body_text()),
        )
    })?;
    let since = parse_since(q.since.as_deref(), "since")?;
    let (hub, follower, admission) = open(&state, &headers, &extensions, since).await?;
    let limits = Limits {
        max_subscriptions: state.config.feed_max_subscriptions,
        max_filter_values: state.config.feed_max_filter_values,
        send_timeout: Duration::from_millis(state.config.feed_send_timeout_ms),
    };
    let closing = state.closing.subscribe();
    Ok(upgrade
        .max_message_size(MAX_CONTROL_BYTES)
        .read_buffer_size(READ_BUFFER_BYTES)
        .on_upgrade(move |socket| async move {
            Session {
                socket,
                hub,
                follower,
                subscriptions: BTreeMap::new(),
                named: 0,
                limits,
                closing,
            }
            .run()
            .await;
            drop(admission);
        }))
}

#[derive(Debug, Clone, Copy)]
struct Limits {
    max_subscriptions: usize,
    max_filter_values: usize,
    send_timeout: Duration,
}

/// Whether `write` completes without error within `limit`. A write the socket takes at once (the usual case)
/// completes without a timer: registering one per write and subscriber was a visible share of a fan-out.
async fn within<E>(
    limit: Duration,
    write: impl std::future::Future<Output = Result<(), E>>,
) -> bool {
    let mut write = std::pin::pin!(write);
    if let Some(done) = futures::FutureExt::now_or_never(write.as_mut()) {
        return done.is_ok();
    }
    matches!(tokio::time::timeout(limit, write).await, Ok(Ok(())))
}

/// A control message from the client.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum Control {
    Subscribe {
        id: Option<String>,
        kinds: Option<Vec<String>>,
        mints: Option<Vec<String>>,
        wallets: Option<Vec<String>>,
        since: Option<i64>,
    },
    Unsubscribe {
        id: String,
    },
    Ping,
}

/// An error message: the spec's envelope, with the control message's `id` when it had one.
/// The last word of a stream the server closes to shut down: where to resume.
fn shutdown_message(last: i64) -> Value {
    json!({
        "type": "shutdown",
        "lastSeq": last,
        "message": format!(
            "the server is shutting down: reconnect (to another replica) with Last-Event-ID or since={last}"
        ),
    })
}

fn error_message(id: Option<&str>, e: &ApiError) -> Value {
    let mut v = json!({ "type": "error", "error": { "message": e.message, "code": e.code } });
    if let Some(id) = id {
        v["id"] = id.into();
    }
    v
}

struct Session {
    socket: WebSocket,
    hub: Arc<Hub>,
    follower: Follower,
    subscriptions: BTreeMap<String, Filter>,
    /// Subscriptions named by the server so far (`s1`, `s2`, ...).
    named: u64,
    limits: Limits,
    /// Turns true when the server shuts down.
    closing: tokio::sync::watch::Receiver<bool>,
}

impl Session {
    async fn run(mut self) {
        let mut ping =
            tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
        let mut closing = self.closing.clone();
        loop {
            tokio::select! {
                msg = self.socket.recv() => {
                    let reply = match msg {
                        None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                        Some(Ok(Message::Text(t))) => self.control(t.as_str()).await,
                        Some(Ok(Message::Binary(_))) => error_message(
                            None,
                            &ApiError::new(ErrorCode::InvalidJson, "control messages are JSON text"),
                        ),
                        Some(Ok(_)) => continue,
                    };
                    if !self.send(Message::Text(reply.to_string().into())).await {
                        return;
                    }
                }
                // Without a subscription the connection holds its place (a `since` waits for the first one).
                next = self.follower.next(), if !self.subscriptions.is_empty() => match next {
                    Ok(Next::Event(e)) => {
                        // The events already at hand go out in one write.
                        let mut batch = vec![e];
                        let mut lagged = false;
                        while batch.len() < MAX_BATCH {
                            match self.follower.try_next() {
                                Some(Next::Event(e)) => batch.push(e),
                                Some(Next::Lagged) => {
                                    lagged = true;
                                    break;
                                }
                                None => break,
                            }
                        }
                        if !self.send_events(&batch).await {
                            // Some events may not have gone out: resume before the first.
                            return self.drop_slow(batch[0].seq - 1).await;
                        }
                        if lagged {
                            let last = self.follower.last();
                            return self.drop_slow(last).await;
                        }
                    }
                    Ok(Next::Lagged) => {
                        let last = self.follower.last();
                        return self.drop_slow(last).await;
                    }
                    Err(e) => {
                        let _ = self.send(Message::Text(error_message(None, &e).to_string().into())).await;
                        return;
                    }
                },
                changed = closing.changed() => {
                    if changed.is_ok() && !*closing.borrow_and_update() {
                        continue;
                    }
                    // The last word: where to resume, then close 1012 (service restart).
                    let text = shutdown_message(self.follower.last()).to_string();
                    if self.send(Message::Text(text.into())).await {
                        let _ = self
                            .send(Message::Close(Some(CloseFrame {
                                code: 1012,
                                reason: "server shutting down".into(),
                            })))
                            .await;
                    }
                    return;
                }
                _ = ping.tick() => {
                    if !self.send(Message::Ping(Default::default())).await {
                        let last = self.follower.last();
                        return self.drop_slow(last).await;
                    }
                }
            }
        }
    }

    /// Sends the events some subscription selects, in one flush, within the send timeout; `false` when the
    /// client does not take them in time (or is gone).
    async fn send_events(&mut self, events: &[Arc<FeedEvent>]) -> bool {
        let (socket, subscriptions) = (&mut self.socket, &self.subscriptions);
        let mut sent = 0;
        let write = async {
            for e in events {
                if subscriptions.values().any(|f| f.matches(e)) {
                    socket.feed(Message::Text(e.json.clone())).await?;
                    sent += 1;
                }
            }
            socket.flush().await
        };
        let flushed = within(self.limits.send_timeout, write).await;
        if flushed {
            crate::feed::series().sent.increment(sent);
        }
        flushed
    }

    /// Sends within the send timeout; `false` when the client does not take it in time (or is gone).
    async fn send(&mut self, msg: Message) -> bool {
        within(self.limits.send_timeout, self.socket.send(msg)).await
    }

    /// Tells a client that fell behind where to resume, and closes. No event is queued behind that message;
    /// the connection waits up to [`SLOW_GRACE`] for the client to take it (its buffers are full of events).
    async fn drop_slow(mut self, last: i64) {
        crate::feed::series().lagged.increment(1);
        let text = lagged_message(last).to_string();
        self.limits.send_timeout = self.limits.send_timeout.max(SLOW_GRACE);
        if self.send(Message::Text(text.into())).await {
            let _ = self
                .send(Message::Close(Some(CloseFrame {
                    code: 1013,
                    reason: "slow consumer".into(),
                })))
                .await;
        }
    }

    async fn control(&mut self, text: &str) -> Value {
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                return error_message(
                    None,
                    &ApiError::new(ErrorCode::InvalidJson, format!("not JSON: {e}")),
                )
            }
        };
        let id = value.get("id").and_then(Value::as_str).map(String::from);
        let control: Control = match serde_json::from_value(value) {
            Ok(c) => c,
            Err(e) => {
                return error_message(
                    id.as_deref(),
                    &ApiError::invalid(format!(
                        "not a control message ({e}); send {{\"op\":\"subscribe\"|\"unsubscribe\"|\"ping\", ...}}"
                    )),
                )
            }
        };
        match self.apply(control).await {
            Ok(v) => v,
            Err(e) => error_message(id.as_deref(), &e),
        }
    }

    async fn apply(&mut self, control: Control) -> Result<Value, ApiError> {
        match control {
            Control::Ping => Ok(json!({ "type": "pong", "lastSeq": self.follower.last() })),
            Control::Unsubscribe { id } => match self.subscriptions.remove(&id) {
                Some(_) => Ok(json!({ "type": "unsubscribed", "id": id })),
                None => Err(ApiError::not_found(format!("no subscription `{id}`"))),
            },
            Control::Subscribe {
                id,
                kinds,
                mints,
                wallets,
                since,
            } => {
                if let Some(id) = &id {
                    if id.is_empty() || id.len() > 64 {
                        return Err(ApiError::invalid("`id` is 1 to 64 characters"));
                    }
                }
                let filter = Filter::parse(kinds, mints, wallets, self.limits.max_filter_values)?;
                let replaces = id
                    .as_ref()
                    .is_some_and(|i| self.subscriptions.contains_key(i));
                if !replaces && self.subscriptions.len() >= self.limits.max_subscriptions {
                    return Err(ApiError::new(
                        ErrorCode::TooManySubscriptions,
                        format!(
                            "at most {} subscriptions per connection",
                            self.limits.max_subscriptions
                        ),
                    ));
                }
                if let Some(s) = since {
                    self.hub.check_since(s).await?;
                }
                let id = id.unwrap_or_else(|| {
                    self.named += 1;
                    format!("s{}", self.named)
                });
                match since {
                    Some(s) => self.follower.rewind(s),
                    None if self.subscriptions.is_empty() => self.follower.skip_to_now(),
                    None => {}
                }
                let ack = json!({
                    "type": "subscribed",
                    "id": id,
                    "kinds": filter.kinds,
                    "mints": filter.mints,
                    "wallets": filter.wallets,
                    "since": since,
                    "lastSeq": self.follower.last(),
                });
                self.subscriptions.insert(id, filter);
                Ok(ack)
            }
        }
    }
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(stream))
        .routes(routes!(ws))
}
