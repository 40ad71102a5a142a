//! Market reads: a token's trade series (curve then AMM), newest first by cursor, and its candles.

use crate::market::{bucket, derive, source_interval, Candle, MarketTrade, Venue};
use crate::store::{candle_row, sql, Store, CANDLE_COLS};
use anchor_lang::prelude::Pubkey;
use sea_query::{Expr, Order, Query};
use sqlx::any::AnyRow;
use sqlx::Row;

type Result<T> = std::result::Result<T, sqlx::Error>;

fn num<T: std::str::FromStr + Default>(r: &AnyRow, col: &str) -> T {
    r.get::<String, _>(col).parse().unwrap_or_default()
}

fn market_trade(r: &AnyRow) -> MarketTrade {
    MarketTrade {
        signature: r.get("signature"),
        ix_index: r.get::<i64, _>("ix_index") as u32,
        inner_index: r.get::<i64, _>("inner_index") as u32,
        slot: r.get::<i64, _>("slot").max(0) as u64,
        seq: r.get("seq"),
        time: r.get("time"),
        mint: r.get("mint"),
        venue: if r.get::<String, _>("venue") == "amm" {
            Venue::Amm
        } else {
            Venue::Curve
        },
        pool: r.get("pool"),
        wallet: r.get("wallet"),
        side: if r.get::<String, _>("side") == "sell" {
            "sell"
        } else {
            "buy"
        },
        amount_in: num(r, "amount_in"),
        amount_out: num(r, "amount_out"),
        base_amount: num(r, "base_amount"),
        quote_amount: num(r, "quote_amount"),
        fee: num(r, "fee"),
        fee_token: if r.get::<String, _>("fee_token") == "base" {
            "base"
        } else {
            "quote"
        },
        price: num(r, "price"),
        wallet_before: r
            .get::<Option<String>, _>("wallet_before")
            .and_then(|b| b.parse().ok()),
    }
}

impl Store {
    /// A token's trades (curve and AMM), newest first: `limit` trades older than the cursor `before` (a
    /// trade's `seq`), only `wallet`'s when given. Without a mint, `wallet`'s trades of every token (newest
    /// first by slot).
    pub async fn market_trades(
        &self,
        mint: Option<&Pubkey>,
        wallet: Option<&Pubkey>,
        before: Option<&str>,
        limit: u32,
    ) -> Result<Vec<MarketTrade>> {
        use sea_query::ExprTrait;
        // Every seq is 40 digits, so "a" sorts after all of them.
        let mut stmt = Query::select();
        stmt.columns([
            "signature",
            "ix_index",
            "inner_index",
            "slot",
            "seq",
            "time",
            "mint",
            "venue",
            "pool",
            "wallet",
            "side",
            "amount_in",
            "amount_out",
            "base_amount",
            "quote_amount",
            "fee",
            "fee_token",
            "price",
            "wallet_before",
        ])
        .from("market_trades")
        .and_where(Expr::col("seq").lt(before.unwrap_or("a")));
        for (col, v) in [("mint", mint), ("wallet", wallet)] {
            if let Some(v) = v {
                stmt.and_where(Expr::col(col).eq(v.to_string()));
            }
        }
        stmt.order_by("seq", Order::Desc).limit(u64::from(limit));
        let rows = sql::query(self.backend(), &stmt)
            .fetch_all(self.reads())
            .await?;
        Ok(rows.iter().map(market_trade).collect())
    }

    /// The candles of `mint` for an interval of `secs` that start in `[from, to]`: the latest `limit` of
    /// them, oldest first. An interval that is not stored is derived from its stored source
    /// ([`crate::market::source_interval`]).
    pub async fn candles(
        &self,
        mint: &Pubkey,
        secs: i64,
        from: i64,
        to: i64,
        limit: u32,
    ) -> Result<Vec<Candle>> {
        let source = source_interval(secs);
        if source == secs {
            return self
                .stored_candles(mint, secs, from, to, u64::from(limit))
                .await;
        }
        // The source candles of the derived ones that start in [from, to]: from the first multiple of
        // `secs` at or after `from` to the end of the one holding `to`. Each derived candle holds at most
        // `secs / source` of them, so the newest `limit` times that many hold the newest `limit` derived
        // candles whole (an older, partly read one is dropped).
        let first = bucket(from.saturating_add(secs - 1), secs);
        let end = bucket(to, secs).saturating_add(secs - 1);
        let per = (secs / source) as u64;
        let rows = self
            .stored_candles(mint, source, first, end, u64::from(limit) * per)
            .await?;
        let mut out = derive(rows, secs);
        let extra = out.len().saturating_sub(limit as usize);
        out.drain(..extra);
        Ok(out)
    }

    /// The stored candles of `mint` for the stored interval `secs` that start in `[from, to]`: the latest
    /// `limit` of them, oldest first.
    async fn stored_candles(
        &self,
        mint: &Pubkey,
        secs: i64,
        from: i64,
        to: i64,
        limit: u64,
    ) -> Result<Vec<Candle>> {
        use sea_query::ExprTrait;
        let stmt = Query::select()
            .columns(CANDLE_COLS)
            .from("candles")
            .and_where(Expr::col("mint").eq(mint.to_string()))
            .and_where(Expr::col("interval_secs").eq(secs))
            .and_where(Expr::col("start_time").gte(from))
            .and_where(Expr::col("start_time").lte(to))
            .order_by("start_time", Order::Desc)
            .limit(limit)
            .to_owned();
        let rows = sql::query(self.backend(), &stmt)
            .fetch_all(self.reads())
            .await?;
        let mut out: Vec<Candle> = rows.iter().map(candle_row).collect();
        out.reverse();
        Ok(out)
    }

    /// The last candle of `mint` that starts before `time` (what an empty interval after it repeats).
    pub async fn candle_before(
        &self,
        mint: &Pubkey,
        secs: i64,
        time: i64,
    ) -> Result<Option<Candle>> {
        use sea_query::ExprTrait;
        let source = source_interval(secs);
        // A derived candle starts before `time` when its first source candle starts before the first
        // multiple of `secs` at or after `time`.
        let before = if source == secs {
            time
        } else {
            bucket(time.saturating_add(secs - 1), secs)
        };
        let stmt = Query::select()
            .columns(CANDLE_COLS)
            .from("candles")
            .and_where(Expr::col("mint").eq(mint.to_string()))
            .and_where(Expr::col("interval_secs").eq(source))
            .and_where(Expr::col("start_time").lt(before))
            .order_by("start_time", Order::Desc)
            .limit(1)
            .to_owned();
        let row = sql::query(self.backend(), &stmt)
            .fetch_optional(self.reads())
            .await?;
        let Some(last) = row.as_ref().map(candle_row) else {
            return Ok(None);
        };
        if source == secs {
            return Ok(Some(last));
        }
        // The whole derived candle holding it.
        let start = bucket(last.start, secs);
        Ok(self.candles(mint, secs, start, start, 1).await?.pop())
    }
}
