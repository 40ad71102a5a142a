//! Bounded storage: how long the index keeps the rows that only grow (the live feed's, candles of the
//! finest intervals, and, when the operator says so, the trades), and the writer's periodic prune that
//! enforces it. By default trades, pools and the coarser candles are kept: they are the product's history.
//!
//! The prune runs at most once per [`PRUNE_EVERY_SECS`]. Inside a batch's transaction it deletes about one
//! interval's worth of expired rows, found by index: candles (`candles (interval_secs, start_time)`) on
//! both databases, and on SQLite the feed's rows (`feed_events (written_at)`) and expired trades (oldest
//! first by slot). On PostgreSQL the feed and the trades are partitioned: whole partitions are dropped after
//! the batch commits ([`super::partitions::expire`]).

use crate::market::{source_interval, INTERVALS};
use sqlx::{AnyConnection, Row as _};
use std::collections::BTreeMap;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// How often the writer prunes (seconds, by the store's clock).
pub const PRUNE_EVERY_SECS: i64 = 60;

/// Candle intervals the product itself reads over a long window, so never pruned: the listing's rolling 24h
/// volume and change and the all-time high come from the hourly candles (and the 4-hour and daily candles
/// are derived from them).
pub const KEPT_INTERVALS: [i64; 1] = [3_600];

/// How long rows are kept (seconds; `None`: for ever).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retention {
    /// The live feed's rows: a resume point older than this is answered `RESUME_TOO_OLD`.
    pub feed_secs: i64,
    /// Candles per interval length (seconds): intervals not named are kept for ever.
    pub candles: BTreeMap<i64, i64>,
    /// Trades (`trades`, `market_trades`, `amm_swaps`), by block time (`None`: for ever).
    pub trades_secs: Option<i64>,
}

impl Default for Retention {
    /// The feed a day; 1 s candles 2 days, 15 s candles a week; 1 m and coarser for ever.
    fn default() -> Self {
        Retention {
            feed_secs: 86_400,
            candles: BTreeMap::from([(1, 2 * 86_400), (15, 7 * 86_400)]),
            trades_secs: None,
        }
    }
}

impl Retention {
    /// Candles kept for ever, the feed a day: what a store prunes unless its writer was given a retention
    /// (the indexer's `--candle-retention` default is [`Retention::default`]).
    pub fn candles_forever() -> Retention {
        Retention {
            candles: BTreeMap::new(),
            ..Retention::default()
        }
    }

    /// [`Retention::default`] with the candle retentions of `spec` applied over it: comma-separated
    /// `interval=duration` pairs, the interval a stored one as the API names it (`1s`, `15s`, `1m`), the
    /// duration as `humantime` reads it (`2d`, `36h`, `1week`) or `forever`. The hourly candles cannot be
    /// pruned ([`KEPT_INTERVALS`]); a derived interval (`5m`, `15m` from `1m`; `4h`, `1d` from `1h`) is
    /// kept as long as its source; a duration under one interval would keep nothing.
    pub fn with_candles(spec: &str) -> std::result::Result<Retention, String> {
        let mut retention = Retention::default();
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, keep) = pair
                .split_once('=')
                .ok_or_else(|| format!("`{pair}`: expected interval=duration, e.g. 1s=2d"))?;
            let (name, keep) = (name.trim(), keep.trim());
            let secs = INTERVALS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| *s)
                .ok_or_else(|| {
                    let names: Vec<&str> = INTERVALS.iter().map(|(n, _)| *n).collect();
                    format!("`{name}` is not a candle interval ({})", names.join(", "))
                })?;
            let source = source_interval(secs);
            if source != secs {
                let from = INTERVALS
                    .iter()
                    .find(|(_, s)| *s == source)
                    .map_or("", |(n, _)| *n);
                return Err(format!(
                    "{name} candles are not stored: they are derived from the {from} candles and kept as \
                     long as those (set {from})"
                ));
            }
            if keep.eq_ignore_ascii_case("forever") {
                retention.candles.remove(&secs);
                continue;
            }
            if KEPT_INTERVALS.contains(&secs) {
                return Err(format!(
                    "{name} candles are kept for ever: the listing's 24h figures and the all-time high \
                     are computed from them"
                ));
            }
            let keep = humantime::parse_duration(keep)
                .map_err(|e| format!("`{keep}` ({name}): {e}; e.g. 2d, 36h, 1week or forever"))?
                .as_secs();
            let keep = i64::try_from(keep).map_err(|_| format!("`{pair}`: too long"))?;
            if keep < secs {
                return Err(format!(
                    "`{pair}` keeps less than one {name} candle; give at least {secs}s or forever"
                ));
            }
            retention.candles.insert(secs, keep);
        }
        Ok(retention)
    }
}

/// The shortest trade retention: a day (the feed and the listing's rolling figures read the last day).
pub const MIN_TRADES_SECS: i64 = 86_400;

/// How long something is kept: seconds, or for ever (`None`). A flag's value (a bare `Option` would read as
/// an optional flag).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Keep(pub Option<i64>);

