//! EVM same-chain swaps: routes from KyberSwap (keyless, the default) and 0x (when a key is configured),
//! ranked by `amountOut`; builds return the aggregator's router call after the wallet's balance and
//! allowance are checked and the call is simulated from the wallet (`eth_call`, then gas estimation).

use crate::aggregators::{zerox, PlatformFee};
use crate::evm::EvmTransaction;
use crate::Aggregator;
use alloy::primitives::{Address, U256};
use serde::Serialize;
use serde_json::{json, Value};
use swap_core::chains::{self, ChainInfo};
use swap_core::shapes::{
    amount_in, invalid_route, no_route, quote_expired, reject_same_token, same_token, slippage,
    BuildRequest, Fee, Gas, QuoteRequest, QuoteResponse, Route, RouteEntry, QUOTE_TTL_SECS,
};
use swap_core::slippage::min_out;
use swap_core::tokens;
use swap_core::verdict::{contradicts, Verdict};
use utoipa::ToSchema;
use web::error::ApiError;

struct Pair {
    token_in: Address,
    token_out: Address,
    amount_in: u128,
    slippage_bps: u16,
    taker: Option<Address>,
}

impl Pair {
    /// Aggregators name the native token 0xEeee…; requests may also use the zero address.
    fn aggregator_token(token: &Address) -> String {
        if chains::is_evm_native(token) {
            chains::EVM_NATIVE.to_checksum(None)
        } else {
            token.to_checksum(None)
        }
    }
}

fn validate(chain: &ChainInfo, req: &QuoteRequest) -> Result<Pair, ApiError> {
    reject_same_token(req, true)?;
    let token_in = chains::evm_address("tokenIn", chain, req.token_in.as_deref())?;
    let token_out = chains::evm_address("tokenOut", chain, req.token_out.as_deref())?;
    let native = |t: &Address| chains::is_evm_native(t);
    if token_in == token_out || native(&token_in) && native(&token_out) {
        return Err(same_token());
    }
    // Decimals matter only for an amount in whole tokens.
    let decimals = req
        .amount_in
        .is_none()
        .then(|| tokens::evm_catalog_decimals(chain, &token_in))
        .flatten();
    let amount_in = amount_in(req, decimals)?;
    let slippage_bps = slippage(req.slippage_bps)?;
    let taker = match req.taker.as_deref() {
        Some(t) => Some(chains::evm_address("taker", chain, Some(t))?),
        None => None,
    };
    Ok(Pair {
        token_in,
        token_out,
        amount_in,
        slippage_bps,
        taker,
    })
}

/// The platform fee, when the service takes one on EVM swaps (a rate and a recipient configured).
fn platform_fee(state: &Aggregator) -> Option<PlatformFee<'_>> {
    let bps = state.platform_fee_bps;
    let recipient = state.config.evm_fee_recipient.as_deref()?;
    (bps > 0).then_some(PlatformFee { bps, recipient })
}

/// The fee taken out of `amount_out` (which is already net of it) at `bps`.
fn fee_entry(state: &Aggregator, amount_out: u128, token_out: &Address) -> Fee {
    let (bps, amount) = match platform_fee(state) {
        Some(PlatformFee { bps, .. }) => (
            bps,
            mul_div(
                amount_out,
                u128::from(bps),
                u128::from(10_000u16.saturating_sub(bps)),
            ),
        ),
        None => (0, 0),
    };
    Fee::new(bps, amount, Pair::aggregator_token(token_out))
}

/// What every EVM route object carries, so a build can check it against its request.
fn route_object(
    state: &Aggregator,
    chain: &ChainInfo,
    aggregator: &str,
    pair: &Pair,
    amount_out: u128,
    spender: Option<&str>,
) -> Value {
    json!({
        "aggregator": aggregator,
        "chainKey": chain.key,
        "tokenIn": Pair::aggregator_token(&pair.token_in),
        "tokenOut": Pair::aggregator_token(&pair.token_out),
        "amountIn": pair.amount_in.to_string(),
        "amountOut": amount_out.to_string(),
        "spender": spender,
        "expiresAt": state.now() + QUOTE_TTL_SECS,
    })
}

