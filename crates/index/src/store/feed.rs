//! The live feed's rows (`feed_events`), written inside the batch's transaction with the events they
//! describe (see `docs/live-feed.md`).
//!
//! Order: every writer takes one transaction-scoped advisory lock (PostgreSQL; SQLite has one writer at a
//! time anyway) and numbers its rows after the highest `seq` stored, so `seq` order is commit order and a reader
//! of `seq > n` never misses a row that commits later with a lower number. Idempotence: each row names its
//! source event (`event_key`); a replayed, recovered or re-sent event inserts nothing. On PostgreSQL the
//! table is partitioned by the hour a row was written ([`super::partitions`]) and retention drops whole
//! partitions; SQLite deletes rows.

use super::rows::{Row, Val};
use super::{sql, Backend};
use crate::feed::{FeedData, FeedShare, FeedTrade};
use crate::market::MarketTrade;
use crate::model::{claim_kind_name, EventKey, Launch};
use sea_query::{Expr, ExprTrait, Query};
use sqlx::{AnyConnection, Row as _};
use anchor_lang::prelude::Pubkey;
use std::collections::BTreeSet;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// The PostgreSQL channel a committed feed batch is announced on (`NOTIFY`; the payload is the highest
/// new `seq`, a hint only: readers always read `seq > last` from the table).
pub const CHANNEL: &str = "launchpad_feed";

/// The transaction-scoped advisory lock that orders feed writers (an arbitrary constant: "feed" in ASCII).
const FEED_LOCK: i64 = 0x6665_6564;

/// One feed row before it is numbered.
#[derive(Debug, Clone)]
pub struct FeedRow {
    pub key: String,
    pub mint: String,
    pub wallet: Option<String>,
    pub slot: u64,
    pub signature: String,
    pub time: i64,
    pub data: FeedData,
}

fn event_key(kind: &str, k: &EventKey) -> String {
    format!("{kind}:{}:{}:{}", k.signature, k.ix_index, k.inner_index)
}

impl FeedRow {
    fn new(
        key: String,
        mint: String,
        wallet: Option<String>,
        (slot, signature, time): (u64, String, i64),
        data: FeedData,
    ) -> FeedRow {
        FeedRow {
            key,
            mint,
            wallet,
            slot,
            signature,
            time,
            data,
        }
    }

    /// A launch seen in its creating transaction (`None` for one backfilled from account state, which
    /// names no transaction: its event comes when the transaction is recovered).
    pub fn launch(l: &Launch) -> Option<FeedRow> {
        let signature = l.signature.clone()?;
        Some(FeedRow::new(
            format!("launch:{}", l.mint),
            l.mint.to_string(),
            None,
            (l.created_slot, signature, l.created_at),
            FeedData::Launch {
                creator: l.creator.to_string(),
                name: l.name.clone(),
                symbol: l.symbol.clone(),
                uri: l.uri.clone(),
                preset: l.preset.clone(),
                quote: l.quote.clone(),
                quote_mint: l.quote_mint.to_string(),
                pool: l.pool.to_string(),
                config: l.config.to_string(),
            },
        ))
    }

    /// A trade, and the curve's progress after it (`None` on the AMM).
    pub fn trade(key: &EventKey, t: &MarketTrade, progress_bps: Option<u16>) -> FeedRow {
        FeedRow::new(
            event_key("trade", key),
            t.mint.clone(),
            Some(t.wallet.clone()),
            (t.slot, t.signature.clone(), t.time),
            FeedData::Trade(FeedTrade {
                venue: t.venue.name().into(),
                pool: t.pool.clone(),
                side: t.side.into(),
                wallet: t.wallet.clone(),
                amount_in: t.amount_in,
                amount_out: t.amount_out,
                base_amount: t.base_amount,
                quote_amount: t.quote_amount,
                fee: t.fee,
                fee_token: t.fee_token.into(),
                price: t.price,
                seq: t.seq.clone(),
                progress_bps,
            }),
        )
    }

    /// The curve's state after a curve trade.
    pub fn curve(key: &EventKey, t: &MarketTrade, e: &sdk::events::EvtSwap) -> FeedRow {
        FeedRow::new(
            event_key("curve", key),
            t.mint.clone(),
            None,
            (t.slot, t.signature.clone(), t.time),
            FeedData::Curve {
                pool: t.pool.clone(),
                progress_bps: e.progress_bps,
                base_reserve: e.base_reserve,
                quote_reserve: e.quote_reserve,
                fee_bps: e.fee_bps,
                price: t.price,
                complete: e.complete,
            },
        )
    }

    pub fn complete(k: &EventKey, e: &sdk::events::EvtCurveComplete) -> FeedRow {
        FeedRow::new(
            event_key("complete", k),
            e.mint.to_string(),
            None,
            (k.slot, k.signature.clone(), e.timestamp),
            FeedData::Complete {
                pool: e.pool.to_string(),
                trader: e.trader.to_string(),
            },
        )
    }

    pub fn migrate(k: &EventKey, e: &sdk::events::EvtMigrate) -> FeedRow {
        FeedRow::new(
            event_key("migrate", k),
            e.mint.to_string(),
            None,
            (k.slot, k.signature.clone(), e.timestamp),
            FeedData::Migrate {
                pool: e.pool.to_string(),
                amm_pool: e.amm_pool.to_string(),
                base_amount: e.base_amount,
                quote_amount: e.quote_amount,
            },
        )
    }

