//! What the API stores for launches it prepares: the metadata row (served at the launch's URI, listed once
//! recorded) and the record of uploaded images, content-addressed by their SHA-256 (their bytes are in the
//! image store, `image_store::ImageStore`, not here).

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
    /// SHA-256 (hex) of an image recorded with [`Store::register_image`].
    pub image_hash: Option<String>,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
    /// The address the prepare came from, as the API's limits count it.
    pub client_addr: Option<String>,
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
             prepared_at, client_id, image_hash, website, twitter, telegram, client_addr) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
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
        .bind(p.client_addr.clone())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Prepares pending for `creator`, and from `client_addr` (when known): never recorded, prepared at or
    /// after `since`, and not indexed as launched.
    pub async fn pending_prepares(
        &self,
        creator: &str,
        client_addr: Option<&str>,
        since: i64,
    ) -> Result<(i64, i64)> {
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM launch_metadata m WHERE m.creator = $1 \
             AND m.deploy_signature IS NULL AND m.prepared_at >= $3 \
             AND NOT EXISTS (SELECT 1 FROM launches l WHERE l.mint = m.mint)), \
             (SELECT COUNT(*) FROM launch_metadata m WHERE m.client_addr = $2 \
             AND m.deploy_signature IS NULL AND m.prepared_at >= $3 \
             AND NOT EXISTS (SELECT 1 FROM launches l WHERE l.mint = m.mint))",
        )
        .bind(creator.to_string())
        .bind(client_addr.map(str::to_string))
        .bind(since)
        .fetch_one(self.pool())
        .await?;
        Ok((row.get(0), row.get(1)))
    }

    /// Records an image under `hash` (the SHA-256 of its bytes, hex; the bytes go to the image store);
    /// recording it again only renews its time, so an expiry sweep never takes an image a new prepare is
    /// about to use. Record the image before storing its bytes: a sweep deleting the same image holds its
    /// row until the bytes are gone, so the bytes stored after this call stay.
    pub async fn register_image(&self, hash: &str, content_type: &str, now: i64) -> Result<()> {
        sqlx::query(
            "INSERT INTO images (hash, content_type, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (hash) DO UPDATE SET created_at = excluded.created_at",
        )
        .bind(hash.to_string())
        .bind(content_type.to_string())
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// A recorded image's content type.
    pub async fn image_type(&self, hash: &str) -> Result<Option<String>> {
        sqlx::query_scalar("SELECT content_type FROM images WHERE hash = $1")
            .bind(hash.to_string())
            .fetch_optional(self.pool())
            .await
    }

    /// Up to `limit` images whose bytes are still in the database (from before the image store), as
    /// (hash, bytes).
    pub async fn images_in_database(&self, limit: i64) -> Result<Vec<(String, Vec<u8>)>> {
        let rows = sqlx::query("SELECT hash, data FROM images WHERE data IS NOT NULL LIMIT $1")
            .bind(limit)
            .fetch_all(self.pool())
            .await?;
        Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Forgets the bytes of `hash` in the database, once they are in the image store.
    pub async fn clear_image_data(&self, hash: &str) -> Result<()> {
        sqlx::query("UPDATE images SET data = NULL WHERE hash = $1")
            .bind(hash.to_string())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Up to `limit` prepared launches from before `cutoff` that were never recorded and are not indexed,
    /// oldest first, after `after` (the last (prepared_at, mint) of the previous chunk): a sweep walks them
    /// all in chunks, past the ones it keeps.
    pub async fn stale_prepared(
        &self,
        cutoff: i64,
        after: Option<&(i64, String)>,
        limit: i64,
    ) -> Result<Vec<(i64, String)>> {
        let (at, mint) = after.cloned().unwrap_or((i64::MIN, String::new()));
        let rows = sqlx::query(
            "SELECT m.prepared_at, m.mint FROM launch_metadata m WHERE m.deploy_signature IS NULL \
             AND m.prepared_at < $1 AND (m.prepared_at > $2 OR (m.prepared_at = $2 AND m.mint > $3)) \
             AND NOT EXISTS (SELECT 1 FROM launches l WHERE l.mint = m.mint) \
             ORDER BY m.prepared_at, m.mint LIMIT $4",
        )
        .bind(cutoff)
        .bind(at)
        .bind(mint)
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Deletes a prepared launch still unrecorded and prepared before `cutoff`, and its image when no other
    /// launch uses it (prepared, or read from a launch's metadata URI) and it was not recorded again since
    /// `cutoff`: `delete_bytes` deletes the image's bytes from the image store before the deletion commits (a
    /// prepare recording the same image meanwhile waits for the commit, then stores the bytes again). The
    /// number of launches deleted (0 or 1).
    pub async fn expire_prepared<F, Fut>(
        &self,
        mint: &str,
        cutoff: i64,
        delete_bytes: F,
    ) -> Result<u64>
    where
        F: FnOnce(String) -> Fut,
        Fut: std::future::Future<Output = Result<()>>,
    {
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
            let gone: Option<String> = sqlx::query_scalar(
                "DELETE FROM images WHERE hash = $1 AND created_at < $2 \
                 AND NOT EXISTS (SELECT 1 FROM launch_metadata WHERE image_hash = $1) \
                 AND NOT EXISTS (SELECT 1 FROM launch_offchain WHERE image_hash = $1) RETURNING hash",
            )
            .bind(hash)
            .bind(cutoff)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(hash) = gone {
                delete_bytes(hash).await?;
            }
        }
        tx.commit().await?;
        Ok(1)
    }
}
