//! The live feed's fan-out in one API process (see `docs/live-feed.md`).
//!
//! One reader per process reads the committed feed rows after the last it has seen (`seq > last`) from the
//! index and broadcasts them to this process's clients. It reads when woken by a commit (PostgreSQL's
//! `NOTIFY` on one `LISTEN` connection; in-process when the indexer runs here) and at a modest interval as a
//! safety net: a wake-up is only a hint, so a missed one loses nothing. A client follows the broadcast from
//! where it starts, or first replays from the index after a `since`; the broadcast ring is each client's
//! bounded queue, and a client that falls further behind than the ring holds is told so and dropped.

pub mod wire;

use crate::error::{ApiError, ErrorCode};
use crate::http::admission::Admissions;
use index::feed::KINDS;
use index::read::FeedRecord;
use index::store::feed::CHANNEL;
use index::{Backend, Store};
use std::collections::{BTreeSet, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::broadcast;

/// Rows read from the index per query (the reader's and a replay's page).
const PAGE: u32 = 500;

/// One committed feed event as sent, made once for every connection that sends it (a clone is a reference
/// count): `json` is the event object, `seq` first, as a WebSocket carries it; `sse` the same object framed
/// as a Server-Sent Event (`id: <seq>`, `event: <kind>`, `data: <json>`).
#[derive(Debug)]
pub struct FeedEvent {
    pub seq: i64,
    pub kind: String,
    pub mint: String,
    pub wallet: Option<String>,
    pub json: axum::extract::ws::Utf8Bytes,
    pub sse: axum::body::Bytes,
}

impl From<FeedRecord> for FeedEvent {
    fn from(r: FeedRecord) -> Self {
        let json = wire::render(&r);
        // Compact JSON holds no line break, so the object is one `data:` line.
        let sse = format!("id: {}\nevent: {}\ndata: {json}\n\n", r.seq, r.kind).into();
        FeedEvent {
            seq: r.seq,
            kind: r.kind,
            mint: r.mint,
            wallet: r.wallet,
            json: json.into(),
            sse,
        }
    }
}

/// What a subscription selects: kinds, and optionally mints and wallets (an event with no wallet never
/// matches a wallet filter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    pub kinds: BTreeSet<&'static str>,
    pub mints: BTreeSet<String>,
    pub wallets: BTreeSet<String>,
}

impl Filter {
    /// A filter from lists as clients send them (absent: every kind, any mint, any wallet). At most
    /// `max_values` mints and wallets together.
    pub fn parse(
        kinds: Option<Vec<String>>,
        mints: Option<Vec<String>>,
        wallets: Option<Vec<String>>,
        max_values: usize,
    ) -> Result<Filter, ApiError> {
        let kinds = match kinds {
            None => KINDS.into_iter().collect(),
            Some(list) => {
                let mut set = BTreeSet::new();
                for k in list {
                    let k = k.trim();
                    let known = KINDS.iter().find(|n| **n == k).ok_or_else(|| {
                        ApiError::invalid(format!(
                            "`kinds`: unknown kind `{k}` (one of {})",
                            KINDS.join(", ")
                        ))
                    })?;
                    set.insert(*known);
                }
                if set.is_empty() {
                    return Err(ApiError::invalid("`kinds` names no kind"));
                }
                set
            }
        };
        let addresses = |field: &str, list: Option<Vec<String>>| -> Result<_, ApiError> {
            let mut set = BTreeSet::new();
            for a in list.unwrap_or_default() {
                let key = crate::error::address(field, Some(a.trim()))?;
                set.insert(key.to_string());
            }
            Ok(set)
        };
        let filter = Filter {
            kinds,
            mints: addresses("mints", mints)?,
            wallets: addresses("wallets", wallets)?,
        };
        if filter.mints.len() + filter.wallets.len() > max_values {
            return Err(ApiError::invalid(format!(
                "at most {max_values} mints and wallets together per subscription"
            )));
        }
        Ok(filter)
    }

    pub fn matches(&self, e: &FeedEvent) -> bool {
        self.kinds.contains(e.kind.as_str())
            && (self.mints.is_empty() || self.mints.contains(&e.mint))
            && (self.wallets.is_empty()
                || e.wallet.as_ref().is_some_and(|w| self.wallets.contains(w)))
    }
}

/// Splits a comma-separated query value.
pub fn list(value: Option<&str>) -> Option<Vec<String>> {
    value.map(|v| {
        v.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    })
}

/// The process's feed: the broadcast its reader feeds, and open feed connections per client address.
pub struct Hub {
    store: Store,
    tx: broadcast::Sender<Arc<FeedEvent>>,
    connections: Admissions,
}

pub use crate::http::admission::Refusal;

/// A connection counted against its client's share and the process's total, and in `feed_connections`;
/// uncounted when dropped.
pub struct Admission {
    _permit: crate::http::admission::Permit,
}

impl Drop for Admission {
    fn drop(&mut self) {
        series().connections.decrement(1.0);
    }
}