    pub fn claim(k: &EventKey, e: &sdk::events::EvtClaim) -> FeedRow {
        FeedRow::new(
    /// A proposal of the creator role (or its withdrawal: no wallet proposed), by the creator.
    pub fn creator_proposed(k: &EventKey, e: &sdk::events::EvtCreatorProposed) -> FeedRow {
        let pending =
            (e.pending_creator != Pubkey::default()).then(|| e.pending_creator.to_string());
        FeedRow::new(
            event_key("creator", k),
            e.mint.to_string(),
            Some(e.creator.to_string()),
            (k.slot, k.signature.clone(), e.timestamp),
            FeedData::Creator {
                pool: e.pool.to_string(),
                change: if pending.is_some() {
                    "proposed"
                } else {
                    "withdrawn"
                }
                .into(),
                creator: e.creator.to_string(),
                pending_creator: pending,
                previous_creator: None,
            },
        )
    }

    /// The creator role accepted by the wallet proposed (its signer): it holds the role now.
    pub fn creator_transferred(k: &EventKey, e: &sdk::events::EvtCreatorTransferred) -> FeedRow {
        FeedRow::new(
            event_key("creator", k),
            e.mint.to_string(),
            Some(e.creator.to_string()),
            (k.slot, k.signature.clone(), e.timestamp),
            FeedData::Creator {
                pool: e.pool.to_string(),
                change: "accepted".into(),
                creator: e.creator.to_string(),
                pending_creator: None,
                previous_creator: Some(e.previous_creator.to_string()),
            },
        )
    }

    /// The creator fees' shares as the creator role set them (the whole list).
    pub fn fee_shares(k: &EventKey, e: &sdk::events::EvtFeeSharesSet) -> FeedRow {
        FeedRow::new(
            event_key("fee-shares", k),
            e.mint.to_string(),
            Some(e.creator.to_string()),
            (k.slot, k.signature.clone(), e.timestamp),
            FeedData::FeeShares {
                pool: e.pool.to_string(),
                creator: e.creator.to_string(),
                recipients: e
                    .recipients
                    .iter()
                    .map(|r| FeedShare {
                        wallet: r.wallet.to_string(),
                        bps: r.bps,
                    })
                    .collect(),
                locked: e.locked,
            },
        )
    }

            event_key("claim", k),
            e.mint.to_string(),
            Some(e.claimer.to_string()),
            (k.slot, k.signature.clone(), e.timestamp),
            FeedData::Claim {
                pool: e.pool.to_string(),
                wallet: e.claimer.to_string(),
                claim_kind: claim_kind_name(e.kind).into(),
                amount: e.amount,
                base_amount: e.base_amount,
            },
        )
    }
}

/// Unix seconds by the wall clock: what feed rows are stamped with (`written_at`).
pub(crate) fn now() -> i64 {
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
    let backend = Backend::of(conn);
    let postgres = backend == Backend::Postgres;
    if postgres {
        // Held to the commit: the next writer numbers its rows after this one's, and commits after it. An
        // advisory lock, not a table lock, so autovacuum (which the retention's deletes need) is never
        // blocked or cancelled by a writer.
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(FEED_LOCK)
            .execute(&mut *conn)
            .await?;
    }
    // Rows whose source event is stored already are skipped: looked up under the lock above (the one
    // writer at a time), which keeps `event_key` unique where the partitioned table cannot.
    let mut stored = BTreeSet::new();
    for keys in rows.chunks(sql::rows_per_statement(1)) {
        let stmt = Query::select()
            .column("event_key")
            .from("feed_events")
            .and_where(Expr::col("event_key").is_in(keys.iter().map(|r| r.key.clone())))
            .to_owned();
        for r in sql::query(backend, &stmt).fetch_all(&mut *conn).await? {
            stored.insert(r.get::<String, _>(0));
        }
    }
    let rows: Vec<FeedRow> = rows
        .into_iter()
        .filter(|r| !stored.contains(&r.key))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    // Numbered after the newest row, and stamped no earlier than it: `written_at` never goes back as `seq`
    // goes up (whatever the clock does), so retention, which goes by `written_at`, removes a prefix of
    // the sequence and a resume point's gap check stays exact.
    let (mut next, newest): (i64, i64) =
        sqlx::query("SELECT seq, written_at FROM feed_events ORDER BY seq DESC LIMIT 1")
            .fetch_optional(&mut *conn)
            .await?
            .map_or((0, 0), |r| (r.get(0), r.get(1)));
    let written_at = std::cmp::max(now(), newest);
    let mut last = None;
    let rows: Vec<Row> = rows
        .into_iter()
        .map(|r| {
            next += 1;
            last = Some(next);
            // Plain data (numbers, strings): serializing cannot fail.
            let payload = serde_json::to_string(&r.data).unwrap_or_default();
            vec![
                ("seq", Val::Int(next)),
                ("event_key", Val::Text(r.key)),
                ("kind", Val::Text(r.data.kind().into())),
                ("mint", Val::Text(r.mint)),
                ("wallet", Val::OptText(r.wallet)),
                ("slot", Val::int(r.slot)),
                ("signature", Val::Text(r.signature)),
                ("time", Val::Int(r.time)),
                ("payload", Val::Text(payload)),
                ("written_at", Val::Int(written_at)),
            ]
        })
        .collect();
    let n = sql::rows_per_statement(rows[0].len());
    for chunk in sql::chunks(rows, n) {
        sql::query(backend, &sql::insert("feed_events", chunk))
            .execute(&mut *conn)
            .await?;
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
/// highest `seq` never goes back): SQLite's retention. Returns how many went.
pub async fn prune(conn: &mut AnyConnection, before: i64) -> Result<u64> {
    let done = sqlx::query(
        "DELETE FROM feed_events WHERE written_at < $1 AND seq < (SELECT MAX(seq) FROM feed_events)",
    )
    .bind(before)
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected())
}
