//! Solana swaps: through the launchpad's own pools (a token still on its curve trades on the curve, a
//! migrated one on its AMM pool; quotes use the programs' own math on the indexed accounts), and through
//! Jupiter when it is configured.

use crate::error::{address, ApiError};
use crate::routes::catalog;
use crate::state::AppState;

mod build;
use anchor_lang::prelude::Pubkey;
pub(super) use build::build;
use index::read::CurveState;
use sdk::launchpad_ix::{SIDE_BUY, SIDE_SELL};
use sdk::quote::amm::QuoteSide;
use serde::Serialize;
use std::sync::Arc;
use swap_core::shapes::{
    amount_in, exact_amount_out, no_route, reject_same_token, same_token, slippage, Fee, Gas,
    OwnRoute, QuoteRequest, QuoteResponse, Route, RouteEntry, SwapMode, QUOTE_TTL_SECS,
};
use swap_core::slippage::{max_in_u64, min_out_u64};
use utoipa::ToSchema;

/// The platform fee on Solana routes: none. The programs' own fees (curve and AMM) are the pool fee of each
/// route; a platform fee would need a Solana fee account and an instruction that pays it in every build.
pub const SOLANA_PLATFORM_FEE_BPS: u16 = 0;

/// Compute units a swap transaction typically uses (reported as the gas estimate).
pub const ESTIMATED_COMPUTE_UNITS: u64 = 150_000;

/// A built Solana swap.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SolanaBuild {
    /// Base64 of an unsigned v0 transaction; sign and post it to `/swap/submit-solana` promptly.
    pub solana_transaction: String,
    /// Compute units the server-side simulation used.
    pub simulated_units: Option<u64>,
    /// What the transaction asks for: `computeUnits` (its limit: the simulation's units plus 10%; Jupiter
    /// routes bring their own), `microLamportsPerComputeUnit` (its price) and `lamports` (the most it pays:
    /// signatures plus the priority fee at the limit).
    pub estimated_gas: Option<Gas>,
    /// The build also migrates the pool (the buy completes the curve).
    pub migrates: bool,
    /// The request's `referrer` is paid by this swap (a bonding-curve route named one).
    pub referred: bool,
    #[serde(flatten)]
    pub lifetime: crate::solana::Lifetime,
}

struct Pair {
    token_in: Pubkey,
    token_out: Pubkey,
    mode: SwapMode,
    /// `ExactIn`: what is spent. `ExactOut`: what is received.
    amount: u64,
    slippage_bps: u16,
}

async fn validate(state: &AppState, req: &QuoteRequest) -> Result<Pair, ApiError> {
    reject_same_token(req, false)?;
    let token_in = address("tokenIn", req.token_in.as_deref())?;
    let token_out = address("tokenOut", req.token_out.as_deref())?;
    if token_in == token_out {
        return Err(same_token());
    }
    let mode = SwapMode::of(req)?;
    let amount = match mode {
        SwapMode::ExactIn => {
            let decimals = if req.amount_in.is_none() && req.amount_unit.as_deref() == Some("human")
            {
                catalog::catalog_decimals(state, &token_in).await?
            } else {
                None
            };
            u64::try_from(amount_in(req, decimals)?).map_err(|_| {
                ApiError::invalid("`amountIn` is larger than any Solana token amount")
            })?
        }
        SwapMode::ExactOut => u64::try_from(exact_amount_out(req)?)
            .map_err(|_| ApiError::invalid("`amountOut` is larger than any Solana token amount"))?,
    };
    let slippage_bps = slippage(req.slippage_bps)?;
    if let Some(t) = req.taker.as_deref() {
        address("taker", Some(t))?;
    }
    Ok(Pair {
        token_in,
        token_out,
        mode,
        amount,
        slippage_bps,
    })
}

/// The launch a pair trades and its side (buy: the launch's token is bought with its quote token), or `None`
/// when the pair is not one of our launches against its own quote token.
async fn launch_of(
    state: &AppState,
    pair: &Pair,
) -> Result<Option<(Arc<CurveState>, u8)>, ApiError> {
    let (c, side) = if let Some(c) = state.curve(&pair.token_out).await? {
        (c, SIDE_BUY)
    } else if let Some(c) = state.curve(&pair.token_in).await? {
        (c, SIDE_SELL)
    } else {
        return Ok(None);
    };
    let other = if side == SIDE_BUY {
        pair.token_in
    } else {
        pair.token_out
    };
    Ok((other == c.pool.quote_mint).then_some((c, side)))
}

/// What a venue would do with the pair's amount; the route entry is built from it the same way for both
/// venues.
struct Fill {
    venue: &'static str,
    dex_id: &'static str,
    amm_pool: Option<String>,
    amount_in: u64,
    amount_out: u64,
    fee: u64,
    refund: u64,
    completes: bool,
    fee_bps: u16,
    fee_token: Pubkey,
    /// The least the swap can deliver when it lands: below `amount_out` only when the chain's clock, as
    /// last read, is still in an earlier (dearer) fee step than the time priced.
    worst_out: Option<u64>,
    /// The most an exact-out swap can take when it lands, likewise.
    worst_in: Option<u64>,
    /// When the curve's fee steps down next (chain time).
    changes_at: Option<i64>,
}

