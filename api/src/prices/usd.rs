//! USD values beside the quote-token figures: the SOL/USD price the indexer keeps from the oracle account
//! (Pyth's, seeded and moved by the localnet), how old it is, and the rate of each quote asset (USDC counts as
//! one dollar). Figures are exact and rounded down ([`index::usd`]).

use crate::error::ApiError;
use crate::state::AppState;
use index::usd::UsdRate;
use serde::Serialize;
use utoipa::ToSchema;

/// The SOL/USD price USD values were computed with.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsdPrice {
    /// Dollars per SOL, with the oracle's own digits (e.g. `142.12345678`).
    pub sol_usd: String,
    /// When the oracle published it, unix seconds.
    pub publish_time: i64,
    /// Seconds since then by this service's clock (which follows the chain's).
    pub age_secs: i64,
    /// Older than `--usd-max-age-secs` (default 120): USD values are shown, but the price may have moved.
    pub stale: bool,
    /// The oracle's price account (Pyth's SOL/USD feed).
    pub account: String,
}

/// The SOL/USD price now: the rate and what to show of it.
#[derive(Debug, Clone)]
pub struct SolUsd {
    pub rate: UsdRate,
    pub price: UsdPrice,
}

impl SolUsd {
    /// Dollars per whole `quote` (`sol` or `usdc`).
    pub fn rate_of(&self, quote: &str) -> Option<UsdRate> {
        match curve::QuoteAsset::from_name(quote)? {
            curve::QuoteAsset::Sol => Some(self.rate),
            curve::QuoteAsset::Usdc => Some(UsdRate::ONE),
        }
    }

    /// `value / 10^digits` of `quote` in dollars with `out_digits` places.
    pub fn convert(
        &self,
        quote: &str,
        value: u128,
        digits: u32,
        out_digits: u32,
    ) -> Option<String> {
        self.rate_of(quote)?
            .convert_decimal(value, digits, out_digits)
    }

    /// A price (whole quote per whole token, fixed-point) in dollars, with the price's 18 places.
    pub fn price(&self, quote: &str, fixed: u128) -> Option<String> {
        let digits = curve::display::PRICE_DIGITS;
        self.convert(quote, fixed, digits, digits)
    }

    /// A market cap (whole quote, fixed-point) in dollars with [`index::usd::USD_DIGITS`] places.
    pub fn market_cap(&self, quote: &str, fixed: u128) -> Option<String> {
        self.convert(
            quote,
            fixed,
            index::market::MARKET_CAP_DIGITS,
            index::usd::USD_DIGITS,
        )
    }

    /// An amount of `quote` in base units in dollars with [`index::usd::USD_DIGITS`] places.
    pub fn amount(&self, quote: &str, base_units: u128) -> Option<String> {
        let decimals = u32::from(curve::QuoteAsset::from_name(quote)?.decimals());
        self.convert(quote, base_units, decimals, index::usd::USD_DIGITS)
    }
}

/// The indexed SOL/USD price, or `None` before the indexer has seen the oracle account (or when its price
/// is not usable).
pub async fn sol_usd(state: &AppState) -> Result<Option<SolUsd>, ApiError> {
    let Some(p) = state
        .store
        .oracle_price(&sdk::oracle::SOL_USD_PRICE_ACCOUNT)
        .await?
    else {
        return Ok(None);
    };
    let Some(rate) = UsdRate::of_oracle(&p) else {
        return Ok(None);
    };
    let age_secs = state.now().saturating_sub(p.publish_time).max(0);
    Ok(Some(SolUsd {
        rate,
        price: UsdPrice {
            sol_usd: rate.to_decimal(),
            publish_time: p.publish_time,
            age_secs,
            stale: age_secs > i64::try_from(state.config.usd_max_age_secs).unwrap_or(i64::MAX),
            account: p.address.to_string(),
        },
    }))
}
