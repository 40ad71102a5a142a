//! The read side used by the HTTP API: launches, curves, unclaimed fees, trades and AMM pools. State comes
//! from the stored account data decoded with the programs' own types, so quotes use exactly what the
//! program would see.

use crate::store::{sql, Store};
use anchor_lang::prelude::Pubkey;
use sdk::accounts::{AmmPool, Config, Pool, PoolStatus, Position};
use sdk::quote::amm::QuoteSide;
use sea_query::{Expr, Func, Order, Query};
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::Row;

mod comments;
mod feed;
mod holders;
mod listing;
mod market;
mod oracle;
mod pnl;
mod profiles;
mod shares;

pub use comments::{Comment, CommentCursor, CommentEntry, CommentOrder, CommentPage, MAX_REPLIES};
pub use feed::{FeedRecord, Payload};
pub use holders::{share, Holder, HolderSummary, Holding, Snipers, VaultHolding, SNIPER_SLOTS};
pub use listing::{
    valid_prefix, Activity, LaunchDetails, LaunchExtras, LaunchStats, ListingQuery, ListingRow,
    Sort, MAX_PREFIX_CHARS,
};
pub use profiles::{LaunchedToken, ProfileName};
pub use shares::{ReferralEarning, ReferredTrade};

type Result<T> = std::result::Result<T, sqlx::Error>;

fn key(row: &AnyRow, col: &str) -> Pubkey {
    row.get::<String, _>(col).parse().unwrap_or_default()
}

fn u64_col(row: &AnyRow, col: &str) -> u64 {
    row.get::<String, _>(col).parse().unwrap_or_default()
}

fn slot_col(row: &AnyRow, col: &str) -> u64 {
    row.get::<i64, _>(col).max(0) as u64
}

/// A launch as indexed (also the API's launch-list entry).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LaunchRow {
    pub mint: String,
    pub pool: String,
    pub config: String,
    pub creator: String,
    pub quote_mint: String,
    pub name: String,
    pub symbol: String,
    pub uri: String,
    /// `fair`, `shield` or `distribute`.
    pub preset: String,
    /// `sol` or `usdc`.
    pub quote: String,
    pub created_slot: u64,
    /// Unix seconds.
    pub created_at: i64,
    /// The creating transaction (null when the indexer backfilled the launch from account state).
    pub signature: Option<String>,
}

fn launch_row(r: &AnyRow) -> LaunchRow {
    LaunchRow {
        mint: r.get("mint"),
        pool: r.get("pool"),
        config: r.get("config"),
        creator: r.get("creator"),
        quote_mint: r.get("quote_mint"),
        name: r.get("name"),
        symbol: r.get("symbol"),
        uri: r.get("uri"),
        preset: r.get("preset"),
        quote: r.get("quote"),
        created_slot: slot_col(r, "created_slot"),
        created_at: r.get("created_at"),
        signature: r.get("signature"),
    }
}

/// The columns [`launch_row`] reads.
const LAUNCH_COLS: [&str; 13] = [
    "mint",
    "pool",
    "config",
    "creator",
    "quote_mint",
    "name",
    "symbol",
    "uri",
    "preset",
    "quote",
    "created_slot",
    "created_at",
    "signature",
];

/// A page of results, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
    pub limit: u32,
    pub offset: u64,
}

/// A bonding-curve pool with its config, as the program sees them.
#[derive(Debug, Clone)]
pub struct CurveState {
    pub address: Pubkey,
    pub pool: Pool,
    pub config: Config,
    pub slot: u64,
    /// The addresses above in base58, encoded once with the read (quotes answer them on every request).
    pub names: CurveNames,
}

/// A curve's addresses in base58.
#[derive(Debug, Clone)]
pub struct CurveNames {
    /// The pool's.
    pub address: String,
    /// The launched token's.
    pub mint: String,
    pub quote_mint: String,
}

impl CurveNames {
    /// The name of `mint`, one of the curve's two tokens (else its base58, encoded now).
    pub fn token(&self, pool: &Pool, mint: &Pubkey) -> String {
        if *mint == pool.base_mint {
            self.mint.clone()
        } else if *mint == pool.quote_mint {
            self.quote_mint.clone()
        } else {
            mint.to_string()
        }
    }
}

