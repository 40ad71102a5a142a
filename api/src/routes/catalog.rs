//! `GET /swap/chains` and `GET /swap/tokens`: the networks and the token catalog (addresses are the
//! identity: tickers are not unique).

use crate::chains::{self, ChainInfo, ChainKind};
use crate::error::ApiError;
use crate::extract::ApiQuery;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

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

fn chain_entry(c: &ChainInfo) -> Chain {
    Chain {
        chain_key: c.key.into(),
        chain_id: c.chain_id,
        name: c.name.into(),
        kind: c.kind.as_str().into(),
        native_token: NativeToken {
            symbol: c.native_symbol.into(),
            decimals: c.native_decimals,
            address: native_address(c),
        },
        explorer_url: c.explorer.into(),
    }
}

/// How requests name a chain's native token.
fn native_address(c: &ChainInfo) -> String {
    match c.kind {
        ChainKind::Solana => sdk::ids::NATIVE_MINT.to_string(),
        ChainKind::Evm => chains::EVM_NATIVE.to_checksum(None),
    }
}

#[utoipa::path(get, path = "/swap/chains", responses((status = 200, body = ChainsResponse)), tag = "swap")]
pub async fn chains() -> Json<ChainsResponse> {
    Json(ChainsResponse {
        chains: chains::CHAINS.iter().map(chain_entry).collect(),
    })
}

/// The EVM catalog of one chain: its native token, then the listed tokens.
fn evm_tokens(c: &ChainInfo) -> Vec<Token> {
    let native = Token {
        chain_key: c.key.into(),
        address: native_address(c),
        symbol: c.native_symbol.into(),
        name: format!("{} (native)", c.native_symbol),
        decimals: c.native_decimals,
        kind: "native".into(),
    };
    std::iter::once(native)
        .chain(swap_core::tokens::catalog(c.key).map(
            |(chain_key, address, symbol, name, decimals)| {
                Token {
                    chain_key: chain_key.to_string(),
                    address: address.to_string(),
                    symbol: symbol.to_string(),
                    name: name.to_string(),
                    decimals: *decimals,
                    kind: if symbol.starts_with("USD") || *symbol == "DAI" {
                        "stable"
                    } else {
                        "token"
                    }
                    .into(),
                }
            },
        ))
        .collect()
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Token {
    pub chain_key: String,
    pub address: String,
    pub symbol: String,
    pub name: String,
    pub decimals: u8,
    /// `native`, `stable`, `token` or `launch` (a token launched here).
    pub kind: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TokensQuery {
    /// Only this chain (empty: every chain).
    #[param(schema_with = chain_schema)]
    pub chain_key: Option<String>,
    /// Case-insensitive match on symbol, name or address.
    pub q: Option<String>,
}

fn chain_schema() -> utoipa::openapi::Object {
    crate::schema::one_of(chains::CHAINS.iter().map(|c| c.key).chain([""])).build()
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

/// Every Solana token the service knows: SOL, the USDC the configs trade against, and launched tokens: every
/// launch the index has, whoever built it, exactly those `GET /launchpad/launches` lists.
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
    ApiQuery(q): ApiQuery<TokensQuery>,
) -> Result<Json<TokensResponse>, ApiError> {
    let only = match q.chain_key.as_deref().filter(|k| !k.is_empty()) {
        Some(key) => Some(chains::chain(key).ok_or_else(|| chains::unsupported_chain(key))?),
        None => None,
    };
    let mut all = Vec::new();
    for c in chains::CHAINS
        .iter()
        .filter(|c| only.is_none_or(|o| o.key == c.key))
    {
        match c.kind {
            ChainKind::Solana => all.extend(solana_tokens(&state).await?),
            ChainKind::Evm => all.extend(evm_tokens(c)),
        }
    }
    let needle = q.q.as_deref().map(str::to_lowercase);
    let tokens = all
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

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(chains))
        .routes(routes!(tokens))
}
