//! Signed comments and replies (migration 0021): a post is written with its message's nonce (a replay finds
//! the nonce taken and stores nothing) and its live-feed event, in one transaction. Operators hide a comment
//! or a wallet (who, when, why recorded; nothing is deleted); hidden ones are not served. An unhide shows
//! them again; every hide and unhide is kept in the moderation log (migration 0022). The API checks the
//! signature and the text before it calls [`Store::post_comment`] (`api/src/routes/community/`).

use super::feed::{self, FeedRow};
use super::Store;
use crate::feed::{FeedComment, FeedData};
use sqlx::{AnyConnection, Row as _};

type Result<T> = std::result::Result<T, sqlx::Error>;

/// A comment to store, its signature checked.
#[derive(Debug, Clone)]
pub struct NewComment {
    pub mint: String,
    pub wallet: String,
    pub reply_to: Option<i64>,
    pub text: String,
    /// The author's balance of the token now, base units.
    pub holding: u64,
    /// The author's display name now (for the feed event).
    pub name: Option<String>,
    /// The message signed, and its signature (base58).
    pub message: String,
    pub signature: String,
    pub nonce: String,
    /// Unix seconds the message expires at (the nonce is kept until then).
    pub expires_at: i64,
    /// Unix seconds, now; and the indexed slot (the feed event's `slot`).
    pub now: i64,
    pub slot: u64,
}

/// Why a post stored nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The wallet used this nonce already.
    NonceUsed,
    /// `reply_to` names no visible comment on this token.
    NoParent,
    /// `reply_to` names a reply (replies thread one level).
    ParentIsReply,
}

/// Records `wallet`'s `nonce` until `expires_at` (expired ones of the wallet are dropped first); `false`
/// when the wallet used it already. Inside the caller's transaction: it rolls back with it.
pub async fn take_nonce(
    conn: &mut AnyConnection,
    wallet: &str,
    nonce: &str,
    expires_at: i64,
    now: i64,
) -> Result<bool> {
    sqlx::query("DELETE FROM signed_nonces WHERE wallet = $1 AND expires_at < $2")
        .bind(wallet.to_string())
        .bind(now)
        .execute(&mut *conn)
        .await?;
    let done = sqlx::query(
        "INSERT INTO signed_nonces (wallet, nonce, expires_at) VALUES ($1, $2, $3) \
         ON CONFLICT (wallet, nonce) DO NOTHING",
    )
    .bind(wallet.to_string())
    .bind(nonce.to_string())
    .bind(expires_at)
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// What a moderation action was about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A comment or reply, by id.
    Comment,
    /// Every comment of a wallet.
    Wallet,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Comment => "comment",
            Target::Wallet => "wallet",
        }
    }
}

/// One operator action as the moderation log (migration 0022) keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moderation {
    /// `hide` or `unhide`.
    pub action: String,
    pub by: String,
    pub reason: String,
    /// Unix seconds.
    pub at: i64,
}

/// What an unhide of a comment did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unhidden {
    /// It is shown again (unless its wallet is hidden: `wallet_hidden`).
    Shown { wallet_hidden: bool },
    /// It was not hidden: nothing changed, nothing recorded.
    NotHidden,
    /// There is no such comment.
    Missing,
}

