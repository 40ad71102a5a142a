//! Shared creator fees: `POST /launchpad/fee-shares` builds the creator role's `set_fee_shares` (1 to 10
//! recipients with shares in basis points summing to 10,000, optionally locked for good), and
//! `GET /launchpad/fee-shares/{pool}` shows a launch's shares with what each recipient can claim now.
//! Recipients claim with `POST /launchpad/claim` kind `share`; `GET /launchpad/fees` lists their claims.

use crate::body::ApiJson;
use crate::error::{address, ApiError, ErrorCode};
use crate::extract::ApiPath;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use sdk::launchpad_ix::{self as lix, FeeRecipient};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// One recipient and its share.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeeRecipientBody {
    #[schema(schema_with = crate::schema::solana_address)]
    pub wallet: String,
    /// Share of the creator's fees, basis points (1 to 10,000; all shares sum to 10,000).
    #[schema(minimum = 1, maximum = 10000)]
    #[serde(deserialize_with = "crate::body::u16_integral")]
    pub bps: u16,
}

/// Checks a recipient list as the program will (1 to 10 distinct wallets, shares above zero summing to
/// 10,000 bps), with `INVALID_FEE_SHARES` naming what is wrong.
pub fn recipients(list: &[FeeRecipientBody]) -> Result<Vec<FeeRecipient>, ApiError> {
    let bad = |m: String| ApiError::new(ErrorCode::InvalidFeeShares, m);
    if list.is_empty() || list.len() > curve::MAX_FEE_RECIPIENTS {
        return Err(bad(format!(
            "fee shares name 1 to {} recipients, not {}",
            curve::MAX_FEE_RECIPIENTS,
            list.len()
        )));
    }
    let mut out: Vec<FeeRecipient> = Vec::with_capacity(list.len());
    for r in list {
        let wallet = address("feeShares[].wallet", Some(&r.wallet))?;
        if out.iter().any(|o| o.wallet == wallet) {
            return Err(bad(format!("{wallet} is named twice")));
        }
        if r.bps == 0 {
            return Err(bad(format!("{wallet} has a share of 0 bps")));
        }
        out.push(FeeRecipient { wallet, bps: r.bps });
    }
    let total: u32 = out.iter().map(|r| u32::from(r.bps)).sum();
    if total != 10_000 {
        return Err(bad(format!(
            "shares sum to {total} bps; they must sum to 10000"
        )));
    }
    Ok(out)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetFeeSharesRequest {
    /// The launchpad pool.
    #[schema(schema_with = crate::schema::solana_address)]
    pub pool: String,
    /// The pool's creator role (signs, and pays the shares account's rent the first time).
    #[schema(schema_with = crate::schema::solana_address)]
    pub creator: String,
    /// The recipients in order (the first also receives each credit's rounding dust, a few base units).
    #[schema(min_items = 1, max_items = 10)]
    pub recipients: Vec<FeeRecipientBody>,
    /// Make the shares final: nobody can change them again.
    #[serde(default)]
    pub lock: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetFeeSharesResponse {
    /// Base64 of an unsigned v0 transaction for the creator to sign and post to `/swap/submit-solana`.
    pub solana_transaction: String,
    pub pool: String,
    /// Creator fees the creator role had not claimed: the transaction claims them to it first (they were
    /// earned before the shares), base units of the quote.
    pub claimed_first: String,
    #[serde(flatten)]
    pub lifetime: crate::solana::Lifetime,
}

#[utoipa::path(
    post,
    path = "/launchpad/fee-shares",
    request_body = SetFeeSharesRequest,
    responses(
        (status = 200, body = SetFeeSharesResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS, INVALID_FEE_SHARES"),
        (status = 403, body = crate::error::ErrorBody, description = "NOT_ENTITLED: the signer is not the pool's creator"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: unknown pool"),
        (status = 409, body = crate::error::ErrorBody, description = "FEE_SHARES_LOCKED: the shares are final"),
        (status = 422, body = crate::error::ErrorBody, description = "SIMULATION_FAILED"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn set(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<SetFeeSharesRequest>,
) -> Result<Json<SetFeeSharesResponse>, ApiError> {
    let pool = address("pool", Some(&req.pool))?;
    let creator = address("creator", Some(&req.creator))?;
    // Who may change them first (an unknown pool is 404, another signer 403), then what they would be.
    let (curve, keys) = super::creator::pool_of(&state, &pool).await?;
    if creator != curve.pool.creator {
        return Err(ApiError::new(
            ErrorCode::NotEntitled,
            format!("{creator} is not this pool's creator"),
        ));
    }
    let list = recipients(&req.recipients)?;
    let current = state.store.fee_shares(&pool).await?;
    if current.as_ref().is_some_and(|s| s.locked) {
        return Err(ApiError::new(
            ErrorCode::FeeSharesLocked,
            "this launch's fee shares are locked; they can no longer change",
        ));
    }
    let mut ixs = Vec::new();
    // The first shares would share the creator fees not yet claimed too: claim them to the creator first.
    let unclaimed = if curve.pool.fee_shared {
        0
    } else {
        curve.pool.creator_fee_unclaimed
    };
    if unclaimed > 0 {
        let account =
            sdk::associated_token_address(&creator, &keys.quote_mint, &keys.quote_token_program);
        ixs.push(lix::create_ata_idempotent(
            &creator,
            &creator,
            &keys.quote_mint,
            &keys.quote_token_program,
        ));
        ixs.push(lix::claim_trading_fee(&keys, &creator, &account));
        if keys.quote_mint == sdk::ids::NATIVE_MINT {
            ixs.push(lix::unwrap_sol(&creator));
        }
    }
    // Recipients this change drops keep their balances in slots of their own (at share 0) until they claim;
    // when the slots would not hold them all, as many as needed are paid out in the same instruction, to their
    // associated accounts (opened if needed, the creator paying the rent). After migration the creator
    // position's fees are credited by the old shares in the same instruction too.
    let migrated = curve.pool.status == sdk::accounts::PoolStatus::Migrated;
    let dropped: Vec<_> = current
        .iter()
        .flat_map(|s| &s.slots[..s.count as usize])
        .filter(|slot| !list.iter().any(|r| r.wallet == slot.wallet))
        .filter(|slot| slot.bps > 0 || slot.quote_unclaimed > 0 || slot.base_unclaimed > 0)
        .collect();
    let overflow = (list.len() + dropped.len()).saturating_sub(launchpad::FEE_SHARE_SLOTS);
    let mut payouts = Vec::new();
    for slot in dropped.into_iter().take(overflow) {
        let sides = [
            (true, keys.quote_mint, keys.quote_token_program),
            (
                slot.base_unclaimed > 0 || (migrated && slot.bps > 0),
                keys.mint,
                sdk::ids::TOKEN_2022_PROGRAM,
            ),
        ];
        for (_, mint, program) in sides.into_iter().filter(|side| side.0) {
            ixs.push(lix::create_ata_idempotent(
                &creator,
                &slot.wallet,
                &mint,
                &program,
            ));
            payouts.push(sdk::associated_token_address(&slot.wallet, &mint, &program));
        }
    }
    ixs.push(lix::set_fee_shares_settling(
        &keys, &creator, list, req.lock, migrated, &payouts,
    ));
    let built =
        crate::solana::unsigned_transaction(&state.rpc, &creator, &ixs, state.fee_policy(None))
            .await?;
    Ok(Json(SetFeeSharesResponse {
        solana_transaction: built.transaction,
        pool: pool.to_string(),
        claimed_first: unclaimed.to_string(),
        lifetime: built.lifetime,
    }))
}

/// One recipient of a launch's shared creator fees.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeeShareEntry {
    pub wallet: String,
    /// Its share now, bps (0: a former recipient with something left to claim).
    pub bps: u16,
    /// What it can claim now (credited, plus its part of what the pool and the creator position still
    /// hold), base units.
    pub claimable_quote: String,
    pub claimable_base: String,
    pub claimed_quote: String,
    pub claimed_base: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeeSharesResponse {
    pub pool: String,
    pub mint: String,
    pub quote_mint: String,
    /// The creator role, which can change the shares until they are locked.
    pub creator: String,
    pub locked: bool,
    /// Recipients with a share first, in order, then former recipients with a balance.
    pub recipients: Vec<FeeShareEntry>,
}

#[utoipa::path(
    get,
    path = "/launchpad/fee-shares/{pool}",
    params(crate::extract::PoolPath),
    responses(
        (status = 200, body = FeeSharesResponse),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: unknown pool, or its creator fees are not shared"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn show(
    State(state): State<AppState>,
    ApiPath(pool): ApiPath<String>,
) -> Result<Json<FeeSharesResponse>, ApiError> {
    let pool = address("pool", Some(&pool))?;
    let (curve, _) = super::creator::pool_of(&state, &pool).await?;
    let shares = state
        .store
        .fee_shares(&pool)
        .await?
        .ok_or_else(|| ApiError::not_found("this launch's creator fees are not shared"))?;
    let lp_owed = state.store.creator_lp_owed(&curve.pool, &pool).await?;
    let used = &shares.slots[..(shares.count as usize).min(shares.slots.len())];
    let recipients = used
        .iter()
        .map(|s| {
            let now = sdk::shares::claimable(&shares, &curve.pool, lp_owed, &s.wallet)
                .unwrap_or_default();
            FeeShareEntry {
                wallet: s.wallet.to_string(),
                bps: s.bps,
                claimable_quote: now.quote.to_string(),
                claimable_base: now.base.to_string(),
                claimed_quote: s.quote_claimed.to_string(),
                claimed_base: s.base_claimed.to_string(),
            }
        })
        .collect();
    Ok(Json(FeeSharesResponse {
        pool: pool.to_string(),
        mint: curve.pool.base_mint.to_string(),
        quote_mint: curve.pool.quote_mint.to_string(),
        creator: curve.pool.creator.to_string(),
        locked: shares.locked,
        recipients,
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(set))
        .routes(routes!(show))
}