async fn kyberswap_entry(
    state: &Aggregator,
    chain: &ChainInfo,
    pair: &Pair,
) -> Result<Option<RouteEntry>, ApiError> {
    let Some(kyber) = &state.kyberswap else {
        return Ok(None);
    };
    let fee = platform_fee(state);
    let Some(q) = kyber
        .quote(
            chain,
            &Pair::aggregator_token(&pair.token_in),
            &Pair::aggregator_token(&pair.token_out),
            pair.amount_in,
            fee,
        )
        .await?
    else {
        return Ok(None);
    };
    let mut route = route_object(
        state,
        chain,
        "kyberswap",
        pair,
        q.amount_out,
        Some(&q.router),
    );
    route["routeSummary"] = q.summary;
    Ok(Some(RouteEntry {
        max_amount_in: None,
        dex_id: format!("kyberswap-{}", chain.key),
        amount_in: pair.amount_in.to_string(),
        amount_out: q.amount_out.to_string(),
        min_amount_out: min_out(q.amount_out, pair.slippage_bps).to_string(),
        spender: Some(q.router),
        route: Route::Aggregator(route),
        pool_fee: None,
        platform_fee: fee_entry(state, q.amount_out, &pair.token_out),
        estimated_gas: Gas {
            gas: q.gas,
            gas_usd: q.gas_usd,
            ..Gas::default()
        },
        refund: None,
    }))
}

async fn zerox_quote(
    state: &Aggregator,
    chain: &ChainInfo,
    pair: &Pair,
    taker: Option<&Address>,
    slippage_bps: u16,
) -> Result<Option<zerox::ZeroXQuote>, ApiError> {
    let Some(zx) = &state.zerox else {
        return Ok(None);
    };
    let fee = platform_fee(state);
    let taker = taker.map(|t| t.to_checksum(None));
    zx.quote(
        chain,
        &Pair::aggregator_token(&pair.token_in),
        &Pair::aggregator_token(&pair.token_out),
        pair.amount_in,
        taker.as_deref(),
        slippage_bps,
        fee,
    )
    .await
}

async fn zerox_entry(
    state: &Aggregator,
    chain: &ChainInfo,
    pair: &Pair,
) -> Result<Option<RouteEntry>, ApiError> {
    let Some(q) = zerox_quote(state, chain, pair, None, pair.slippage_bps).await? else {
        return Ok(None);
    };
    let route = route_object(
        state,
        chain,
        "zerox",
        pair,
        q.buy_amount,
        q.spender.as_deref(),
    );
    Ok(Some(RouteEntry {
        max_amount_in: None,
        dex_id: format!("zerox-{}", chain.key),
        amount_in: pair.amount_in.to_string(),
        amount_out: q.buy_amount.to_string(),
        min_amount_out: q
            .min_buy_amount
            .unwrap_or_else(|| min_out(q.buy_amount, pair.slippage_bps))
            .to_string(),
        spender: q.spender,
        route: Route::Aggregator(route),
        pool_fee: None,
        platform_fee: fee_entry(state, q.buy_amount, &pair.token_out),
        estimated_gas: Gas {
            gas: q.gas,
            ..Gas::default()
        },
        refund: None,
    }))
}

pub async fn quote(
    state: &Aggregator,
    chain: &ChainInfo,
    req: &QuoteRequest,
) -> Result<QuoteResponse, ApiError> {
    let pair = validate(chain, req)?;
    if state.kyberswap.is_none() && state.zerox.is_none() {
        return Err(no_route(format!(
            "no EVM swap source is configured on this service for {}",
            chain.name
        )));
    }
    let (kyber, zerox) = tokio::join!(
        kyberswap_entry(state, chain, &pair),
        zerox_entry(state, chain, &pair)
    );
    let mut quotes = Vec::new();
    let mut failure = None;
    for answer in [kyber, zerox] {
        match answer {
            Ok(entry) => quotes.extend(entry),
            Err(e) => {
                tracing::warn!("EVM quote source skipped: {}", e.message);
                failure.get_or_insert(e);
            }
        }
    }
    quotes.sort_by_key(|q| std::cmp::Reverse(q.amount_out.parse::<u128>().unwrap_or(0)));
    let best = match (quotes.first(), failure) {
        (Some(best), _) => best.clone(),
        // Every source failed: that is the answer (retry later), not "no route".
        (None, Some(e)) => return Err(e),
        (None, None) => {
            return Err(no_route(format!(
                "no route trades this pair and amount on {}",
                chain.name
            )))
        }
    };
    Ok(QuoteResponse {
        swap_mode: swap_core::shapes::SwapMode::ExactIn.name().into(),
        best,
        quotes,
        fee_bps: platform_fee(state).map_or(0, |f| f.bps),
        slippage_bps: pair.slippage_bps,
        expires_at: state.now() + QUOTE_TTL_SECS,
    })
}

/// A built EVM swap: the transaction at the top level (not under an `evm` key).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvmBuild {
    pub chain_key: String,
    pub chain_id: u64,
    /// The wallet that signs and sends (the request's `taker`).
    pub from: String,
    /// The router to call.
    pub to: String,
    /// Calldata, 0x hex.
    pub data: String,
    /// Wei, decimal string (non-zero when `tokenIn` is the native token).
    pub value: String,
    /// Gas limit to send with, decimal string: the simulation's estimate plus 20%.
    pub gas: String,
    /// What `eth_estimateGas` returned for the simulated call.
    pub gas_estimate: String,
    pub dex_id: String,
    /// The address the wallet approved (the router's allowance target).
    pub spender: Option<String>,
    pub min_amount_out: String,
    /// Always true: the call ran from `from` with `eth_call` before it was returned.
    pub simulated: bool,
}

