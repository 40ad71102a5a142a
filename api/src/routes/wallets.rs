//! `GET /launchpad/wallets/{address}`: a wallet's holdings in launched tokens with their value at the current
//! price, what it can claim, the tokens it launched, and its recent trades.

use super::launchpad::FeeEntry;
use super::trades::TradeEntry;
use crate::error::{address, ApiError};
use crate::extract::ApiPath;
use crate::http::cache;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use index::read::LaunchRow;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

/// Trades a wallet view lists.
pub const RECENT_TRADES: u32 = 20;
/// Launches a wallet view lists.
pub const LAUNCHES: u32 = 100;

/// A balance of a launched token.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HoldingEntry {
    pub mint: String,
    pub name: String,
    pub symbol: String,
    pub token_account: String,
    /// Base units (6 decimals).
    pub amount: String,
    /// `sol` or `usdc`.
    pub quote: String,
    pub quote_mint: String,
    /// Where the token trades now: `curve` or `amm`.
    pub venue: String,
    /// Spot price on `venue`, whole quote per whole token (18 decimals, rounded down).
    pub price: String,
    /// `amount` at `price`, quote base units (rounded down).
    pub value: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WalletResponse {
    pub address: String,
    /// Positive balances of launched tokens, by mint.
    pub holdings: Vec<HoldingEntry>,
    /// What the wallet can claim, as `GET /launchpad/fees` lists it.
    pub claimable: Vec<FeeEntry>,
    /// Tokens it launched, newest first (at most 100).
    pub launches: Vec<LaunchRow>,
    /// Its last 20 trades of launched tokens (curve and AMM), newest first.
    pub trades: Vec<TradeEntry>,
    /// Its SOL and USDC, read from the chain for this response; null when the RPC node did not answer (the
    /// rest comes from the index and is served regardless).
    pub balances: Option<Balances>,
}

/// A wallet's balances of the launchpad's quote assets, as the chain has them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Balances {
    /// Lamports (0 for an account that does not exist yet).
    pub sol: String,
    /// Base units of USDC (6 decimals) in its associated token account (0 without one); null when this
    /// service has no USDC launches configured.
    pub usdc: Option<String>,
    /// The USDC mint, or null.
    pub usdc_mint: Option<String>,
    /// The slot the balances were read at.
    pub slot: u64,
}

/// The wallet's SOL and USDC in one `getMultipleAccounts` call; `None` when the RPC node does not answer
/// (logged, with any credential in its text removed).
async fn balances(state: &AppState, wallet: &sdk::Pubkey) -> Result<Option<Balances>, ApiError> {
    let usdc_mint = state
        .store
        .config_for("fair", "usdc")
        .await?
        .map(|(_, c)| c.quote_mint);
    let mut keys = vec![*wallet];
    if let Some(mint) = usdc_mint {
        keys.push(sdk::associated_token_address(
            wallet,
            &mint,
            &sdk::ids::TOKEN_PROGRAM,
        ));
    }
    let read = state
        .rpc
        .get_multiple_accounts_with_commitment(&keys, state.rpc.commitment())
        .await;
    let response = match read {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(
                "reading the balances of {wallet}: {}",
                crate::redact::redact(&e.to_string())
            );
            return Ok(None);
        }
    };
    let accounts = response.value;
    let sol = accounts
        .first()
        .and_then(|a| a.as_ref())
        .map_or(0, |a| a.lamports);
    let usdc = usdc_mint.map(|_| {
        accounts
            .get(1)
            .and_then(|a| a.as_ref())
            .and_then(|a| a.data.get(64..72))
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, u64::from_le_bytes)
    });
    Ok(Some(Balances {
        sol: sol.to_string(),
        usdc: usdc.map(|u| u.to_string()),
        usdc_mint: usdc_mint.map(|m| m.to_string()),
        slot: response.context.slot,
    }))
}

#[utoipa::path(
    get,
    path = "/launchpad/wallets/{address}",
    params(crate::extract::AddressPath),
    responses(
        (status = 200, body = WalletResponse),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn wallet(
    State(state): State<AppState>,
    ApiPath(wallet): ApiPath<String>,
) -> Result<Json<WalletResponse>, ApiError> {
    let wallet = address("address", Some(&wallet))?;
    let mut holdings = Vec::new();
    for h in state.store.holdings(&wallet).await? {
        let Some(c) = state.curve(&h.mint).await? else {
            continue;
        };
        let (venue, price) = state.store.spot_price(&c).await?;
        let value = curve::display::value_at_fixed_price(
            h.amount,
            curve::constants::TOKEN_DECIMALS,
            price,
            c.config.quote_decimals,
        );
        holdings.push(HoldingEntry {
            mint: h.mint.to_string(),
            name: h.name,
            symbol: h.symbol,
            token_account: h.token_account,
            amount: h.amount.to_string(),
            quote: curve::QuoteAsset::from_u8(c.config.quote)
                .map_or("unknown", |q| q.name())
                .into(),
            quote_mint: c.pool.quote_mint.to_string(),
            venue: venue.name().into(),
            price: curve::display::fixed_price_to_decimal(price),
            value: value.map(|v| v.to_string()).unwrap_or_default(),
        });
    }
    let claimable = state.store.unclaimed(&wallet).await?;
    let launches = state.store.launches_by(&wallet, LAUNCHES).await?;
    let trades = state
        .store
        .market_trades(None, Some(&wallet), None, RECENT_TRADES)
        .await?;
    let balances = balances(&state, &wallet).await?;
    Ok(Json(WalletResponse {
        balances,
        address: wallet.to_string(),
        holdings,
        claimable: claimable.into_iter().map(FeeEntry::from).collect(),
        launches,
        trades: trades.into_iter().map(TradeEntry::from).collect(),
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(wallet).layer(cache::layer(state, cache::policy::LIVE)))
}
