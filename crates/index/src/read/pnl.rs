//! PnL reads: the launched tokens a wallet traded or holds, and its position in one of them built from its
//! trades in chain order ([`crate::pnl`]) and reconciled with its balance now.

use crate::pnl::{Fill, Position};
use crate::store::Store;
use anchor_lang::prelude::Pubkey;
use futures::TryStreamExt;
use sqlx::Row;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// The mints a wallet traded (curve or AMM) or holds a positive balance of, as one set.
macro_rules! wallet_mints {
    () => {
        "SELECT mint FROM market_trades WHERE wallet = $1 \
         UNION SELECT t.mint FROM token_accounts t JOIN launches l ON l.mint = t.mint \
         WHERE t.owner = $1 AND t.amount > 0 AND t.vault = 0"
    };
}

impl Store {
    /// The launched tokens `wallet` traded or holds, by mint: `limit` of them from `offset`, and how many
    /// there are.
    pub async fn pnl_mints(
        &self,
        wallet: &Pubkey,
        limit: u32,
        offset: u64,
    ) -> Result<(Vec<Pubkey>, u64)> {
        let w = wallet.to_string();
        let total: i64 = sqlx::query(concat!("SELECT COUNT(*) FROM (", wallet_mints!(), ") m"))
            .bind(w.clone())
            .fetch_one(self.reads())
            .await?
            .get(0);
        let rows = sqlx::query(concat!(
            "SELECT mint FROM (",
            wallet_mints!(),
            ") m ORDER BY mint LIMIT $2 OFFSET $3"
        ))
        .bind(w)
        .bind(i64::from(limit))
        .bind(i64::try_from(offset).unwrap_or(i64::MAX))
        .fetch_all(self.reads())
        .await?;
        let mints = rows
            .iter()
            .filter_map(|r| r.get::<String, _>(0).parse().ok())
            .collect();
        Ok((mints, total.max(0) as u64))
    }

    /// `wallet`'s position in `mint`: its trades (curve then AMM, in chain order, read as a stream) applied
    /// one by one, each after reconciling with the wallet's balance just before it when the trade carries it
    /// (a transfer between trades, at zero cost, where it happened), then its balance now from the chain's
    /// token accounts.
    pub async fn wallet_position(&self, wallet: &Pubkey, mint: &Pubkey) -> Result<Position> {
        let (w, m) = (wallet.to_string(), mint.to_string());
        let mut position = Position::default();
        {
            let mut rows = sqlx::query(
                "SELECT side, base_amount, quote_amount, time, wallet_before FROM market_trades \
                 WHERE mint = $1 AND wallet = $2 ORDER BY seq",
            )
            .bind(m.clone())
            .bind(w.clone())
            .fetch(self.reads());
            while let Some(r) = rows.try_next().await? {
                let num = |col: &str| r.get::<String, _>(col).parse::<u64>().unwrap_or_default();
                let (tokens, quote) = (num("base_amount"), num("quote_amount"));
                let fill = if r.get::<String, _>("side") == "sell" {
                    Fill::Sell {
                        tokens,
                        received: quote,
                    }
                } else {
                    Fill::Buy {
                        tokens,
                        paid: quote,
                    }
                };
                if let Some(before) = r
                    .get::<Option<String>, _>("wallet_before")
                    .and_then(|b| b.parse::<u64>().ok())
                {
                    position.reconcile(before);
                }
                position.apply(fill, r.get("time"));
            }
        }
        let balance = sqlx::query(
            "SELECT CAST(SUM(amount) AS BIGINT) FROM token_accounts WHERE mint = $1 AND owner = $2 \
             AND vault = 0",
        )
        .bind(m)
        .bind(w)
        .fetch_one(self.reads())
        .await?
        .get::<Option<i64>, _>(0)
        .unwrap_or(0)
        .max(0) as u64;
        position.reconcile(balance);
        Ok(position)
    }
}
