//! What the API stores for launches it prepares: the metadata row (served at the launch's URI, listed once
//! recorded) and uploaded images, content-addressed by their SHA-256.

use super::Store;
use sqlx::Row as _;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// A launch as prepared through the API.
#[derive(Debug, Clone)]
pub struct PreparedLaunch {
    pub mint: String,
    pub creator: String,
    pub name: String,
    pub symbol: String,
    pub description: String,
    pub preset: String,
    pub quote: String,
    pub salt: String,
    pub uri: String,
    pub prepared_at: i64,
    pub client_id: Option<String>,
    /// SHA-256 (hex) of an image stored with [`Store::put_image`].
    pub image_hash: Option<String>,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
}

/// What a prepared launch's record is checked against: the fields prepare was given, and whether (and
/// by which transaction) it was recorded.
#[derive(Debug, Clone)]
pub struct PreparedRecord {
    pub creator: String,
    pub uri: String,
    pub deploy_signature: Option<String>,
    pub recorded_at: Option<i64>,
    pub name: String,
    pub symbol: String,
    pub description: String,
    pub preset: String,
    pub quote: String,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
}

impl Store {
    /// The prepared launch of `mint`, if this service prepared it.
    pub async fn prepared(&self, mint: &str) -> Result<Option<PreparedRecord>> {
        let row = sqlx::query(
            "SELECT creator, uri, deploy_signature, recorded_at, name, symbol, description, preset, quote, \
             website, twitter, telegram FROM launch_metadata WHERE mint = $1",
        )
        .bind(mint.to_string())
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| PreparedRecord {
            creator: r.get(0),
            uri: r.get(1),
            deploy_signature: r.get(2),
            recorded_at: r.get(3),
            name: r.get(4),
            symbol: r.get(5),
            description: r.get(6),
            preset: r.get(7),
            quote: r.get(8),
            website: r.get(9),
            twitter: r.get(10),
            telegram: r.get(11),
        }))
    }

    /// Marks the prepared launch of `mint` recorded by its deploy transaction; a launch recorded already
    /// keeps its first record.
    pub async fn mark_recorded(&self, mint: &str, signature: &str, now: i64) -> Result<()> {
        sqlx::query(
            "UPDATE launch_metadata SET deploy_signature = $1, recorded_at = $2 \
             WHERE mint = $3 AND deploy_signature IS NULL",
        )
        .bind(signature.to_string())
        .bind(now)
        .bind(mint.to_string())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn insert_prepared(&self, p: &PreparedLaunch) -> Result<()> {
        sqlx::query(
            "INSERT INTO launch_metadata (mint, creator, name, symbol, description, preset, quote, salt, uri, \
             prepared_at, client_id, image_hash, website, twitter, telegram) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(p.mint.clone())
        .bind(p.creator.clone())
        .bind(p.name.clone())
        .bind(p.symbol.clone())
        .bind(p.description.clone())
        .bind(p.preset.clone())
        .bind(p.quote.clone())
        .bind(p.salt.clone())
        .bind(p.uri.clone())
        .bind(p.prepared_at)
        .bind(p.client_id.clone())
        .bind(p.image_hash.clone())
        .bind(p.website.clone())
        .bind(p.twitter.clone())
        .bind(p.telegram.clone())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Stores an image under `hash` (the SHA-256 of `data`, hex); storing the same image again only renews
    /// its time, so an expiry sweep never takes an image a new prepare is about to use.
    pub async fn put_image(
        &self,
        hash: &str,
        content_type: &str,
        data: &[u8],
        now: i64,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO images (hash, content_type, data, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (hash) DO UPDATE SET created_at = excluded.created_at",
        )
        .bind(hash.to_string())
        .bind(content_type.to_string())
        .bind(data.to_vec())
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// An image's content type and bytes.
    pub async fn image(&self, hash: &str) -> Result<Option<(String, Vec<u8>)>> {
        let row = sqlx::query("SELECT content_type, data FROM images WHERE hash = $1")
            .bind(hash.to_string())
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| (r.get(0), r.get(1))))
    }

    /// Up to `limit` prepared launches from before `cutoff` that were never recorded and are not indexed,
    /// oldest first.
    pub async fn stale_prepared(&self, cutoff: i64, limit: i64) -> Result<Vec<String>> {
        sqlx::query_scalar(
            "SELECT m.mint FROM launch_metadata m WHERE m.deploy_signature IS NULL AND m.prepared_at < $1 \
             AND NOT EXISTS (SELECT 1 FROM launches l WHERE l.mint = m.mint) ORDER BY m.prepared_at LIMIT $2",
        )
        .bind(cutoff)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// Deletes a prepared launch still unrecorded and prepared before `cutoff`, and its image when no other
    /// launch uses it and it was not stored again since `cutoff`; the number of launches deleted (0 or 1).
    pub async fn expire_prepared(&self, mint: &str, cutoff: i64) -> Result<u64> {
        let mut tx = self.pool().begin().await?;
        let image: Option<Option<String>> = sqlx::query_scalar(
            "DELETE FROM launch_metadata WHERE mint = $1 AND deploy_signature IS NULL AND prepared_at < $2 \
             RETURNING image_hash",
        )
        .bind(mint.to_string())
        .bind(cutoff)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(image) = image else {
            return Ok(0);
        };
        if let Some(hash) = image {
            sqlx::query(
                "DELETE FROM images WHERE hash = $1 AND created_at < $2 \
                 AND NOT EXISTS (SELECT 1 FROM launch_metadata WHERE image_hash = $1)",
            )
            .bind(hash)
            .bind(cutoff)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(1)
    }
}
