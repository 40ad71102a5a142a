//! `launch_stats`: one row per launch with what the listing sorts and filters on (status, progress, spot
//! price, market cap, all-time-high price, last trade), rewritten inside the batch's transaction for every
//! launch the batch touched (a trade, its pool, or the AMM pool it migrated into). Each refresh recomputes
//! the row from the state the batch just wrote, so replays change nothing; the all-time high only grows
//! with newly inserted trades (and is recomputed from the hourly candles' highs for rows a migration left stale).

use super::rows::{Row, Val};
use super::{sql, Backend};
use crate::market;
use sea_query::{Expr, JoinType, OnConflict, Order, Query, SelectStatement};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row as _};
use std::collections::{BTreeMap, BTreeSet, HashMap};

type Result<T> = std::result::Result<T, sqlx::Error>;

/// Width of the zero-padded `market_cap` column (u128 has at most 39 digits), so that text order is
/// numeric order.
pub const MARKET_CAP_WIDTH: usize = 39;

/// `v` zero-padded to [`MARKET_CAP_WIDTH`] digits.
pub fn padded(v: u128) -> String {
    format!("{v:0>MARKET_CAP_WIDTH$}")
}

fn num(r: &AnyRow, col: &str) -> u128 {
    r.get::<String, _>(col).parse().unwrap_or_default()
}

/// Most mints one statement names.
const MINTS_PER_STATEMENT: usize = 500;

/// The rows of the statements `select` makes for `mints`, one per [`MINTS_PER_STATEMENT`] of them.
async fn rows_for<S: AsRef<str>>(
    conn: &mut AnyConnection,
    mints: &[S],
    select: impl Fn(Vec<String>) -> SelectStatement,
) -> Result<Vec<AnyRow>> {
    let backend = Backend::of(conn);
    let mut out = Vec::new();
    for chunk in mints.chunks(MINTS_PER_STATEMENT) {
        let stmt = select(chunk.iter().map(|m| m.as_ref().to_string()).collect());
        out.extend(sql::query(backend, &stmt).fetch_all(&mut *conn).await?);
    }
    Ok(out)
}

/// Each of `mints`' volume since `since` from its hourly candles: (base, quote); a mint without candles in
/// the window is absent.
async fn window_volumes<S: AsRef<str>>(
    conn: &mut AnyConnection,
    mints: &[S],
    since: i64,
) -> Result<HashMap<String, (u128, u128)>> {
    use sea_query::ExprTrait;
    let rows = rows_for(conn, mints, |chunk| {
        Query::select()
            .columns(["mint", "volume_base", "volume_quote"])
            .from("candles")
            .and_where(Expr::col("interval_secs").eq(crate::market::WINDOW_INTERVAL_SECS))
            .and_where(Expr::col("start_time").gte(since))
            .and_where(Expr::col("mint").is_in(chunk))
            .to_owned()
    })
    .await?;
    let mut out: HashMap<String, (u128, u128)> = HashMap::new();
    for r in &rows {
        let (b, q) = out.entry(r.get(0)).or_default();
        *b = b.saturating_add(num(r, "volume_base"));
        *q = q.saturating_add(num(r, "volume_quote"));
    }
    Ok(out)
}

/// Most launches one batch re-sums when the window has moved past their volume (the rest follow in the
/// next batches).
const SWEEP_PER_BATCH: i64 = 2_000;

/// The `volume_window` stored with a zero volume: zero stays zero until the launch trades (which refreshes
/// it), so the sweep's range on `volume_window` never meets idle launches.
pub const IDLE_WINDOW: i64 = i64::MAX;

/// The `volume_window` to store with a volume summed from `since`.
fn window_of(quote: u128, since: i64) -> i64 {
    if quote == 0 {
        IDLE_WINDOW
    } else {
        since
    }
}

