//! The swaps clients record through the API (`swap_records`), for analytics and attribution; idempotent on
//! the transaction hash.

use super::Store;
use sqlx::Row as _;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// A swap as a client recorded it (amounts in base units, as text).
#[derive(Debug, Clone)]
pub struct SwapRecord {
    pub tx_hash: String,
    pub chain_key: String,
    pub dex_id: String,
    pub token_in: String,
    pub token_out: String,
    pub amount_in: String,
    pub amount_out: String,
    pub protocol_fee: Option<String>,
    pub fee_bps: Option<u16>,
    pub address: String,
    pub status: String,
    pub source: Option<String>,
    pub client_id: Option<String>,
    pub client_name: Option<String>,
    pub client_source: Option<String>,
    /// The chain showed it (`POST /swap/record` checks the transaction); `false`: not checked yet.
    pub verified: bool,
}

/// What the store kept of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The hash was recorded before this call.
    pub duplicate: bool,
    /// When the hash was first recorded.
    pub recorded_at: i64,
    /// The stored record's status and whether it is verified (a verified record replaces an unverified one
    /// of the same hash; nothing replaces a verified one).
    pub status: String,
    pub verified: bool,
    pub amount_in: String,
    pub amount_out: String,
}

impl Store {
    /// Records `r` unless its hash is recorded already, or replaces an unverified record of the hash with
    /// `r` when `r` is verified: idempotent on the hash.
    pub async fn record_swap(&self, r: &SwapRecord, now: i64) -> Result<Recorded> {
        let existed = sqlx::query("SELECT 1 FROM swap_records WHERE tx_hash = $1")
            .bind(r.tx_hash.clone())
            .fetch_optional(self.pool())
            .await?
            .is_some();
        sqlx::query(
            "INSERT INTO swap_records (tx_hash, chain_key, dex_id, token_in, token_out, amount_in, amount_out, \
             protocol_fee, fee_bps, address, status, source, client_id, client_name, client_source, recorded_at, \
             verified) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
             ON CONFLICT (tx_hash) DO UPDATE SET chain_key = excluded.chain_key, dex_id = excluded.dex_id, \
             token_in = excluded.token_in, token_out = excluded.token_out, amount_in = excluded.amount_in, \
             amount_out = excluded.amount_out, protocol_fee = excluded.protocol_fee, \
             fee_bps = excluded.fee_bps, address = excluded.address, status = excluded.status, \
             verified = excluded.verified \
             WHERE swap_records.verified = 0 AND excluded.verified = 1",
        )
        .bind(r.tx_hash.clone())
        .bind(r.chain_key.clone())
        .bind(r.dex_id.clone())
        .bind(r.token_in.clone())
        .bind(r.token_out.clone())
        .bind(r.amount_in.clone())
        .bind(r.amount_out.clone())
        .bind(r.protocol_fee.clone())
        .bind(r.fee_bps.map(i64::from))
        .bind(r.address.clone())
        .bind(r.status.clone())
        .bind(r.source.clone())
        .bind(r.client_id.clone())
        .bind(r.client_name.clone())
        .bind(r.client_source.clone())
        .bind(now)
        .bind(i64::from(r.verified))
        .execute(self.pool())
        .await?;
        let row = sqlx::query(
            "SELECT recorded_at, status, verified, amount_in, amount_out FROM swap_records \
             WHERE tx_hash = $1",
        )
        .bind(r.tx_hash.clone())
        .fetch_one(self.pool())
        .await?;
        Ok(Recorded {
            duplicate: existed,
            recorded_at: row.get(0),
            status: row.get(1),
            verified: row.get::<i64, _>(2) != 0,
            amount_in: row.get(3),
            amount_out: row.get(4),
        })
    }
}
