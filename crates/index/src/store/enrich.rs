//! What the indexer's processor reads back while it enriches a batch: the configs indexed (to price and
//! measure curves) and the launch a pool trades (to price its trades). The only queries the write path
//! makes outside a batch.

use super::db::Store;
use crate::market::Market;
use anchor_lang::prelude::Pubkey;
use sqlx::any::AnyRow;
use sqlx::Row as _;

impl Store {
    /// Every config the index holds, decoded (rows that do not decode are left out).
    pub async fn configs(&self) -> Result<Vec<(Pubkey, sdk::accounts::Config)>, sqlx::Error> {
        let rows = sqlx::query("SELECT address, data FROM configs")
            .fetch_all(self.pool())
            .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let address = r.get::<String, _>("address").parse().ok()?;
                let config = sdk::accounts::decode_config(&r.get::<Vec<u8>, _>("data"))?;
                Some((address, config))
            })
            .collect())
    }

    /// The launch a pool trades, by its curve pool or by the AMM pool it migrated into (from the pool
    /// account or the migration event, whichever the index has): `None` when the index knows no launch of
    /// it.
    pub async fn market_of_pool(&self, pool: &Pubkey) -> Result<Option<Market>, sqlx::Error> {
        let row: Option<AnyRow> = sqlx::query(
            "SELECT l.mint, l.quote_mint, c.quote_decimals FROM launches l \
             JOIN configs c ON c.address = l.config WHERE l.pool = $1 \
             UNION ALL SELECT p.mint, p.quote_mint, c.quote_decimals FROM pools p \
             JOIN configs c ON c.address = p.config WHERE p.address = $2 OR p.amm_pool = $3 \
             UNION ALL SELECT l.mint, l.quote_mint, c.quote_decimals FROM migrations m \
             JOIN launches l ON l.mint = m.mint JOIN configs c ON c.address = l.config \
             WHERE m.amm_pool = $4",
        )
        .bind(pool.to_string())
        .bind(pool.to_string())
        .bind(pool.to_string())
        .bind(pool.to_string())
        .fetch_optional(self.pool())
        .await?;
        Ok(row.and_then(|r| {
            Some(Market {
                mint: r.get::<String, _>(0).parse().ok()?,
                quote_mint: r.get::<String, _>(1).parse().ok()?,
                quote_decimals: u8::try_from(r.get::<i64, _>(2)).ok()?,
            })
        }))
    }
}