/// The curve's fill: priced at the chain's time, as the program charges it.
async fn curve_fill(
    state: &AppState,
    pair: &Pair,
    c: &CurveState,
    bonding: sdk::quote::Bonding<'_>,
    side: u8,
) -> Result<Fill, ApiError> {
    let curve_side = if side == SIDE_BUY {
        curve::Side::Buy
    } else {
        curve::Side::Sell
    };
    let chain = state.chain_time().await;
    let at = |t: i64| {
        match pair.mode {
            SwapMode::ExactIn => {
                sdk::quote::quote_exact_in(&c.config, bonding, curve_side, pair.amount, t)
            }
            SwapMode::ExactOut => {
                sdk::quote::quote_exact_out(&c.config, bonding, curve_side, pair.amount, t)
            }
        }
        .map_err(|e| no_route(format!("the curve cannot fill this amount: {e:?}")))
    };
    let q = at(chain.now)?;
    let (mut worst_out, mut worst_in) = (None, None);
    if c.current_fee_bps(chain.observed) != c.current_fee_bps(chain.now) {
        let earlier = at(chain.observed)?;
        // Exact in: the least out; exact out: the most in.
        worst_out = Some(earlier.amount_out.min(q.amount_out));
        worst_in = Some(earlier.amount_in.max(q.amount_in));
    }
    Ok(Fill {
        venue: "bonding-curve",
        dex_id: "launchpad-solana",
        amm_pool: None,
        amount_in: q.amount_in,
        amount_out: q.amount_out,
        fee: q.fee,
        refund: q.refund,
        completes: q.completes,
        fee_bps: c.current_fee_bps(chain.now),
        fee_token: c.pool.quote_mint,
        worst_out,
        worst_in,
        changes_at: c.fee_changes_at(chain.now),
    })
}

/// The AMM pool's fill, or `None` while the pool is not indexed yet.
async fn amm_fill(
    state: &AppState,
    pair: &Pair,
    c: &CurveState,
    side: u8,
) -> Result<Option<Fill>, ApiError> {
    let Some(amm) = state.store.amm_pool(&c.pool.amm_pool).await? else {
        return Ok(None);
    };
    let a_to_b = QuoteSide::in_pool(&amm.pool, &c.pool.quote_mint).a_to_b(side == SIDE_BUY);
    let q = match pair.mode {
        SwapMode::ExactIn => sdk::quote::amm::quote_exact_in(&amm.pool, a_to_b, pair.amount),
        SwapMode::ExactOut => sdk::quote::amm::quote_exact_out(&amm.pool, a_to_b, pair.amount),
    }
    .map_err(|e| no_route(format!("the AMM cannot fill this amount: {e:?}")))?;
    Ok(Some(Fill {
        venue: "amm",
        dex_id: "launchpad-amm-solana",
        amm_pool: Some(amm.address.to_string()),
        amount_in: q.amount_in,
        amount_out: q.amount_out,
        fee: q.fee,
        refund: 0,
        completes: false,
        fee_bps: amm.pool.fee_bps,
        fee_token: pair.token_in,
        worst_out: None,
        worst_in: None,
        changes_at: None,
    }))
}

/// The route entry of a fill: what the quote answers and the build checks.
fn route_entry(state: &AppState, pair: &Pair, c: &CurveState, side: u8, fill: Fill) -> RouteEntry {
    // The curve's addresses come encoded with it: base58 was the largest cost of a quote.
    let names = &c.names;
    let exact_out = pair.mode == SwapMode::ExactOut;
    let max_amount_in = exact_out.then(|| {
        max_in_u64(fill.worst_in.unwrap_or(fill.amount_in), pair.slippage_bps).to_string()
    });
    let route = OwnRoute {
        venue: fill.venue.into(),
        pool: names.address.clone(),
        amm_pool: fill.amm_pool,
        mint: names.mint.clone(),
        quote_mint: names.quote_mint.clone(),
        side: if side == SIDE_BUY { "buy" } else { "sell" }.into(),
        // Exact in: what is spent; exact out: what is received (the fixed side).
        amount_in: if exact_out {
            fill.amount_in.to_string()
        } else {
            pair.amount.to_string()
        },
        amount_out: fill.amount_out.to_string(),
        completes: fill.completes,
        expires_at: state.now() + QUOTE_TTL_SECS,
        exact_out,
        max_amount_in: max_amount_in.clone(),
    };
    RouteEntry {
        dex_id: fill.dex_id.into(),
        amount_in: fill.amount_in.to_string(),
        amount_out: fill.amount_out.to_string(),
        min_amount_out: if exact_out {
            // Exactly what was asked; a completing buy gives every unsold token, at least that.
            pair.amount.to_string()
        } else {
            min_out_u64(fill.worst_out.unwrap_or(fill.amount_out), pair.slippage_bps).to_string()
        },
        max_amount_in,
        spender: None,
        route: Route::Own(Box::new(route)),
        pool_fee: Some(Fee {
            changes_at: fill.changes_at,
            ..Fee::new(
                fill.fee_bps,
                fill.fee,
                names.token(&c.pool, &fill.fee_token),
            )
        }),
        platform_fee: Fee::new(
            SOLANA_PLATFORM_FEE_BPS,
            0,
            names.token(&c.pool, &pair.token_in),
        ),
        estimated_gas: Gas::solana(ESTIMATED_COMPUTE_UNITS),
        refund: Some(fill.refund.to_string()),
    }
}

