//! Profile reads: one wallet's profile with what it launched, and the names and avatars of many wallets at
//! once (what the page shows beside holders and trades).

use crate::store::Store;
use serde::Serialize;
use sqlx::Row;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// A wallet's display name and avatar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProfileName {
    pub wallet: String,
    pub name: String,
    /// The avatar's URL (by the image's SHA-256), if set.
    pub avatar: Option<String>,
    /// Unix seconds the profile was last set.
    pub updated_at: i64,
}

/// A token a wallet launched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LaunchedToken {
    pub mint: String,
    pub name: String,
    pub symbol: String,
    /// Unix seconds.
    pub created_at: i64,
}

impl Store {
    /// The profiles of those of `wallets` that set one (at most 100 wallets are looked up).
    pub async fn profile_names(&self, wallets: &[String]) -> Result<Vec<ProfileName>> {
        let wallets: Vec<&String> = wallets.iter().take(100).collect();
        if wallets.is_empty() {
            return Ok(vec![]);
        }
        let marks: Vec<String> = (1..=wallets.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT wallet, name, avatar_hash, updated_at FROM profiles WHERE wallet IN ({}) \
             ORDER BY wallet",
            marks.join(", ")
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for w in wallets {
            q = q.bind(w.clone());
        }
        Ok(q.fetch_all(self.reads())
            .await?
            .iter()
            .map(|r| ProfileName {
                wallet: r.get(0),
                name: r.get(1),
                avatar: r.get(2),
                updated_at: r.get(3),
            })
            .collect())
    }

    /// How many tokens `creator` launched, and the newest `limit` of them.
    pub async fn launched_by(
        &self,
        creator: &str,
        limit: u32,
    ) -> Result<(u64, Vec<LaunchedToken>)> {
        let count: i64 = sqlx::query("SELECT COUNT(*) FROM launches WHERE creator = $1")
            .bind(creator.to_string())
            .fetch_one(self.reads())
            .await?
            .get(0);
        let rows = sqlx::query(
            "SELECT mint, name, symbol, created_at FROM launches WHERE creator = $1 \
             ORDER BY created_at DESC, mint LIMIT $2",
        )
        .bind(creator.to_string())
        .bind(i64::from(limit))
        .fetch_all(self.reads())
        .await?;
        Ok((
            count.max(0) as u64,
            rows.iter()
                .map(|r| LaunchedToken {
                    mint: r.get(0),
                    name: r.get(1),
                    symbol: r.get(2),
                    created_at: r.get(3),
                })
                .collect(),
        ))
    }
}
