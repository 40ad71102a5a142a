//! Holder and wallet reads: a launch's holders (count, top holders with their share of supply, the top 10's
//! and the creator's share, snipers) and a wallet's holdings in launched tokens.
//!
//! Shares are exact: the supply of every launch is 10^15 base units (10^9 tokens of 6 decimals), so a share
//! of supply is the amount with 15 decimals.

use super::{key, launch_row, CurveState, LaunchRow, LAUNCH_COLS};
use crate::market::Venue;
use crate::store::{sql, Store};
use anchor_lang::prelude::Pubkey;
use curve::constants::TOTAL_SUPPLY_BASE_UNITS;
use sea_query::{Expr, Func, Order, Query, SelectStatement};
use serde::Serialize;
use sqlx::Row;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// Slots after the creation slot in which a first buy makes its wallet a sniper: the creation slot and the
/// next `SNIPER_SLOTS` (about 0.8 s on mainnet).
pub const SNIPER_SLOTS: u64 = 2;

/// Digits of a share of supply: the supply is exactly `10^SHARE_DIGITS` base units.
pub const SHARE_DIGITS: u8 = 15;
const _: () = assert!(TOTAL_SUPPLY_BASE_UNITS == 10u64.pow(SHARE_DIGITS as u32));

/// `amount` as an exact fraction of the supply (`"0.012500000000000"` is 1.25%).
pub fn share(amount: u64) -> String {
    curve::display::amount_to_decimal(amount, SHARE_DIGITS)
}

/// One token account of a holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    /// The wallet.
    pub owner: String,
    pub token_account: String,
    /// Base units (6 decimals).
    pub amount: String,
    /// Fraction of the supply, exact (15 decimals).
    pub share: String,
}

/// Wallets whose first buy landed in the launch's first slots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Snipers {
    pub count: u64,
    /// Fraction of the supply they hold now, exact.
    pub share: String,
    /// The window: buys in slots `fromSlot` to `toSlot` (the creation slot and the next 2). The creator is
    /// not counted.
    pub from_slot: u64,
    pub to_slot: u64,
}

/// A launch's holders as of the index's latest batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HolderSummary {
    pub mint: String,
    /// Wallets with a positive balance (the launchpad's and the AMM's vaults excluded).
    pub holder_count: u64,
    /// Share of supply of the 10 largest token accounts (vaults excluded).
    pub top10_share: String,
    /// Share of supply the creator holds.
    pub creator_share: String,
    pub snipers: Snipers,
    /// The largest token accounts first (vaults excluded).
    pub holders: Vec<Holder>,
    /// The pools' vaults holding the token (not holders, listed apart): the bonding curve's and, after
    /// migration, the AMM pool's; largest first.
    pub vaults: Vec<VaultHolding>,
}

/// A vault's balance of a launched token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct VaultHolding {
    /// `curve` (the launchpad pool's base vault) or `amm` (the AMM pool's).
    pub kind: String,
    /// The pool that owns the vault.
    pub owner: String,
    pub token_account: String,
    /// Base units (6 decimals).
    pub amount: String,
    /// Fraction of the supply, exact (15 decimals).
    pub share: String,
}

/// A wallet's balance of a launched token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holding {
    pub mint: Pubkey,
    pub token_account: String,
    pub amount: u64,
    pub name: String,
    pub symbol: String,
}

/// An amount column (or a `SUM` of one, NULL when there is nothing to sum).
fn amount_col(r: &sqlx::any::AnyRow, i: usize) -> u64 {
    r.get::<Option<i64>, _>(i).unwrap_or(0).max(0) as u64
}

/// The buys of `mint` before the trade `seq` `end` by wallets other than the creator, selecting `what`.
fn sniper_buys(what: Expr, mint: &str, end: &str, creator: &str) -> SelectStatement {
    use sea_query::ExprTrait;
    Query::select()
        .expr(what)
        .from("market_trades")
        .and_where(Expr::col("mint").eq(mint))
        .and_where(Expr::col("side").eq(sql::lit("buy")))
        .and_where(Expr::col("seq").lt(end))
        .and_where(Expr::col("wallet").ne(creator))
        .to_owned()
}

