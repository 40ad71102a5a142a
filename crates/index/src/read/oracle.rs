//! The oracle's latest price (see `store::write`'s `oracle_prices`).

use super::{key, slot_col, Result};
use crate::model::{OraclePrice, Version};
use crate::store::Store;
use anchor_lang::prelude::Pubkey;
use sqlx::Row;

impl Store {
    /// The latest indexed state of the oracle price account `address`, if the index has seen it.
    pub async fn oracle_price(&self, address: &Pubkey) -> Result<Option<OraclePrice>> {
        let row = sqlx::query(
            "SELECT address, price, conf, exponent, publish_time, slot, write_version \
             FROM oracle_prices WHERE address = $1",
        )
        .bind(address.to_string())
        .fetch_optional(self.reads())
        .await?;
        Ok(row.map(|r| OraclePrice {
            address: key(&r, "address"),
            version: Version {
                slot: slot_col(&r, "slot"),
                write_version: slot_col(&r, "write_version"),
            },
            price: r.get("price"),
            conf: r.get::<String, _>("conf").parse().unwrap_or_default(),
            exponent: i32::try_from(r.get::<i64, _>("exponent")).unwrap_or(i32::MIN),
            publish_time: r.get("publish_time"),
        }))
    }
}