impl CurveState {
    pub fn progress_bps(&self) -> u16 {
        sdk::quote::progress_bps(&self.config, &self.pool)
    }

    /// The fee a buy or sell pays at `now` (unix seconds).
    pub fn current_fee_bps(&self, now: i64) -> u16 {
        sdk::quote::fee_bps_at(&self.config, &self.pool, now)
    }

    pub fn final_fee_bps(&self) -> u16 {
        self.config.fee_schedule().final_fee_bps()
    }

    /// When (unix seconds, by the chain's clock) the fee in force at `now` steps down next; `None` when it
    /// no longer changes.
    pub fn fee_changes_at(&self, now: i64) -> Option<i64> {
        let launched = self.pool.launch_timestamp;
        self.config
            .fee_schedule()
            .next_change_after(now.saturating_sub(launched))
            .map(|after| launched.saturating_add(after))
    }

    pub fn migrated(&self) -> bool {
        self.pool.status == PoolStatus::Migrated
    }

    /// The curve's spot price in whole quote per whole token: [`crate::market::curve_price`], rendered as
    /// every price is ([`crate::market::price_to_decimal`]).
    pub fn price(&self) -> String {
        crate::market::price_to_decimal(crate::market::curve_price(
            self.pool.sqrt_price,
            self.config.quote_decimals,
        ))
    }
}

#[derive(Debug, Clone)]
pub struct AmmPoolState {
    pub address: Pubkey,
    pub pool: AmmPool,
    pub slot: u64,
}

impl AmmPoolState {
    /// The pool's spot price in whole quote per whole token, against `quote_mint`: [`crate::market::amm_price`],
    /// rendered as every price is.
    pub fn price(&self, quote_mint: &Pubkey, quote_decimals: u8) -> String {
        let (quote, base) = QuoteSide::in_pool(&self.pool, quote_mint).reserves(&self.pool);
        crate::market::price_to_decimal(crate::market::amm_price(quote, base, quote_decimals))
    }
}

#[derive(Debug, Clone)]
pub struct PositionState {
    pub address: Pubkey,
    pub position: Position,
    pub slot: u64,
}

/// An amount a wallet can claim from one pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unclaimed {
    pub pool: String,
    pub mint: String,
    /// `trading`, `surplus`, `locked-lp` or `share`.
    pub kind: &'static str,
    /// `creator`, `partner` or (for `share`) `recipient`.
    pub role: &'static str,
    pub quote_mint: String,
    /// Quote base units.
    pub quote_amount: u64,
    /// Token base units (locked-LP fees are paid in both tokens of the AMM pool).
    pub base_amount: u64,
    /// For `locked-lp`: the AMM pool and the wallet's position.
    pub amm_pool: Option<String>,
    pub position: Option<String>,
}

impl Store {
    /// Launches, most recent first: every launch the index has, whoever built it (the discovery listing's
    /// set, and the token catalog's).
    pub async fn launches(&self, limit: u32, offset: u64) -> Result<Page<LaunchRow>> {
        let mut page = Query::select();
        page.columns(LAUNCH_COLS)
            .from("launches")
            .order_by("created_at", Order::Desc)
            .order_by("created_slot", Order::Desc)
            .order_by("mint", Order::Asc)
            .limit(u64::from(limit))
            .offset(offset.min(i64::MAX as u64));
        let rows = sql::query(self.backend(), &page)
            .fetch_all(self.reads())
            .await?;
        let count = Query::select()
            .expr(Func::count(Expr::col(sea_query::Asterisk)))
            .from("launches")
            .to_owned();
        let total: i64 = sql::query(self.backend(), &count)
            .fetch_one(self.reads())
            .await?
            .get(0);
        Ok(Page {
            items: rows.iter().map(launch_row).collect(),
            total: total.max(0) as u64,
            limit,
            offset,
        })
    }

