//! The live feed's rows (`feed_events`), written inside the batch's transaction with the events they
//! describe (see `docs/live-feed.md`).
//!
//! Order: every writer takes an exclusive lock on the table (PostgreSQL; SQLite has one writer at a time
//! anyway) and numbers its rows after the highest `seq` stored, so `seq` order is commit order and a reader
//! of `seq > n` never misses a row that commits later with a lower number. Idempotence: each row names its
//! source event (`event_key`); a replayed, recovered or re-sent event inserts nothing.

use super::rows::{bind, dialect, values_clause, Val};
use crate::market::{MarketTrade, TradeEntry};
use crate::model::{claim_kind_name, EventKey, Launch};
use serde_json::{json, Map, Value};
use sqlx::{AnyConnection, AssertSqlSafe, Row as _};
use std::collections::BTreeSet;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// The PostgreSQL channel a committed feed batch is announced on (`NOTIFY`; the payload is the highest
/// new `seq`, a hint only: readers always read `seq > last` from the table).
pub const CHANNEL: &str = "launchpad_feed";

/// The kinds of feed events, as they appear in `kind`.
pub const KINDS: [&str; 6] = ["launch", "trade", "curve", "complete", "migrate", "claim"];

/// One feed row before it is numbered.
#[derive(Debug, Clone)]
pub struct FeedRow {
    pub key: String,
    pub kind: &'static str,
    pub mint: String,
    pub wallet: Option<String>,
    pub slot: u64,
    pub signature: String,
    pub time: i64,
    /// The event object without `seq`: `kind`, `slot`, `signature`, `time`, `mint` and the kind's fields.
    pub payload: Map<String, Value>,
}

fn event_key(kind: &str, k: &EventKey) -> String {
    format!("{kind}:{}:{}:{}", k.signature, k.ix_index, k.inner_index)
}

impl FeedRow {
    fn new(
        key: String,
        kind: &'static str,
        mint: String,
        wallet: Option<String>,
        (slot, signature, time): (u64, String, i64),
        fields: Value,
    ) -> FeedRow {
        let mut payload = Map::new();
        payload.insert("kind".into(), kind.into());
        payload.insert("slot".into(), slot.into());
        payload.insert("signature".into(), signature.clone().into());
        payload.insert("time".into(), time.into());
        payload.insert("mint".into(), mint.clone().into());
        if let Value::Object(f) = fields {
            payload.extend(f);
        }
        FeedRow {
            key,
            kind,
            mint,
            wallet,
            slot,
            signature,
            time,
            payload,
        }
    }

    /// A launch seen in its creating transaction (`None` for one backfilled from account state, which
    /// names no transaction: its event comes when the transaction is recovered).
    pub fn launch(l: &Launch) -> Option<FeedRow> {
        let signature = l.signature.clone()?;
        Some(FeedRow::new(
            format!("launch:{}", l.mint),
            "launch",
            l.mint.to_string(),
            None,
            (l.created_slot, signature, l.created_at),
            json!({
                "creator": l.creator.to_string(),
                "name": l.name,
                "symbol": l.symbol,
                "uri": l.uri,
                "preset": l.preset,
                "quote": l.quote,
                "quoteMint": l.quote_mint.to_string(),
                "pool": l.pool.to_string(),
                "config": l.config.to_string(),
            }),
        ))
    }

    /// A trade: the entry `GET /launchpad/trades/{mint}` lists, and the curve's progress after it (`None`
    /// on the AMM).
    pub fn trade(key: &EventKey, t: &MarketTrade, progress_bps: Option<u16>) -> FeedRow {
        let mut fields = serde_json::to_value(TradeEntry::from(t.clone())).unwrap_or_default();
        if let Value::Object(f) = &mut fields {
            f.insert("progressBps".into(), progress_bps.into());
        }
        FeedRow::new(
            event_key("trade", key),
            "trade",
            t.mint.clone(),
            Some(t.wallet.clone()),
            (t.slot, t.signature.clone(), t.time),
            fields,
        )
    }

    /// The curve's state after a curve trade.
    pub fn curve(key: &EventKey, t: &MarketTrade, e: &sdk::events::EvtSwap) -> FeedRow {
        FeedRow::new(
            event_key("curve", key),
            "curve",
            t.mint.clone(),
            None,
            (t.slot, t.signature.clone(), t.time),
            json!({
                "pool": t.pool,
                "progressBps": e.progress_bps,
                // At graduation the quote reserve is exactly the threshold.
                "quoteRaised": e.quote_reserve.to_string(),
                "currentFeeBps": e.fee_bps,
                "price": curve::display::fixed_price_to_decimal(t.price),
                "baseReserve": e.base_reserve.to_string(),
                "quoteReserve": e.quote_reserve.to_string(),
                "complete": e.complete,
            }),
        )
    }

