//! Shared creator fees and referral earnings, as the index last saw them.

use super::{key, u64_col, Result, Unclaimed};
use crate::store::Store;
use anchor_lang::prelude::Pubkey;
use sdk::accounts::{FeeShares, Pool, PoolStatus};
use sdk::quote::amm::QuoteSide;
use serde::Serialize;
use sqlx::Row;

/// What one referrer was paid in one quote token (at trade time: there is nothing left to claim).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ReferralEarning {
    pub quote_mint: String,
    /// Base units of the quote token.
    pub amount: u128,
    pub trades: u64,
}

/// One trade a referrer was paid for.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ReferredTrade {
    pub signature: String,
    pub slot: u64,
    pub time: i64,
    pub mint: String,
    pub quote_mint: String,
    pub trader: String,
    pub side: String,
    pub referral_fee: u64,
}

impl Store {
    /// The uncollected AMM fees (tokens, quote) of a migrated launch's locked creator position; zero before
    /// migration or when the index has not seen the position.
    pub async fn creator_lp_owed(&self, pool: &Pool, launch_pool: &Pubkey) -> Result<(u64, u64)> {
        if pool.status != PoolStatus::Migrated {
            return Ok((0, 0));
        }
        let position = sdk::amm_ix::position_address(
            &pool.amm_pool,
            launch_pool,
            launchpad::CREATOR_POSITION_ID,
        );
        let (Some(pos), Some(amm)) = (
            self.position(&position).await?,
            self.amm_pool(&pool.amm_pool).await?,
        ) else {
            return Ok((0, 0));
        };
        Ok(
            match sdk::amm_ix::claimable_fees(&amm.pool, &pos.position) {
                Ok((a, b)) => {
                    let (quote, base) = QuoteSide::in_pool(&amm.pool, &pool.quote_mint).split(a, b);
                    (base, quote)
                }
                Err(_) => (0, 0),
            },
        )
    }

    /// Whether a shared launch's creator position has AMM fees to collect (`share_locked_lp_fee` first).
    pub async fn unclaimed_lp_of_shared(&self, pool: &Pool, launch_pool: &Pubkey) -> Result<bool> {
        let (base, quote) = self.creator_lp_owed(pool, launch_pool).await?;
        Ok(pool.fee_shared && (base > 0 || quote > 0))
    }

    /// A launch's fee shares (by its pool), if its creator role shared the creator fees.
    pub async fn fee_shares(&self, pool: &Pubkey) -> Result<Option<FeeShares>> {
        let row = sqlx::query("SELECT data FROM fee_shares WHERE pool = $1")
            .bind(pool.to_string())
            .fetch_optional(self.reads())
            .await?;
        Ok(row.and_then(|r| sdk::accounts::decode_fee_shares(&r.get::<Vec<u8>, _>("data"))))
    }

    /// What `wallet` can claim as a recipient of shared creator fees, per pool (kind `share`): its credit,
    /// plus its part of the creator fees each pool still holds and of the creator position's uncollected
    /// AMM fees, exactly as `claim_fee_share` (after `share_locked_lp_fee`) would pay.
    pub(super) async fn shared_unclaimed(&self, wallet: &Pubkey) -> Result<Vec<Unclaimed>> {
        let rows = sqlx::query(
            "SELECT s.data AS shares_data, p.address, p.data AS pool_data FROM fee_shares s \
             JOIN pools p ON p.address = s.pool WHERE s.recipients LIKE $1 ORDER BY p.mint",
        )
        .bind(format!("% {wallet} %"))
        .fetch_all(self.reads())
        .await?;
        let mut out = Vec::new();
        for r in &rows {
            let (Some(shares), Some(pool)) = (
                sdk::accounts::decode_fee_shares(&r.get::<Vec<u8>, _>("shares_data")),
                sdk::accounts::decode_pool(&r.get::<Vec<u8>, _>("pool_data")),
            ) else {
                continue;
            };
            let launch_pool = key(r, "address");
            let lp_owed = self.creator_lp_owed(&pool, &launch_pool).await?;
            let Some(claim) = sdk::shares::claimable(&shares, &pool, lp_owed, wallet) else {
                continue;
            };
            if claim.quote == 0 && claim.base == 0 {
                continue;
            }
            out.push(Unclaimed {
                pool: launch_pool.to_string(),
                mint: pool.base_mint.to_string(),
                kind: "share",
                role: "recipient",
                quote_mint: pool.quote_mint.to_string(),
                quote_amount: claim.quote,
                base_amount: claim.base,
                amm_pool: None,
                position: None,
            });
        }
        Ok(out)
    }

    /// What `wallet` earned as a referral, per quote token, and its most recent `limit` referred trades:
    /// two indexed reads (the sums by the database, however many trades the referrer has), never every row.
    pub async fn referrals(
        &self,
        wallet: &Pubkey,
        limit: u32,
    ) -> Result<(Vec<ReferralEarning>, Vec<ReferredTrade>)> {
        // Amounts are decimal text: summed as exact numbers (PostgreSQL's NUMERIC; SQLite's 64-bit integers,
        // ample for one referrer's fees) and read back as text.
        let earned_sql = match self.backend() {
            crate::Backend::Postgres => EARNED_POSTGRES,
            crate::Backend::Sqlite => EARNED_SQLITE,
        };
        let earned = sqlx::query(earned_sql)
            .bind(wallet.to_string())
            .fetch_all(self.reads())
            .await?
            .iter()
            .map(|r| ReferralEarning {
                quote_mint: r.get("quote_mint"),
                amount: r.get::<String, _>("amount").parse().unwrap_or(0),
                trades: r.get::<i64, _>("trades").max(0) as u64,
            })
            .collect();
        let recent = sqlx::query(
            "SELECT t.signature, t.slot, t.time, t.mint, t.trader, t.side, t.referral_fee, \
             p.quote_mint FROM trades t JOIN pools p ON p.address = t.pool WHERE t.referrer = $1 \
             ORDER BY t.slot DESC, t.signature DESC, t.ix_index DESC, t.inner_index DESC LIMIT $2",
        )
        .bind(wallet.to_string())
        .bind(i64::from(limit))
        .fetch_all(self.reads())
        .await?
        .iter()
        .map(|r| ReferredTrade {
            signature: r.get("signature"),
            slot: super::slot_col(r, "slot"),
            time: r.get("time"),
            mint: r.get("mint"),
            quote_mint: r.get("quote_mint"),
            trader: r.get("trader"),
            side: r.get("side"),
            referral_fee: u64_col(r, "referral_fee"),
        })
        .collect();
        Ok((earned, recent))
    }
}

/// A referrer's earnings per quote token, summed by PostgreSQL.
const EARNED_POSTGRES: &str = "SELECT p.quote_mint, COUNT(*) AS trades, \
     CAST(SUM(CAST(t.referral_fee AS NUMERIC)) AS TEXT) AS amount \
     FROM trades t JOIN pools p ON p.address = t.pool WHERE t.referrer = $1 \
     GROUP BY p.quote_mint ORDER BY p.quote_mint";

/// The same, summed by SQLite.
const EARNED_SQLITE: &str = "SELECT p.quote_mint, COUNT(*) AS trades, \
     CAST(SUM(CAST(t.referral_fee AS INTEGER)) AS TEXT) AS amount \
     FROM trades t JOIN pools p ON p.address = t.pool WHERE t.referrer = $1 \
     GROUP BY p.quote_mint ORDER BY p.quote_mint";