    pub async fn launch(&self, mint: &Pubkey) -> Result<Option<LaunchRow>> {
        use sea_query::ExprTrait;
        let stmt = Query::select()
            .columns(LAUNCH_COLS)
            .from("launches")
            .and_where(Expr::col("mint").eq(mint.to_string()))
            .to_owned();
        let row = sql::query(self.backend(), &stmt)
            .fetch_optional(self.reads())
            .await?;
        Ok(row.as_ref().map(launch_row))
    }

    /// The curve of a launched token, with its config.
    pub async fn curve(&self, mint: &Pubkey) -> Result<Option<CurveState>> {
        let row = sqlx::query(
            "SELECT p.address, p.slot, p.data AS pool_data, c.data AS config_data \
             FROM pools p JOIN configs c ON c.address = p.config WHERE p.mint = $1",
        )
        .bind(mint.to_string())
        .fetch_optional(self.reads())
        .await?;
        Ok(row.and_then(|r| {
            let pool = sdk::accounts::decode_pool(&r.get::<Vec<u8>, _>("pool_data"))?;
            Some(CurveState {
                address: key(&r, "address"),
                slot: slot_col(&r, "slot"),
                names: CurveNames {
                    address: r.get("address"),
                    mint: pool.base_mint.to_string(),
                    quote_mint: pool.quote_mint.to_string(),
                },
                pool,
                config: sdk::accounts::decode_config(&r.get::<Vec<u8>, _>("config_data"))?,
            })
        }))
    }

    /// The curve of a launchpad pool, by the pool's address.
    pub async fn curve_by_pool(&self, pool: &Pubkey) -> Result<Option<CurveState>> {
        let row = sqlx::query("SELECT mint FROM pools WHERE address = $1")
            .bind(pool.to_string())
            .fetch_optional(self.reads())
            .await?;
        match row {
            Some(r) => self.curve(&key(&r, "mint")).await,
            None => Ok(None),
        }
    }

    /// Pools whose curve completed and that wait for `migrate`.
    pub async fn completed_pools(&self) -> Result<Vec<CurveState>> {
        let rows = sqlx::query("SELECT mint FROM pools WHERE status = 'complete' ORDER BY address")
            .fetch_all(self.reads())
            .await?;
        let mut out = Vec::new();
        for r in rows {
            if let Some(c) = self.curve(&key(&r, "mint")).await? {
                out.push(c);
            }
        }
        Ok(out)
    }

    /// The config of `preset` against `quote` (names as in `curve::Preset` and `curve::QuoteAsset`).
    pub async fn config_for(&self, preset: &str, quote: &str) -> Result<Option<(Pubkey, Config)>> {
        let row = sqlx::query("SELECT address, data FROM configs WHERE preset = $1 AND quote = $2")
            .bind(preset.to_string())
            .bind(quote.to_string())
            .fetch_optional(self.reads())
            .await?;
        Ok(row.and_then(|r| {
            Some((
                key(&r, "address"),
                sdk::accounts::decode_config(&r.get::<Vec<u8>, _>("data"))?,
            ))
        }))
    }

    pub async fn amm_pool(&self, address: &Pubkey) -> Result<Option<AmmPoolState>> {
        let row = sqlx::query("SELECT address, slot, data FROM amm_pools WHERE address = $1")
            .bind(address.to_string())
            .fetch_optional(self.reads())
            .await?;
        Ok(row.as_ref().and_then(amm_pool_state))
    }

    /// An AMM position by address, if indexed.
    pub async fn position(&self, address: &Pubkey) -> Result<Option<PositionState>> {
        let row = sqlx::query("SELECT address, slot, data FROM amm_positions WHERE address = $1")
            .bind(address.to_string())
            .fetch_optional(self.reads())
            .await?;
        Ok(row.as_ref().and_then(|r| {
            Some(PositionState {
                address: key(r, "address"),
                slot: slot_col(r, "slot"),
                position: sdk::accounts::decode_position(&r.get::<Vec<u8>, _>("data"))?,
            })
        }))
    }

