//! Solana swaps through the launchpad's own pools: `POST /swap/quote`, `POST /swap/build`,
//! `POST /swap/record`. A token still on its curve trades on the curve; a migrated one on its AMM pool.
//! Quotes use the programs' own math on the indexed accounts.

use crate::body::ApiJson;
use crate::error::{address, ApiError};
use crate::routes::catalog;
use crate::AppState;
use anchor_lang::prelude::Pubkey;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use sdk::accounts::PoolStatus;
use sdk::launchpad_ix::{self as lix, LaunchKeys, SwapArgs, SIDE_BUY, SIDE_SELL};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::Row;
use utoipa::ToSchema;

/// Slippage when the request gives none, basis points (0.5%).
pub const DEFAULT_SLIPPAGE_BPS: u16 = 50;
/// Compute units a swap transaction typically uses (reported as the gas estimate).
pub const ESTIMATED_COMPUTE_UNITS: u64 = 150_000;
/// A quote is good for this long (the spec: re-quote after about 60 s).
pub const QUOTE_TTL_SECS: i64 = 60;

pub fn unsupported_chain(chain: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "UNSUPPORTED_CHAIN",
        format!("`{chain}` is not a supported chain (see GET /swap/chains)"),
    )
}

fn no_route(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "NO_ROUTE", message)
}

fn invalid_route(message: &str) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "INVALID_ROUTE", message)
}

fn quote_expired() -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "QUOTE_EXPIRED",
        "the quote is older than 60 s: quote again",
    )
}

/// A same-chain swap quote request.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteRequest {
    pub chain_key: Option<String>,
    pub token_in: Option<String>,
    pub token_out: Option<String>,
    /// Base units; or give `amount` with `amountUnit` = `human`.
    pub amount_in: Option<String>,
    /// A decimal amount of `tokenIn` in whole tokens (catalog tokens only).
    pub amount: Option<String>,
    /// `human`.
    pub amount_unit: Option<String>,
    /// Default 50 (0.5%); at most 5000.
    pub slippage_bps: Option<u16>,
    /// The wallet (required to build).
    pub taker: Option<String>,
}

struct Pair {
    token_in: Pubkey,
    token_out: Pubkey,
    amount_in: u64,
    slippage_bps: u16,
}

async fn validate(state: &AppState, req: &QuoteRequest) -> Result<Pair, ApiError> {
    let chain = req
        .chain_key
        .as_deref()
        .ok_or_else(|| ApiError::missing("chainKey"))?;
    if chain != "solana" {
        return Err(unsupported_chain(chain));
    }
    let token_in = address("tokenIn", req.token_in.as_deref())?;
    let token_out = address("tokenOut", req.token_out.as_deref())?;
    if token_in == token_out {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "SAME_TOKEN",
            "`tokenIn` and `tokenOut` are the same token",
        ));
    }
    let amount_in = match (&req.amount_in, &req.amount, req.amount_unit.as_deref()) {
        (Some(a), _, _) => a
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|a| *a > 0)
            .ok_or_else(|| {
                ApiError::invalid("`amountIn` must be a positive integer in base units")
            })?,
        (None, Some(a), Some("human")) => {
            let decimals = catalog::catalog_decimals(state, &token_in)
                .await?
                .ok_or_else(|| {
                    ApiError::invalid("`amount` in human units works only for catalog tokens (GET /swap/tokens); send `amountIn`")
                })?;
            curve::display::parse_decimal(a, decimals)
                .filter(|a| *a > 0)
                .ok_or_else(|| {
                    ApiError::invalid(format!(
                        "`amount` must be a positive decimal with at most {decimals} decimals"
                    ))
                })?
        }
        (None, Some(_), Some(other)) => {
            return Err(ApiError::invalid(format!(
                "`amountUnit` `{other}` is not supported: the only value is `human`"
            )))
        }
        (None, Some(_), None) => return Err(ApiError::missing("amountUnit")),
        (None, None, _) => return Err(ApiError::missing("amountIn")),
    };
    let slippage_bps = req.slippage_bps.unwrap_or(DEFAULT_SLIPPAGE_BPS);
    if slippage_bps > 5_000 {
        return Err(ApiError::invalid("`slippageBps` is at most 5000"));
    }
    if let Some(t) = req.taker.as_deref() {
        address("taker", Some(t))?;
    }
    Ok(Pair {
        token_in,
        token_out,
        amount_in,
        slippage_bps,
    })
}

