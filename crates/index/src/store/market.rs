//! Writes the market series and its candles inside the batch's transaction (see [`crate::market`]).
//!
//! A trade event becomes a `market_trades` row; only the rows the insert actually added (a replayed event
//! is skipped by its key) are rolled into `candles`, so a candle never counts a trade twice.

use super::rows::{Row, Val};
use super::{sql, Backend};
use crate::market::{self, Candle, MarketTrade};
use crate::model::Event;
use sea_query::{Asterisk, Expr, OnConflict, Query};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row as _};
use std::collections::{BTreeMap, BTreeSet, HashMap};

type Result<T> = std::result::Result<T, sqlx::Error>;

fn row(t: &MarketTrade) -> Row {
    vec![
        ("signature", Val::Text(t.signature.clone())),
        ("ix_index", Val::int(t.ix_index)),
        ("inner_index", Val::int(t.inner_index)),
        ("slot", Val::int(t.slot)),
        ("seq", Val::Text(t.seq.clone())),
        ("time", Val::Int(t.time)),
        ("mint", Val::Text(t.mint.clone())),
        ("venue", Val::Text(t.venue.name().into())),
        ("pool", Val::Text(t.pool.clone())),
        ("wallet", Val::Text(t.wallet.clone())),
        ("side", Val::Text(t.side.into())),
        ("amount_in", Val::num(t.amount_in)),
        ("amount_out", Val::num(t.amount_out)),
        ("base_amount", Val::num(t.base_amount)),
        ("quote_amount", Val::num(t.quote_amount)),
        ("fee", Val::num(t.fee)),
        ("fee_token", Val::Text(t.fee_token.into())),
        ("price", Val::num(t.price)),
        (
            "wallet_before",
            Val::OptText(t.wallet_before.map(|b| b.to_string())),
        ),
    ]
}

/// What [`record`] wrote: the highest price among each mint's newly inserted trades, and those trades.
#[derive(Default)]
pub struct Recorded {
    pub highs: BTreeMap<String, u128>,
    pub inserted: Vec<MarketTrade>,
}

/// Records the trades among `events` (curve swaps and AMM swaps of launches, priced when decoded) and rolls
/// the newly inserted ones into their candles.
pub async fn record(conn: &mut AnyConnection, events: &[&Event]) -> Result<Recorded> {
    let mut trades: Vec<MarketTrade> = events
        .iter()
        .filter_map(|e| e.market_trade().cloned())
        .collect();
    let mut highs: BTreeMap<String, u128> = BTreeMap::new();
    if trades.is_empty() {
        return Ok(Recorded::default());
    }
    let backend = Backend::of(conn);
    let mut inserted = BTreeSet::new();
    let n = sql::rows_per_statement(row(&trades[0]).len());
    for chunk in trades.chunks(n) {
        let stmt = sql::insert("market_trades", chunk.iter().map(row).collect())
            .on_conflict(
                OnConflict::columns(
                    super::partitions::event_key_columns("market_trades")
                        .iter()
                        .copied(),
                )
                .do_nothing()
                .to_owned(),
            )
            .returning(Query::returning().columns(["signature", "ix_index", "inner_index"]))
            .to_owned();
        for r in sql::query(backend, &stmt).fetch_all(&mut *conn).await? {
            inserted.insert((
                r.get::<String, _>(0),
                r.get::<i64, _>(1),
                r.get::<i64, _>(2),
            ));
        }
    }
    // The new trades' candles per (mint, interval, start), merged here, then into the stored candle.
    let mut deltas: BTreeMap<(String, i64, i64), Candle> = BTreeMap::new();
    trades.retain(|t| {
        inserted.contains(&(
            t.signature.clone(),
            i64::from(t.ix_index),
            i64::from(t.inner_index),
        ))
    });
    for t in &trades {
        let high = highs.entry(t.mint.clone()).or_default();
        *high = (*high).max(t.price);
        for secs in market::STORED_INTERVALS {
            let start = market::bucket(t.time, secs);
            let c = Candle::of(t.price, t.base_amount, t.quote_amount, &t.seq, start);
            match deltas.get_mut(&(t.mint.clone(), secs, start)) {
                Some(d) => d.merge(&c),
                None => {
                    deltas.insert((t.mint.clone(), secs, start), c);
                }
            }
        }
    }
    // Each touched candle is written once per batch, whatever number of trades it took: PostgreSQL merges
    // the batch's candle into the stored one inside the upsert (no read first); SQLite, whose integers cannot
    // hold a u128 sum, reads the stored candles once and writes the merged ones.
    let merged: Vec<(String, i64, Candle)> = if backend == Backend::Postgres {
        deltas
            .into_iter()
            .map(|(key, delta)| (key.0, key.1, delta))
            .collect()
    } else {
        let keys: Vec<&(String, i64, i64)> = deltas.keys().collect();
        let mut stored = stored_candles(conn, &keys).await?;
        deltas
            .into_iter()
            .map(|(key, delta)| {
                let candle = match stored.remove(&key) {
                    Some(mut stored) => {
                        stored.merge(&delta);
                        stored
                    }
                    None => delta,
                };
                (key.0, key.1, candle)
            })
            .collect()
    };
    put_candles(conn, &merged).await?;
    Ok(Recorded {
        highs,
        inserted: trades,
    })
}

/// The columns of a candle ([`candle_row`] reads them).
pub const CANDLE_COLS: [&str; 10] = [
    "start_time",
    "open",
    "high",
    "low",
    "close",
    "volume_base",
    "volume_quote",
    "trades",
    "open_seq",
    "close_seq",
];