pub async fn build(
    state: &Aggregator,
    chain: &ChainInfo,
    req: &BuildRequest,
) -> Result<EvmBuild, ApiError> {
    let pair = validate(chain, &req.request)?;
    let taker = pair
        .taker
        .ok_or_else(|| ApiError::missing("request.taker"))?;
    let route = req.route.get("route").cloned().unwrap_or(req.route.clone());
    let min_amount_out: u128 = req
        .min_amount_out
        .trim()
        .parse()
        .map_err(|_| ApiError::invalid("`minAmountOut` must be an integer in base units"))?;
    let field = |k: &str| route[k].as_str().unwrap_or_default().to_string();
    if field("chainKey") != chain.key
        || field("tokenIn") != Pair::aggregator_token(&pair.token_in)
        || field("tokenOut") != Pair::aggregator_token(&pair.token_out)
        || field("amountIn") != pair.amount_in.to_string()
    {
        return Err(invalid_route(
            "`route` was not quoted for this chain, pair and amount (pass a route from /swap/quote unchanged)",
        ));
    }
    if route["expiresAt"].as_i64().unwrap_or(0) < state.now() {
        return Err(quote_expired());
    }
    let quoted_out: u128 = field("amountOut").parse().unwrap_or(0);
    if min_amount_out > quoted_out {
        return Err(ApiError::invalid(format!(
            "`minAmountOut` {min_amount_out} is above the quoted amountOut {quoted_out}"
        )));
    }
    let slippage_bps = tolerance_bps(quoted_out, min_amount_out);
    let spender: Option<Address> = route["spender"].as_str().and_then(|s| s.parse().ok());
    state
        .evm
        .check_funds(
            chain,
            pair.token_in,
            taker,
            spender,
            U256::from(pair.amount_in),
        )
        .await?;
    let chain_id = chain.chain_id.unwrap_or_default();
    let (dex_id, tx) = match route["aggregator"].as_str() {
        Some("kyberswap") => {
            let kyber = state
                .kyberswap
                .as_ref()
                .ok_or_else(|| invalid_route("KyberSwap routes are not enabled on this service"))?;
            let deadline = state.now() + 20 * 60;
            let built = kyber
                .build(
                    chain,
                    &route["routeSummary"],
                    &taker.to_checksum(None),
                    slippage_bps,
                    deadline,
                )
                .await?
                .ok_or_else(|| no_route("KyberSwap can no longer build this route: quote again"))?;
            if spender.is_some_and(|s| built.router.parse::<Address>().ok() != Some(s)) {
                return Err(invalid_route(
                    "KyberSwap built the swap for another router: quote again",
                ));
            }
            let tx = EvmTransaction {
                chain_id,
                from: taker.to_checksum(None),
                to: built.router,
                data: built.data,
                value: crate::evm::quantity(&Value::String(built.value)),
                gas: None,
            };
            (format!("kyberswap-{}", chain.key), tx)
        }
        Some("zerox") => {
            let q = zerox_quote(state, chain, &pair, Some(&taker), slippage_bps)
                .await?
                .ok_or_else(|| no_route("0x no longer has liquidity for this swap: quote again"))?;
            if q.min_buy_amount.unwrap_or(q.buy_amount) < min_amount_out {
                return Err(no_route(
                    "the price moved below `minAmountOut`: quote again",
                ));
            }
            let t = q
                .transaction
                .ok_or_else(|| crate::aggregators::http::malformed("0x", "transaction"))?;
            let text = |k: &str| t[k].as_str().unwrap_or_default().to_string();
            let tx = EvmTransaction {
                chain_id,
                from: taker.to_checksum(None),
                to: text("to"),
                data: text("data"),
                value: crate::evm::quantity(&t["value"]),
                gas: None,
            };
            (format!("zerox-{}", chain.key), tx)
        }
        _ => {
            return Err(invalid_route(
                "`route` is not a route returned by /swap/quote",
            ))
        }
    };
    let simulated = state.evm.simulate(chain, &tx).await?;
    Ok(EvmBuild {
        chain_key: chain.key.into(),
        chain_id,
        from: tx.from,
        to: tx.to,
        data: tx.data,
        value: tx.value,
        gas: simulated.limit.to_string(),
        gas_estimate: simulated.estimate.to_string(),
        dex_id,
        spender: spender.map(|s| s.to_checksum(None)),
        min_amount_out: min_amount_out.to_string(),
        simulated: true,
    })
}