    pub fn complete(k: &EventKey, e: &sdk::events::EvtCurveComplete) -> FeedRow {
        FeedRow::new(
            event_key("complete", k),
            "complete",
            e.mint.to_string(),
            None,
            (k.slot, k.signature.clone(), e.timestamp),
            json!({ "pool": e.pool.to_string(), "trader": e.trader.to_string() }),
        )
    }

    pub fn migrate(k: &EventKey, e: &sdk::events::EvtMigrate) -> FeedRow {
        FeedRow::new(
            event_key("migrate", k),
            "migrate",
            e.mint.to_string(),
            None,
            (k.slot, k.signature.clone(), e.timestamp),
            json!({
                "pool": e.pool.to_string(),
                "ammPool": e.amm_pool.to_string(),
                "baseAmount": e.base_amount.to_string(),
                "quoteAmount": e.quote_amount.to_string(),
            }),
        )
    }

    pub fn claim(k: &EventKey, e: &sdk::events::EvtClaim) -> FeedRow {
        FeedRow::new(
            event_key("claim", k),
            "claim",
            e.mint.to_string(),
            Some(e.claimer.to_string()),
            (k.slot, k.signature.clone(), e.timestamp),
            json!({
                "pool": e.pool.to_string(),
                "wallet": e.claimer.to_string(),
                "claimKind": claim_kind_name(e.kind),
                "amount": e.amount.to_string(),
                "baseAmount": e.base_amount.to_string(),
            }),
        )
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Numbers and inserts `rows` in their order (rows whose source event is stored already are skipped) and,
/// on PostgreSQL, queues the commit's `NOTIFY`. Returns the highest `seq` inserted.
pub async fn insert(conn: &mut AnyConnection, rows: Vec<FeedRow>) -> Result<Option<i64>> {
    let mut seen = BTreeSet::new();
    let rows: Vec<FeedRow> = rows
        .into_iter()
        .filter(|r| seen.insert(r.key.clone()))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let postgres = !conn.backend_name().eq_ignore_ascii_case("sqlite");
    if postgres {
        // Held to the commit: the next writer numbers its rows after this one's, and commits after it.
        sqlx::query("LOCK TABLE feed_events IN EXCLUSIVE MODE")
            .execute(&mut *conn)
            .await?;
    }
    let mut next: i64 = sqlx::query("SELECT COALESCE(MAX(seq), 0) FROM feed_events")
        .fetch_one(&mut *conn)
        .await?
        .get(0);
    let written_at = now();
    let mut last = None;
    const COLS: usize = 10;
    for chunk in rows.chunks(super::rows::rows_per_statement(COLS)) {
        let mut vals = Vec::with_capacity(chunk.len() * COLS);
        for r in chunk {
            next += 1;
            vals.extend([
                Val::Int(next),
                Val::Text(r.key.clone()),
                Val::Text(r.kind.into()),
                Val::Text(r.mint.clone()),
                Val::OptText(r.wallet.clone()),
                Val::int(r.slot),
                Val::Text(r.signature.clone()),
                Val::Int(r.time),
                Val::Text(Value::Object(r.payload.clone()).to_string()),
                Val::Int(written_at),
            ]);
        }
        let sql = format!(
            "INSERT INTO feed_events (seq, event_key, kind, mint, wallet, slot, signature, time, payload, \
             written_at) VALUES {} ON CONFLICT (event_key) DO NOTHING RETURNING seq",
            values_clause(COLS, chunk.len())
        );
        for r in bind(sqlx::query(AssertSqlSafe(dialect(conn, &sql))), &vals)
            .fetch_all(&mut *conn)
            .await?
        {
            let seq: i64 = r.get(0);
            last = Some(last.map_or(seq, |l: i64| l.max(seq)));
        }
    }
    if let (true, Some(seq)) = (postgres, last) {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(seq.to_string())
            .execute(&mut *conn)
            .await?;
    }
    Ok(last)
}

/// Deletes the rows written before `before` (unix seconds), always keeping the newest row (so the
/// highest `seq` never goes back). Returns how many went.
pub async fn prune(conn: &mut AnyConnection, before: i64) -> Result<u64> {
    let sql = "DELETE FROM feed_events WHERE written_at < $1 \
               AND seq < (SELECT MAX(seq) FROM feed_events)";
    let done = sqlx::query(AssertSqlSafe(dialect(conn, sql)))
        .bind(before)
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected())
}