/// The feed's series ([`series`]).
pub struct Series {
    /// `feed_connections`: open SSE and WebSocket connections.
    pub connections: metrics::Gauge,
    /// `feed_events_sent_total`: events written to clients (one per event per connection).
    pub sent: metrics::Counter,
    /// `feed_lagged_disconnects_total`: clients dropped for falling behind (`SLOW_CONSUMER`).
    pub lagged: metrics::Counter,
}

/// The feed's series, registered once (the fan-out records without looking them up).
pub fn series() -> &'static Series {
    static SERIES: std::sync::OnceLock<Series> = std::sync::OnceLock::new();
    SERIES.get_or_init(|| Series {
        connections: metrics::gauge!("feed_connections"),
        sent: metrics::counter!("feed_events_sent_total"),
        lagged: metrics::counter!("feed_lagged_disconnects_total"),
    })
}

/// The feed's settings, from the API's configuration.
#[derive(Debug, Clone, Copy)]
pub struct HubConfig {
    /// Events a client may fall behind the newest before it is dropped (the broadcast ring's size).
    pub buffer: usize,
    /// The safety-net read interval.
    pub poll: Duration,
    /// Open feed connections (SSE and WebSocket together) per client address.
    pub max_per_client: usize,
    /// Open feed connections of this process, all clients together (many addresses cannot exhaust its
    /// memory or file descriptors).
    pub max_total: usize,
}

impl Hub {
    /// Starts the process's reader at the newest committed event.
    pub async fn start(store: Store, config: HubConfig) -> Result<Arc<Hub>, sqlx::Error> {
        let last = store.feed_bounds().await?.map_or(0, |(_, max)| max);
        let (tx, _) = broadcast::channel(config.buffer.max(1));
        let hub = Arc::new(Hub {
            store: store.clone(),
            tx,
            connections: Admissions::new(config.max_per_client, config.max_total),
        });
        tokio::spawn(read_loop(Arc::downgrade(&hub), store, last, config.poll));
        Ok(hub)
    }

    /// Counts a new connection of `client`; refused when it has its share open already, or when the
    /// process has as many as it takes.
    pub fn admit(&self, client: Option<IpAddr>) -> Result<Admission, Refusal> {
        let permit = self.connections.admit(client)?;
        series().connections.increment(1.0);
        Ok(Admission { _permit: permit })
    }

    /// Validates a resume point: `RESUME_TOO_OLD` (410) when events after it are no longer kept.
    pub async fn check_since(&self, since: i64) -> Result<(), ApiError> {
        if since < 0 {
            return Err(ApiError::invalid(
                "`since` is a sequence number (0 or more)",
            ));
        }
        let bounds = self.store.feed_bounds().await?;
        match bounds {
            Some((min, _)) if since < min - 1 => return Err(too_old(min)),
            Some((_, max)) if since <= max => return Ok(()),
            None if since == 0 => return Ok(()),
            _ => {}
        }
        // Past the newest row: served by an earlier primary and lost with it by an asynchronous promotion
        // when below this primary's epoch floor (every row it keeps or writes follows it: replayed from
        // there, nothing is skipped); otherwise from another index.
        if since < self.store.feed_floor().await? {
            return Ok(());
        }
        Err(ApiError::invalid(match bounds {
            Some((_, max)) => format!("`since` {since} is ahead of the feed (newest {max})"),
            None => format!("`since` {since} is ahead of the feed (no event yet)"),
        }))
    }

    /// A follower of the feed from now, or from after `since` (replayed from the index first).
    pub fn follow(self: &Arc<Hub>, since: Option<i64>) -> Follower {
        Follower {
            store: self.store.clone(),
            rx: self.tx.subscribe(),
            last: since.unwrap_or(0),
            backlog: VecDeque::new(),
            replaying: since.is_some(),
            replayed: false,
        }
    }
}

pub fn too_old(oldest: i64) -> ApiError {
    ApiError::new(ErrorCode::ResumeTooOld,
        format!(
            "events before seq {oldest} are no longer kept ({} hours); re-read the state over REST and \
             follow the feed from now",
            index::store::FEED_RETENTION_SECS / 3_600
        ),
    )
}

