//! What a same-chain swap is on every chain family, shared by the Solana side (`solana`) and the EVM side
//! (the aggregator crate): the quote and build requests, route entries, amounts and slippage, and the
//! errors they answer with.

use crate::chains::ChainKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use web::error::{ApiError, ErrorCode};

/// Slippage when the request gives none, basis points (0.5%).
pub const DEFAULT_SLIPPAGE_BPS: u16 = 50;
/// The most slippage a request may ask for, basis points.
pub const MAX_SLIPPAGE_BPS: u16 = 5_000;
/// A quote is good for this long (the spec: re-quote after about 60 s).
pub const QUOTE_TTL_SECS: i64 = 60;

pub fn no_route(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::NoRoute, message)
}

pub fn invalid_route(message: &str) -> ApiError {
    ApiError::new(ErrorCode::InvalidRoute, message)
}

/// A route that was good when quoted trades on a venue the token has left (409): quote again.
pub fn route_stale(message: &str) -> ApiError {
    ApiError::new(ErrorCode::RouteStale, message)
}

pub fn quote_expired() -> ApiError {
    ApiError::new(
        ErrorCode::QuoteExpired,
        "the quote is older than 60 s: quote again",
    )
}

pub fn same_token() -> ApiError {
    ApiError::new(
        ErrorCode::SameToken,
        "`tokenIn` and `tokenOut` are the same token",
    )
}

/// `SAME_TOKEN` when the request names one token twice, before the addresses are parsed (so `"ETH"` and
/// `"ETH"` are the same token too, not two invalid addresses). EVM addresses compare without case.
pub fn reject_same_token(req: &QuoteRequest, case_insensitive: bool) -> Result<(), ApiError> {
    let (Some(a), Some(b)) = (req.token_in.as_deref(), req.token_out.as_deref()) else {
        return Ok(());
    };
    let (a, b) = (a.trim(), b.trim());
    let same = if case_insensitive {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    };
    if same && !a.is_empty() {
        return Err(same_token());
    }
    Ok(())
}

/// A same-chain swap quote request. Its schema is [`crate::quote_schema::quote_request_schema`].
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    #[serde(default, deserialize_with = "web::body::opt_u16")]
    pub slippage_bps: Option<u16>,
    /// The wallet (required to build).
    pub taker: Option<String>,
    /// `ExactIn` (default: spend `amountIn`) or `ExactOut` (receive exactly `amountOut`; Solana only).
    pub swap_mode: Option<String>,
    /// `ExactOut`: base units of `tokenOut` to receive, exactly.
    pub amount_out: Option<String>,
}

/// Which side of a swap is fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapMode {
    /// Spend exactly `amountIn`; receive at least `minAmountOut`.
    ExactIn,
    /// Receive exactly `amountOut`; spend at most `maxAmountIn`.
    ExactOut,
}

impl SwapMode {
    pub const EXACT_IN: &'static str = "ExactIn";
    pub const EXACT_OUT: &'static str = "ExactOut";

