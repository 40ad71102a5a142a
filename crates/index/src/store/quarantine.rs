//! The quarantine: changes the database refused, set aside so that the stream goes on (issue 40).
//!
//! [`classify`] reads a write error: an error of the data (PostgreSQL SQLSTATE class 22 "data exception",
//! 23 "integrity constraint violation", 54 "program limit exceeded"; SQLite's `CONSTRAINT`, `MISMATCH`,
//! `TOOBIG`) is [`Failure::Refused`]: writing the same rows again can never succeed. Anything else (a lost
//! connection, a serialization failure or deadlock, a statement timeout, a full disk, a missing partition)
//! is [`Failure::Transient`]: the writer keeps the batch and retries with the stream paused.
//!
//! A refused change goes to the `quarantine` table with its raw bytes (the event's instruction data as the
//! program emitted it, the account's data) and the error; what the bytes are and how to read them back is
//! the indexer's (`indexer/src/quarantine.rs`). The rows stay after a replay, marked `replayed_at`.

use super::Store;
use sqlx::Row as _;

/// What a failed write calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The database or the way to it failed: keep the batch, retry.
    Transient,
    /// The database refuses the data itself: retrying cannot succeed.
    Refused,
}

/// The SQLSTATE (PostgreSQL) or extended result code (SQLite) of a database error.
pub fn code(e: &sqlx::Error) -> Option<String> {
    match e {
        sqlx::Error::Database(d) => d.code().map(|c| c.into_owned()),
        _ => None,
    }
}

/// Whether a write error is the data's (see the module's comment).
pub fn classify(e: &sqlx::Error) -> Failure {
    match e {
        sqlx::Error::Encode(_) => Failure::Refused,
        // A partition made a moment ago and dropped meanwhile reads as a check violation: made again on retry.
        _ if super::partitions::is_missing(e) => Failure::Transient,
        sqlx::Error::Database(d) => {
            let sqlite = d.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some();
            match d.code() {
                Some(code) if sqlite => refused_sqlite(&code),
                Some(code) => refused_sqlstate(&code),
                None => Failure::Transient,
            }
        }
        _ => Failure::Transient,
    }
}

/// SQLite: an extended result code in decimal, its primary code in the low byte.
fn refused_sqlite(code: &str) -> Failure {
    match code.parse::<u32>().map(|n| n & 0xff) {
        // SQLITE_TOOBIG, SQLITE_CONSTRAINT, SQLITE_MISMATCH
        Ok(18..=20) => Failure::Refused,
        _ => Failure::Transient,
    }
}

/// PostgreSQL: a SQLSTATE, its class in the first two characters.
fn refused_sqlstate(code: &str) -> Failure {
    match code.get(..2) {
        Some("22" | "23" | "54") => Failure::Refused,
        _ => Failure::Transient,
    }
}

/// A change to set aside: who it is, its raw bytes and what else reading them back needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Names the change across restarts (`event:<signature>:<ix>:<inner>`, `account:<address>:<slot>:<wv>`).
    pub ident: String,
    pub kind: String,
    pub slot: u64,
    pub raw: Vec<u8>,
    /// JSON: the key fields the raw bytes do not carry.
    pub meta: String,
}

/// A row of the quarantine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quarantined {
    pub id: i64,
    pub entry: Entry,
    pub sqlstate: Option<String>,
    pub error: String,
    pub attempts: i64,
    pub quarantined_at: i64,
    pub replayed_at: Option<i64>,
}

impl Store {
    /// Sets `entry` aside with the error the database answered (again: the row's error and attempts are
    /// updated, and a replayed row is pending again).
    pub async fn quarantine(&self, entry: &Entry, error: &sqlx::Error) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO quarantine (ident, kind, slot, raw, meta, sqlstate, error, quarantined_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (ident) DO UPDATE SET sqlstate = excluded.sqlstate, error = excluded.error, \
             attempts = quarantine.attempts + 1, quarantined_at = excluded.quarantined_at, replayed_at = NULL",
        )
        .bind(entry.ident.clone())
        .bind(entry.kind.clone())
        .bind(i64::try_from(entry.slot).unwrap_or(i64::MAX))
        .bind(entry.raw.clone())
        .bind(entry.meta.clone())
        .bind(code(error))
        .bind(error.to_string())
        .bind(self.now())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// The quarantined rows in the order they were set aside; only those not replayed unless `all`.
    pub async fn quarantined(&self, all: bool) -> Result<Vec<Quarantined>, sqlx::Error> {
        let sql = if all {
            "SELECT id, ident, kind, slot, raw, meta, sqlstate, error, attempts, quarantined_at, replayed_at \
             FROM quarantine ORDER BY id"
        } else {
            "SELECT id, ident, kind, slot, raw, meta, sqlstate, error, attempts, quarantined_at, replayed_at \
             FROM quarantine WHERE replayed_at IS NULL ORDER BY id"
        };
        let rows = sqlx::query(sql).fetch_all(self.pool()).await?;
        Ok(rows
            .iter()
            .map(|r| Quarantined {
                id: r.get(0),
                entry: Entry {
                    ident: r.get(1),
                    kind: r.get(2),
                    slot: r.get::<i64, _>(3).max(0) as u64,
                    raw: r.get(4),
                    meta: r.get(5),
                },
                sqlstate: r.get(6),
                error: r.get(7),
                attempts: r.get(8),
                quarantined_at: r.get(9),
                replayed_at: r.get(10),
            })
            .collect())
    }

    /// Marks a quarantined row written (its change is in the index now).
    pub async fn quarantine_replayed(&self, id: i64) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE quarantine SET replayed_at = $1 WHERE id = $2")
            .bind(self.now())
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_errors_are_refused_and_the_rest_retried() {
        for code in ["23514", "23505", "22003", "22P02", "54000"] {
            assert_eq!(refused_sqlstate(code), Failure::Refused, "{code}");
        }
        // Connection, serialization, deadlock, cancel (statement timeout), admin shutdown, disk full,
        // undefined table, insufficient privilege.
        for code in [
            "08006", "08001", "40001", "40P01", "57014", "57P01", "53100", "42P01", "42501",
        ] {
            assert_eq!(refused_sqlstate(code), Failure::Transient, "{code}");
        }
        // CONSTRAINT (CHECK, TRIGGER, plain), MISMATCH, TOOBIG; BUSY, LOCKED, IOERR, FULL, BUSY_SNAPSHOT.
        for code in ["275", "1811", "19", "20", "18"] {
            assert_eq!(refused_sqlite(code), Failure::Refused, "{code}");
        }
        for code in ["5", "6", "10", "13", "517"] {
            assert_eq!(refused_sqlite(code), Failure::Transient, "{code}");
        }
        assert_eq!(classify(&sqlx::Error::PoolTimedOut), Failure::Transient);
        assert_eq!(
            classify(&sqlx::Error::Io(std::io::ErrorKind::ConnectionReset.into())),
            Failure::Transient
        );
    }
}
