//! `GET /swap/chains` and `GET /swap/tokens`: the networks and the token catalog (addresses are the
//! identity: tickers are not unique).

use crate::error::ApiError;
use crate::AppState;
use axum::extract::{Query, State};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NativeToken {
    pub symbol: String,
    pub decimals: u8,
    /// The address that stands for the native token in requests (wrapped SOL's mint on Solana).
    pub address: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Chain {
    pub chain_key: String,
    /// EVM chain id; null for Solana.
    pub chain_id: Option<u64>,
    pub name: String,
    /// `evm` or `solana`.
    pub kind: String,
    pub native_token: NativeToken,
    pub explorer_url: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChainsResponse {
    pub chains: Vec<Chain>,
}

pub fn solana_chain() -> Chain {
    Chain {
        chain_key: "solana".into(),
        chain_id: None,
        name: "Solana".into(),
        kind: "solana".into(),
        native_token: NativeToken {
            symbol: "SOL".into(),
            decimals: 9,
            address: sdk::ids::NATIVE_MINT.to_string(),
        },
        explorer_url: "https://explorer.solana.com".into(),
    }
}

#[utoipa::path(get, path = "/swap/chains", responses((status = 200, body = ChainsResponse)), tag = "swap")]
pub async fn chains() -> Json<ChainsResponse> {
    Json(ChainsResponse {
        chains: vec![solana_chain()],
    })
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Token {
    pub chain_key: String,
    pub address: String,
    pub symbol: String,
    pub name: String,
    pub decimals: u8,
    /// `native`, `stable` or `launch` (a token launched here).
    pub kind: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TokensQuery {
    /// Only this chain.
    pub chain_key: Option<String>,
    /// Case-insensitive match on symbol, name or address.
    pub q: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokensResponse {
    pub tokens: Vec<Token>,
}

/// The decimals of a catalog token, found directly (the quote path must not list the whole catalog).
pub async fn catalog_decimals(
    state: &AppState,
    mint: &anchor_lang::prelude::Pubkey,
) -> Result<Option<u8>, ApiError> {
    if *mint == sdk::ids::NATIVE_MINT {
        return Ok(Some(9));
    }
    if state.curve(mint).await?.is_some() {
        return Ok(Some(curve::constants::TOKEN_DECIMALS));
    }
    Ok(state
        .store
        .config_for("fair", "usdc")
        .await?
        .filter(|(_, usdc)| usdc.quote_mint == *mint)
        .map(|(_, usdc)| usdc.quote_decimals))
}

/// Every Solana token the service knows: SOL, the USDC the configs trade against, and launched tokens.
pub async fn solana_tokens(state: &AppState) -> Result<Vec<Token>, ApiError> {
    let mut tokens = vec![Token {
        chain_key: "solana".into(),
        address: sdk::ids::NATIVE_MINT.to_string(),
        symbol: "SOL".into(),
        name: "Solana".into(),
        decimals: 9,
        kind: "native".into(),
    }];
    if let Some((_, usdc)) = state.store.config_for("fair", "usdc").await? {
        tokens.push(Token {
            chain_key: "solana".into(),
            address: usdc.quote_mint.to_string(),
            symbol: "USDC".into(),
            name: "USD Coin".into(),
            decimals: usdc.quote_decimals,
            kind: "stable".into(),
        });
    }
    let mut offset = 0;
    loop {
        let page = state.store.launches(100, offset).await?;
        let n = page.items.len() as u64;
        tokens.extend(page.items.into_iter().map(|l| Token {
            chain_key: "solana".into(),
            address: l.mint,
            symbol: l.symbol,
            name: l.name,
            decimals: curve::constants::TOKEN_DECIMALS,
            kind: "launch".into(),
        }));
        offset += n;
        if n < 100 || offset >= page.total {
            break;
        }
    }
    Ok(tokens)
}

#[utoipa::path(
    get,
    path = "/swap/tokens",
    params(TokensQuery),
    responses(
        (status = 200, body = TokensResponse),
        (status = 400, body = crate::error::ErrorBody, description = "UNSUPPORTED_CHAIN"),
    ),
    tag = "swap"
)]
pub async fn tokens(
    State(state): State<AppState>,
    Query(q): Query<TokensQuery>,
) -> Result<Json<TokensResponse>, ApiError> {
    if let Some(chain) = q.chain_key.as_deref() {
        if chain != "solana" {
            return Err(crate::routes::swap::unsupported_chain(chain));
        }
    }
    let needle = q.q.as_deref().map(str::to_lowercase);
    let tokens = solana_tokens(&state)
        .await?
        .into_iter()
        .filter(|t| {
            needle.as_deref().is_none_or(|n| {
                t.symbol.to_lowercase().contains(n)
                    || t.name.to_lowercase().contains(n)
                    || t.address.to_lowercase() == n
            })
        })
        .collect();
    Ok(Json(TokensResponse { tokens }))
}