/// Where a route trades, as carried in its opaque `route` object.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnRoute {
    /// `bonding-curve` or `amm`.
    pub venue: String,
    /// The launch's pool (its AMM pool for `amm` routes is `ammPool`).
    pub pool: String,
    pub amm_pool: Option<String>,
    pub mint: String,
    pub quote_mint: String,
    /// `buy` (quote in) or `sell` (token in).
    pub side: String,
    pub amount_in: String,
    pub amount_out: String,
    /// The buy completes the curve: the build appends `migrate`.
    pub completes: bool,
    pub expires_at: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Fee {
    pub bps: u16,
    /// Base units of `token`.
    pub amount: String,
    pub token: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Gas {
    pub compute_units: u64,
    /// Base fee of one signature, lamports.
    pub lamports: u64,
}

/// A route entry.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteEntry {
    /// `<aggregator>-<chainKey>`: `launchpad-solana` (bonding curve) or `launchpad-amm-solana`.
    pub dex_id: String,
    pub amount_in: String,
    pub amount_out: String,
    /// `amountOut` less the slippage tolerance: send it back as `minAmountOut`.
    pub min_amount_out: String,
    /// EVM only (the address to approve); null on Solana.
    pub spender: Option<String>,
    /// Opaque: pass it back unchanged to `/swap/build`.
    #[schema(value_type = Object)]
    pub route: Value,
    /// The venue's own trading fee, in the input token for AMM routes and in the quote token on the curve.
    pub pool_fee: Fee,
    /// The platform's fee.
    pub platform_fee: Fee,
    pub estimated_gas: Gas,
    /// Quote raised refunded because the buy completes the curve.
    pub refund: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteResponse {
    pub best: RouteEntry,
    /// Best first.
    pub quotes: Vec<RouteEntry>,
    pub fee_bps: u16,
    pub slippage_bps: u16,
}

fn min_out(amount: u64, slippage_bps: u16) -> u64 {
    (amount as u128 * (10_000 - slippage_bps as u128) / 10_000) as u64
}

async fn own_routes(state: &AppState, pair: &Pair) -> Result<Vec<RouteEntry>, ApiError> {
    // One side must be a launched token and the other its quote token.
    let (mint, side) = if let Some(c) = state.curve(&pair.token_out).await? {
        (c, SIDE_BUY)
    } else if let Some(c) = state.curve(&pair.token_in).await? {
        (c, SIDE_SELL)
    } else {
        return Ok(vec![]);
    };
    let c = mint;
    let other = if side == SIDE_BUY {
        pair.token_in
    } else {
        pair.token_out
    };
    if other != c.pool.quote_mint {
        return Ok(vec![]);
    }
    let now = state.now();
    // What the venue would do; the route entry is built from it the same way for both venues.
    let (venue, dex_id, amm_pool, fill, fee_bps, fee_token) = match c.pool.status {
        PoolStatus::Bonding => {
            let curve_side = if side == SIDE_BUY {
                curve::Side::Buy
            } else {
                curve::Side::Sell
            };
            let q = sdk::quote::quote_exact_in(&c.config, &c.pool, curve_side, pair.amount_in, now)
                .map_err(|e| no_route(format!("the curve cannot fill this amount: {e:?}")))?;
            let fill = (q.amount_in, q.amount_out, q.fee, q.refund, q.completes);
            (
                "bonding-curve",
                "launchpad-solana",
                None,
                fill,
                c.current_fee_bps(now),
                c.pool.quote_mint,
            )
        }
        PoolStatus::Complete => {
            return Err(no_route(
                "the curve graduated and is waiting for migration; retry in a moment",
            ))
        }
        PoolStatus::Migrated => {
            let Some(amm) = state.store.amm_pool(&c.pool.amm_pool).await? else {
                return Ok(vec![]);
            };
            let a_to_b = amm.pool.mint_a == pair.token_in;
            let q = sdk::amm_ix::quote_exact_in(&amm.pool, a_to_b, pair.amount_in)
                .map_err(|e| no_route(format!("the AMM cannot fill this amount: {e:?}")))?;
            (
                "amm",
                "launchpad-amm-solana",
                Some(amm.address.to_string()),
                (q.amount_in, q.amount_out, q.fee, 0, false),
                amm.pool.fee_bps,
                pair.token_in,
            )
        }
    };
    let (amount_in, amount_out, fee, refund, completes) = fill;
    if amount_out == 0 {
        return Err(no_route("the amount is too small to trade anything"));
    }
    let route = OwnRoute {
        venue: venue.into(),
        pool: c.address.to_string(),
        amm_pool,
        mint: c.pool.base_mint.to_string(),
        quote_mint: c.pool.quote_mint.to_string(),
        side: if side == SIDE_BUY { "buy" } else { "sell" }.into(),
        amount_in: pair.amount_in.to_string(),
        amount_out: amount_out.to_string(),
        completes,
        expires_at: now + QUOTE_TTL_SECS,
    };
    Ok(vec![RouteEntry {
        dex_id: dex_id.into(),
        amount_in: amount_in.to_string(),
        amount_out: amount_out.to_string(),
        min_amount_out: min_out(amount_out, pair.slippage_bps).to_string(),
        spender: None,
        route: serde_json::to_value(route).unwrap_or(Value::Null),
        pool_fee: Fee {
            bps: fee_bps,
            amount: fee.to_string(),
            token: fee_token.to_string(),
        },
        platform_fee: Fee {
            bps: 0,
            amount: "0".into(),
            token: pair.token_in.to_string(),
        },
        estimated_gas: Gas {
            compute_units: ESTIMATED_COMPUTE_UNITS,
            lamports: 5_000,
        },
        refund: refund.to_string(),
    }])
}

fn jupiter_entry(
    state: &AppState,
    pair: &Pair,
    q: crate::aggregators::jupiter::JupiterQuote,
) -> RouteEntry {
    RouteEntry {
        dex_id: "jupiter-solana".into(),
        amount_in: pair.amount_in.to_string(),
        amount_out: q.out_amount.to_string(),
        // Jupiter's own minimum at the requested slippage (its swap enforces it).
        min_amount_out: q.min_out.to_string(),
        spender: None,
        route: serde_json::json!({
            "venue": "jupiter",
            "amountIn": pair.amount_in.to_string(),
            "expiresAt": state.now() + QUOTE_TTL_SECS,
            "labels": q.labels,
            "quoteResponse": q.response,
        }),
        pool_fee: Fee {
            bps: 0,
            amount: "0".into(),
            token: pair.token_in.to_string(),
        },
        platform_fee: Fee {
            bps: 0,
            amount: "0".into(),
            token: pair.token_in.to_string(),
        },
        estimated_gas: Gas {
            compute_units: 300_000,
            lamports: 5_000,
        },
        refund: "0".into(),
    }
}

/// Builds a Jupiter route: its instructions, in a v0 transaction with its lookup tables, simulated.
async fn build_jupiter(
    state: &AppState,
    pair: &Pair,
    taker: &Pubkey,
    route: &Value,
) -> Result<Json<BuildResponse>, ApiError> {
    let jupiter = state
        .jupiter
        .as_ref()
        .ok_or_else(|| invalid_route("Jupiter routes are not enabled on this service"))?;
    let expires = route["expiresAt"].as_i64().unwrap_or(0);
    if expires < state.now() {
        return Err(quote_expired());
    }
    let quote = &route["quoteResponse"];
    if route["amountIn"].as_str() != Some(pair.amount_in.to_string().as_str())
        || quote["inputMint"].as_str() != Some(pair.token_in.to_string().as_str())
        || quote["outputMint"].as_str() != Some(pair.token_out.to_string().as_str())
    {
        return Err(invalid_route(
            "`route` was quoted for another pair or amount",
        ));
    }
    let built = jupiter.swap_instructions(quote, taker).await?;
    let tx = crate::solana::unsigned_transaction_with_tables(
        &state.rpc,
        taker,
        &built.instructions,
        &built.lookup_tables,
    )
    .await?;
    let units = crate::solana::simulate(&state.rpc, &tx).await?;
    Ok(Json(BuildResponse {
        solana_transaction: tx,
        simulated_units: units,
        migrates: false,
    }))
}

#[utoipa::path(
    post,
    path = "/swap/quote",
    request_body = QuoteRequest,
    responses(
        (status = 200, body = QuoteResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, SAME_TOKEN, INVALID_PARAMS, INVALID_ADDRESS, UNSUPPORTED_CHAIN"),
        (status = 404, body = crate::error::ErrorBody, description = "NO_ROUTE: no executable route for the pair and amount"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "swap"
)]
pub async fn quote(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<QuoteRequest>,
) -> Result<Json<QuoteResponse>, ApiError> {
    let pair = validate(&state, &req).await?;
    let mut quotes = own_routes(&state, &pair).await?;
    if let Some(jupiter) = &state.jupiter {
        match jupiter
            .quote(
                &pair.token_in,
                &pair.token_out,
                pair.amount_in,
                pair.slippage_bps,
            )
            .await
        {
            Ok(Some(q)) => quotes.push(jupiter_entry(&state, &pair, q)),
            Ok(None) => {}
            // Our own pools still answer when the aggregator is down; alone, its failure is the answer.
            Err(e) if quotes.is_empty() => return Err(e),
            Err(e) => tracing::warn!("jupiter quote skipped: {}", e.message),
        }
    }
    quotes.sort_by_key(|q| std::cmp::Reverse(q.amount_out.parse::<u64>().unwrap_or(0)));
    let best = quotes
        .first()
        .cloned()
        .ok_or_else(|| no_route("no route trades this pair on Solana"))?;
    Ok(Json(QuoteResponse {
        best,
        quotes,
        fee_bps: state.config.platform_fee_bps,
        slippage_bps: pair.slippage_bps,
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuildRequest {
    /// The original quote request (with `taker`).
    pub request: QuoteRequest,
    /// The chosen route entry's `route` (or the whole entry).
    #[schema(value_type = Object)]
    pub route: Value,
    /// Base units.
    pub min_amount_out: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuildResponse {
    /// Base64 of an unsigned v0 transaction; sign and post it to `/swap/submit-solana` promptly.
    pub solana_transaction: String,
    /// Compute units the server-side simulation used.
    pub simulated_units: Option<u64>,
    /// The build also migrates the pool (the buy completes the curve).
    pub migrates: bool,
}

#[utoipa::path(
    post,
    path = "/swap/build",
    request_body = BuildRequest,
    responses(
        (status = 200, body = BuildResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_PARAMS, INVALID_ROUTE, QUOTE_EXPIRED"),
        (status = 422, body = crate::error::ErrorBody, description = "SIMULATION_FAILED: the transaction would fail (balance, slippage)"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "swap"
)]
pub async fn build(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<BuildRequest>,
) -> Result<Json<BuildResponse>, ApiError> {
    let pair = validate(&state, &req.request).await?;
    let taker = address("taker", req.request.taker.as_deref())?;
    let min_amount_out: u64 = req
        .min_amount_out
        .trim()
        .parse()
        .map_err(|_| ApiError::invalid("`minAmountOut` must be an integer in base units"))?;
    let route_value = req.route.get("route").cloned().unwrap_or(req.route.clone());
    if route_value["venue"] == "jupiter" {
        return build_jupiter(&state, &pair, &taker, &route_value).await;
    }
    let route: OwnRoute = serde_json::from_value(route_value)
        .map_err(|_| invalid_route("`route` is not a route returned by /swap/quote"))?;
    if route.expires_at < state.now() {
        return Err(quote_expired());
    }
    if route.amount_in != pair.amount_in.to_string() {
        return Err(invalid_route("`route` was quoted for another amount"));
    }
    let pool = address("route.pool", Some(&route.pool))?;
    let curve = state
        .store
        .curve_by_pool(&pool)
        .await?
        .ok_or_else(|| no_route("the route's pool is unknown"))?;
    let keys = LaunchKeys::new(
        curve.pool.creator,
        curve.pool.config,
        curve.pool.quote_mint,
        curve.pool.base_mint,
    );
    let expected_in = if route.side == "buy" {
        keys.quote_mint
    } else {
        keys.mint
    };
    if pair.token_in != expected_in {
        return Err(invalid_route("`route` does not trade the request's tokens"));
    }
    let sol = keys.quote_mint == sdk::ids::NATIVE_MINT;
    let mut ixs = Vec::new();
    if sol && route.side == "buy" {
        ixs.extend(lix::wrap_sol(&taker, pair.amount_in));
    } else {
        ixs.push(lix::create_ata_idempotent(
            &taker,
            &taker,
            &keys.quote_mint,
            &keys.quote_token_program,
        ));
    }
    ixs.push(lix::create_ata_idempotent(
        &taker,
        &taker,
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    ));
    let mut migrates = false;
    match route.venue.as_str() {
        "bonding-curve" => {
            ixs.push(lix::swap_with_ata(
                &keys,
                &taker,
                SwapArgs {
                    side: if route.side == "buy" {
                        SIDE_BUY
                    } else {
                        SIDE_SELL
                    },
                    amount_in: pair.amount_in,
                    min_amount_out,
                },
            ));
            if route.side == "buy" && route.completes {
                ixs.push(lix::migrate(&keys, &taker, &curve.config.partner));
                migrates = true;
            }
        }
        "amm" => {
            let amm = keys.amm_keys();
            ixs.push(sdk::amm_ix::swap(
                &amm,
                &taker,
                sdk::amm_ix::AmmSwapArgs {
                    a_to_b: amm.mint_a == pair.token_in,
                    amount_in: pair.amount_in,
                    min_amount_out,
                },
            ));
        }
        _ => return Err(invalid_route("unknown venue in `route`")),
    }
    if sol {
        // Unwrap: what is left in (or paid into) the wrapped-SOL account returns to the wallet as SOL.
        let wsol = lix::wsol_account(&taker);
        ixs.push(
            anchor_spl::token::spl_token::instruction::close_account(
                &sdk::ids::TOKEN_PROGRAM,
                &wsol,
                &taker,
                &taker,
                &[],
            )
            .map_err(|e| ApiError::invalid(format!("unwrap: {e}")))?,
        );
    }
    let tx = crate::solana::unsigned_transaction(&state.rpc, &taker, &ixs).await?;
    let units = crate::solana::simulate(&state.rpc, &tx).await?;
    Ok(Json(BuildResponse {
        solana_transaction: tx,
        simulated_units: units,
        migrates,
    }))
}

/// A swap record.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordRequest {
    pub chain_key: String,
    pub dex_id: String,
    pub token_in: String,
    pub token_out: String,
    pub amount_in: String,
    pub amount_out: String,
    #[serde(default)]
    pub protocol_fee: Option<String>,
    #[serde(default)]
    pub fee_bps: Option<u16>,
    pub tx_hash: String,
    pub address: String,
    /// `confirmed`.
    #[serde(default = "confirmed")]
    pub status: String,
    /// `agent`.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub client_id: Option<String>,
}

fn confirmed() -> String {
    "confirmed".into()
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordResponse {
    pub tx_hash: String,
    pub recorded: bool,
    /// The hash was already recorded; the first record stands.
    pub duplicate: bool,
    pub recorded_at: i64,
}

#[utoipa::path(
    post,
    path = "/swap/record",
    request_body = RecordRequest,
    responses(
        (status = 200, body = RecordResponse, description = "Recorded, or already recorded (idempotent on txHash)"),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_PARAMS, INVALID_ADDRESS, UNSUPPORTED_CHAIN"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "swap"
)]
pub async fn record(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<RecordRequest>,
) -> Result<Json<RecordResponse>, ApiError> {
    if req.chain_key != "solana" {
        return Err(unsupported_chain(&req.chain_key));
    }
    address("tokenIn", Some(&req.token_in))?;
    address("tokenOut", Some(&req.token_out))?;
    address("address", Some(&req.address))?;
    req.tx_hash
        .trim()
        .parse::<solana_signature::Signature>()
        .map_err(|_| ApiError::invalid("`txHash` is not a Solana transaction signature"))?;
    for (name, v) in [("amountIn", &req.amount_in), ("amountOut", &req.amount_out)] {
        v.parse::<u64>()
            .map_err(|_| ApiError::invalid(format!("`{name}` must be an integer in base units")))?;
    }
    if let Some(f) = &req.protocol_fee {
        f.parse::<u64>()
            .map_err(|_| ApiError::invalid("`protocolFee` must be an integer in base units"))?;
    }
    if req.dex_id.is_empty() || req.dex_id.len() > 64 {
        return Err(ApiError::invalid("`dexId` must be 1 to 64 characters"));
    }
    if !["confirmed", "failed", "pending"].contains(&req.status.as_str()) {
        return Err(ApiError::invalid(
            "`status` must be `confirmed`, `pending` or `failed`",
        ));
    }
    let header = |n: &str| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.chars().take(128).collect::<String>())
    };
    let now = state.now();
    let inserted = sqlx::query(
        "INSERT INTO swap_records (tx_hash, chain_key, dex_id, token_in, token_out, amount_in, amount_out, \
         protocol_fee, fee_bps, address, status, source, client_id, client_name, client_source, recorded_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
         ON CONFLICT (tx_hash) DO NOTHING",
    )
    .bind(req.tx_hash.trim().to_string())
    .bind(req.chain_key.clone())
    .bind(req.dex_id.clone())
    .bind(req.token_in.clone())
    .bind(req.token_out.clone())
    .bind(req.amount_in.clone())
    .bind(req.amount_out.clone())
    .bind(req.protocol_fee.clone())
    .bind(req.fee_bps.map(i64::from))
    .bind(req.address.clone())
    .bind(req.status.clone())
    .bind(req.source.clone())
    .bind(req.client_id.clone().or_else(|| header("x-client-id")))
    .bind(header("x-client-name"))
    .bind(header("x-client-source"))
    .bind(now)
    .execute(state.store.pool())
    .await?
    .rows_affected();
    let recorded_at: i64 = sqlx::query("SELECT recorded_at FROM swap_records WHERE tx_hash = $1")
        .bind(req.tx_hash.trim().to_string())
        .fetch_one(state.store.pool())
        .await?
        .get(0);
    Ok(Json(RecordResponse {
        tx_hash: req.tx_hash.trim().to_string(),
        recorded: true,
        duplicate: inserted == 0,
        recorded_at,
    }))
}