/// Records an operator's action in the moderation log, inside the caller's transaction.
async fn record(
    conn: &mut AnyConnection,
    action: &str,
    target: Target,
    subject: &str,
    by: &str,
    reason: &str,
    now: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO moderation_log (action, target, subject, by_whom, reason, at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(action.to_string())
    .bind(target.name().to_string())
    .bind(subject.to_string())
    .bind(by.to_string())
    .bind(reason.to_string())
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Sets every comment's `replies` of `mint` to its visible replies (after a hide or an unhide).
async fn recount(conn: &mut AnyConnection, mint: &str) -> Result<()> {
    sqlx::query(
        "UPDATE comments SET replies = (SELECT COUNT(*) FROM comments r WHERE r.parent_id = comments.id \
         AND r.hidden_at IS NULL AND NOT EXISTS \
         (SELECT 1 FROM comment_hidden_wallets h WHERE h.wallet = r.wallet)) \
         WHERE mint = $1 AND parent_id IS NULL",
    )
    .bind(mint.to_string())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

impl Store {
    /// Stores `c` with its nonce and its feed event, all or nothing; the new comment's id, or why nothing was
    /// stored.
    pub async fn post_comment(&self, c: &NewComment) -> Result<std::result::Result<i64, Refused>> {
        let mut tx = self.pool().begin().await?;
        if let Some(parent) = c.reply_to {
            let row = sqlx::query(
                "SELECT parent_id FROM comments c WHERE id = $1 AND mint = $2 AND hidden_at IS NULL \
                 AND NOT EXISTS (SELECT 1 FROM comment_hidden_wallets h WHERE h.wallet = c.wallet)",
            )
            .bind(parent)
            .bind(c.mint.clone())
            .fetch_optional(&mut *tx)
            .await?;
            match row {
                None => return Ok(Err(Refused::NoParent)),
                Some(r) if r.get::<Option<i64>, _>(0).is_some() => {
                    return Ok(Err(Refused::ParentIsReply))
                }
                Some(_) => {}
            }
        }
        if !take_nonce(&mut tx, &c.wallet, &c.nonce, c.expires_at, c.now).await? {
            return Ok(Err(Refused::NonceUsed));
        }
        let holding = i64::try_from(c.holding).unwrap_or(i64::MAX);
        let id: i64 = sqlx::query(
            "INSERT INTO comments (mint, wallet, parent_id, text, holding, replies, message, signature, \
             created_at) VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $8) RETURNING id",
        )
        .bind(c.mint.clone())
        .bind(c.wallet.clone())
        .bind(c.reply_to)
        .bind(c.text.clone())
        .bind(holding)
        .bind(c.message.clone())
        .bind(c.signature.clone())
        .bind(c.now)
        .fetch_one(&mut *tx)
        .await?
        .get(0);
        if let Some(parent) = c.reply_to {
            sqlx::query("UPDATE comments SET replies = replies + 1 WHERE id = $1")
                .bind(parent)
                .execute(&mut *tx)
                .await?;
        }
        let row = FeedRow {
            key: format!("comment:{id}"),
            mint: c.mint.clone(),
            wallet: Some(c.wallet.clone()),
            slot: c.slot,
            signature: c.signature.clone(),
            time: c.now,
            data: FeedData::Comment(FeedComment {
                id,
                wallet: c.wallet.clone(),
                reply_to: c.reply_to,
                text: c.text.clone(),
                holding: c.holding,
                name: c.name.clone(),
            }),
            trade: None,
        };
        feed::insert(&mut tx, vec![row]).await?;
        tx.commit().await?;
        Ok(Ok(id))
    }

    /// Hides comment `id` (recording who, when and why); `false` when there is no such comment. Hiding a
    /// hidden comment again keeps the first record.
    pub async fn hide_comment(&self, id: i64, by: &str, reason: &str, now: i64) -> Result<bool> {
        let mut tx = self.pool().begin().await?;
        let Some(mint) = sqlx::query("SELECT mint FROM comments WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
            .map(|r| r.get::<String, _>(0))
        else {
            return Ok(false);
        };
        let done = sqlx::query(
            "UPDATE comments SET hidden_at = $2, hidden_by = $3, hidden_reason = $4 \
             WHERE id = $1 AND hidden_at IS NULL",
        )
        .bind(id)
        .bind(now)
        .bind(by.to_string())
        .bind(reason.to_string())
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            record(
                &mut tx,
                "hide",
                Target::Comment,
                &id.to_string(),
                by,
                reason,
                now,
            )
            .await?;
        }
        recount(&mut tx, &mint).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Hides every comment of `wallet`, past and future (recording who, when and why); `false` when it was
    /// hidden already (the first record is kept).
    pub async fn hide_wallet(
        &self,
        wallet: &str,
        by: &str,
        reason: &str,
        now: i64,
    ) -> Result<bool> {
        let mut tx = self.pool().begin().await?;
        let done = sqlx::query(
            "INSERT INTO comment_hidden_wallets (wallet, hidden_at, hidden_by, hidden_reason) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (wallet) DO NOTHING",
        )
        .bind(wallet.to_string())
        .bind(now)
        .bind(by.to_string())
        .bind(reason.to_string())
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            record(&mut tx, "hide", Target::Wallet, wallet, by, reason, now).await?;
        }
        let mints: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT c.mint FROM comments c JOIN comments r ON r.parent_id = c.id \
             WHERE r.wallet = $1",
        )
        .bind(wallet.to_string())
        .fetch_all(&mut *tx)
        .await?;
        for mint in mints {
            recount(&mut tx, &mint).await?;
        }
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// Shows hidden comment `id` again, recording who, when and why in the moderation log (the hide's record
    /// stays there too). A comment of a hidden wallet stays hidden until the wallet is unhidden.
    pub async fn unhide_comment(
        &self,
        id: i64,
        by: &str,
        reason: &str,
        now: i64,
    ) -> Result<Unhidden> {
        let mut tx = self.pool().begin().await?;
        let Some((mint, wallet)) = sqlx::query("SELECT mint, wallet FROM comments WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
            .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)))
        else {
            return Ok(Unhidden::Missing);
        };
        let done = sqlx::query(
            "UPDATE comments SET hidden_at = NULL, hidden_by = NULL, hidden_reason = NULL \
             WHERE id = $1 AND hidden_at IS NOT NULL",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Ok(Unhidden::NotHidden);
        }
        record(
            &mut tx,
            "unhide",
            Target::Comment,
            &id.to_string(),
            by,
            reason,
            now,
        )
        .await?;
        recount(&mut tx, &mint).await?;
        let wallet_hidden = sqlx::query("SELECT 1 FROM comment_hidden_wallets WHERE wallet = $1")
            .bind(wallet)
            .fetch_optional(&mut *tx)
            .await?
            .is_some();
        tx.commit().await?;
        Ok(Unhidden::Shown { wallet_hidden })
    }

    /// Shows `wallet`'s comments again (those not hidden one by one) and lets it post, recording who, when
    /// and why in the moderation log; `false` when it was not hidden (nothing changed, nothing recorded).
    pub async fn unhide_wallet(
        &self,
        wallet: &str,
        by: &str,
        reason: &str,
        now: i64,
    ) -> Result<bool> {
        let mut tx = self.pool().begin().await?;
        let done = sqlx::query("DELETE FROM comment_hidden_wallets WHERE wallet = $1")
            .bind(wallet.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Ok(false);
        }
        record(&mut tx, "unhide", Target::Wallet, wallet, by, reason, now).await?;
        let mints: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT c.mint FROM comments c JOIN comments r ON r.parent_id = c.id \
             WHERE r.wallet = $1",
        )
        .bind(wallet.to_string())
        .fetch_all(&mut *tx)
        .await?;
        for mint in mints {
            recount(&mut tx, &mint).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The moderation log of one comment (by id) or wallet, oldest first.
    pub async fn moderation_log(&self, target: Target, subject: &str) -> Result<Vec<Moderation>> {
        let rows = sqlx::query(
            "SELECT action, by_whom, reason, at FROM moderation_log WHERE target = $1 AND subject = $2 \
             ORDER BY id",
        )
        .bind(target.name().to_string())
        .bind(subject.to_string())
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|r| Moderation {
                action: r.get(0),
                by: r.get(1),
                reason: r.get(2),
                at: r.get(3),
            })
            .collect())
    }

    /// Whether `wallet` is hidden: its posts are refused.
    pub async fn wallet_hidden(&self, wallet: &str) -> Result<bool> {
        Ok(
            sqlx::query("SELECT 1 FROM comment_hidden_wallets WHERE wallet = $1")
                .bind(wallet.to_string())
                .fetch_optional(self.pool())
                .await?
                .is_some(),
        )
    }
}
