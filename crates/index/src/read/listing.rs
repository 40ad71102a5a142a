//! Token-page and listing reads over `launch_stats` (maintained by the indexer, see `store::listing`) and
//! the hourly candles: a launch's stats, its activity in a rolling window, and the discovery listing
//! sorted, filtered and searched with one index per sort.

use super::{launch_row, LaunchRow, Result, LAUNCH_COLS};
use crate::market::WINDOW_INTERVAL_SECS;
use crate::store::{sql, Backend, Store};
use crate::usd::UsdRate;
use anchor_lang::prelude::Pubkey;
use ruint::aliases::U256;
use sea_query::{
    Asterisk, Condition, Expr, Func, JoinType, LikeExpr, Order, Query, SelectStatement,
};
use sqlx::any::AnyRow;
use sqlx::Row;
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

/// The columns of `launch_stats` [`stats_row`] reads.
const STATS_COLS: [&str; 10] = [
    "status",
    "progress_bps",
    "supply",
    "price",
    "market_cap",
    "ath_price",
    "last_trade_time",
    "last_trade_seq",
    "volume_24h",
    "volume_24h_base",
];

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

/// A dollar value comparable across quotes, exactly: `value / 10^digits` quote is
/// `value * mantissa / 10^(digits + scale)` dollars, so with every key scaled to the same `places`
/// (at least each quote's `digits + scale`) no division is needed (saturating for values no launch can
/// reach).
fn usd_key(value: u128, digits: u32, rate: UsdRate, places: u32) -> U256 {
    let shift = places.saturating_sub(digits + rate.scale);
    U256::from(value)
        .saturating_mul(U256::from(rate.mantissa))
        .saturating_mul(U256::from(10u8).saturating_pow(U256::from(shift)))
}

impl Sort {
    /// Whether it orders by an amount of the quote (market cap, volume), which compares across quotes only
    /// in dollars.
    pub fn quote_denominated(self) -> bool {
        matches!(self, Sort::MarketCap | Sort::Volume24h)
    }

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

