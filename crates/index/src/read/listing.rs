//! Token-page and listing reads over `launch_stats` (maintained by the indexer, see `store::listing`) and
//! the hourly candles: a launch's stats, its activity in a rolling window, and the discovery listing
//! sorted, filtered and searched with one index per sort.

use super::{launch_row, LaunchRow, Result, LAUNCH_COLS};
use crate::market::WINDOW_INTERVAL_SECS;
use crate::store::Store;
use anchor_lang::prelude::Pubkey;
use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};
use std::collections::BTreeMap;

fn num(r: &AnyRow, col: &str) -> u128 {
    r.get::<String, _>(col).parse().unwrap_or_default()
}

/// A launch's row of `launch_stats`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchStats {
    /// `bonding`, `complete` or `migrated`.
    pub status: String,
    pub progress_bps: u16,
    /// Base units.
    pub supply: u64,
    /// Fixed-point spot price on the venue it trades on now.
    pub price: u128,
    /// Price times supply: whole quote times 10^24.
    pub market_cap: u128,
    /// The highest price after any trade, fixed-point.
    pub ath_price: u128,
    /// Unix seconds of the latest trade; `None` before any.
    pub last_trade_time: Option<i64>,
    /// The rolling 24h volume (quote, then tokens; base units) as of the indexer's latest batch.
    pub volume_24h_quote: u128,
    pub volume_24h_base: u128,
}

fn stats_row(r: &AnyRow) -> LaunchStats {
    LaunchStats {
        status: r.get("status"),
        progress_bps: u16::try_from(r.get::<i64, _>("progress_bps")).unwrap_or(0),
        supply: r.get::<String, _>("supply").parse().unwrap_or_default(),
        price: num(r, "price"),
        market_cap: num(r, "market_cap"),
        ath_price: num(r, "ath_price"),
        last_trade_time: Some(r.get::<i64, _>("last_trade_time"))
            .filter(|_| !r.get::<String, _>("last_trade_seq").is_empty()),
        volume_24h_quote: num(r, "volume_24h"),
        volume_24h_base: num(r, "volume_24h_base"),
    }
}

const STATS_COLS: &str =
    "s.status, s.progress_bps, s.supply, s.price, s.market_cap, s.ath_price, s.last_trade_time, \
     s.last_trade_seq, s.volume_24h, s.volume_24h_base";

/// A launch's trading in a window, from its hourly candles (and its trades, for distinct wallets).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Activity {
    /// Base units of the token.
    pub volume_base: u128,
    /// Base units of the quote.
    pub volume_quote: u128,
    pub trades: u64,
    /// Distinct wallets that traded.
    pub traders: u64,
    /// The price the window's change is measured from: the last price before the window, else the price
    /// after the window's first trade.
    pub reference_price: Option<u128>,
}

/// What prepare stored besides the on-chain metadata: description, image and links.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchExtras {
    pub name: String,
    pub symbol: String,
    pub description: String,
    /// SHA-256 (hex) of the image in `images`.
    pub image_hash: Option<String>,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
}

/// Listing sorts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    New,
    MarketCap,
    Volume24h,
    LastTrade,
    Progress,
}

impl Sort {
    pub const NAMES: [(&'static str, Sort); 5] = [
        ("new", Sort::New),
        ("marketCap", Sort::MarketCap),
        ("volume24h", Sort::Volume24h),
        ("lastTrade", Sort::LastTrade),
        ("progress", Sort::Progress),
    ];

    pub fn from_name(name: &str) -> Option<Sort> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }

    /// The columns it orders by, each served by an index ending in the mint.
    fn columns(self) -> &'static [&'static str] {
        match self {
            Sort::New => &["l.created_at", "l.created_slot", "l.mint"],
            Sort::MarketCap => &["s.market_cap", "s.mint"],
            Sort::Volume24h => &["s.volume_24h", "s.mint"],
            Sort::LastTrade => &["s.last_trade_time", "s.mint"],
            Sort::Progress => &["s.progress_bps", "s.mint"],
        }
    }
}

