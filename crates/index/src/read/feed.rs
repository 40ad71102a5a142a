//! Feed reads: the rows after a `seq`, in order, and the oldest kept.

use crate::feed::FeedData;
use crate::store::Store;
use sqlx::Row;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// One stored feed event.
#[derive(Debug, Clone)]
pub struct FeedRecord {
    pub seq: i64,
    pub kind: String,
    pub mint: String,
    pub wallet: Option<String>,
    pub slot: u64,
    pub signature: String,
    pub time: i64,
    pub payload: Payload,
}

/// A row's payload: the event's data, or, for a row an earlier release wrote within the feed's retention,
/// the event object it stored already rendered (without `seq`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    Data(FeedData),
    Rendered(String),
}

impl Payload {
    fn of(text: String) -> Payload {
        match serde_json::from_str(&text) {
            Ok(data) => Payload::Data(data),
            Err(_) => Payload::Rendered(text),
        }
    }
}

impl Store {
    /// Up to `limit` feed events with `seq > after`, oldest first.
    pub async fn feed_after(&self, after: i64, limit: u32) -> Result<Vec<FeedRecord>> {
        let rows = sqlx::query(
            "SELECT seq, kind, mint, wallet, slot, signature, time, payload FROM feed_events \
             WHERE seq > $1 ORDER BY seq LIMIT $2",
        )
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|r| FeedRecord {
                seq: r.get(0),
                kind: r.get(1),
                mint: r.get(2),
                wallet: r.get(3),
                slot: r.get::<i64, _>(4).max(0) as u64,
                signature: r.get(5),
                time: r.get(6),
                payload: Payload::of(r.get(7)),
            })
            .collect())
    }

    /// The number the primary's rows are numbered after, at least ([`crate::store::feed::epoch_floor`] of
    /// its PostgreSQL timeline; 0 on SQLite): a resume point below it but past the newest row was served by
    /// an earlier primary and lost with it, so every row this primary keeps follows it.
    pub async fn feed_floor(&self) -> Result<i64> {
        if self.backend() != crate::Backend::Postgres {
            return Ok(0);
        }
        let walfile: String = sqlx::query_scalar(crate::store::feed::WALFILE)
            .fetch_one(self.pool())
            .await?;
        let timeline = crate::store::feed::timeline_of(&walfile)
            .ok_or_else(|| sqlx::Error::Protocol(format!("not a WAL file name: {walfile:?}")))?;
        Ok(crate::store::feed::epoch_floor(timeline))
    }

    /// The lowest and highest `seq` kept (`None` before the first event).
    pub async fn feed_bounds(&self) -> Result<Option<(i64, i64)>> {
        let row = sqlx::query("SELECT MIN(seq), MAX(seq) FROM feed_events")
            .fetch_one(self.pool())
            .await?;
        Ok(row
            .get::<Option<i64>, _>(0)
            .zip(row.get::<Option<i64>, _>(1)))
    }
}