    /// The columns it orders by (table alias, column), each served by an index ending in the mint.
    fn columns(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Sort::New => &[("l", "created_at"), ("l", "created_slot"), ("l", "mint")],
            Sort::MarketCap => &[("s", "market_cap"), ("s", "mint")],
            Sort::Volume24h => &[("s", "volume_24h"), ("s", "mint")],
            Sort::LastTrade => &[("s", "last_trade_time"), ("s", "mint")],
            Sort::Progress => &[("s", "progress_bps"), ("s", "mint")],
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
    /// The start of a mint (exactly as written) or of a symbol (any case): 1 to [`MAX_PREFIX_CHARS`] ASCII
    /// letters and digits ([`valid_prefix`]).
    pub prefix: Option<String>,
    pub limit: u32,
    pub offset: u64,
}

/// The longest `prefix` a listing takes: a whole mint (base58, at most 44 characters).
pub const MAX_PREFIX_CHARS: usize = 44;

/// Whether `p` can start a mint or a symbol: 1 to [`MAX_PREFIX_CHARS`] ASCII letters and digits (base58 is a
/// subset; symbols are uppercase letters and digits).
pub fn valid_prefix(p: &str) -> bool {
    (1..=MAX_PREFIX_CHARS).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The strings starting with `p` (ASCII letters and digits) as a range in byte order: `[p, p')`, `p'` being
/// `p` with its last byte one higher (no letter or digit is 0x7F, so it never overflows).
fn prefix_range(p: &str) -> (String, String) {
    let mut upper = p.as_bytes().to_vec();
    if let Some(last) = upper.last_mut() {
        *last += 1;
    }
    (p.to_string(), String::from_utf8(upper).unwrap_or_default())
}

/// `col` starts with `p`: a range the column's index (in byte order) can serve. PostgreSQL compares in byte
/// order only under the "C" collation, whatever the database's is; SQLite's default (BINARY) is byte order.
fn starts_with(backend: Backend, col: &str, p: &str) -> Condition {
    let (low, high) = prefix_range(p);
    // sea-query numbers a custom expression's own `$1`, `$2` on PostgreSQL, its `?` on SQLite.
    let text = match backend {
        Backend::Postgres => format!(r#"{col} COLLATE "C" >= $1 AND {col} COLLATE "C" < $2"#),
        Backend::Sqlite => format!("{col} >= ? AND {col} < ?"),
    };
    Condition::all().add(Expr::cust_with_values(text, [low, high]))
}

/// One listing entry: the launch and its stats.
#[derive(Debug, Clone)]
pub struct ListingRow {
    pub launch: LaunchRow,
    pub stats: LaunchStats,
    /// Wallets holding it (vaults excluded), from `holder_counts`.
    pub holders: u64,
    /// Whether this service prepared it (see [`with_metadata`]).
    pub prepared: bool,
    /// SHA-256 (hex) of its image in `images`: prepare's, or the one read from its metadata URI.
    pub image_hash: Option<String>,
}

/// A launch's metadata beside its on-chain fields: whether this service prepared it, and its description,
/// image and links (from prepare, or read from the URI on chain by the API's metadata worker; empty until
/// then, or when that failed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchDetails {
    /// This service prepared it: `launch_metadata` holds it with the URI the launch carries on chain.
    pub prepared: bool,
    pub description: String,
    pub image_hash: Option<String>,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
}

/// The metadata columns [`with_metadata`] selects: prepare's (`m`), then the fetched ones (`o`).
const DETAIL_COLS: [&str; 5] = [
    "description",
    "image_hash",
    "website",
    "twitter",
    "telegram",
];

/// Joins a launch (`launches l`) to its metadata: `launch_metadata m` when this service prepared it (the
/// same mint with the URI the launch carries on chain: a creator who signed a transaction of their own for a
/// prepared mint did not launch what was prepared) and `launch_offchain o` (read from the URI), selecting
/// `prepared_mint` and [`DETAIL_COLS`] of each as `m_<col>` and `o_<col>`; [`details_of`] reads them.
fn with_metadata(select: &mut SelectStatement) {
    use sea_query::ExprTrait;
    select
        .join_as(
            JoinType::LeftJoin,
            "launch_metadata",
            "m",
            Expr::col(("m", "mint"))
                .equals(("l", "mint"))
                .and(Expr::col(("m", "uri")).equals(("l", "uri"))),
        )
        .join_as(
            JoinType::LeftJoin,
            "launch_offchain",
            "o",
            Expr::col(("o", "mint")).equals(("l", "mint")),
        )
        .expr_as(Expr::col(("m", "mint")), "prepared_mint");
    for table in ["m", "o"] {
        for col in DETAIL_COLS {
            select.expr_as(
                Expr::col((table, col)),
                sea_query::Alias::new(format!("{table}_{col}")),
            );
        }
    }
}

/// The metadata [`with_metadata`] selected: prepare's when this service prepared it, else what was read.
fn details_of(r: &AnyRow) -> LaunchDetails {
    let prepared = r.get::<Option<String>, _>("prepared_mint").is_some();
    let t = if prepared { "m" } else { "o" };
    let text = |col: &str| r.get::<Option<String>, _>(format!("{t}_{col}").as_str());
    LaunchDetails {
        prepared,
        description: text("description").unwrap_or_default(),
        image_hash: text("image_hash"),
        website: text("website"),
        twitter: text("twitter"),
        telegram: text("telegram"),
    }
}

/// The listing's launches narrowed by a request's filters: every launch the index has (`launches l` with
/// `launch_stats s`), whoever built it, matching each filter given.
fn listed(q: &ListingQuery, backend: Backend) -> SelectStatement {
    use sea_query::ExprTrait;
    let mut where_ = Condition::all();
    for (col, v) in [
        (("s", "status"), &q.status),
        (("l", "preset"), &q.preset),
        (("l", "quote"), &q.quote),
        (("l", "creator"), &q.creator),
    ] {
        if let Some(v) = v {
            where_ = where_.add(Expr::col(col).eq(v.as_str()));
        }
    }
    if let Some(text) = q.q.as_deref() {
        let escaped = text
            .to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let like = || LikeExpr::new(format!("%{escaped}%")).escape('\\');
        where_ = where_.add(
            Condition::any()
                .add(Func::lower(Expr::col(("l", "name"))).like(like()))
                .add(Func::lower(Expr::col(("l", "symbol"))).like(like()))
                .add(Expr::col(("l", "mint")).eq(text)),
        );
    }
    if let Some(p) = q.prefix.as_deref().filter(|p| valid_prefix(p)) {
        // Symbols are uppercase on chain (`create_launch` refuses others): any case of a prefix finds them.
        where_ = where_.add(
            Condition::any()
                .add(starts_with(backend, "l.mint", p))
                .add(starts_with(backend, "l.symbol", &p.to_ascii_uppercase())),
        );
    }
    Query::select()
        .from_as("launches", "l")
        .join_as(
            JoinType::InnerJoin,
            "launch_stats",
            "s",
            Expr::col(("s", "mint")).equals(("l", "mint")),
        )
        .cond_where(where_)
        .to_owned()
}

impl Store {
    /// A launch's stats row.
    pub async fn launch_stats(&self, mint: &Pubkey) -> Result<Option<LaunchStats>> {
        use sea_query::ExprTrait;
        let stmt = Query::select()
            .columns(STATS_COLS)
            .from("launch_stats")
            .and_where(Expr::col("mint").eq(mint.to_string()))
            .to_owned();
        let row = sql::query(self.backend(), &stmt)
            .fetch_optional(self.reads())
            .await?;
        Ok(row.as_ref().map(stats_row))
    }

    /// A launch's metadata beside its on-chain fields: prepare's, or what was read from its URI (`None`: no
    /// launch with this mint).
    pub async fn launch_details(&self, mint: &Pubkey) -> Result<Option<LaunchDetails>> {
        use sea_query::ExprTrait;
        let mut stmt = Query::select();
        stmt.from_as("launches", "l")
            .and_where(Expr::col(("l", "mint")).eq(mint.to_string()));
        with_metadata(&mut stmt);
        let row = sql::query(self.backend(), &stmt)
            .fetch_optional(self.reads())
            .await?;
        Ok(row.as_ref().map(details_of))
    }

    /// Description, image and links stored at prepare (none for launches made elsewhere): what the metadata
    /// URI this service gave a prepared launch serves.
    pub async fn launch_extras(&self, mint: &Pubkey) -> Result<Option<LaunchExtras>> {
        let row = sqlx::query(
            "SELECT name, symbol, description, image_hash, website, twitter, telegram \
             FROM launch_metadata WHERE mint = $1",
        )
        .bind(mint.to_string())
        .fetch_optional(self.reads())
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
        let stmt = {
            use sea_query::ExprTrait;
            Query::select()
                .columns(["mint", "volume_base", "volume_quote", "trades"])
                .from("candles")
                .and_where(Expr::col("interval_secs").eq(WINDOW_INTERVAL_SECS))
                .and_where(Expr::col("start_time").gte(since))
                .and_where(Expr::col("mint").is_in(mints.iter().map(String::as_str)))
                .to_owned()
        };
        for r in sql::query(self.backend(), &stmt)
            .fetch_all(self.reads())
            .await?
        {
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
        .fetch_one(self.reads())
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
        let stmt = listed(q, self.backend())
            .expr(Func::count(Expr::col(Asterisk)))
            .to_owned();
        let total: i64 = sql::query(self.backend(), &stmt)
            .fetch_one(self.reads())
            .await?
            .get(0);
        Ok(total.max(0) as u64)
    }

    /// A page of the discovery listing: recorded launches, filtered, searched, sorted with the mint as the
    /// last tiebreaker (so pages neither repeat nor skip a launch), each sort walking its own index.
    ///
    /// Market cap and volume are sorted in dollars across SOL and USDC launches when `sol_usd` is given
    /// and no quote filter narrows the listing to one of them (see [`Store::page_in_usd`]); otherwise in
    /// the quote's own units.
    pub async fn listing(
        &self,
        q: &ListingQuery,
        sol_usd: Option<UsdRate>,
    ) -> Result<Vec<ListingRow>> {
        let mints = match (q.sort.quote_denominated(), &q.quote, sol_usd) {
            (true, None, Some(rate)) => self.page_in_usd(q, rate).await?,
            _ => {
                let mut page = self.sorted(q);
                page.limit(u64::from(q.limit))
                    .offset(q.offset.min(i64::MAX as u64));
                sql::query(self.backend(), &page)
                    .fetch_all(self.reads())
                    .await?
                    .iter()
                    .map(|r| r.get(0))
                    .collect()
            }
        };
        self.listing_rows(&mints).await
    }

    /// The listing's launches in the request's order, selecting the mint then the sort's columns.
    fn sorted(&self, q: &ListingQuery) -> SelectStatement {
        let order = if q.descending {
            Order::Desc
        } else {
            Order::Asc
        };
        let mut page = listed(q, self.backend());
        page.column(("l", "mint"));
        for col in q.sort.columns() {
            page.column(*col);
            page.order_by(*col, order.clone());
        }
        page
    }

    /// A page sorted in dollars: the first `offset + limit` launches of each quote by its own index (the
    /// order within a quote is the same in dollars), merged by their dollar value (exact, from the padded
    /// integers and the rate) with the mint breaking ties. It reads what `OFFSET` would skip anyway, once
    /// per quote.
    async fn page_in_usd(&self, q: &ListingQuery, sol_usd: UsdRate) -> Result<Vec<String>> {
        let window = q
            .offset
            .saturating_add(u64::from(q.limit))
            .min(i64::MAX as u64);
        let quotes = curve::QuoteAsset::ALL.map(|quote| {
            let rate = match quote {
                curve::QuoteAsset::Sol => sol_usd,
                curve::QuoteAsset::Usdc => UsdRate::ONE,
            };
            let digits = match q.sort {
                Sort::MarketCap => crate::market::MARKET_CAP_DIGITS,
                _ => u32::from(quote.decimals()),
            };
            (quote, rate, digits)
        });
        let places = quotes
            .iter()
            .map(|(_, r, d)| d + r.scale)
            .max()
            .unwrap_or(0);
        let mut keyed: Vec<(U256, String)> = Vec::new();
        for (quote, rate, digits) in quotes {
            let narrowed = ListingQuery {
                quote: Some(quote.name().into()),
                ..q.clone()
            };
            let mut page = self.sorted(&narrowed);
            page.limit(window);
            for r in sql::query(self.backend(), &page)
                .fetch_all(self.reads())
                .await?
            {
                let value: u128 = r.get::<String, _>(1).parse().unwrap_or_default();
                keyed.push((usd_key(value, digits, rate, places), r.get(0)));
            }
        }
        keyed.sort();
        if q.descending {
            keyed.reverse();
        }
        Ok(keyed
            .into_iter()
            .skip(usize::try_from(q.offset).unwrap_or(usize::MAX))
            .take(q.limit as usize)
            .map(|(_, mint)| mint)
            .collect())
    }

    /// The listing's rows of `mints`, in that order.
    async fn listing_rows(&self, mints: &[String]) -> Result<Vec<ListingRow>> {
        let mut rows: BTreeMap<String, AnyRow> = BTreeMap::new();
        if !mints.is_empty() {
            let mut stmt = {
                use sea_query::ExprTrait;
                Query::select()
                    .columns(sql::of("l", &LAUNCH_COLS))
                    .columns(sql::of("s", &STATS_COLS))
                    .expr_as(
                        Func::coalesce([Expr::col(("h", "holders")), sql::lit(0)]),
                        "holders",
                    )
                    .from_as("launches", "l")
                    .join_as(
                        JoinType::InnerJoin,
                        "launch_stats",
                        "s",
                        Expr::col(("s", "mint")).equals(("l", "mint")),
                    )
                    .join_as(
                        JoinType::LeftJoin,
                        "holder_counts",
                        "h",
                        Expr::col(("h", "mint")).equals(("l", "mint")),
                    )
                    .and_where(Expr::col(("l", "mint")).is_in(mints.iter().map(String::as_str)))
                    .to_owned()
            };
            with_metadata(&mut stmt);
            for r in sql::query(self.backend(), &stmt)
                .fetch_all(self.reads())
                .await?
            {
                rows.insert(r.get("mint"), r);
            }
        }
        Ok(mints
            .iter()
            .filter_map(|m| {
                let r = rows.get(m)?;
                let details = details_of(r);
                Some(ListingRow {
                    launch: launch_row(r),
                    stats: stats_row(r),
                    holders: r.get::<i64, _>("holders").max(0) as u64,
                    prepared: details.prepared,
                    image_hash: details.image_hash,
                })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_range_holds_exactly_the_strings_that_start_with_it() {
        let alphabet: Vec<char> = ('0'..='9').chain('A'..='Z').chain('a'..='z').collect();
        let words: Vec<String> = alphabet
            .iter()
            .flat_map(|a| alphabet.iter().map(move |b| format!("{a}{b}")))
            .chain(alphabet.iter().map(|c| c.to_string()))
            .collect();
        for p in ["A", "z", "9", "Ab", "zz", "9Z"] {
            let (low, high) = prefix_range(p);
            for w in &words {
                let inside = w.as_str() >= low.as_str() && w.as_str() < high.as_str();
                assert_eq!(inside, w.starts_with(p), "{p}: {w}");
            }
        }
    }

    #[test]
    fn a_prefix_is_a_bound_range_in_byte_order_on_both_databases() {
        let q = ListingQuery {
            sort: Sort::New,
            descending: true,
            status: None,
            preset: None,
            quote: None,
            creator: None,
            q: None,
            prefix: Some("ab".into()),
            limit: 10,
            offset: 0,
        };
        let (pg, values) = Backend::Postgres.render(&listed(&q, Backend::Postgres));
        assert!(
            pg.contains(r#"l.mint COLLATE "C" >= $1 AND l.mint COLLATE "C" < $2"#)
                && pg.contains(r#"l.symbol COLLATE "C" >= $3 AND l.symbol COLLATE "C" < $4"#),
            "{pg}"
        );
        assert_eq!(values.0 .0.len(), 4, "{pg}");
        let (lite, _) = Backend::Sqlite.render(&listed(&q, Backend::Sqlite));
        assert!(
            lite.contains("l.mint >= ? AND l.mint < ?")
                && lite.contains("l.symbol >= ? AND l.symbol < ?"),
            "{lite}"
        );
    }

    #[test]
    fn prefixes_are_letters_and_digits_up_to_a_mint() {
        assert!(valid_prefix("So1"));
        assert!(valid_prefix(&"1".repeat(MAX_PREFIX_CHARS)));
        for bad in [
            "",
            "a b",
            "a%",
            "a_",
            "é",
            "a'--",
            &"1".repeat(MAX_PREFIX_CHARS + 1),
        ] {
            assert!(!valid_prefix(bad), "{bad}");
        }
    }
}