/// An EVM swap record against the transaction's receipt: mined and successful, sent by `address`, and
/// moving the tokens that way (ERC-20 legs from the `Transfer` logs; a native `tokenIn` from the
/// transaction's value; a native `tokenOut` moves in internal calls logs do not show, and is taken as
/// recorded). Amounts above what moved are lowered to it. No receipt yet, or no RPC for the chain:
/// unverified.
pub async fn verify_record(
    state: &Aggregator,
    chain: &ChainInfo,
    address: &str,
    tx_hash: &str,
    (token_in, token_out): (&str, &str),
    (amount_in, amount_out): (u128, u128),
) -> Result<Verdict, ApiError> {
    let addr = |field: &str, v: &str| chains::evm_address(field, chain, Some(v));
    let (wallet, token_in, token_out) = (
        addr("address", address)?,
        addr("tokenIn", token_in)?,
        addr("tokenOut", token_out)?,
    );
    let hash: alloy::primitives::B256 = tx_hash
        .trim()
        .parse()
        .map_err(|_| ApiError::invalid("`txHash` is not an EVM transaction hash"))?;
    let seen = match state
        .evm
        .swap_seen(chain, hash, wallet, token_in, token_out)
        .await
    {
        Ok(Some(seen)) => seen,
        Ok(None) | Err(_) => return Ok(Verdict::Unverified),
    };
    if seen.from != wallet {
        return Err(contradicts("`address` did not send it"));
    }
    if !seen.succeeded {
        return Ok(Verdict::Failed);
    }
    let at_most = |claimed: u128, moved: U256| {
        let moved = u128::try_from(moved).unwrap_or(u128::MAX);
        claimed.min(moved)
    };
    if seen.gave == U256::ZERO {
        return Err(contradicts("`address` gave up none of `tokenIn`"));
    }
    let amount_out = match seen.received {
        Some(got) if got == U256::ZERO => {
            return Err(contradicts("`address` received none of `tokenOut`"))
        }
        Some(got) => at_most(amount_out, got),
        None => amount_out,
    };
    Ok(Verdict::Verified(at_most(amount_in, seen.gave), amount_out))
}
/// EVM amounts (`u128`) scaled by a rate: 256-bit intermediates, as the EVM computes them.
/// `floor(a * num / den)` without overflow (256-bit intermediate), saturating at `u128::MAX`; 0 when
/// `den` is 0.
pub fn mul_div(a: u128, num: u128, den: u128) -> u128 {
    use alloy::primitives::U256;
    if den == 0 {
        return 0;
    }
    (U256::from(a) * U256::from(num) / U256::from(den)).saturating_to()
}

/// The slippage tolerance to ask an aggregator for so that its own minimum, `slippage::min_out(quoted, bps)`, is at
/// least the caller's `min_amount_out` (rounded down, so never looser). `min_amount_out` above `quoted`
/// gives 0.
pub fn tolerance_bps(quoted: u128, min_amount_out: u128) -> u16 {
    let slack = quoted.saturating_sub(min_amount_out);
    u16::try_from(mul_div(slack, 10_000, quoted).min(10_000)).unwrap_or(10_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// The aggregator's minimum at the derived tolerance never undercuts the caller's minimum, and the
        /// tolerance is the loosest that holds.
        #[test]
        fn derived_tolerance_keeps_the_callers_minimum(quoted in 1u128.., cut in 0u128..=10_000) {
            let min = quoted - mul_div(quoted, cut, 10_000);
            let bps = tolerance_bps(quoted, min);
            prop_assert!(bps <= 10_000);
            prop_assert!(min_out(quoted, bps) >= min);
            if bps < 10_000 {
                // One basis point looser would undercut the caller, or give the very same minimum.
                let looser = min_out(quoted, bps + 1);
                prop_assert!(looser < min || looser == min_out(quoted, bps));
            }
        }

        #[test]
        fn no_amount_overflows(quoted in any::<u128>(), min in any::<u128>(), bps in any::<u16>()) {
            prop_assert!(tolerance_bps(quoted, min) <= 10_000);
            prop_assert!(min_out(quoted, bps) <= quoted);
        }
    }

    #[test]
    fn exact_minimum_is_zero_tolerance() {
        assert_eq!(tolerance_bps(1_000, 1_000), 0);
        assert_eq!(tolerance_bps(1_000, 990), 100);
        assert_eq!(tolerance_bps(1_000, 989), 110);
        assert_eq!(tolerance_bps(3, 2), 3_333);
        assert_eq!(min_out(3, 3_333), 2);
        assert_eq!(min_out(u128::MAX, 0), u128::MAX);
    }
}
