//! The keys API replicas seal quoted routes with, shared through the index (migration 0015) so that every
//! replica verifies every other's routes. Made once, by the first replica to start; rotated by
//! `admin route-keys rotate`. Which key signs is the API's choice (`api/src/process/route_keys.rs`).

use super::Store;
use sqlx::Row as _;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// One shared route key.
#[derive(Clone, PartialEq, Eq)]
pub struct RouteKey {
    pub id: i64,
    /// The secret (never logged: [`std::fmt::Debug`] leaves it out).
    pub secret: String,
    /// Unix seconds it was made.
    pub created_at: i64,
}

impl std::fmt::Debug for RouteKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouteKey")
            .field("id", &self.id)
            .field("created_at", &self.created_at)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// The shared route keys, newest first.
    pub async fn route_keys(&self) -> Result<Vec<RouteKey>> {
        let rows = sqlx::query("SELECT id, secret, created_at FROM route_keys ORDER BY id DESC")
            .fetch_all(self.pool())
            .await?;
        Ok(rows
            .iter()
            .map(|r| RouteKey {
                id: r.get(0),
                secret: r.get(1),
                created_at: r.get(2),
            })
            .collect())
    }

    /// The shared route keys, newest first; on an empty table `secret` becomes key 1 first. Replicas
    /// starting at once agree: one insert wins, the others find its key.
    pub async fn route_keys_or_init(&self, secret: &str, now: i64) -> Result<Vec<RouteKey>> {
        sqlx::query(
            "INSERT INTO route_keys (id, secret, created_at) SELECT 1, $1, $2 \
             WHERE NOT EXISTS (SELECT 1 FROM route_keys) ON CONFLICT (id) DO NOTHING",
        )
        .bind(secret.to_string())
        .bind(now)
        .execute(self.pool())
        .await?;
        self.route_keys().await
    }

    /// Adds `secret` as the newest key and keeps only the one before it (which still verifies the routes
    /// it sealed); returns the keys now stored, newest first.
    pub async fn rotate_route_key(&self, secret: &str, now: i64) -> Result<Vec<RouteKey>> {
        let mut tx = self.pool().begin().await?;
        let newest: Option<i64> = sqlx::query("SELECT MAX(id) FROM route_keys")
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
        let newest = newest.unwrap_or(0);
        sqlx::query("DELETE FROM route_keys WHERE id < $1")
            .bind(newest)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO route_keys (id, secret, created_at) VALUES ($1, $2, $3)")
            .bind(newest + 1)
            .bind(secret.to_string())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.route_keys().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn made_once_then_rotated_keeping_the_one_before() {
        let dir = std::env::temp_dir().join(format!("route-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&format!("sqlite://{}/index.db", dir.display()))
            .await
            .unwrap();
        let first = store
            .route_keys_or_init(&"a".repeat(64), 100)
            .await
            .unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!((first[0].id, first[0].created_at), (1, 100));
        // A second replica finds the first's key.
        let again = store
            .route_keys_or_init(&"b".repeat(64), 200)
            .await
            .unwrap();
        assert_eq!(again, first);
        let rotated = store.rotate_route_key(&"c".repeat(64), 300).await.unwrap();
        assert_eq!(
            rotated
                .iter()
                .map(|k| (k.id, k.secret.as_str()))
                .collect::<Vec<_>>(),
            [(2, "c".repeat(64).as_str()), (1, "a".repeat(64).as_str())]
        );
        let rotated = store.rotate_route_key(&"d".repeat(64), 400).await.unwrap();
        assert_eq!(rotated.iter().map(|k| k.id).collect::<Vec<_>>(), [3, 2]);
        // A start after rotations makes nothing new.
        assert_eq!(
            store
                .route_keys_or_init(&"e".repeat(64), 500)
                .await
                .unwrap(),
            rotated
        );
        assert!(!format!("{:?}", rotated[0]).contains("ddd"), "never logged");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
