//! `GET /launchpad/referrals/{address}`: what a wallet earned as the referral of curve trades (paid at trade
//! time, out of the partner's part of each fee: nothing is left to claim), per quote token, and its most
//! recent referred trades. A trading front-end names its wallet as `referrer` when it builds swaps.

use crate::error::{address, ApiError};
use crate::extract::ApiPath;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Referred trades a response lists, newest first.
const RECENT: u32 = 50;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EarningEntry {
    pub quote_mint: String,
    /// Base units of the quote token, paid.
    pub amount: String,
    pub trades: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferredTradeEntry {
    pub signature: String,
    pub slot: u64,
    pub time: i64,
    pub mint: String,
    pub quote_mint: String,
    pub trader: String,
    /// `buy` or `sell`.
    pub side: String,
    /// Paid to the referral at trade time, base units of the quote.
    pub referral_fee: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferralsResponse {
    pub wallet: String,
    /// The referral's share of the partner's part of each fee, bps (pinned with every preset).
    pub share_bps: u16,
    pub earned: Vec<EarningEntry>,
    /// The most recent referred trades (at most 50), newest first.
    pub recent: Vec<ReferredTradeEntry>,
}

#[utoipa::path(
    get,
    path = "/launchpad/referrals/{address}",
    params(crate::extract::AddressPath),
    responses(
        (status = 200, body = ReferralsResponse),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn referrals(
    State(state): State<AppState>,
    ApiPath(wallet): ApiPath<String>,
) -> Result<Json<ReferralsResponse>, ApiError> {
    let wallet = address("address", Some(&wallet))?;
    let (earned, recent) = state.store.referrals(&wallet, RECENT).await?;
    Ok(Json(ReferralsResponse {
        wallet: wallet.to_string(),
        share_bps: curve::constants::REFERRAL_SHARE_BPS,
        earned: earned
            .into_iter()
            .map(|e| EarningEntry {
                quote_mint: e.quote_mint,
                amount: e.amount.to_string(),
                trades: e.trades,
            })
            .collect(),
        recent: recent
            .into_iter()
            .map(|t| ReferredTradeEntry {
                signature: t.signature,
                slot: t.slot,
                time: t.time,
                mint: t.mint,
                quote_mint: t.quote_mint,
                trader: t.trader,
                side: t.side,
                referral_fee: t.referral_fee.to_string(),
            })
            .collect(),
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(referrals))
}
