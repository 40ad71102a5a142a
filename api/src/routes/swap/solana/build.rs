//! `/swap/build` on Solana: a route from `/swap/quote` checked against the request and turned into an
//! unsigned transaction (our own pools' instructions, or Jupiter's).

use super::{validate, Pair, SolanaBuild};
use crate::error::{address, ApiError, ErrorCode};
use crate::state::AppState;
use anchor_lang::prelude::Pubkey;
use anchor_lang::solana_program::instruction::Instruction;
use sdk::accounts::PoolStatus;
use sdk::launchpad_ix::{self as lix, LaunchKeys, SwapArgs, SwapExactOutArgs, SIDE_BUY, SIDE_SELL};
use sdk::quote::amm::QuoteSide;
use serde_json::Value;
use swap_core::shapes::{
    invalid_route, no_route, quote_expired, route_stale, BuildRequest, Gas, OwnRoute, SwapMode,
};

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

/// The request's own route, checked against the request: its lifetime, its fixed side (amount and mode).
/// Returns it with the most an exact-out swap may pay (0 for exact in).
fn checked_route(
    state: &AppState,
    req: &BuildRequest,
    pair: &Pair,
    route_value: Value,
    min_amount_out: u64,
) -> Result<(OwnRoute, u64), ApiError> {
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
    Ok((route, max_amount_in))
}

/// The keys of the launch a route trades, checked to trade the request's tokens on the route's venue still.
async fn route_keys(
    state: &AppState,
    route: &OwnRoute,
    pair: &Pair,
) -> Result<LaunchKeys, ApiError> {
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
        ("bonding-curve", PoolStatus::Bonding) | ("amm", PoolStatus::Migrated) => Ok(keys),
        ("bonding-curve", _) => Err(route_stale(
            "the curve graduated after this quote: the token now trades on its AMM pool; quote again",
        )),
        ("amm", _) => Err(invalid_route(
            "`route` trades on an AMM pool this token has not migrated to",
        )),
        _ => Err(invalid_route("unknown venue in `route`")),
    }
}

/// An own-pool swap the build turns into instructions.
struct OwnSwap<'a> {
    pair: &'a Pair,
    taker: Pubkey,
    route: OwnRoute,
    keys: LaunchKeys,
    min_amount_out: u64,
    max_amount_in: u64,
}

impl OwnSwap<'_> {
    fn buys(&self) -> bool {
        self.route.side == "buy"
    }

    fn pays_sol(&self) -> bool {
        self.keys.quote_mint == sdk::ids::NATIVE_MINT
    }

    /// The taker's token accounts: the quote's (wrapping SOL for a SOL buy) and the launch token's.
    fn accounts(&self) -> Vec<Instruction> {
        let (taker, keys) = (&self.taker, &self.keys);
        let mut ixs = Vec::new();
        if self.pays_sol() && self.buys() {
            // Exact out wraps the most it may pay; the unwrap at the end returns what it did not.
            let wrap = if self.route.exact_out {
                self.max_amount_in
            } else {
                self.pair.amount
            };
            ixs.extend(lix::wrap_sol(taker, wrap));
        } else {
            ixs.push(lix::create_ata_idempotent(
                taker,
                taker,
                &keys.quote_mint,
                &keys.quote_token_program,
            ));
        }
        ixs.push(lix::create_ata_idempotent(
            taker,
            taker,
            &keys.mint,
            &sdk::ids::TOKEN_2022_PROGRAM,
        ));
        ixs
    }

    /// The curve swap, paying `referral` when named.
    fn curve_swap(&self, referral: Option<Pubkey>) -> Instruction {
        let (taker, keys) = (&self.taker, &self.keys);
        let (base_account, quote_account) = (
            sdk::associated_token_address(taker, &keys.mint, &sdk::ids::TOKEN_2022_PROGRAM),
            sdk::associated_token_address(taker, &keys.quote_mint, &keys.quote_token_program),
        );
        let side = if self.buys() { SIDE_BUY } else { SIDE_SELL };
        if self.route.exact_out {
            lix::swap_exact_out_referred(
                keys,
                taker,
                &base_account,
                &quote_account,
                SwapExactOutArgs {
                    side,
                    amount_out: self.pair.amount,
                    max_amount_in: self.max_amount_in,
                },
                referral,
            )
        } else {
            lix::swap_referred(
                keys,
                taker,
                &base_account,
                &quote_account,
                SwapArgs {
                    side,
                    amount_in: self.pair.amount,
                    min_amount_out: self.min_amount_out,
                },
                referral,
            )
        }
    }

    /// The AMM swap.
    fn amm_swap(&self) -> Instruction {
        let amm = self.keys.amm_keys();
        let a_to_b = QuoteSide::of(&self.keys.quote_mint, &self.keys.mint).a_to_b(self.buys());
        if self.route.exact_out {
            sdk::amm_ix::swap_exact_out(
                &amm,
                &self.taker,
                sdk::amm_ix::AmmSwapExactOutArgs {
                    a_to_b,
                    amount_out: self.pair.amount,
                    max_amount_in: self.max_amount_in,
                },
            )
        } else {
            sdk::amm_ix::swap(
                &amm,
                &self.taker,
                sdk::amm_ix::AmmSwapArgs {
                    a_to_b,
                    amount_in: self.pair.amount,
                    min_amount_out: self.min_amount_out,
                },
            )
        }
    }
}

pub(in crate::routes::swap) async fn build(
    state: &AppState,
    req: &BuildRequest,
) -> Result<SolanaBuild, ApiError> {
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
    let (route, max_amount_in) = checked_route(state, req, &pair, route_value, min_amount_out)?;
    let keys = route_keys(state, &route, &pair).await?;
    let swap = OwnSwap {
        pair: &pair,
        taker,
        route,
        keys,
        min_amount_out,
        max_amount_in,
    };
    let mut ixs = swap.accounts();
    let (mut migrates, mut referred) = (false, false);
    if swap.route.venue == "bonding-curve" {
        let referral = referral_account(state, req, &taker, &swap.keys).await?;
        referred = referral.is_some();
        ixs.push(swap.curve_swap(referral));
        if swap.buys() && swap.route.completes {
            ixs.push(lix::migrate(&swap.keys, &taker));
            migrates = true;
        }
    } else {
        ixs.push(swap.amm_swap());
    }
    if swap.pays_sol() {
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
