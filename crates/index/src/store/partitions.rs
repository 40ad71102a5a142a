//! Partitioned storage (PostgreSQL): the four tables that grow with every trade are partitioned by range
//! (`migrations/postgres/0014_partitions.sql`), so that retention drops whole partitions instead of
//! deleting rows one by one. The event tables (`trades`, `market_trades`, `amm_swaps`) by slot, the feed's
//! rows by the hour they were written.
//!
//! The writer makes the partitions a batch writes into, and the next one ahead of each, before the batch's
//! transaction ([`Partitions::ensure`]): making a partition locks its table for a moment, so it is done
//! outside the batch and, for the one ahead, about a partition's span before any row needs it. Retention
//! drops what expired after the batch commits ([`expire`]). SQLite keeps one table each and prunes with
//! `DELETE` ([`super::retention`]).

use sqlx::{AnyConnection, Row as _};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

type Result<T> = std::result::Result<T, sqlx::Error>;

/// Slots per partition of the event tables: about a day at mainnet's 400 ms a slot. Part of the schema
/// (the migration uses it): it cannot change once partitions exist.
pub const SLOTS_PER_PARTITION: i64 = 216_000;

/// Seconds of `written_at` per partition of `feed_events`: an hour, so that the feed's retention is kept to
/// within an hour. Part of the schema.
pub const FEED_SECS_PER_PARTITION: i64 = 3_600;

/// The tables partitioned by slot: an event's key in them includes its slot.
pub const BY_SLOT: [&str; 3] = ["trades", "market_trades", "amm_swaps"];

/// The lowest slot a kept feed row refers to a trade in (NULL with none): trade retention keeps that slot
/// and every later one (through `feed_events_trade_slot`). Here, with the partitions, not in `feed`: `rows`
/// names this module, and `feed` builds on `rows`.
pub const LOWEST_REFERENCED_SLOT: &str = "SELECT MIN(slot) FROM feed_events WHERE payload IS NULL";

/// The columns that identify an event row of `table` (its conflict target): the partitioned tables' keys
/// hold the partition key too.
pub fn event_key_columns(table: &str) -> &'static [&'static str] {
    if BY_SLOT.contains(&table) {
        &["signature", "ix_index", "inner_index", "slot"]
    } else {
        &["signature", "ix_index", "inner_index"]
    }
}

/// The lower bound of the partition of `width` holding `key`.
fn lower(key: i64, width: i64) -> i64 {
    key - key.rem_euclid(width)
}