    /// The request's mode (`ExactIn` when it names none).
    pub fn of(req: &QuoteRequest) -> Result<SwapMode, ApiError> {
        match req.swap_mode.as_deref() {
            None | Some(SwapMode::EXACT_IN) => Ok(SwapMode::ExactIn),
            Some(SwapMode::EXACT_OUT) => Ok(SwapMode::ExactOut),
            Some(_) => Err(ApiError::invalid(
                "`swapMode` must be `ExactIn` or `ExactOut`",
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SwapMode::ExactIn => SwapMode::EXACT_IN,
            SwapMode::ExactOut => SwapMode::EXACT_OUT,
        }
    }
}

/// The exact amount out an `ExactOut` request asks for, base units; `amountIn` and `amount` must be absent.
pub fn exact_amount_out(req: &QuoteRequest) -> Result<u128, ApiError> {
    if req.amount_in.is_some() || req.amount.is_some() {
        return Err(ApiError::invalid(
            "an `ExactOut` request gives `amountOut` only (no `amountIn` or `amount`)",
        ));
    }
    req.amount_out
        .as_deref()
        .ok_or_else(|| ApiError::missing("amountOut"))?
        .trim()
        .parse::<u128>()
        .ok()
        .filter(|a| *a > 0)
        .ok_or_else(|| ApiError::invalid("`amountOut` must be a positive integer in base units"))
}

/// The only `amountUnit`.
pub const HUMAN: &str = "human";

/// The largest amount of a token on a chain of `kind`, base units.
pub fn max_amount(kind: ChainKind) -> u128 {
    match kind {
        ChainKind::Solana => u128::from(u64::MAX),
        ChainKind::Evm => u128::MAX,
    }
}

/// The request's slippage tolerance, defaulted and bounded.
pub fn slippage(requested: Option<u16>) -> Result<u16, ApiError> {
    let bps = requested.unwrap_or(DEFAULT_SLIPPAGE_BPS);
    if bps > MAX_SLIPPAGE_BPS {
        return Err(ApiError::invalid("`slippageBps` is at most 5000"));
    }
    Ok(bps)
}

/// The amount in base units a request gives either as `amountIn`, or as `amount` in whole tokens with
/// `amountUnit` = `human` (scaled by `decimals`, known only for catalog tokens).
pub fn amount_in(req: &QuoteRequest, decimals: Option<u8>) -> Result<u128, ApiError> {
    match (&req.amount_in, &req.amount, req.amount_unit.as_deref()) {
        (Some(_), Some(_), _) => Err(ApiError::invalid(
            "send either `amountIn` (base units) or `amount` with `amountUnit`, not both",
        )),
        (Some(a), None, _) => a
            .trim()
            .parse::<u128>()
            .ok()
            .filter(|a| *a > 0)
            .ok_or_else(|| {
                ApiError::invalid("`amountIn` must be a positive integer in base units")
            }),
        (None, Some(a), Some(HUMAN)) => {
            let decimals = decimals.ok_or_else(|| {
                ApiError::invalid(
                    "`amount` in human units works only for catalog tokens (GET /swap/tokens); send `amountIn`",
                )
            })?;
            curve::display::parse_decimal_u128(a, decimals)
                .filter(|a| *a > 0)
                .ok_or_else(|| {
                    ApiError::invalid(format!(
                        "`amount` must be a positive decimal with at most {decimals} decimals"
                    ))
                })
        }
        (None, Some(_), Some(other)) => Err(ApiError::invalid(format!(
            "`amountUnit` `{other}` is not supported: the only value is `human`"
        ))),
        (None, Some(_), None) => Err(ApiError::missing("amountUnit")),
        (None, None, _) => Err(ApiError::missing("amountIn")),
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Fee {
    pub bps: u16,
    /// Base units of `token`.
    pub amount: String,
    pub token: String,
    /// Pool fees of a launch whose fee decays: when this rate steps down next, unix seconds by the
    /// chain's clock (the Clock sysvar the program charges by). A swap landing after it pays less, so the
    /// quoted minimum still holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes_at: Option<i64>,
}

impl Fee {
    pub fn new(bps: u16, amount: impl ToString, token: impl ToString) -> Fee {
        Fee {
            bps,
            amount: amount.to_string(),
            token: token.to_string(),
            changes_at: None,
        }
    }
}

/// The estimated cost of executing a route: compute units and lamports on Solana, gas units (and the
/// aggregator's USD figure, when it gives one) on EVM chains.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Gas {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute_units: Option<u64>,
    /// Base fee of one signature, lamports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lamports: Option<u64>,
    /// Solana builds: the compute-unit price set, micro-lamports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub micro_lamports_per_compute_unit: Option<u64>,
    /// EVM gas units, decimal string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gas_usd: Option<String>,
}

impl Gas {
    pub fn solana(compute_units: u64) -> Gas {
        Gas {
            compute_units: Some(compute_units),
            lamports: Some(5_000),
            ..Gas::default()
        }
    }
}

/// What a route entry's opaque `route` holds: a trade on the launchpad's own pools, or an aggregator's
/// quote carried through to the build.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Route {
    Own(Box<OwnRoute>),
    Aggregator(Value),
    /// Either, as handed out: its content with the server's tag ([`super::seal`]).
    Sealed(Value),
}

/// A route entry.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteEntry {
    /// `<aggregator>-<chainKey>`: `launchpad-solana` (bonding curve), `launchpad-amm-solana`,
    /// `jupiter-solana`, `kyberswap-<chainKey>`, `zerox-<chainKey>`.
    pub dex_id: String,
    pub amount_in: String,
    pub amount_out: String,
    /// `amountOut` less the slippage tolerance: send it back as `minAmountOut`. For `ExactOut`, `amountOut`
    /// itself.
    pub min_amount_out: String,
    /// `ExactOut` only: `amountIn` plus the slippage tolerance, rounded up: the most the built swap takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_amount_in: Option<String>,
    /// EVM: the address to approve for `tokenIn` (exactly `amountIn` is enough); null on Solana.
    pub spender: Option<String>,
    /// Opaque: pass it back unchanged to `/swap/build`.
    #[schema(value_type = Object)]
    pub route: Route,
    /// The venue's own trading fee (Solana pools), in the input token for AMM routes and in the quote
    /// token on the curve. Absent for aggregator routes on EVM chains (their fees are in `amountOut`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool_fee: Option<Fee>,
    /// The platform's fee (`amount` in `token`, already taken out of `amountOut`).
    pub platform_fee: Fee,
    pub estimated_gas: Gas,
    /// Solana curve buys: quote refunded because the buy completes the curve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteResponse {
    pub best: RouteEntry,
    /// Best first (most `amountOut`).
    pub quotes: Vec<RouteEntry>,
    pub fee_bps: u16,
    /// The tolerance the minimums were computed with (the request's, default 50).
    #[schema(default = 50)]
    pub slippage_bps: u16,
    /// `ExactIn` or `ExactOut`, as requested.
    pub swap_mode: String,
    /// When the best route stops building (unix seconds, 60 s after the quote): `/swap/build` then
    /// answers `QUOTE_EXPIRED`. Every route carries its own expiry, sealed with it.
    pub expires_at: i64,
}

/// Where a route trades, as carried in its opaque `route` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Quoted exact out: `amountOut` is exact and the swap takes at most `maxAmountIn`.
    #[serde(default)]
    pub exact_out: bool,
    #[serde(default)]
    pub max_amount_in: Option<String>,
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
    #[schema(schema_with = min_amount_out_schema)]
    pub min_amount_out: String,
    /// `ExactOut`: the most to pay, base units; default the route's `maxAmountIn`.
    pub max_amount_in: Option<String>,
    /// Solana: the compute-unit price to offer, as a percentile of recent fees (`none` 0, `low` 25th,
    /// `medium` 50th, `high` 75th, `veryHigh` 95th); default the service's `--priority-fee-percentile`.
    pub priority_level: Option<crate::solana::PriorityLevel>,
    /// Solana, bonding-curve routes: the referral wallet (a front-end's or a bot's), paid the config's
    /// referral share (20%) of the partner's part of the fee at trade time into its quote token account, which
    /// must exist. Not the taker. Other routes ignore it (`referred` in the build says whether it applied).
    #[schema(schema_with = web::schema::solana_address)]
    pub referrer: Option<String>,
}

fn min_amount_out_schema() -> utoipa::openapi::Object {
    web::schema::amount(0, max_amount(ChainKind::Evm)).build()
}
