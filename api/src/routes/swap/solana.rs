//! Solana swaps: through the launchpad's own pools (a token still on its curve trades on the curve, a
//! migrated one on its AMM pool; quotes use the programs' own math on the indexed accounts), and through
//! Jupiter when it is configured.

use crate::error::{address, ApiError, ErrorCode};
use crate::routes::catalog;
use crate::state::AppState;
use anchor_lang::prelude::Pubkey;
use sdk::accounts::PoolStatus;
use sdk::launchpad_ix::{self as lix, LaunchKeys, SwapArgs, SwapExactOutArgs, SIDE_BUY, SIDE_SELL};
use serde::Serialize;
use serde_json::Value;
use swap_core::shapes::{
    amount_in, exact_amount_out, invalid_route, no_route, quote_expired, reject_same_token,
    route_stale, same_token, slippage, BuildRequest, Fee, Gas, OwnRoute, QuoteRequest,
    QuoteResponse, Route, RouteEntry, SwapMode, QUOTE_TTL_SECS,
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
    // Wall time for the quote's lifetime; the chain's time for the fee, as the program charges it.
    let now = state.now();
    let mut changes_at = None;
    // The least the swap can deliver when it lands: below `amountOut` only when the chain's clock, as last
    // read, is still in an earlier (dearer) fee step than the time priced.
    let mut worst_out = None;
    // The most an exact-out swap can take when it lands, likewise.
    let mut worst_in = None;
    // What the venue would do; the route entry is built from it the same way for both venues.
    // The pool's status is checked once, by the SDK: only a bonding pool is quoted on the curve.
    let (venue, dex_id, amm_pool, fill, fee_bps, fee_token) = match sdk::quote::venue(&c.pool) {
        sdk::quote::Venue::Curve(bonding) => {
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
            if c.current_fee_bps(chain.observed) != c.current_fee_bps(chain.now) {
                let earlier = at(chain.observed)?;
                // Exact in: the least out; exact out: the most in (kept in `worst_in`).
                worst_out = Some(earlier.amount_out.min(q.amount_out));
                worst_in = Some(earlier.amount_in.max(q.amount_in));
            }
            changes_at = c.fee_changes_at(chain.now);
            let fill = (q.amount_in, q.amount_out, q.fee, q.refund, q.completes);
            (
                "bonding-curve",
                "launchpad-solana",
                None,
                fill,
                c.current_fee_bps(chain.now),
                c.pool.quote_mint,
            )
        }
        sdk::quote::Venue::AwaitingMigration => {
            return Err(no_route(
                "the curve graduated and is waiting for migration; retry in a moment",
            ))
        }
        sdk::quote::Venue::Amm => {
            let Some(amm) = state.store.amm_pool(&c.pool.amm_pool).await? else {
                return Ok(vec![]);
            };
            let a_to_b = amm.pool.mint_a == pair.token_in;
            let q = match pair.mode {
                SwapMode::ExactIn => {
                    sdk::quote::amm::quote_exact_in(&amm.pool, a_to_b, pair.amount)
                }
                SwapMode::ExactOut => {
                    sdk::quote::amm::quote_exact_out(&amm.pool, a_to_b, pair.amount)
                }
            }
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
    // The curve's addresses come encoded with it: base58 was the largest cost of a quote.
    let names = &c.names;
    let exact_out = pair.mode == SwapMode::ExactOut;
    let max_amount_in =
        exact_out.then(|| max_in_u64(worst_in.unwrap_or(amount_in), pair.slippage_bps).to_string());
    let route = OwnRoute {
        venue: venue.into(),
        pool: names.address.clone(),
        amm_pool,
        mint: names.mint.clone(),
        quote_mint: names.quote_mint.clone(),
        side: if side == SIDE_BUY { "buy" } else { "sell" }.into(),
        // Exact in: what is spent; exact out: what is received (the fixed side).
        amount_in: if exact_out {
            amount_in.to_string()
        } else {
            pair.amount.to_string()
        },
        amount_out: amount_out.to_string(),
        completes,
        expires_at: now + QUOTE_TTL_SECS,
        exact_out,
        max_amount_in: max_amount_in.clone(),
    };
    Ok(vec![RouteEntry {
        dex_id: dex_id.into(),
        amount_in: amount_in.to_string(),
        amount_out: amount_out.to_string(),
        min_amount_out: if exact_out {
            // Exactly what was asked; a completing buy gives every unsold token, at least that.
            pair.amount.to_string()
        } else {
            min_out_u64(worst_out.unwrap_or(amount_out), pair.slippage_bps).to_string()
        },
        max_amount_in,
        spender: None,
        route: Route::Own(Box::new(route)),
        pool_fee: Some(Fee {
            changes_at,
            ..Fee::new(fee_bps, fee, names.token(&c.pool, &fee_token))
        }),
        platform_fee: Fee::new(
            SOLANA_PLATFORM_FEE_BPS,
            0,
            names.token(&c.pool, &pair.token_in),
        ),
        estimated_gas: Gas::solana(ESTIMATED_COMPUTE_UNITS),
        refund: Some(refund.to_string()),
    }])
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

/// Builds a Jupiter route: its instructions, in a v0 transaction with its lookup tables, simulated.
async fn build_jupiter(
    state: &AppState,
    pair: &Pair,
    taker: &Pubkey,
    route: &Value,
) -> Result<SolanaBuild, ApiError> {
    let jupiter = state
        .jupiter
        .as_ref()
        .ok_or_else(|| invalid_route("Jupiter routes are not enabled on this service"))?;
    let expires = route["expiresAt"].as_i64().unwrap_or(0);
    if expires < state.now() {
        return Err(quote_expired());
    }
    let quote = &route["quoteResponse"];
    if pair.mode != SwapMode::ExactIn
        || route["amountIn"].as_str() != Some(pair.amount.to_string().as_str())
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
    let units = crate::solana::simulate(&state.rpc, &tx.transaction).await?;
    Ok(SolanaBuild {
        solana_transaction: tx.transaction,
        simulated_units: units,
        estimated_gas: None,
        migrates: false,
        referred: false,
        lifetime: tx.lifetime,
    })
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

/// The referral quote account a build names: the `referrer`'s associated account of the pool's quote token,
/// which must exist (the trader does not pay to open it). `None` without a `referrer`.
async fn referral_account(
    state: &AppState,
    req: &BuildRequest,
    taker: &Pubkey,
    keys: &LaunchKeys,
) -> Result<Option<Pubkey>, ApiError> {
    let Some(referrer) = req.referrer.as_deref() else {
        return Ok(None);
    };
    let referrer = address("referrer", Some(referrer))?;
    if referrer == *taker {
        return Err(ApiError::new(
            ErrorCode::SelfReferral,
            "`referrer` cannot be the taker",
        ));
    }
    let account =
        sdk::associated_token_address(&referrer, &keys.quote_mint, &keys.quote_token_program);
    let read = state
        .rpc
        .get_multiple_accounts_with_commitment(&[account], state.rpc.commitment())
        .await
        .map_err(|e| {
            tracing::warn!(
                "reading the referral account {account}: {}",
                crate::redact::redact(&e.to_string())
            );
            ApiError::unavailable("the Solana RPC node did not answer")
        })?;
    if read.value.first().is_none_or(|a| a.is_none()) {
        return Err(ApiError::new(ErrorCode::ReferrerAccountMissing,
            format!(
                "the referrer {referrer} has no {} token account ({account}) to be paid into; it must open one first",
                keys.quote_mint
            ),
        ));
    }
    Ok(Some(account))
}

pub(super) async fn build(state: &AppState, req: &BuildRequest) -> Result<SolanaBuild, ApiError> {
    let pair = validate(state, &req.request).await?;
    let taker = address("taker", req.request.taker.as_deref())?;
    let min_amount_out: u64 = req
        .min_amount_out
        .trim()
        .parse()
        .map_err(|_| ApiError::invalid("`minAmountOut` must be an integer in base units"))?;
    let route_value = req.route.get("route").cloned().unwrap_or(req.route.clone());
    if route_value["venue"] == "jupiter" {
        return build_jupiter(state, &pair, &taker, &route_value).await;
    }
    let route: OwnRoute = serde_json::from_value(route_value)
        .map_err(|_| invalid_route("`route` is not a route returned by /swap/quote"))?;
    if route.expires_at < state.now() {
        return Err(quote_expired());
    }
    // The request's fixed side must be the route's: its amount and its mode.
    let fixed = if route.exact_out {
        &route.amount_out
    } else {
        &route.amount_in
    };
    if route.exact_out != (pair.mode == SwapMode::ExactOut) || *fixed != pair.amount.to_string() {
        return Err(invalid_route(
            "`route` was quoted for another amount or `swapMode`",
        ));
    }
    // Exact out: the most to pay (the request's, else the route's); the exact amount out is the minimum.
    let max_amount_in: u64 = match (&req.max_amount_in, &route.max_amount_in) {
        _ if !route.exact_out => 0,
        (Some(m), _) | (None, Some(m)) => m
            .trim()
            .parse()
            .map_err(|_| ApiError::invalid("`maxAmountIn` must be an integer in base units"))?,
        (None, None) => return Err(invalid_route("`route` carries no `maxAmountIn`")),
    };
    if route.exact_out && min_amount_out > pair.amount {
        return Err(ApiError::invalid(
            "`minAmountOut` of an `ExactOut` swap is at most its `amountOut`",
        ));
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
    // The venue must still be where the token trades: a curve route quoted before graduation would only
    // fail in simulation.
    match (route.venue.as_str(), curve.pool.status) {
        ("bonding-curve", PoolStatus::Bonding) | ("amm", PoolStatus::Migrated) => {}
        ("bonding-curve", _) => return Err(route_stale(
            "the curve graduated after this quote: the token now trades on its AMM pool; quote again",
        )),
        ("amm", _) => {
            return Err(invalid_route(
                "`route` trades on an AMM pool this token has not migrated to",
            ))
        }
        _ => return Err(invalid_route("unknown venue in `route`")),
    }
    let sol = keys.quote_mint == sdk::ids::NATIVE_MINT;
    let mut ixs = Vec::new();
    if sol && route.side == "buy" {
        // Exact out wraps the most it may pay; the unwrap at the end returns what it did not.
        let wrap = if route.exact_out {
            max_amount_in
        } else {
            pair.amount
        };
        ixs.extend(lix::wrap_sol(&taker, wrap));
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
    let mut referred = false;
    match route.venue.as_str() {
        "bonding-curve" => {
            let referral = referral_account(state, req, &taker, &keys).await?;
            referred = referral.is_some();
            let (base_account, quote_account) = (
                sdk::associated_token_address(&taker, &keys.mint, &sdk::ids::TOKEN_2022_PROGRAM),
                sdk::associated_token_address(&taker, &keys.quote_mint, &keys.quote_token_program),
            );
            let side = if route.side == "buy" {
                SIDE_BUY
            } else {
                SIDE_SELL
            };
            ixs.push(if route.exact_out {
                lix::swap_exact_out_referred(
                    &keys,
                    &taker,
                    &base_account,
                    &quote_account,
                    SwapExactOutArgs {
                        side,
                        amount_out: pair.amount,
                        max_amount_in,
                    },
                    referral,
                )
            } else {
                lix::swap_referred(
                    &keys,
                    &taker,
                    &base_account,
                    &quote_account,
                    SwapArgs {
                        side,
                        amount_in: pair.amount,
                        min_amount_out,
                    },
                    referral,
                )
            });
            if route.side == "buy" && route.completes {
                ixs.push(lix::migrate(&keys, &taker));
                migrates = true;
            }
        }
        "amm" => {
            let amm = keys.amm_keys();
            let a_to_b = amm.mint_a == pair.token_in;
            ixs.push(if route.exact_out {
                sdk::amm_ix::swap_exact_out(
                    &amm,
                    &taker,
                    sdk::amm_ix::AmmSwapExactOutArgs {
                        a_to_b,
                        amount_out: pair.amount,
                        max_amount_in,
                    },
                )
            } else {
                sdk::amm_ix::swap(
                    &amm,
                    &taker,
                    sdk::amm_ix::AmmSwapArgs {
                        a_to_b,
                        amount_in: pair.amount,
                        min_amount_out,
                    },
                )
            });
        }
        _ => return Err(invalid_route("unknown venue in `route`")),
    }
    if sol {
        // Unwrap: what is left in (or paid into) the wrapped-SOL account returns to the wallet as SOL.
        ixs.push(lix::unwrap_sol(&taker));
    }
    let built = crate::solana::unsigned_transaction(
        &state.rpc,
        &taker,
        &ixs,
        state.fee_policy(req.priority_level),
    )
    .await?;
    Ok(SolanaBuild {
        estimated_gas: Some(Gas {
            compute_units: Some(u64::from(built.compute_unit_limit)),
            lamports: Some(built.max_fee_lamports()),
            micro_lamports_per_compute_unit: Some(built.micro_lamports_per_unit),
            ..Gas::default()
        }),
        solana_transaction: built.transaction,
        simulated_units: Some(built.units_consumed),
        migrates,
        referred,
        lifetime: built.lifetime,
    })
}