/// Re-sums the 24h volume of launches whose stored volume is from an earlier window than the one at `now`
/// (never an idle one: see [`IDLE_WINDOW`]), a bounded number per call.
pub async fn sweep(conn: &mut AnyConnection, now: i64) -> Result<()> {
    let since = crate::market::window_start(now);
    let stale: Vec<String> =
        sqlx::query("SELECT mint FROM launch_stats WHERE volume_window < $1 LIMIT $2")
            .bind(since)
            .bind(SWEEP_PER_BATCH)
            .fetch_all(&mut *conn)
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
    let volumes = window_volumes(conn, &stale, since).await?;
    for mint in stale {
        let (base, quote) = volumes.get(&mint).copied().unwrap_or_default();
        sqlx::query(
            "UPDATE launch_stats SET volume_24h = $1, volume_24h_base = $2, volume_window = $3 \
             WHERE mint = $4",
        )
        .bind(padded(quote))
        .bind(base.to_string())
        .bind(window_of(quote, since))
        .bind(mint)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// The launches whose AMM pool is one of `amm_pools`.
pub async fn mints_of_amm_pools(
    conn: &mut AnyConnection,
    amm_pools: &BTreeSet<String>,
) -> Result<BTreeSet<String>> {
    use sea_query::ExprTrait;
    let pools: Vec<&String> = amm_pools.iter().collect();
    let rows = rows_for(conn, &pools, |chunk| {
        Query::select()
            .column("mint")
            .from("pools")
            .and_where(Expr::col("amm_pool").is_in(chunk))
            .to_owned()
    })
    .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Rewrites the stats of `mints`, their 24h volume as of `now`. `highs`: the highest price among each mint's
/// newly inserted trades; `recompute_ath`: take the all-time high from the hourly candles instead of the
/// stored one (rows a migration left stale).
pub async fn refresh(
    conn: &mut AnyConnection,
    mints: &BTreeSet<String>,
    highs: &BTreeMap<String, u128>,
    recompute_ath: bool,
    now: i64,
) -> Result<()> {
    use sea_query::ExprTrait;
    if mints.is_empty() {
        return Ok(());
    }
    // Each input is read for all the batch's mints at once (a statement per kind, not per mint).
    let mints: Vec<&String> = mints.iter().collect();
    let since = crate::market::window_start(now);
    let states = rows_for(conn, &mints, |chunk| {
        Query::select()
            .columns(sql::of("p", &["mint", "status", "progress_bps"]))
            .expr_as(Expr::col(("p", "data")), "pool_data")
            .expr_as(Expr::col(("c", "data")), "config_data")
            .expr_as(Expr::col(("a", "data")), "amm_data")
            .from_as("pools", "p")
            .join_as(
                JoinType::InnerJoin,
                "configs",
                "c",
                Expr::col(("c", "address")).equals(("p", "config")),
            )
            .join_as(
                JoinType::LeftJoin,
                "amm_pools",
                "a",
                Expr::col(("a", "address")).equals(("p", "amm_pool")),
            )
            .and_where(Expr::col(("p", "mint")).is_in(chunk))
            .to_owned()
    })
    .await?;
    // Each mint's newest trade by one backward probe of the (mint, seq) index (a form that compares every
    // trade of the mint with its maximum grows with the mint's trades).
    let newest = |col: &'static str| {
        Query::select()
            .column(("t", col))
            .from_as("market_trades", "t")
            .and_where(Expr::col(("t", "mint")).equals(("m", "column1")))
            .order_by(("t", "seq"), Order::Desc)
            .limit(1)
            .to_owned()
    };
    let last: HashMap<String, (String, i64)> = rows_for(conn, &mints, |chunk| {
        Query::select()
            .column(("m", "column1"))
            .expr(newest("seq"))
            .expr(newest("time"))
            .from_values(chunk, "m")
            .to_owned()
    })
    .await?
    .iter()
    .filter_map(|r| {
        let seq: Option<String> = r.get(1);
        let time: Option<i64> = r.get(2);
        Some((r.get(0), (seq?, time?)))
    })
    .collect();
    let ath_of = |chunk: Vec<String>| {
        let mut q = Query::select();
        if recompute_ath {
            q.columns(["mint", "high"])
                .from("candles")
                .and_where(Expr::col("interval_secs").eq(sql::lit(3_600)));
        } else {
            q.column("mint")
                .expr_as(Expr::col("ath_price"), "high")
                .from("launch_stats");
        }
        q.and_where(Expr::col("mint").is_in(chunk)).to_owned()
    };
    let mut ath: HashMap<String, u128> = HashMap::new();
    for r in rows_for(conn, &mints, ath_of).await? {
        let high = ath.entry(r.get(0)).or_default();
        *high = (*high).max(num(&r, "high"));
    }
    let volumes = window_volumes(conn, &mints, since).await?;
    let mut rows = Vec::with_capacity(states.len());
    for state in &states {
        let mint: String = state.get("mint");
        let (Some(pool), Some(config)) = (
            sdk::accounts::decode_pool(&state.get::<Vec<u8>, _>("pool_data")),
            sdk::accounts::decode_config(&state.get::<Vec<u8>, _>("config_data")),
        ) else {
            continue;
        };
        let amm = state
            .get::<Option<Vec<u8>>, _>("amm_data")
            .and_then(|d| sdk::accounts::decode_amm_pool(&d));
        let (_, price) = market::spot_price(&pool, &config, amm.as_ref());
        let supply = market::supply(&pool);
        let (last_seq, last_time) = last.get(&mint).cloned().unwrap_or_default();
        let ath = ath
            .get(&mint)
            .copied()
            .unwrap_or(0)
            .max(highs.get(&mint).copied().unwrap_or(0));
        let (volume_base, volume_quote) = volumes.get(&mint).copied().unwrap_or_default();
        let row: Row = vec![
            ("mint", Val::Text(mint)),
            ("status", Val::Text(state.get::<String, _>("status"))),
            (
                "progress_bps",
                Val::Int(state.get::<Option<i64>, _>("progress_bps").unwrap_or(0)),
            ),
            ("supply", Val::num(supply)),
            ("price", Val::num(price)),
            (
                "market_cap",
                Val::Text(padded(market::market_cap(price, supply))),
            ),
            ("ath_price", Val::num(ath)),
            ("last_trade_time", Val::Int(last_time)),
            ("last_trade_seq", Val::Text(last_seq)),
            ("volume_24h", Val::Text(padded(volume_quote))),
            ("volume_24h_base", Val::num(volume_base)),
            ("volume_window", Val::Int(window_of(volume_quote, since))),
        ];
        rows.push(row);
    }
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let updates: Vec<&'static str> = first
        .iter()
        .map(|(c, _)| *c)
        .filter(|c| *c != "mint")
        .collect();
    let backend = Backend::of(conn);
    let n = sql::rows_per_statement(first.len());
    for chunk in sql::chunks(rows, n) {
        let stmt = sql::insert("launch_stats", chunk)
            .on_conflict(
                OnConflict::column("mint")
                    .update_columns(updates.iter().copied())
                    .value("stale", sql::lit(0))
                    .to_owned(),
            )
            .to_owned();
        sql::query(backend, &stmt).execute(&mut *conn).await?;
    }
    Ok(())
}

/// A new launch's stats row (defaults until its pool is written), refreshed at once if the pool is in.
pub async fn created(conn: &mut AnyConnection, mint: &str, now: i64) -> Result<()> {
    sqlx::query("INSERT INTO launch_stats (mint) VALUES ($1) ON CONFLICT (mint) DO NOTHING")
        .bind(mint.to_string())
        .execute(&mut *conn)
        .await?;
    refresh(
        conn,
        &BTreeSet::from([mint.to_string()]),
        &BTreeMap::new(),
        false,
        now,
    )
    .await
}

/// Recomputes the rows left stale by the migration that created the table (launches indexed before it).
pub async fn refresh_stale(conn: &mut AnyConnection, now: i64) -> Result<()> {
    let mints: BTreeSet<String> = sqlx::query("SELECT mint FROM launch_stats WHERE stale = 1")
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    refresh(conn, &mints, &BTreeMap::new(), true, now).await
}

/// One synthetic launch for [`Store::seed_listing`].
fn seeded(i: usize, now: i64) -> [Vec<(&'static str, Val)>; 4] {
    use anchor_lang::prelude::Pubkey;
    let mint = Pubkey::new_unique().to_string();
    let creator = format!("{}", Pubkey::new_from_array([(i % 10) as u8 + 1; 32]));
    let (preset, quote) = (
        ["fair", "shield", "distribute"][i % 3],
        ["sol", "usdc"][i % 2],
    );
    let name = format!("Seed {i}");
    let symbol = format!("S{}", i % 1000);
    // Ties everywhere, so only the mint tiebreaker orders them.
    let created_at = now - (i / 3) as i64;
    let price = (i % 50) as u128 * 1_000_000;
    let traded = !i.is_multiple_of(4);
    let last_trade = if traded {
        now - (i % 40) as i64 * 3_600
    } else {
        0
    };
    let (volume_base, volume_quote) = ((i % 13 * 1_000_000) as u128, (i % 11 * 1_000) as u128);
    let window = crate::market::window_start(now);
    let in_window = |v: u128| if traded && last_trade >= window { v } else { 0 };
    let launch = vec![
        ("mint", Val::Text(mint.clone())),
        ("pool", Val::Text(Pubkey::new_unique().to_string())),
        ("config", Val::Text("seed".into())),
        ("creator", Val::Text(creator.clone())),
        ("quote_mint", Val::Text("seed".into())),
        ("name", Val::Text(name.clone())),
        ("symbol", Val::Text(symbol.clone())),
        ("uri", Val::Text(String::new())),
        ("preset", Val::Text(preset.into())),
        ("quote", Val::Text(quote.into())),
        ("salt", Val::num(i)),
        ("created_slot", Val::int(i / 3)),
        ("created_at", Val::Int(created_at)),
        ("signature", Val::OptText(None)),
    ];
    let metadata = vec![
        ("mint", Val::Text(mint.clone())),
        ("creator", Val::Text(creator)),
        ("name", Val::Text(name)),
        ("symbol", Val::Text(symbol)),
        ("description", Val::Text(String::new())),
        ("preset", Val::Text(preset.into())),
        ("quote", Val::Text(quote.into())),
        ("salt", Val::num(i)),
        ("uri", Val::Text(String::new())),
        ("prepared_at", Val::Int(created_at)),
        // Some prepared launches were never recorded: listed all the same.
        (
            "recorded_at",
            if i % 10 == 4 {
                Val::Null
            } else {
                Val::Int(created_at)
            },
        ),
    ];
    // Every tenth launch was built elsewhere (no prepare): listed, not prepared.
    let metadata = if i % 10 == 9 { vec![] } else { metadata };
    let supply = curve::constants::TOTAL_SUPPLY_BASE_UNITS;
    let stats = vec![
        ("mint", Val::Text(mint.clone())),
        (
            "status",
            Val::Text(["bonding", "complete", "migrated"][i % 3].into()),
        ),
        ("progress_bps", Val::int(i % 7 * 1_000)),
        ("supply", Val::num(supply)),
        ("price", Val::num(price)),
        (
            "market_cap",
            Val::Text(padded(market::market_cap(price, supply))),
        ),
        ("ath_price", Val::num(price)),
        ("last_trade_time", Val::Int(last_trade)),
        (
            "last_trade_seq",
            Val::Text(if traded {
                market::seq(i as u64, 0, 0, 0)
            } else {
                String::new()
            }),
        ),
        ("volume_24h", Val::Text(padded(in_window(volume_quote)))),
        ("volume_24h_base", Val::num(in_window(volume_base))),
        (
            "volume_window",
            Val::Int(window_of(in_window(volume_quote), window)),
        ),
    ];
    let candle = vec![
        ("mint", Val::Text(mint)),
        ("interval_secs", Val::Int(3_600)),
        ("start_time", Val::Int(market::bucket(last_trade, 3_600))),
        ("open", Val::num(price)),
        ("high", Val::num(price)),
        ("low", Val::num(price)),
        ("close", Val::num(price)),
        ("volume_base", Val::num(volume_base)),
        ("volume_quote", Val::num(volume_quote)),
        ("trades", Val::int(i % 5 + 1)),
        ("open_seq", Val::Text(market::seq(i as u64, 0, 0, 0))),
        ("close_seq", Val::Text(market::seq(i as u64, 0, 0, 0))),
    ];
    [
        launch,
        metadata,
        stats,
        if traded { candle } else { vec![] },
    ]
}

impl super::Store {
    /// Writes `count` synthetic launches (nine in ten prepared here, one in ten built elsewhere) with stats and one hourly candle
    /// each when they traded, spread over the last 40 hours before `now`, with ties in every sort key.
    /// For the listing's pagination test and benchmark at scale; never used by the service.
    pub async fn seed_listing(&self, count: usize, now: i64) -> Result<()> {
        use sqlx::Connection;
        let mut conn = self.pool().acquire().await?;
        let mut tx = conn.begin().await?;
        let tables = ["launches", "launch_metadata", "launch_stats", "candles"];
        let mut rows: [Vec<Vec<(&'static str, Val)>>; 4] = Default::default();
        for i in 0..count {
            for (t, row) in seeded(i, now).into_iter().enumerate() {
                if !row.is_empty() {
                    rows[t].push(row);
                }
            }
        }
        for (table, rows) in tables.into_iter().zip(rows) {
            let Some(first) = rows.first() else { continue };
            let n = sql::rows_per_statement(first.len());
            for chunk in sql::chunks(rows, n) {
                sql::query(self.backend(), &sql::insert(table, chunk))
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await
    }
}