/// The partitions this process knows exist (shared by a store's clones), so that a batch asks the database
/// only for ones it has not made or seen yet.
#[derive(Debug, Clone, Default)]
pub struct Partitions(Arc<Mutex<BTreeSet<(&'static str, i64)>>>);

impl Partitions {
    fn known(&self) -> std::sync::MutexGuard<'_, BTreeSet<(&'static str, i64)>> {
        // The set is only ever inserted into or cleared: a poisoned lock still holds a usable set.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets what it knew (after a failed write, or a drop), so the next batch asks again.
    pub fn forget(&self) {
        self.known().clear();
    }

    /// Makes, if missing, the partition of each `(table, slot)` written (see [`super::slot_writes`]; tables
    /// not partitioned are passed over) and the one after each, and the feed's partitions of the hour `wall`
    /// and the next. Runs outside a transaction.
    pub async fn ensure(
        &self,
        conn: &mut AnyConnection,
        writes: &[(&'static str, u64)],
        wall: i64,
    ) -> Result<()> {
        let mut wanted: BTreeSet<(&'static str, i64)> = BTreeSet::new();
        for &(table, slot) in writes.iter().filter(|(t, _)| BY_SLOT.contains(t)) {
            let lo = lower(i64::try_from(slot).unwrap_or(i64::MAX), SLOTS_PER_PARTITION);
            wanted.insert((table, lo));
            wanted.insert((table, lo + SLOTS_PER_PARTITION));
        }
        let hour = lower(wall, FEED_SECS_PER_PARTITION);
        wanted.insert(("feed_events", hour));
        wanted.insert(("feed_events", hour + FEED_SECS_PER_PARTITION));
        let missing: Vec<(&'static str, i64)> = {
            let known = self.known();
            wanted.into_iter().filter(|p| !known.contains(p)).collect()
        };
        for (table, lo) in missing {
            let width = width(table);
            sqlx::query("SELECT launchpad_partition($1, $2, $3)")
                .bind(table)
                .bind(lo)
                .bind(width)
                .execute(&mut *conn)
                .await?;
            self.known().insert((table, lo));
        }
        Ok(())
    }
}

/// Whether a write failed for want of a partition (PostgreSQL's "no partition of relation ... found for
/// row"): the batch is written again after the partitions are made again.
pub fn is_missing(e: &sqlx::Error) -> bool {
    e.as_database_error().is_some_and(|d| {
        d.code().as_deref() == Some("23514") && d.message().starts_with("no partition of relation")
    })
}

fn width(table: &str) -> i64 {
    if table == "feed_events" {
        FEED_SECS_PER_PARTITION
    } else {
        SLOTS_PER_PARTITION
    }
}

/// A partition of a table and its range `[lo, hi)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    pub name: String,
    pub lo: i64,
    pub hi: i64,
}

/// The partitions of `table`, lowest range first.
pub async fn list(conn: &mut AnyConnection, table: &str) -> Result<Vec<Partition>> {
    Ok(
        sqlx::query("SELECT name, lo, hi FROM launchpad_partitions($1)")
            .bind(table)
            .fetch_all(&mut *conn)
            .await?
            .iter()
            .map(|r| Partition {
                name: r.get(0),
                lo: r.get(1),
                hi: r.get(2),
            })
            .collect(),
    )
}

async fn drop(conn: &mut AnyConnection, table: &str, p: &Partition) -> Result<()> {
    sqlx::query("SELECT launchpad_drop_partition($1, $2)")
        .bind(table)
        .bind(&p.name)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Per slot-partitioned table: its newest row's time in `[lo, hi)`, and its newest slot (both found
/// through its slot index).
const NEWEST: [(&str, &str, &str); 3] = [
    (
        "trades",
        "SELECT time FROM trades WHERE slot >= $1 AND slot < $2 ORDER BY slot DESC LIMIT 1",
        "SELECT slot FROM trades ORDER BY slot DESC LIMIT 1",
    ),
    (
        "market_trades",
        "SELECT time FROM market_trades WHERE slot >= $1 AND slot < $2 ORDER BY slot DESC LIMIT 1",
        "SELECT slot FROM market_trades ORDER BY slot DESC LIMIT 1",
    ),
    (
        "amm_swaps",
        "SELECT time FROM amm_swaps WHERE slot >= $1 AND slot < $2 ORDER BY slot DESC LIMIT 1",
        "SELECT slot FROM amm_swaps ORDER BY slot DESC LIMIT 1",
    ),
];

/// What one expiry removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Expired {
    /// Partitions dropped, all tables together.
    pub partitions: u64,
    /// Feed rows deleted from the partition holding the newest row (kept apart so `seq` never goes back).
    pub feed_rows: u64,
}

/// Drops the feed's partitions written entirely before `feed_before` (unix seconds by the feed's clock),
/// and, with `trades_before` (block time), the event tables' partitions whose newest row is older than it
/// and below every trade a kept feed row refers to.
/// The partition holding the feed's newest row is never dropped (the highest `seq` must not go back): past
/// the retention, its other rows are deleted instead. Partitions ahead of the newest row are kept. Each drop
/// is its own short statement; `lock_timeout` bounds how long one waits behind a long read (it is tried
/// again at the next expiry). Returns what went; forgets the made partitions if any went.
pub async fn expire(
    conn: &mut AnyConnection,
    made: &Partitions,
    feed_before: i64,
    trades_before: Option<i64>,
) -> Result<Expired> {
    let mut out = Expired::default();
    sqlx::query("SELECT set_config('lock_timeout', '2000', false)")
        .execute(&mut *conn)
        .await?;
    let result = expire_inner(conn, feed_before, trades_before, &mut out).await;
    sqlx::query("SELECT set_config('lock_timeout', '0', false)")
        .execute(&mut *conn)
        .await?;
    if out.partitions > 0 {
        made.forget();
    }
    result.map(|()| out)
}

async fn expire_inner(
    conn: &mut AnyConnection,
    feed_before: i64,
    trades_before: Option<i64>,
    out: &mut Expired,
) -> Result<()> {
    let newest: Option<(i64, i64)> =
        sqlx::query("SELECT seq, written_at FROM feed_events ORDER BY seq DESC LIMIT 1")
            .fetch_optional(&mut *conn)
            .await?
            .map(|r| (r.get(0), r.get(1)));
    for p in list(conn, "feed_events").await? {
        if p.hi > feed_before {
            break;
        }
        match newest {
            // Partitions from the newest row's on are kept (ahead of it: made ahead of time).
            Some((_, at)) if at < p.lo => break,
            Some((seq, at)) if at < p.hi => {
                out.feed_rows += sqlx::query(
                    "DELETE FROM feed_events WHERE written_at >= $1 AND written_at < $2 AND seq < $3",
                )
                .bind(p.lo)
                .bind(p.hi)
                .bind(seq)
                .execute(&mut *conn)
                .await?
                .rows_affected();
                break;
            }
            _ => {
                drop(conn, "feed_events", &p).await?;
                out.partitions += 1;
            }
        }
    }
    let Some(before) = trades_before else {
        return Ok(());
    };
    // A feed row of a trade is a reference to it: no partition at or above the lowest slot a kept feed
    // row refers to goes (read after the feed's own expiry above).
    let referenced: Option<i64> = sqlx::query(LOWEST_REFERENCED_SLOT)
        .fetch_one(&mut *conn)
        .await?
        .get(0);
    for (table, newest_time, newest_slot) in NEWEST {
        let newest: Option<i64> = sqlx::query(newest_slot)
            .fetch_optional(&mut *conn)
            .await?
            .map(|r| r.get(0));
        for p in list(conn, table).await? {
            let time: Option<i64> = sqlx::query(newest_time)
                .bind(p.lo)
                .bind(p.hi)
                .fetch_optional(&mut *conn)
                .await?
                .map(|r| r.get(0));
            // Oldest first. An empty partition below the table's newest row is a past range nothing was
            // written in; one above it was made ahead of time, and so is everything after it.
            let expired = match time {
                Some(t) => t < before,
                None => newest.is_some_and(|n| p.hi <= n),
            } && referenced.is_none_or(|r| p.hi <= r);
            if !expired {
                break;
            }
            drop(conn, table, &p).await?;
            out.partitions += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_aligned_ranges() {
        assert_eq!(lower(0, SLOTS_PER_PARTITION), 0);
        assert_eq!(lower(215_999, SLOTS_PER_PARTITION), 0);
        assert_eq!(lower(216_000, SLOTS_PER_PARTITION), 216_000);
        assert_eq!(lower(1_800_003_599, FEED_SECS_PER_PARTITION), 1_800_000_000);
        assert_eq!(
            event_key_columns("trades"),
            ["signature", "ix_index", "inner_index", "slot"]
        );
        assert_eq!(
            event_key_columns("claims"),
            ["signature", "ix_index", "inner_index"]
        );
    }
}
