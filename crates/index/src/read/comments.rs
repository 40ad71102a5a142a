//! Comment reads: a token's visible top-level comments, newest first or top first (most visible replies,
//! then newest), a page at a time after an opaque cursor, each with its visible replies oldest first. Hidden
//! comments and every comment of a hidden wallet are never returned.

use crate::store::Store;
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::Row;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// Replies returned with each comment, oldest first (`replyCount` tells how many there are).
pub const MAX_REPLIES: usize = 50;

/// One comment or reply, as served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CommentEntry {
    pub id: i64,
    pub mint: String,
    /// The author.
    pub wallet: String,
    /// The author's display name now, if set.
    pub name: Option<String>,
    /// The author's avatar (its URL, by the image's SHA-256), if set.
    pub avatar: Option<String>,
    /// As posted: plain text, to be shown as text.
    pub text: String,
    /// The comment this replies to (`null` for a top-level comment).
    pub reply_to: Option<i64>,
    /// The author's balance of the token when posting, base units.
    pub holding: String,
    /// Unix seconds.
    pub created_at: i64,
}

/// A top-level comment with its replies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    #[serde(flatten)]
    pub comment: CommentEntry,
    /// Visible replies.
    pub reply_count: u64,
    /// The first visible replies (at most 50), oldest first.
    pub replies: Vec<CommentEntry>,
}

/// The two orders of a comment list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentOrder {
    /// Newest first.
    Newest,
    /// Most visible replies first, then newest.
    Top,
}

/// Where a page starts: after the comment with this id (and, in the top order, this many replies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommentCursor {
    pub replies: u64,
    pub id: i64,
}

impl CommentCursor {
    /// The cursor as the API hands it out: `<replies>.<id>`.
    pub fn encode(&self) -> String {
        format!("{}.{}", self.replies, self.id)
    }

    /// A cursor [`Self::encode`] made; `None` for anything else.
    pub fn decode(s: &str) -> Option<CommentCursor> {
        let (replies, id) = s.split_once('.')?;
        let replies: u64 = replies.parse().ok()?;
        let id: i64 = id.parse().ok()?;
        (replies <= i64::MAX as u64 && id > 0).then_some(CommentCursor { replies, id })
    }
}

/// A page of comments and the cursor of the next (`None` on the last page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentPage {
    pub comments: Vec<Comment>,
    pub next: Option<CommentCursor>,
}

const ENTRY_COLS: &str = "c.id, c.mint, c.wallet, p.name, p.avatar_hash, c.text, c.parent_id, \
                          c.holding, c.created_at, c.replies";

const VISIBLE: &str = "c.hidden_at IS NULL AND NOT EXISTS \
                       (SELECT 1 FROM comment_hidden_wallets h WHERE h.wallet = c.wallet)";

fn entry(r: &AnyRow) -> CommentEntry {
    CommentEntry {
        id: r.get(0),
        mint: r.get(1),
        wallet: r.get(2),
        name: r.get(3),
        avatar: r.get(4),
        text: r.get(5),
        reply_to: r.get(6),
        holding: r.get::<i64, _>(7).max(0).to_string(),
        created_at: r.get(8),
    }
}