fn num<T: std::str::FromStr + Default>(r: &AnyRow, col: &str) -> T {
    r.get::<String, _>(col).parse().unwrap_or_default()
}

/// A candle from a row with [`CANDLE_COLS`].
pub fn candle_row(r: &AnyRow) -> Candle {
    Candle {
        start: r.get("start_time"),
        open: num(r, "open"),
        high: num(r, "high"),
        low: num(r, "low"),
        close: num(r, "close"),
        volume_base: num(r, "volume_base"),
        volume_quote: num(r, "volume_quote"),
        trades: r.get::<i64, _>("trades").max(0) as u64,
        open_seq: r.get("open_seq"),
        close_seq: r.get("close_seq"),
    }
}

/// The stored candles among `keys` (mint, interval seconds, start), in one statement per chunk.
async fn stored_candles(
    conn: &mut AnyConnection,
    keys: &[&(String, i64, i64)],
) -> Result<HashMap<(String, i64, i64), Candle>> {
    use sea_query::ExprTrait;
    let backend = Backend::of(conn);
    let mut found = HashMap::with_capacity(keys.len());
    for chunk in keys.chunks(sql::rows_per_statement(3)) {
        let wanted = Query::select()
            .column(Asterisk)
            .from_values(
                chunk
                    .iter()
                    .map(|(mint, secs, start)| (mint.clone(), *secs, *start)),
                "k",
            )
            .to_owned();
        let stmt = Query::select()
            .columns(["mint", "interval_secs"])
            .columns(CANDLE_COLS)
            .from("candles")
            .and_where(
                Expr::tuple([
                    Expr::col("mint"),
                    Expr::col("interval_secs"),
                    Expr::col("start_time"),
                ])
                .in_subquery(wanted),
            )
            .to_owned();
        for r in sql::query(backend, &stmt).fetch_all(&mut *conn).await? {
            let c = candle_row(&r);
            found.insert((r.get::<String, _>(0), r.get::<i64, _>(1), c.start), c);
        }
    }
    Ok(found)
}

/// Writes whole candles (mint, interval seconds, candle) over the stored ones, one statement per chunk.
async fn put_candles(conn: &mut AnyConnection, candles: &[(String, i64, Candle)]) -> Result<()> {
    let rows: Vec<Row> = candles
        .iter()
        .map(|(mint, secs, c)| {
            vec![
                ("mint", Val::Text(mint.clone())),
                ("interval_secs", Val::Int(*secs)),
                ("start_time", Val::Int(c.start)),
                ("open", Val::num(c.open)),
                ("high", Val::num(c.high)),
                ("low", Val::num(c.low)),
                ("close", Val::num(c.close)),
                ("volume_base", Val::num(c.volume_base)),
                ("volume_quote", Val::num(c.volume_quote)),
                ("trades", Val::int(c.trades)),
                ("open_seq", Val::Text(c.open_seq.clone())),
                ("close_seq", Val::Text(c.close_seq.clone())),
            ]
        })
        .collect();
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let backend = Backend::of(conn);
    let n = sql::rows_per_statement(first.len());
    let mut on_conflict = OnConflict::columns(["mint", "interval_secs", "start_time"]);
    match backend {
        Backend::Postgres => {
            for (col, merge) in MERGE_INTO_STORED {
                on_conflict.value(col, Expr::cust(merge));
            }
        }
        // SQLite's rows are merged already ([`record`]).
        Backend::Sqlite => {
            on_conflict.update_columns(CANDLE_COLS.into_iter().filter(|c| *c != "start_time"));
        }
    }
    for chunk in sql::chunks(rows, n) {
        let stmt = sql::insert("candles", chunk)
            .on_conflict(on_conflict.clone())
            .to_owned();
        sql::query(backend, &stmt).execute(&mut *conn).await?;
    }
    Ok(())
}

/// PostgreSQL: each column of a stored candle merged with the batch's candle of the same interval and start
/// (`excluded`), as [`Candle::merge`] does: open and close by the first and last `seq` (fixed-width digits,
/// compared bytewise), high and low and the volumes as numbers (stored as decimal text), trades added.
const MERGE_INTO_STORED: [(&str, &str); 9] = [
    (
        "open",
        r#"CASE WHEN "excluded"."open_seq" COLLATE "C" < "candles"."open_seq" THEN "excluded"."open" ELSE "candles"."open" END"#,
    ),
    (
        "open_seq",
        r#"LEAST("excluded"."open_seq" COLLATE "C", "candles"."open_seq")"#,
    ),
    (
        "close",
        r#"CASE WHEN "excluded"."close_seq" COLLATE "C" > "candles"."close_seq" THEN "excluded"."close" ELSE "candles"."close" END"#,
    ),
    (
        "close_seq",
        r#"GREATEST("excluded"."close_seq" COLLATE "C", "candles"."close_seq")"#,
    ),
    (
        "high",
        r#"CASE WHEN "excluded"."high"::numeric > "candles"."high"::numeric THEN "excluded"."high" ELSE "candles"."high" END"#,
    ),
    (
        "low",
        r#"CASE WHEN "excluded"."low"::numeric < "candles"."low"::numeric THEN "excluded"."low" ELSE "candles"."low" END"#,
    ),
    (
        "volume_base",
        r#"("candles"."volume_base"::numeric + "excluded"."volume_base"::numeric)::text"#,
    ),
    (
        "volume_quote",
        r#"("candles"."volume_quote"::numeric + "excluded"."volume_quote"::numeric)::text"#,
    ),
    ("trades", r#""candles"."trades" + "excluded"."trades""#),
];