/// A listing request.
#[derive(Debug, Clone)]
pub struct ListingQuery {
    pub sort: Sort,
    pub descending: bool,
    pub status: Option<String>,
    pub preset: Option<String>,
    pub quote: Option<String>,
    pub creator: Option<String>,
    /// Name or symbol (case-insensitive substring), or an exact mint.
    pub q: Option<String>,
    pub limit: u32,
    pub offset: u64,
}

/// One listing entry: the launch and its stats.
#[derive(Debug, Clone)]
pub struct ListingRow {
    pub launch: LaunchRow,
    pub stats: LaunchStats,
    /// Wallets holding it (vaults excluded), from `holder_counts`.
    pub holders: u64,
}

/// A filter as SQL over `launches l`, `launch_metadata m`, `launch_stats s`, with its bound values.
struct Filter {
    sql: String,
    binds: Vec<String>,
}

impl Filter {
    fn of(q: &ListingQuery) -> Filter {
        let mut f = Filter {
            sql: "m.recorded_at IS NOT NULL".into(),
            binds: Vec::new(),
        };
        for (col, v) in [
            ("s.status", &q.status),
            ("l.preset", &q.preset),
            ("l.quote", &q.quote),
            ("l.creator", &q.creator),
        ] {
            if let Some(v) = v {
                f.binds.push(v.clone());
                f.sql.push_str(&format!(" AND {col} = ${}", f.binds.len()));
            }
        }
        if let Some(text) = q.q.as_deref() {
            let escaped = text
                .to_lowercase()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            f.binds.push(format!("%{escaped}%"));
            let n = f.binds.len();
            f.binds.push(text.to_string());
            f.sql.push_str(&format!(
                " AND (LOWER(l.name) LIKE ${n} ESCAPE '\\' OR LOWER(l.symbol) LIKE ${n} ESCAPE '\\' \
                 OR l.mint = ${})",
                n + 1
            ));
        }
        f
    }
}

const LISTING_FROM: &str = "launches l JOIN launch_metadata m ON m.mint = l.mint \
                            JOIN launch_stats s ON s.mint = l.mint";

