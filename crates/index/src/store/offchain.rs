//! The off-chain metadata of launches (`launch_offchain`, migration 0020): every launch the index writes is
//! queued here (idempotently, in the batch that writes it); the API's metadata worker takes the due rows,
//! reads the JSON at the launch's URI (its description, image and links) and stores what it found, or the
//! error and when to try again. A launch this service prepared needs nothing fetched: its metadata is
//! `launch_metadata`'s (the worker marks it `prepared`).

use super::Store;
use sqlx::{AnyConnection, Row as _};

type Result<T> = std::result::Result<T, sqlx::Error>;

/// `pending`: to fetch at `next_attempt_at`.
pub const PENDING: &str = "pending";
/// `fetched`: the metadata was read.
pub const FETCHED: &str = "fetched";
/// `failed`: the last attempt failed too; the launch keeps its on-chain fields.
pub const FAILED: &str = "failed";
/// `prepared`: this service prepared the launch; nothing to fetch.
pub const PREPARED: &str = "prepared";

/// Queues `mint`'s metadata at `uri` for the worker, due at `now`; a launch queued already keeps its row.
pub(super) async fn enqueue(
    conn: &mut AnyConnection,
    mint: &str,
    uri: &str,
    now: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO launch_offchain (mint, uri, state, attempts, next_attempt_at) \
         VALUES ($1, $2, 'pending', 0, $3) ON CONFLICT (mint) DO NOTHING",
    )
    .bind(mint.to_string())
    .bind(uri.to_string())
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// A launch whose metadata is due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueMetadata {
    pub mint: String,
    pub uri: String,
    /// Attempts made so far.
    pub attempts: u32,
    /// When it was due (the worker claims it by this value).
    pub next_attempt_at: i64,
    /// This service prepared it, with this URI: nothing to fetch.
    pub prepared: bool,
}

/// What the worker read from a launch's metadata JSON (the image already stored, by its hash).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchedMetadata {
    pub description: String,
    pub image_hash: Option<String>,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
}

impl Store {
    /// Up to `limit` launches whose metadata is due at `now`, the longest due first.
    pub async fn due_metadata(&self, now: i64, limit: u32) -> Result<Vec<DueMetadata>> {
        let rows = sqlx::query(
            "SELECT o.mint, o.uri, o.attempts, o.next_attempt_at, m.mint AS prepared \
             FROM launch_offchain o \
             LEFT JOIN launch_metadata m ON m.mint = o.mint AND m.uri = o.uri \
             WHERE o.state = 'pending' AND o.next_attempt_at <= $1 \
             ORDER BY o.next_attempt_at, o.mint LIMIT $2",
        )
        .bind(now)
        .bind(i64::from(limit))
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|r| DueMetadata {
                mint: r.get(0),
                uri: r.get(1),
                attempts: u32::try_from(r.get::<i64, _>(2)).unwrap_or(u32::MAX),
                next_attempt_at: r.get(3),
                prepared: r.get::<Option<String>, _>(4).is_some(),
            })
            .collect())
    }

    /// Takes `due` for one attempt until `lease_until`: true when this caller has it (another replica's worker
    /// that read the same row finds it moved and leaves it).
    pub async fn claim_metadata(&self, due: &DueMetadata, lease_until: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE launch_offchain SET next_attempt_at = $1 \
             WHERE mint = $2 AND state = 'pending' AND next_attempt_at = $3",
        )
        .bind(lease_until)
        .bind(due.mint.clone())
        .bind(due.next_attempt_at)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Marks `mint` as prepared by this service: nothing to fetch.
    pub async fn metadata_prepared(&self, mint: &str) -> Result<()> {
        sqlx::query("UPDATE launch_offchain SET state = 'prepared' WHERE mint = $1")
            .bind(mint.to_string())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Stores what was read for `mint` at `now`.
    pub async fn metadata_fetched(&self, mint: &str, m: &FetchedMetadata, now: i64) -> Result<()> {
        sqlx::query(
            "UPDATE launch_offchain SET state = 'fetched', attempts = attempts + 1, fetched_at = $1, \
             error = NULL, description = $2, image_hash = $3, website = $4, twitter = $5, telegram = $6 \
             WHERE mint = $7",
        )
        .bind(now)
        .bind(m.description.clone())
        .bind(m.image_hash.clone())
        .bind(m.website.clone())
        .bind(m.twitter.clone())
        .bind(m.telegram.clone())
        .bind(mint.to_string())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Records a failed attempt for `mint`: retried at `retry_at`, or (`None`) given up as `failed`.
    pub async fn metadata_failed(
        &self,
        mint: &str,
        error: &str,
        retry_at: Option<i64>,
    ) -> Result<()> {
        let (state, at) = match retry_at {
            Some(at) => (PENDING, at),
            None => (FAILED, i64::MAX),
        };
        sqlx::query(
            "UPDATE launch_offchain SET state = $1, attempts = attempts + 1, next_attempt_at = $2, \
             error = $3 WHERE mint = $4",
        )
        .bind(state)
        .bind(at)
        .bind(error.to_string())
        .bind(mint.to_string())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// The metadata row of `mint`: state, attempts and the last error (for tests and operators).
    pub async fn metadata_state(
        &self,
        mint: &str,
    ) -> Result<Option<(String, u32, Option<String>)>> {
        let row = sqlx::query("SELECT state, attempts, error FROM launch_offchain WHERE mint = $1")
            .bind(mint.to_string())
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| {
            (
                r.get(0),
                u32::try_from(r.get::<i64, _>(1)).unwrap_or(u32::MAX),
                r.get(2),
            )
        }))
    }
}