/// The process's reader: reads `seq > last` whenever woken, and broadcasts it. Ends with the hub.
async fn read_loop(hub: Weak<Hub>, store: Store, mut last: i64, poll: Duration) {
    let mut commits = store.commits();
    let mut listener = None;
    loop {
        let Some(tx) = hub.upgrade().map(|h| h.tx.clone()) else {
            return;
        };
        loop {
            match store.feed_after(last, PAGE).await {
                Ok(rows) => {
                    let full = rows.len() == PAGE as usize;
                    for r in rows {
                        last = r.seq;
                        let _ = tx.send(Arc::new(FeedEvent::from(r)));
                    }
                    if !full {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!("feed: reading the index failed: {e}");
                    tokio::time::sleep(poll).await;
                    break;
                }
            }
        }
        drop(tx);
        if store.backend() == Backend::Postgres && listener.is_none() {
            listener = listen(&store).await;
        }
        let notified = async {
            match listener.as_mut() {
                Some(l) => {
                    if let Err(e) = l.recv().await {
                        tracing::warn!("feed: LISTEN connection: {e}");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = notified => {}
            _ = commits.wait_for(|c| c.feed_seq > last) => {}
            _ = tokio::time::sleep(poll) => {}
        }
    }
}

async fn listen(store: &Store) -> Option<sqlx::postgres::PgListener> {
    let connect = async {
        let mut l = sqlx::postgres::PgListener::connect(&store.url()).await?;
        l.listen(CHANNEL).await?;
        Ok::<_, sqlx::Error>(l)
    };
    match connect.await {
        Ok(l) => Some(l),
        Err(e) => {
            tracing::warn!("feed: LISTEN {CHANNEL} failed ({e}); polling only");
            None
        }
    }
}

/// What a follower yields next.
pub enum Next {
    Event(Arc<FeedEvent>),
    /// The follower fell further behind than the broadcast keeps: it must be dropped.
    Lagged,
}

/// One client's position in the feed: every event after `last`, in order, once.
pub struct Follower {
    store: Store,
    rx: broadcast::Receiver<Arc<FeedEvent>>,
    last: i64,
    backlog: VecDeque<Arc<FeedEvent>>,
    replaying: bool,
    /// A replay just ended and nothing live was yielded since: a lag now comes from the replay's own time
    /// (the index has those events), not from a slow client.
    replayed: bool,
}

impl Follower {
    /// The `seq` of the last event yielded (or the resume point).
    pub fn last(&self) -> i64 {
        self.last
    }

    /// Replays from the index every event after `since` again (the broadcast is followed afterwards).
    pub fn rewind(&mut self, since: i64) {
        self.last = since;
        self.backlog.clear();
        self.replaying = true;
    }

    /// Follows the feed from now on, unless replaying (events broadcast meanwhile are skipped).
    pub fn skip_to_now(&mut self) {
        if !self.replaying && self.backlog.is_empty() {
            self.rx = self.rx.resubscribe();
            self.replayed = false;
        }
    }

    /// The next event if one is at hand, without waiting or reading the index (`None` also when the feed
    /// stopped: [`Follower::next`] reports that).
    pub fn try_next(&mut self) -> Option<Next> {
        if let Some(next) = self.pop_backlog() {
            return Some(next);
        }
        if self.replaying {
            return None;
        }
        loop {
            let step = match self.rx.try_recv() {
                Ok(e) => self.received(e),
                Err(broadcast::error::TryRecvError::Lagged(_)) => self.lagged(),
                Err(_) => return None,
            };
            match step {
                Step::Yield(next) => return Some(next),
                Step::Skip => continue,
                Step::Replay => return None,
            }
        }
    }

    /// The next event. Cancel-safe: state changes only once an await has completed.
    pub async fn next(&mut self) -> Result<Next, ApiError> {
        loop {
            if let Some(next) = self.pop_backlog() {
                return Ok(next);
            }
            if self.replaying {
                let rows = self.store.feed_after(self.last, PAGE).await?;
                if rows.is_empty() {
                    self.replaying = false;
                    self.replayed = true;
                } else {
                    self.backlog = rows
                        .into_iter()
                        .map(|r| Arc::new(FeedEvent::from(r)))
                        .collect();
                }
                continue;
            }
            let step = match self.rx.recv().await {
                Ok(e) => self.received(e),
                Err(broadcast::error::RecvError::Lagged(_)) => self.lagged(),
                Err(broadcast::error::RecvError::Closed) => {
                    return Err(ApiError::unavailable("the feed stopped"))
                }
            };
            if let Step::Yield(next) = step {
                return Ok(next);
            }
        }
    }

    fn pop_backlog(&mut self) -> Option<Next> {
        let e = self.backlog.pop_front()?;
        self.last = e.seq;
        Some(Next::Event(e))
    }

    /// An event from the broadcast: yielded unless already passed (a replay overlapping the broadcast).
    fn received(&mut self, e: Arc<FeedEvent>) -> Step {
        if e.seq <= self.last {
            return Step::Skip;
        }
        self.last = e.seq;
        self.replayed = false;
        Step::Yield(Next::Event(e))
    }

    /// The broadcast overtook this follower: right after a replay the index has what was missed (replay
    /// again); otherwise the client is too slow.
    fn lagged(&mut self) -> Step {
        if self.replayed {
            self.replaying = true;
            Step::Replay
        } else {
            Step::Yield(Next::Lagged)
        }
    }
}

/// What a follower does with what the broadcast gave it.
enum Step {
    Yield(Next),
    Skip,
    Replay,
}

/// The message a client that fell behind gets last: resume after `last_seq`.
pub fn lagged_message(last_seq: i64) -> serde_json::Value {
    serde_json::json!({
        "type": "lagged",
        "lastSeq": last_seq,
        "error": {
            "code": crate::error::ErrorCode::SlowConsumer.as_str(),
            "message": format!(
                "this client fell too far behind the feed and is disconnected; reconnect with since={last_seq}"
            ),
        }
    })
}
