//! The live feed's rows (`feed_events`), written inside the batch's transaction with the events they
//! describe (see `docs/live-feed.md`).
//!
//! Order: every writer takes one transaction-scoped advisory lock (PostgreSQL; SQLite has one writer at a
//! time anyway) and numbers its rows after the highest `seq` stored, so `seq` order is commit order and a reader
//! of `seq > n` never misses a row that commits later with a lower number. On PostgreSQL, also after the
//! primary's epoch floor ([`epoch_floor`], from its timeline), so a promoted standby never reuses a number
//! its predecessor served and lost. Idempotence: each row names its
//! source event (`event_key`); a replayed, recovered or re-sent event inserts nothing. On PostgreSQL the
//! table is partitioned by the hour a row was written ([`super::partitions`]) and retention drops whole
//! partitions; SQLite deletes rows.

use super::rows::{Row, Val};
use super::{sql, Backend};
use crate::feed::{FeedData, FeedShare, FeedTrade};
use crate::market::MarketTrade;
use crate::model::{claim_kind_name, EventKey, Launch};
use anchor_lang::prelude::Pubkey;
use sea_query::{Expr, ExprTrait, Query};
use sqlx::{AnyConnection, Row as _};
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
    /// A trade's rows (`trade`, `curve`): the trade's instruction and inner instruction, which with
    /// `signature` and `slot` are its key in `market_trades` and `trades`. Such a row is stored as that
    /// reference alone (no `event_key`, `mint`, `wallet` or `payload`: the read renders them from the
    /// trade, [`crate::read::FeedRecord`]), and only with its market trade's first insert, which is what
    /// keeps it from being written twice.
    pub trade: Option<(u32, u32)>,
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
            trade: None,
        }
    }

    /// This row as a reference to the trade `k` names.
    fn of_trade(self, k: &EventKey) -> FeedRow {
        FeedRow {
            trade: Some((k.ix_index, k.inner_index)),
            ..self
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
        .of_trade(key)
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
        .of_trade(key)
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

    pub fn claim(k: &EventKey, e: &sdk::events::EvtClaim) -> FeedRow {
        FeedRow::new(
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
    // writer at a time), which keeps `event_key` unique where the partitioned table cannot. A trade's rows
    // need no look-up: they come with their trade's first insert only.
    let mut stored = BTreeSet::new();
    let keyed: Vec<&FeedRow> = rows.iter().filter(|r| r.trade.is_none()).collect();
    for keys in keyed.chunks(sql::rows_per_statement(1)) {
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
    // Numbered after the newest row and after the primary's epoch floor ([`numbered_after`]), and stamped
    // no earlier than the newest row: `written_at` never goes back as `seq` goes up (whatever the clock
    // does), so retention, which goes by `written_at`, removes a prefix of the sequence and a resume
    // point's gap check stays exact.
    let (stored, newest, timeline) = newest_row(conn, postgres).await?;
    let mut next = numbered_after(stored, timeline);
    let written_at = std::cmp::max(now(), newest);
    let mut last = None;
    let rows: Vec<Row> = rows
        .into_iter()
        .map(|r| {
            next += 1;
            last = Some(next);
            let kind = Val::Text(r.data.kind().into());
            let envelope = [
                ("slot", Val::int(r.slot)),
                ("signature", Val::Text(r.signature)),
                ("time", Val::Int(r.time)),
                ("written_at", Val::Int(written_at)),
            ];
            let own = match r.trade {
                // A reference to the trade: the read renders the rest from it.
                Some((ix, inner)) => [
                    ("event_key", Val::OptText(None)),
                    ("mint", Val::OptText(None)),
                    ("wallet", Val::OptText(None)),
                    ("payload", Val::OptText(None)),
                    ("ix_index", Val::int(ix)),
                    ("inner_index", Val::int(inner)),
                ],
                None => [
                    ("event_key", Val::OptText(Some(r.key))),
                    ("mint", Val::OptText(Some(r.mint))),
                    ("wallet", Val::OptText(r.wallet)),
                    // Plain data (numbers, strings): serializing cannot fail.
                    (
                        "payload",
                        Val::OptText(Some(serde_json::to_string(&r.data).unwrap_or_default())),
                    ),
                    ("ix_index", Val::Null),
                    ("inner_index", Val::Null),
                ],
            };
            [("seq", Val::Int(next)), ("kind", kind)]
                .into_iter()
                .chain(envelope)
                .chain(own)
                .collect()
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

/// Bits of `seq` below a primary's epoch. PostgreSQL starts a new timeline at every promotion of a standby
/// (and at every point-in-time recovery); timeline `t` numbers its rows after `(t - 1) << EPOCH_BITS`, so an
/// asynchronous promotion that lost the old primary's newest rows never hands their numbers out again:
/// the new primary's first row is above anything the old one served (2^40 rows to a timeline: 35 years at
/// 1,000 events a second). Timeline 1 and SQLite number from 0, as before epochs.
pub const EPOCH_BITS: u32 = 40;

/// The highest epoch a `seq` carries: beyond it a `seq` would pass 2^53, the largest integer a JavaScript
/// client holds exactly. A cluster past 8,192 timelines keeps numbering after its newest row.
const MAX_EPOCH: u32 = (1 << (53 - EPOCH_BITS)) - 1;

/// The number timeline `timeline`'s rows are numbered after (its first row is one more): 0 for timeline 1
/// (and for SQLite, which passes 0).
pub fn epoch_floor(timeline: u32) -> i64 {
    i64::from(std::cmp::min(timeline.saturating_sub(1), MAX_EPOCH)) << EPOCH_BITS
}

/// The number a batch's first row follows: the newest stored `seq`, or the primary's epoch floor when that
/// is higher (the first batch after a promotion).
pub fn numbered_after(newest_seq: i64, timeline: u32) -> i64 {
    std::cmp::max(newest_seq, epoch_floor(timeline))
}

/// A PostgreSQL primary's current WAL file name, whose first eight hex digits are its timeline
/// ([`timeline_of`]). Refused on a standby (recovery is in progress).
pub(crate) const WALFILE: &str = "SELECT pg_walfile_name(pg_current_wal_lsn())";

/// The newest row's `seq` and `written_at` (NULL with none) and the WAL file name, in one round trip.
const NEWEST_AND_WALFILE: &str =
    "SELECT f.seq, f.written_at, pg_walfile_name(pg_current_wal_lsn()) \
     FROM (SELECT 1) AS one LEFT JOIN LATERAL \
     (SELECT seq, written_at FROM feed_events ORDER BY seq DESC LIMIT 1) AS f ON true";

/// The timeline of a WAL file name (`000000020000000000000003`: 2); `None` for anything else.
pub fn timeline_of(walfile: &str) -> Option<u32> {
    let digits = walfile.get(..8)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// The newest row's `seq` and `written_at` (0 and 0 with none), and the primary's timeline (PostgreSQL, in
/// the same round trip; 0 on SQLite).
async fn newest_row(conn: &mut AnyConnection, postgres: bool) -> Result<(i64, i64, u32)> {
    if !postgres {
        return Ok(sqlx::query(
            "SELECT seq, written_at FROM feed_events ORDER BY seq DESC LIMIT 1",
        )
        .fetch_optional(&mut *conn)
        .await?
        .map_or((0, 0, 0), |r| (r.get(0), r.get(1), 0)));
    }
    let row = sqlx::query(NEWEST_AND_WALFILE)
        .fetch_one(&mut *conn)
        .await?;
    let walfile: String = row.get(2);
    let timeline = timeline_of(&walfile)
        .ok_or_else(|| sqlx::Error::Protocol(format!("not a WAL file name: {walfile:?}")))?;
    Ok((
        row.get::<Option<i64>, _>(0).unwrap_or(0),
        row.get::<Option<i64>, _>(1).unwrap_or(0),
        timeline,
    ))
}

#[cfg(test)]
mod epoch_tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn timelines_from_wal_file_names() {
        assert_eq!(timeline_of("000000010000000000000001"), Some(1));
        assert_eq!(timeline_of("0000000A00000003000000FF"), Some(10));
        assert_eq!(timeline_of("0000000"), None);
        assert_eq!(timeline_of("+0000001000000000000001"), None);
        assert_eq!(timeline_of("x0000001000000000000001"), None);
    }

    #[test]
    fn timeline_one_numbers_as_before_epochs_and_the_last_epoch_stays_exact_in_javascript() {
        assert_eq!(epoch_floor(0), 0);
        assert_eq!(epoch_floor(1), 0);
        assert_eq!(epoch_floor(2), 1 << 40);
        assert_eq!(numbered_after(41, 1), 41);
        assert_eq!(numbered_after(41, 2), 1 << 40);
        let last = epoch_floor(u32::MAX) + (1 << EPOCH_BITS) - 1;
        assert!(last < 1 << 53, "{last}");
        assert_eq!(epoch_floor(u32::MAX), epoch_floor(MAX_EPOCH + 1));
    }

    proptest! {
        /// A promotion's first row is above every number the old timeline handed out (below its 2^40),
        /// whatever the new primary kept of them; numbers never go back within a timeline either.
        #[test]
        fn a_new_timeline_numbers_above_anything_the_old_one_served(
            timeline in 1u32..=MAX_EPOCH,
            served in 0i64..(1 << EPOCH_BITS),
            kept_fraction in 0u32..=100,
        ) {
            let served = epoch_floor(timeline) + served;
            let kept = epoch_floor(timeline)
                + ((served - epoch_floor(timeline)) as i128 * i128::from(kept_fraction) / 100) as i64;
            prop_assert!(numbered_after(kept, timeline + 1) >= served);
            prop_assert!(numbered_after(served, timeline) >= served);
            prop_assert!(numbered_after(kept, timeline + 1) < 1 << 53);
        }
    }
}
