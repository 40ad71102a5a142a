//! Profiles (migration 0021): a wallet's signed display name and avatar. The name's normalized form
//! (`name_key`) is unique, so two wallets never hold names that differ only in case or Unicode form; the
//! API normalizes and checks the name and the signature first (`api/src/routes/community/`).

use super::comments::take_nonce;
use super::Store;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// A profile to store, its signature checked.
#[derive(Debug, Clone)]
pub struct NewProfile {
    pub wallet: String,
    pub name: String,
    /// The name's normalized form, unique across wallets.
    pub name_key: String,
    /// SHA-256 (hex) of the avatar, stored in the image store first.
    pub avatar_hash: Option<String>,
    pub message: String,
    pub signature: String,
    pub nonce: String,
    pub expires_at: i64,
    pub now: i64,
}

/// Why a profile was not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileRefused {
    NonceUsed,
    /// Another wallet holds the name.
    NameTaken,
}

impl Store {
    /// Sets `p.wallet`'s profile (replacing the one before) with the message's nonce, all or nothing.
    pub async fn set_profile(
        &self,
        p: &NewProfile,
    ) -> Result<std::result::Result<(), ProfileRefused>> {
        let mut tx = self.pool().begin().await?;
        let holder: Option<String> =
            sqlx::query_scalar("SELECT wallet FROM profiles WHERE name_key = $1")
                .bind(p.name_key.clone())
                .fetch_optional(&mut *tx)
                .await?;
        if holder.is_some_and(|w| w != p.wallet) {
            return Ok(Err(ProfileRefused::NameTaken));
        }
        if !take_nonce(&mut tx, &p.wallet, &p.nonce, p.expires_at, p.now).await? {
            return Ok(Err(ProfileRefused::NonceUsed));
        }
        let done = sqlx::query(
            "INSERT INTO profiles (wallet, name, name_key, avatar_hash, message, signature, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (wallet) DO UPDATE SET name = excluded.name, \
             name_key = excluded.name_key, avatar_hash = excluded.avatar_hash, message = excluded.message, \
             signature = excluded.signature, updated_at = excluded.updated_at",
        )
        .bind(p.wallet.clone())
        .bind(p.name.clone())
        .bind(p.name_key.clone())
        .bind(p.avatar_hash.clone())
        .bind(p.message.clone())
        .bind(p.signature.clone())
        .bind(p.now)
        .execute(&mut *tx)
        .await;
        match done {
            // Another wallet took the name between the look-up and the write.
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                return Ok(Err(ProfileRefused::NameTaken))
            }
            other => {
                other?;
            }
        }
        tx.commit().await?;
        Ok(Ok(()))
    }
}