/// Reads a trade retention: a duration as `humantime` reads it (`90d`, `1year`) of at least a day, or
/// `forever`.
pub fn trades_keep(spec: &str) -> std::result::Result<Keep, String> {
    let spec = spec.trim();
    if spec.eq_ignore_ascii_case("forever") {
        return Ok(Keep(None));
    }
    let keep = humantime::parse_duration(spec)
        .map_err(|e| format!("`{spec}`: {e}; e.g. 90d, 1year or forever"))?
        .as_secs();
    let keep = i64::try_from(keep).map_err(|_| format!("`{spec}`: too long"))?;
    if keep < MIN_TRADES_SECS {
        return Err(format!(
            "`{spec}` keeps less than a day of trades; give at least 1d or forever"
        ));
    }
    Ok(Keep(Some(keep)))
}

/// What one prune deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    pub feed_events: u64,
    pub candles: u64,
    /// Rows of the three trade tables (SQLite).
    pub trades: u64,
}

/// SQLite's expired trades, oldest first by slot and at most [`TRADES_PER_PRUNE`] rows a table a run, below
/// the lowest slot a kept feed row refers to (`$3`; a feed row of a trade is a reference to it).
const PRUNE_TRADES: [&str; 3] = [
    "DELETE FROM trades WHERE slot IN (SELECT slot FROM trades ORDER BY slot LIMIT $2) AND time < $1 \
     AND slot < $3",
    "DELETE FROM market_trades WHERE slot IN (SELECT slot FROM market_trades ORDER BY slot LIMIT $2) \
     AND time < $1 AND slot < $3",
    "DELETE FROM amm_swaps WHERE slot IN (SELECT slot FROM amm_swaps ORDER BY slot LIMIT $2) AND time < $1 \
     AND slot < $3",
];

/// The most trade rows of a table SQLite's prune looks at in one run.
pub const TRADES_PER_PRUNE: i64 = 10_000;

/// Deletes, inside a batch's transaction, what `retention` no longer keeps: each pruned interval's candles
/// that started before `now` (the chain-time clock candles are read by) less its retention, and on SQLite
/// feed rows written before `wall - feed_secs` (`wall`: unix seconds by the clock feed rows are stamped
/// with; the newest row always stays, so the highest `seq` never goes back) and trades older than their
/// retention. PostgreSQL's feed and trades expire by partition after the commit
/// ([`super::partitions::expire`]).
pub async fn prune(
    conn: &mut AnyConnection,
    retention: &Retention,
    wall: i64,
    now: i64,
) -> Result<Pruned> {
    let mut pruned = Pruned::default();
    for (interval, keep) in &retention.candles {
        pruned.candles +=
            sqlx::query("DELETE FROM candles WHERE interval_secs = $1 AND start_time < $2")
                .bind(*interval)
                .bind(now - keep)
                .execute(&mut *conn)
                .await?
                .rows_affected();
    }
    if super::Backend::of(conn) == super::Backend::Sqlite {
        pruned.feed_events = super::feed::prune(conn, wall - retention.feed_secs).await?;
        if let Some(keep) = retention.trades_secs {
            let referenced: Option<i64> = sqlx::query(super::partitions::LOWEST_REFERENCED_SLOT)
                .fetch_one(&mut *conn)
                .await?
                .get(0);
            for statement in PRUNE_TRADES {
                pruned.trades += sqlx::query(statement)
                    .bind(now - keep)
                    .bind(TRADES_PER_PRUNE)
                    .bind(referenced.unwrap_or(i64::MAX))
                    .execute(&mut *conn)
                    .await?
                    .rows_affected();
            }
        }
    }
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candle_retention_reads_names_durations_and_forever() {
        let r = Retention::with_candles("1s=36h, 1m=30d,15s=forever").unwrap();
        assert_eq!(
            r.candles,
            BTreeMap::from([(1, 36 * 3_600), (60, 30 * 86_400)])
        );
        assert_eq!(r.feed_secs, 86_400);
        assert_eq!(Retention::with_candles("").unwrap(), Retention::default());
    }

    #[test]
    fn candle_retention_refuses_what_would_break_the_product_or_keep_nothing() {
        for (spec, says) in [
            ("1h=2d", "kept for ever"),
            ("1d=30d", "derived from the 1h candles"),
            ("5m=30d", "derived from the 1m candles"),
            ("15m=forever", "(set 1m)"),
            ("2s=1d", "not a candle interval"),
            ("1s", "expected interval=duration"),
            ("1s=soon", "forever"),
            ("15s=10s", "less than one 15s candle"),
        ] {
            let e = Retention::with_candles(spec).unwrap_err();
            assert!(e.contains(says), "{spec}: {e}");
        }
        assert_eq!(trades_keep("forever"), Ok(Keep(None)));
        assert_eq!(trades_keep("90d"), Ok(Keep(Some(90 * 86_400))));
        assert!(trades_keep("12h").unwrap_err().contains("at least 1d"));
        assert!(trades_keep("later").unwrap_err().contains("forever"));
        // Keeping the kept intervals for ever is what they do anyway.
        assert!(Retention::with_candles("1h=forever").is_ok());
    }
}
