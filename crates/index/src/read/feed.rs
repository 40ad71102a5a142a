//! Feed reads: the rows after a `seq`, in order, and the oldest kept. A trade's rows (`trade`, `curve`) are
//! stored as a reference to the trade ([`crate::store::feed::FeedRow::trade`]) and rendered here from its one
//! stored copy (`market_trades`, and `trades` for the curve's state).

use crate::feed::{FeedData, FeedTrade};
use crate::store::Store;
use sqlx::any::AnyRow;
use sqlx::Row;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// One stored feed event.
#[derive(Debug, Clone)]
pub struct FeedRecord {
    pub seq: i64,
    pub kind: String,
    pub mint: String,
    pub wallet: Option<String>,
    pub slot: u64,
    pub signature: String,
    pub time: i64,
    pub payload: Payload,
}

/// A row's payload: the event's data, or, for a row an earlier release wrote within the feed's retention,
/// the event object it stored already rendered (without `seq`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    Data(FeedData),
    Rendered(String),
}

impl Payload {
    fn of(text: String) -> Payload {
        match serde_json::from_str(&text) {
            Ok(data) => Payload::Data(data),
            Err(_) => Payload::Rendered(text),
        }
    }
}

/// The feed's rows after `$1`, oldest first, at most `$2`, each reference joined to its trade: the market
/// trade (`m_*`) and, for a curve trade, its event's row (`t_*`).
const AFTER: &str = "SELECT f.seq, f.kind, f.mint, f.wallet, f.slot, f.signature, f.time, f.payload, \
     m.mint AS m_mint, m.venue AS m_venue, m.pool AS m_pool, m.wallet AS m_wallet, m.side AS m_side, \
     m.amount_in AS m_amount_in, m.amount_out AS m_amount_out, m.base_amount AS m_base_amount, \
     m.quote_amount AS m_quote_amount, m.fee AS m_fee, m.fee_token AS m_fee_token, m.price AS m_price, \
     m.seq AS m_seq, t.progress_bps AS t_progress_bps, t.base_reserve AS t_base_reserve, \
     t.quote_reserve AS t_quote_reserve, t.fee_bps AS t_fee_bps, t.complete AS t_complete \
     FROM feed_events f \
     LEFT JOIN market_trades m ON f.payload IS NULL AND m.signature = f.signature \
       AND m.ix_index = f.ix_index AND m.inner_index = f.inner_index AND m.slot = f.slot \
     LEFT JOIN trades t ON f.payload IS NULL AND t.signature = f.signature \
       AND t.ix_index = f.ix_index AND t.inner_index = f.inner_index AND t.slot = f.slot \
     WHERE f.seq > $1 ORDER BY f.seq LIMIT $2";

fn num<T: std::str::FromStr + Default>(r: &AnyRow, col: &str) -> T {
    r.get::<Option<String>, _>(col)
        .and_then(|v| v.parse().ok())
        .unwrap_or_default()
}

fn small(r: &AnyRow, col: &str) -> u16 {
    let v: Option<i64> = r.get(col);
    v.and_then(|v| u16::try_from(v).ok()).unwrap_or_default()
}

/// A trade's row rendered from its trade: its mint, wallet and data (`None` if the trade is not stored,
/// which trade retention never lets happen: it stops below the lowest slot a feed row refers to).
fn from_trade(kind: &str, r: &AnyRow) -> Option<(String, Option<String>, FeedData)> {
    let mint: String = r.get::<Option<String>, _>("m_mint")?;
    let pool: String = r.get("m_pool");
    let wallet: String = r.get("m_wallet");
    // A curve trade has its event's row; an AMM trade has none.
    let curve = r.get::<Option<i64>, _>("t_progress_bps").is_some();
    let price: u128 = num(r, "m_price");
    match kind {
        "trade" => Some((
            mint,
            Some(wallet.clone()),
            FeedData::Trade(FeedTrade {
                venue: r.get("m_venue"),
                pool,
                side: r.get("m_side"),
                wallet,
                amount_in: num(r, "m_amount_in"),
                amount_out: num(r, "m_amount_out"),
                base_amount: num(r, "m_base_amount"),
                quote_amount: num(r, "m_quote_amount"),
                fee: num(r, "m_fee"),
                fee_token: r.get("m_fee_token"),
                price,
                seq: r.get("m_seq"),
                progress_bps: curve.then(|| small(r, "t_progress_bps")),
            }),
        )),
        "curve" if curve => Some((
            mint,
            None,
            FeedData::Curve {
                pool,
                progress_bps: small(r, "t_progress_bps"),
                base_reserve: num(r, "t_base_reserve"),
                quote_reserve: num(r, "t_quote_reserve"),
                fee_bps: small(r, "t_fee_bps"),
                price,
                complete: r.get::<Option<i64>, _>("t_complete").unwrap_or(0) != 0,
            },
        )),
        _ => None,
    }
}

impl Store {
    /// Up to `limit` feed events with `seq > after`, oldest first.
    pub async fn feed_after(&self, after: i64, limit: u32) -> Result<Vec<FeedRecord>> {
        let rows = sqlx::query(AFTER)
            .bind(after)
            .bind(i64::from(limit))
            .fetch_all(self.pool())
            .await?;
        Ok(rows
            .iter()
            .map(|r| {
                let kind: String = r.get(1);
                let (slot, signature, time) =
                    (r.get::<i64, _>(4).max(0) as u64, r.get::<String, _>(5), r.get(6));
                let (mint, wallet, payload) = match r.get::<Option<String>, _>(7) {
                    Some(text) => (r.get(2), r.get(3), Payload::of(text)),
                    None => match from_trade(&kind, r) {
                        Some((mint, wallet, data)) => (mint, wallet, Payload::Data(data)),
                        // Never stored so (see `from_trade`); kept in the sequence, so a reader's
                        // position still moves past it.
                        None => (
                            String::new(),
                            None,
                            Payload::Rendered(
                                serde_json::json!({
                                    "kind": kind, "slot": slot, "signature": signature, "time": time,
                                })
                                .to_string(),
                            ),
                        ),
                    },
                };
                FeedRecord {
                    seq: r.get(0),
                    kind,
                    mint,
                    wallet,
                    slot,
                    signature,
                    time,
                    payload,
                }
            })
            .collect())
    }

    /// The number the primary's rows are numbered after, at least ([`crate::store::feed::epoch_floor`] of
    /// its PostgreSQL timeline; 0 on SQLite): a resume point below it but past the newest row was served by
    /// an earlier primary and lost with it, so every row this primary keeps follows it.
    pub async fn feed_floor(&self) -> Result<i64> {
        if self.backend() != crate::Backend::Postgres {
            return Ok(0);
        }
        let walfile: String = sqlx::query_scalar(crate::store::feed::WALFILE)
            .fetch_one(self.pool())
            .await?;
        let timeline = crate::store::feed::timeline_of(&walfile)
            .ok_or_else(|| sqlx::Error::Protocol(format!("not a WAL file name: {walfile:?}")))?;
        Ok(crate::store::feed::epoch_floor(timeline))
    }

    /// The lowest and highest `seq` kept (`None` before the first event).
    pub async fn feed_bounds(&self) -> Result<Option<(i64, i64)>> {
        let row = sqlx::query("SELECT MIN(seq), MAX(seq) FROM feed_events")
            .fetch_one(self.pool())
            .await?;
        Ok(row
            .get::<Option<i64>, _>(0)
            .zip(row.get::<Option<i64>, _>(1)))
    }
}