impl Store {
    /// A launch's stats row.
    pub async fn launch_stats(&self, mint: &Pubkey) -> Result<Option<LaunchStats>> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {STATS_COLS} FROM launch_stats s WHERE s.mint = $1"
        )))
        .bind(mint.to_string())
        .fetch_optional(self.pool())
        .await?;
        Ok(row.as_ref().map(stats_row))
    }

    /// Description, image and links stored at prepare (none for launches made elsewhere).
    pub async fn launch_extras(&self, mint: &Pubkey) -> Result<Option<LaunchExtras>> {
        let row = sqlx::query(
            "SELECT name, symbol, description, image_hash, website, twitter, telegram \
             FROM launch_metadata WHERE mint = $1",
        )
        .bind(mint.to_string())
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| LaunchExtras {
            name: r.get(0),
            symbol: r.get(1),
            description: r.get(2),
            image_hash: r.get(3),
            website: r.get(4),
            twitter: r.get(5),
            telegram: r.get(6),
        }))
    }

    /// Volume and trade count per mint of `mints` since `since` (a window start), from hourly candles.
    async fn window_volumes(
        &self,
        mints: &[String],
        since: i64,
    ) -> Result<BTreeMap<String, (u128, u128, u64)>> {
        let mut out: BTreeMap<String, (u128, u128, u64)> = BTreeMap::new();
        if mints.is_empty() {
            return Ok(out);
        }
        let list = (0..mints.len())
            .map(|i| format!("${}", i + 3))
            .collect::<Vec<_>>()
            .join(", ");
        let mut q = sqlx::query(AssertSqlSafe(format!(
            "SELECT mint, volume_base, volume_quote, trades FROM candles \
             WHERE interval_secs = $1 AND start_time >= $2 AND mint IN ({list})"
        )))
        .bind(WINDOW_INTERVAL_SECS)
        .bind(since);
        for m in mints {
            q = q.bind(m.clone());
        }
        for r in q.fetch_all(self.pool()).await? {
            let e = out.entry(r.get("mint")).or_default();
            e.0 = e.0.saturating_add(num(&r, "volume_base"));
            e.1 = e.1.saturating_add(num(&r, "volume_quote"));
            e.2 = e.2.saturating_add(r.get::<i64, _>("trades").max(0) as u64);
        }
        Ok(out)
    }

    /// A launch's trading since `since` (a [`crate::market::window_start`]).
    pub async fn activity(&self, mint: &Pubkey, since: i64) -> Result<Activity> {
        let m = mint.to_string();
        let (volume_base, volume_quote, trades) = self
            .window_volumes(std::slice::from_ref(&m), since)
            .await?
            .remove(&m)
            .unwrap_or_default();
        let traders: i64 = sqlx::query(
            "SELECT COUNT(DISTINCT wallet) FROM market_trades WHERE mint = $1 AND time >= $2",
        )
        .bind(m.clone())
        .bind(since)
        .fetch_one(self.pool())
        .await?
        .get(0);
        let reference_price = match self
            .candle_before(mint, WINDOW_INTERVAL_SECS, since)
            .await?
        {
            Some(c) => Some(c.close),
            None => self
                .candles(mint, WINDOW_INTERVAL_SECS, since, i64::MAX, 1_000)
                .await?
                .first()
                .map(|c| c.open),
        };
        Ok(Activity {
            volume_base,
            volume_quote,
            trades,
            traders: traders.max(0) as u64,
            reference_price,
        })
    }

    /// How many recorded launches match the listing's filters (a count over them: callers cache it).
    pub async fn listing_total(&self, q: &ListingQuery) -> Result<u64> {
        self.count(&Filter::of(q), "").await
    }

    /// A page of the discovery listing: recorded launches, filtered, searched, sorted with the mint as the
    /// last tiebreaker (so pages neither repeat nor skip a launch), each sort walking its own index.
    pub async fn listing(&self, q: &ListingQuery) -> Result<Vec<ListingRow>> {
        let filter = Filter::of(q);
        let dir = if q.descending { "DESC" } else { "ASC" };
        let mints = self
            .ordered(&filter, q.sort.columns(), dir, "", q.offset, q.limit)
            .await?;
        let cols = LAUNCH_COLS
            .split(", ")
            .map(|c| format!("l.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut rows: BTreeMap<String, AnyRow> = BTreeMap::new();
        if !mints.is_empty() {
            let list = (1..=mints.len())
                .map(|i| format!("${i}"))
                .collect::<Vec<_>>()
                .join(", ");
            let mut query = sqlx::query(AssertSqlSafe(format!(
                "SELECT {cols}, {STATS_COLS}, COALESCE(h.holders, 0) AS holders FROM launches l \
                 JOIN launch_stats s ON s.mint = l.mint LEFT JOIN holder_counts h ON h.mint = l.mint \
                 WHERE l.mint IN ({list})"
            )));
            for m in &mints {
                query = query.bind(m.clone());
            }
            for r in query.fetch_all(self.pool()).await? {
                rows.insert(r.get("mint"), r);
            }
        }
        Ok(mints
            .iter()
            .filter_map(|m| {
                let r = rows.get(m)?;
                Some(ListingRow {
                    launch: launch_row(r),
                    stats: stats_row(r),
                    holders: r.get::<i64, _>("holders").max(0) as u64,
                })
            })
            .collect())
    }

    async fn count(&self, filter: &Filter, extra: &str) -> Result<u64> {
        let mut query = sqlx::query(AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM {LISTING_FROM} WHERE {}{extra}",
            filter.sql
        )));
        for b in &filter.binds {
            query = query.bind(b.clone());
        }
        Ok(query.fetch_one(self.pool()).await?.get::<i64, _>(0).max(0) as u64)
    }

    /// The mints of one page in the order of `columns`.
    async fn ordered(
        &self,
        filter: &Filter,
        columns: &[&str],
        dir: &str,
        extra: &str,
        offset: u64,
        limit: u32,
    ) -> Result<Vec<String>> {
        let order = columns
            .iter()
            .map(|c| format!("{c} {dir}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut query = sqlx::query(AssertSqlSafe(format!(
            "SELECT l.mint FROM {LISTING_FROM} WHERE {}{extra} ORDER BY {order} \
             LIMIT {limit} OFFSET {offset}",
            filter.sql
        )));
        for b in &filter.binds {
            query = query.bind(b.clone());
        }
        Ok(query
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
}