impl Store {
    /// The holders of `mint` (its `limit` largest token accounts), or `None` when no launch has this mint.
    pub async fn holder_summary(&self, mint: &Pubkey, limit: u32) -> Result<Option<HolderSummary>> {
        let Some(launch) = self.launch(mint).await? else {
            return Ok(None);
        };
        let m = mint.to_string();
        let count = sqlx::query("SELECT holders FROM holder_counts WHERE mint = $1")
            .bind(m.clone())
            .fetch_optional(self.reads())
            .await?
            .map_or(0, |r| r.get::<i64, _>(0).max(0) as u64);
        let rows = sqlx::query(
            "SELECT owner, address, amount FROM token_accounts WHERE mint = $1 AND vault = 0 \
             AND amount > 0 ORDER BY amount DESC, address LIMIT $2",
        )
        .bind(m.clone())
        .bind(i64::from(limit.max(10)))
        .fetch_all(self.reads())
        .await?;
        let top: Vec<(String, String, u64)> = rows
            .iter()
            .map(|r| (r.get(0), r.get(1), amount_col(r, 2)))
            .collect();
        let top10: u64 = top.iter().take(10).map(|t| t.2).sum();
        let creator = sqlx::query(
            "SELECT CAST(SUM(amount) AS BIGINT) FROM token_accounts WHERE mint = $1 AND owner = $2 \
             AND vault = 0",
        )
        .bind(m.clone())
        .bind(launch.creator.clone())
        .fetch_one(self.reads())
        .await?;
        let creator = amount_col(&creator, 0);
        let vaults = sqlx::query(
            "SELECT owner, address, amount FROM token_accounts WHERE mint = $1 AND vault = 1 \
             AND amount > 0 ORDER BY amount DESC, address",
        )
        .bind(m.clone())
        .fetch_all(self.reads())
        .await?
        .iter()
        .map(|r| {
            let owner: String = r.get(0);
            let amount = amount_col(r, 2);
            VaultHolding {
                kind: if owner == launch.pool { "curve" } else { "amm" }.into(),
                owner,
                token_account: r.get(1),
                amount: amount.to_string(),
                share: share(amount),
            }
        })
        .collect();
        let (from_slot, to_slot) = self.sniper_window(mint, &launch).await?;
        let end = crate::market::seq(to_slot.saturating_add(1), 0, 0, 0);
        let snipers = sniper_buys(
            Func::count_distinct(Expr::col("wallet")).into(),
            &m,
            &end,
            &launch.creator,
        );
        let sniper_count: i64 = sql::query(self.backend(), &snipers)
            .fetch_one(self.reads())
            .await?
            .get(0);
        let held = {
            use sea_query::ExprTrait;
            Query::select()
                .expr(Func::cast_as(Func::sum(Expr::col("amount")), "BIGINT"))
                .from("token_accounts")
                .and_where(Expr::col("mint").eq(m.as_str()))
                .and_where(Expr::col("vault").eq(sql::lit(0)))
                .and_where(Expr::col("owner").in_subquery(sniper_buys(
                    Expr::col("wallet"),
                    &m,
                    &end,
                    &launch.creator,
                )))
                .to_owned()
        };
        let held = sql::query(self.backend(), &held)
            .fetch_one(self.reads())
            .await?;
        Ok(Some(HolderSummary {
            mint: m,
            holder_count: count,
            top10_share: share(top10),
            creator_share: share(creator),
            snipers: Snipers {
                count: sniper_count.max(0) as u64,
                share: share(amount_col(&held, 0)),
                from_slot,
                to_slot,
            },
            holders: top
                .into_iter()
                .take(limit as usize)
                .map(|(owner, token_account, amount)| Holder {
                    owner,
                    token_account,
                    amount: amount.to_string(),
                    share: share(amount),
                })
                .collect(),
            vaults,
        }))
    }

    /// The slots whose buys make snipers: from the creation slot (the earliest of the recorded one and the
    /// first trade's, since a launch backfilled from account state only knows the backfill's slot) to
    /// [`SNIPER_SLOTS`] after it.
    async fn sniper_window(&self, mint: &Pubkey, launch: &LaunchRow) -> Result<(u64, u64)> {
        let first: Option<i64> = sqlx::query("SELECT MIN(slot) FROM market_trades WHERE mint = $1")
            .bind(mint.to_string())
            .fetch_one(self.reads())
            .await?
            .get(0);
        let created = first.map_or(launch.created_slot, |f| {
            launch.created_slot.min(f.max(0) as u64)
        });
        Ok((created, created.saturating_add(SNIPER_SLOTS)))
    }

    /// `owner`'s positive balances of launched tokens, by mint.
    pub async fn holdings(&self, owner: &Pubkey) -> Result<Vec<Holding>> {
        let rows = sqlx::query(
            "SELECT t.mint, t.address, t.amount, l.name, l.symbol FROM token_accounts t \
             JOIN launches l ON l.mint = t.mint WHERE t.owner = $1 AND t.amount > 0 AND t.vault = 0 \
             ORDER BY t.mint, t.address",
        )
        .bind(owner.to_string())
        .fetch_all(self.reads())
        .await?;
        Ok(rows
            .iter()
            .map(|r| Holding {
                mint: key(r, "mint"),
                token_account: r.get("address"),
                amount: amount_col(r, 2),
                name: r.get("name"),
                symbol: r.get("symbol"),
            })
            .collect())
    }

    /// Launches created by `creator`, newest first (at most `limit`).
    pub async fn launches_by(&self, creator: &Pubkey, limit: u32) -> Result<Vec<LaunchRow>> {
        use sea_query::ExprTrait;
        let stmt = Query::select()
            .columns(LAUNCH_COLS)
            .from("launches")
            .and_where(Expr::col("creator").eq(creator.to_string()))
            .order_by("created_at", Order::Desc)
            .order_by("created_slot", Order::Desc)
            .order_by("mint", Order::Asc)
            .limit(u64::from(limit))
            .to_owned();
        let rows = sql::query(self.backend(), &stmt)
            .fetch_all(self.reads())
            .await?;
        Ok(rows.iter().map(launch_row).collect())
    }

    /// Where a launched token trades now and its spot price there (fixed, see
    /// [`curve::display::PRICE_DIGITS`]): the curve until migration, then the AMM pool it migrated into
    /// ([`crate::market::spot_price`] with the AMM pool read from the index).
    pub async fn spot_price(&self, c: &CurveState) -> Result<(Venue, u128)> {
        let amm = match c.migrated() {
            true => self.amm_pool(&c.pool.amm_pool).await?,
            false => None,
        };
        Ok(crate::market::spot_price(
            &c.pool,
            &c.config,
            amm.as_ref().map(|a| &a.pool),
        ))
    }
}