impl Store {
    /// A page of `mint`'s visible top-level comments in `order` after `after`, `limit` at most.
    pub async fn comments(
        &self,
        mint: &str,
        order: CommentOrder,
        after: Option<CommentCursor>,
        limit: u32,
    ) -> Result<CommentPage> {
        let (cursor, order_by) = match order {
            CommentOrder::Newest => ("c.id < $3", "c.id DESC"),
            CommentOrder::Top => (
                "(c.replies < $2 OR (c.replies = $2 AND c.id < $3))",
                "c.replies DESC, c.id DESC",
            ),
        };
        let after_clause = if after.is_some() {
            cursor
        } else {
            "$2 = $2 AND $3 = $3"
        };
        let after = after.unwrap_or(CommentCursor { replies: 0, id: 0 });
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {ENTRY_COLS} FROM comments c LEFT JOIN profiles p ON p.wallet = c.wallet \
             WHERE c.mint = $1 AND c.parent_id IS NULL AND {VISIBLE} AND {after_clause} \
             ORDER BY {order_by} LIMIT $4"
        )))
        .bind(mint.to_string())
        .bind(after.replies.min(i64::MAX as u64) as i64)
        .bind(after.id)
        .bind(i64::from(limit) + 1)
        .fetch_all(self.reads())
        .await?;
        let more = rows.len() > limit as usize;
        let mut comments: Vec<Comment> = rows
            .iter()
            .take(limit as usize)
            .map(|r| Comment {
                comment: entry(r),
                reply_count: r.get::<i64, _>(9).max(0) as u64,
                replies: vec![],
            })
            .collect();
        let next = more
            .then(|| comments.last())
            .flatten()
            .map(|c| CommentCursor {
                replies: c.reply_count,
                id: c.comment.id,
            });
        if !comments.is_empty() {
            let ids: Vec<String> = comments.iter().map(|c| c.comment.id.to_string()).collect();
            // Ids are integers this query read: inlined, not bound.
            let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
                "SELECT {ENTRY_COLS} FROM comments c LEFT JOIN profiles p ON p.wallet = c.wallet \
                 WHERE c.parent_id IN ({}) AND {VISIBLE} ORDER BY c.id",
                ids.join(", ")
            )))
            .fetch_all(self.reads())
            .await?;
            for r in &rows {
                let reply = entry(r);
                if let Some(parent) = comments
                    .iter_mut()
                    .find(|c| Some(c.comment.id) == reply.reply_to)
                {
                    if parent.replies.len() < MAX_REPLIES {
                        parent.replies.push(reply);
                    }
                }
            }
        }
        Ok(CommentPage { comments, next })
    }

    /// One visible comment or reply.
    pub async fn comment(&self, id: i64) -> Result<Option<CommentEntry>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {ENTRY_COLS} FROM comments c LEFT JOIN profiles p ON p.wallet = c.wallet \
             WHERE c.id = $1 AND {VISIBLE}"
        )))
        .bind(id)
        .fetch_optional(self.reads())
        .await?;
        Ok(row.as_ref().map(entry))
    }

    /// Every comment stored for `mint`, hidden ones included, oldest first: what an operator (and a test)
    /// sees.
    pub async fn all_comments(&self, mint: &str) -> Result<Vec<(CommentEntry, bool)>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {ENTRY_COLS}, c.hidden_at FROM comments c LEFT JOIN profiles p ON p.wallet = c.wallet \
             WHERE c.mint = $1 ORDER BY c.id"
        )))
        .bind(mint.to_string())
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|r| (entry(r), r.get::<Option<i64>, _>(10).is_some()))
            .collect())
    }

    /// `owner`'s balance of `mint` in the index (its token accounts, vaults aside), base units.
    pub async fn balance_of(&self, owner: &str, mint: &str) -> Result<u64> {
        let row = sqlx::query(
            "SELECT CAST(SUM(amount) AS BIGINT) FROM token_accounts WHERE owner = $1 AND mint = $2 AND vault = 0",
        )
        .bind(owner.to_string())
        .bind(mint.to_string())
        .fetch_one(self.reads())
        .await?;
        Ok(row.get::<Option<i64>, _>(0).unwrap_or(0).max(0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_and_nothing_else_does() {
        let c = CommentCursor { replies: 3, id: 17 };
        assert_eq!(CommentCursor::decode(&c.encode()), Some(c));
        for bad in [
            "",
            "3",
            "3.",
            ".1",
            "a.1",
            "1.0",
            "-1.5",
            "1.-5",
            "99999999999999999999.1",
        ] {
            assert_eq!(CommentCursor::decode(bad), None, "{bad}");
        }
    }
}