/// The pair's route through our own pools: the curve while the token bonds, its AMM pool once migrated.
async fn own_routes(state: &AppState, pair: &Pair) -> Result<Vec<RouteEntry>, ApiError> {
    let Some((c, side)) = launch_of(state, pair).await? else {
        return Ok(vec![]);
    };
    // The pool's status is checked once, by the SDK: only a bonding pool is quoted on the curve.
    let fill = match sdk::quote::venue(&c.pool) {
        sdk::quote::Venue::Curve(bonding) => curve_fill(state, pair, &c, bonding, side).await?,
        sdk::quote::Venue::AwaitingMigration => {
            return Err(no_route(
                "the curve graduated and is waiting for migration; retry in a moment",
            ))
        }
        sdk::quote::Venue::Amm => match amm_fill(state, pair, &c, side).await? {
            Some(fill) => fill,
            None => return Ok(vec![]),
        },
    };
    if fill.amount_out == 0 {
        return Err(no_route("the amount is too small to trade anything"));
    }
    Ok(vec![route_entry(state, pair, &c, side, fill)])
}

fn jupiter_entry(
    state: &AppState,
    pair: &Pair,
    q: crate::prices::jupiter::JupiterQuote,
) -> RouteEntry {
    RouteEntry {
        dex_id: "jupiter-solana".into(),
        amount_in: pair.amount.to_string(),
        amount_out: q.out_amount.to_string(),
        // Jupiter's own minimum at the requested slippage (its swap enforces it).
        min_amount_out: q.min_out.to_string(),
        max_amount_in: None,
        spender: None,
        route: Route::Aggregator(serde_json::json!({
            "venue": "jupiter",
            "amountIn": pair.amount.to_string(),
            "expiresAt": state.now() + QUOTE_TTL_SECS,
            "labels": q.labels,
            "quoteResponse": q.response,
        })),
        pool_fee: Some(Fee::new(0, 0, pair.token_in)),
        platform_fee: Fee::new(SOLANA_PLATFORM_FEE_BPS, 0, pair.token_in),
        estimated_gas: Gas::solana(300_000),
        refund: Some("0".into()),
    }
}

pub(super) async fn quote(state: &AppState, req: &QuoteRequest) -> Result<QuoteResponse, ApiError> {
    let pair = validate(state, req).await?;
    let mut quotes = own_routes(state, &pair).await?;
    // Jupiter is asked exact in only (its exact-out mode serves few routes); exact out is our pools'.
    if let Some(jupiter) = state
        .jupiter
        .as_ref()
        .filter(|_| pair.mode == SwapMode::ExactIn)
    {
        match jupiter
            .quote(
                &pair.token_in,
                &pair.token_out,
                pair.amount,
                pair.slippage_bps,
            )
            .await
        {
            Ok(Some(q)) => quotes.push(jupiter_entry(state, &pair, q)),
            Ok(None) => {}
            // Our own pools still answer when the aggregator is down; alone, its failure is the answer.
            Err(e) if quotes.is_empty() => return Err(e),
            Err(e) => tracing::warn!("jupiter quote skipped: {}", e.message),
        }
    }
    // Exact in: most out first; exact out: least in first.
    match pair.mode {
        SwapMode::ExactIn => {
            quotes.sort_by_key(|q| std::cmp::Reverse(q.amount_out.parse::<u64>().unwrap_or(0)))
        }
        SwapMode::ExactOut => {
            quotes.sort_by_key(|q| q.amount_in.parse::<u64>().unwrap_or(u64::MAX))
        }
    }
    let best = quotes
        .first()
        .cloned()
        .ok_or_else(|| no_route("no route trades this pair on Solana"))?;
    Ok(QuoteResponse {
        best,
        quotes,
        // No platform fee is taken on Solana (`--platform-fee-bps` applies to EVM swaps with a recipient):
        // the top-level rate is what every route entry charges.
        fee_bps: SOLANA_PLATFORM_FEE_BPS,
        slippage_bps: pair.slippage_bps,
        swap_mode: pair.mode.name().into(),
        expires_at: state.now() + QUOTE_TTL_SECS,
    })
}