    /// What `wallet` can claim, per pool and kind: trading fees and surplus as the pool's creator or as the
    /// partner of its config, and fees earned by the pool's locked AMM position of that role. Entries with nothing to claim
    /// are left out.
    pub async fn unclaimed(&self, wallet: &Pubkey) -> Result<Vec<Unclaimed>> {
        let w = wallet.to_string();
        let rows = sqlx::query(
            "SELECT p.address, p.mint, p.data AS pool_data, c.partner FROM pools p \
             JOIN configs c ON c.address = p.config WHERE p.creator = $1 OR c.partner = $2 \
             ORDER BY p.mint",
        )
        .bind(w.clone())
        .bind(w.clone())
        .fetch_all(self.reads())
        .await?;
        let mut out = Vec::new();
        for r in &rows {
            let Some(pool) = sdk::accounts::decode_pool(&r.get::<Vec<u8>, _>("pool_data")) else {
                continue;
            };
            let address: String = r.get("address");
            let partner = key(r, "partner");
            let mut add = |kind, role, amount: u64| {
                if amount > 0 {
                    out.push(Unclaimed {
                        pool: address.clone(),
                        mint: pool.base_mint.to_string(),
                        kind,
                        role,
                        quote_mint: pool.quote_mint.to_string(),
                        quote_amount: amount,
                        base_amount: 0,
                        amm_pool: None,
                        position: None,
                    })
                }
            };
            if pool.creator == *wallet {
                // Shared creator fees are the recipients' (kind `share`), not the creator role's.
                if !pool.fee_shared {
                    add("trading", "creator", pool.creator_fee_unclaimed);
                }
                if !pool.creator_surplus_claimed {
                    add("surplus", "creator", pool.creator_surplus_unclaimed);
                }
            }
            if partner == *wallet {
                add("trading", "partner", pool.partner_fee_unclaimed);
                if !pool.partner_surplus_claimed {
                    add("surplus", "partner", pool.partner_surplus_unclaimed);
                }
            }
        }
        // The locked positions belong to the launches' pools; the role holder now claims their fees.
        for r in &rows {
            let Some(pool) = sdk::accounts::decode_pool(&r.get::<Vec<u8>, _>("pool_data")) else {
                continue;
            };
            if pool.status != PoolStatus::Migrated {
                continue;
            }
            let launch_pool = key(r, "address");
            let partner = key(r, "partner");
            let roles = [
                (
                    "creator",
                    pool.creator == *wallet && !pool.fee_shared,
                    launchpad::CREATOR_POSITION_ID,
                ),
                (
                    "partner",
                    partner == *wallet,
                    launchpad::PARTNER_POSITION_ID,
                ),
            ];
            for (role, holds, id) in roles {
                if !holds {
                    continue;
                }
                let address = sdk::amm_ix::position_address(&pool.amm_pool, &launch_pool, id);
                let Some(pos) = self.position(&address).await? else {
                    continue;
                };
                let Some(amm) = self.amm_pool(&pool.amm_pool).await? else {
                    continue;
                };
                let Ok((owed_a, owed_b)) = sdk::amm_ix::claimable_fees(&amm.pool, &pos.position)
                else {
                    continue;
                };
                if owed_a == 0 && owed_b == 0 {
                    continue;
                }
                let (quote_amount, base_amount) =
                    QuoteSide::in_pool(&amm.pool, &pool.quote_mint).split(owed_a, owed_b);
                out.push(Unclaimed {
                    pool: launch_pool.to_string(),
                    mint: pool.base_mint.to_string(),
                    kind: "locked-lp",
                    role,
                    quote_mint: pool.quote_mint.to_string(),
                    quote_amount,
                    base_amount,
                    amm_pool: Some(amm.address.to_string()),
                    position: Some(pos.address.to_string()),
                });
            }
        }
        out.extend(self.shared_unclaimed(wallet).await?);
        Ok(out)
    }
}

fn amm_pool_state(r: &AnyRow) -> Option<AmmPoolState> {
    Some(AmmPoolState {
        address: key(r, "address"),
        slot: slot_col(r, "slot"),
        pool: sdk::accounts::decode_amm_pool(&r.get::<Vec<u8>, _>("data"))?,
    })
}
