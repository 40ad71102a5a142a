//! Feed reads: the rows after a `seq`, in order, and the oldest kept.

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
    /// The event object without `seq` (JSON object text).
    pub payload: String,
}

impl Store {
    /// Up to `limit` feed events with `seq > after`, oldest first.
    pub async fn feed_after(&self, after: i64, limit: u32) -> Result<Vec<FeedRecord>> {
        let rows = sqlx::query(
            "SELECT seq, kind, mint, wallet, payload FROM feed_events WHERE seq > $1 ORDER BY seq LIMIT $2",
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
                payload: r.get(4),
            })
            .collect())
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
