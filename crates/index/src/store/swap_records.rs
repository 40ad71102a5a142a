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
}

impl Store {
    /// Records `r` unless its hash is recorded already: whether it was inserted, and when the hash was
    /// first recorded.
    pub async fn record_swap(&self, r: &SwapRecord, now: i64) -> Result<(bool, i64)> {
        let inserted = sqlx::query(
            "INSERT INTO swap_records (tx_hash, chain_key, dex_id, token_in, token_out, amount_in, amount_out, \
             protocol_fee, fee_bps, address, status, source, client_id, client_name, client_source, recorded_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
             ON CONFLICT (tx_hash) DO NOTHING",
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
        .execute(self.pool())
        .await?
        .rows_affected();
        let recorded_at: i64 =
            sqlx::query("SELECT recorded_at FROM swap_records WHERE tx_hash = $1")
                .bind(r.tx_hash.clone())
                .fetch_one(self.pool())
                .await?
                .get(0);
        Ok((inserted == 1, recorded_at))
    }
}
