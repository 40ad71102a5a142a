//! Pool-level swaps on a bonding curve, exact in or exact out: fees, and the graduation partial fill.
//!
//! The pool's state is its square-root price and its two reserves. `base_reserve` is every token the pool
//! holds (the unsold sale supply plus the migration supply); `quote_reserve` is the quote raised so far, net of
//! fees (fees are accounted for separately by the caller).
//!
//! Graduation is exact: a buy whose net input reaches `threshold - quote_reserve` is filled with exactly that
//! net amount, receives every unsold sale token, moves the price to the curve's end, and has the rest of its
//! input refunded. The pool then holds exactly `threshold` quote and exactly the migration supply.

use crate::constants::{BPS_DENOMINATOR, MAX_QUOTE_EXCESS_UNITS, MAX_SALE_DUST_BASE_UNITS};
use crate::curve::Curve;
use crate::error::{CurveError, Result};
use crate::fee::{fee_on_amount, gross_for_net};
use crate::math::{migration_sqrt_price, mul_div_u64, to_u64, Rounding};
use crate::safe_math::SafeMath;

/// A curve with the amounts it trades for.
#[derive(Debug, Clone, Copy)]
pub struct Market<'a> {
    pub curve: Curve<'a>,
    /// Quote raised (net of fees) at which the curve completes.
    pub threshold: u64,
    /// Tokens sold along the curve.
    pub sale_supply: u64,
    /// Tokens kept for the AMM at graduation.
    pub migration_supply: u64,
}

/// The mutable part of a bonding-curve pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolState {
    pub sqrt_price: u128,
    pub base_reserve: u64,
    pub quote_reserve: u64,
}

/// Direction of a trade, from the trader's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Quote in, tokens out.
    Buy,
    /// Tokens in, quote out.
    Sell,
}

impl Side {
    /// The side as the API and the index name it.
    pub fn name(self) -> &'static str {
        match self {
            Side::Buy => "buy",
            Side::Sell => "sell",
        }
    }
}

/// The program's side byte (`SwapArgs::side`, `EvtSwap::side`): 0 a buy, 1 a sell; any other byte is
/// returned as the error.
impl TryFrom<u8> for Side {
    type Error = u8;

    fn try_from(byte: u8) -> core::result::Result<Self, u8> {
        match byte {
            0 => Ok(Side::Buy),
            1 => Ok(Side::Sell),
            other => Err(other),
        }
    }
}

/// The outcome of a swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapResult {
    /// What the trader pays (gross; for a buy this includes the fee and excludes any refund).
    pub amount_in: u64,
    /// What the trader receives (for a sell, after the fee).
    pub amount_out: u64,
    /// Fee charged, in quote base units.
    pub fee: u64,
    /// Part of the offered input not used because the curve completed (buys only).
    pub refund: u64,
    /// Pool state after the swap.
    pub next: PoolState,
    /// Whether this swap completed the curve.
    pub completes: bool,
}

impl<'a> Market<'a> {
    /// Checks that the curve sells the sale supply for the threshold and ends at the migration price:
    ///
    /// * the curve's shape is valid ([`Curve::validate`]);
    /// * it sells at most `sale_supply` even rounding up, and at least `sale_supply -
    ///   MAX_SALE_DUST_BASE_UNITS` rounding down;
    /// * it takes at least `threshold` even rounding down (so the price cannot reach the end before the
    ///   threshold is raised), and at most `threshold + MAX_QUOTE_EXCESS_UNITS` rounding up;
    /// * it ends at `floor(sqrt(threshold * 2^128 / migration_supply))`, the migration price.
    pub fn validate(&self) -> Result<()> {
        self.curve.validate()?;
        if self.threshold == 0 || self.sale_supply == 0 || self.migration_supply == 0 {
            return Err(CurveError::CurveMismatch);
        }
        self.sale_supply.safe_add(self.migration_supply)?;
        let sale = self.sale_supply as u128;
        let threshold = self.threshold as u128;
        if self.curve.total_base(Rounding::Up)? > sale
            || sale.saturating_sub(self.curve.total_base(Rounding::Down)?)
                > MAX_SALE_DUST_BASE_UNITS as u128
            || self.curve.total_quote(Rounding::Down)? < threshold
            || self
                .curve
                .total_quote(Rounding::Up)?
                .saturating_sub(threshold)
                > MAX_QUOTE_EXCESS_UNITS as u128
            || self.curve.sqrt_end_price()
                != migration_sqrt_price(self.threshold, self.migration_supply)?
        {
            return Err(CurveError::CurveMismatch);
        }
        Ok(())
    }

    /// Tokens of the sale supply the exact curve does not sell (at most; rounding dust that goes to the buyer
    /// who completes the curve).
    pub fn sale_dust(&self) -> Result<u64> {
        let sold = self.curve.total_base(Rounding::Down)?;
        to_u64((self.sale_supply as u128).saturating_sub(sold))
    }

    /// A fresh pool: price at the start, every token held, no quote raised.
    pub fn initial_state(&self) -> Result<PoolState> {
        Ok(PoolState {
            sqrt_price: self.curve.sqrt_start_price,
            base_reserve: self.sale_supply.safe_add(self.migration_supply)?,
            quote_reserve: 0,
        })
    }

    /// Whether the curve is complete in `state`.
    pub fn is_complete(&self, state: &PoolState) -> bool {
        state.quote_reserve >= self.threshold
    }

    /// Progress towards graduation in basis points: `floor(quote_reserve * 10_000 / threshold)`.
    pub fn progress_bps(&self, state: &PoolState) -> Result<u16> {
        let p = mul_div_u64(
            state.quote_reserve.min(self.threshold),
            BPS_DENOMINATOR,
            self.threshold,
            Rounding::Down,
        )?;
        Ok(p as u16)
    }

    fn unsold(&self, state: &PoolState) -> Result<u64> {
        state
            .base_reserve
            .checked_sub(self.migration_supply)
            .ok_or(CurveError::InconsistentState)
    }

    fn remaining_quote(&self, state: &PoolState) -> Result<u64> {
        let left = self.threshold.saturating_sub(state.quote_reserve);
        if left == 0 {
            return Err(CurveError::CurveComplete);
        }
        Ok(left)
    }

    /// The buy that completes the curve: pays exactly `needed` net plus its fee, receives every unsold token.
    fn completing_buy(
        &self,
        state: &PoolState,
        offered: u64,
        needed: u64,
        fee_bps: u16,
    ) -> Result<SwapResult> {
        let gross = gross_for_net(needed, fee_bps)?;
        let refund = offered
            .checked_sub(gross)
            .ok_or(CurveError::InconsistentState)?;
        let out = self.unsold(state)?;
        Ok(SwapResult {
            amount_in: gross,
            amount_out: out,
            fee: gross
                .checked_sub(needed)
                .ok_or(CurveError::InconsistentState)?,
            refund,
            next: PoolState {
                sqrt_price: self.curve.sqrt_end_price(),
                base_reserve: self.migration_supply,
                quote_reserve: self.threshold,
            },
            completes: true,
        })
    }

    /// Buy with `amount_in` quote (fee included). A buy that reaches the threshold is filled up to it and the
    /// rest refunded.
    pub fn buy_exact_in(
        &self,
        state: &PoolState,
        amount_in: u64,
        fee_bps: u16,
    ) -> Result<SwapResult> {
        if amount_in == 0 {
            return Err(CurveError::ZeroAmount);
        }
        let needed = self.remaining_quote(state)?;
        let fee = fee_on_amount(amount_in, fee_bps)?;
        let net = amount_in.checked_sub(fee).ok_or(CurveError::InvalidFee)?;
        if net >= needed {
            return self.completing_buy(state, amount_in, needed, fee_bps);
        }
        let fill = self.curve.buy_quote_in(state.sqrt_price, net as u128)?;
        if fill.amount_in != net as u128 {
            // The curve ended before the threshold was raised: the curve and pool disagree.
            return Err(CurveError::InconsistentState);
        }
        let out = to_u64(fill.amount_out)?;
        if out == 0 {
            return Err(CurveError::AmountTooSmall);
        }
        if out > self.unsold(state)? {
            return Err(CurveError::InconsistentState);
        }
        Ok(SwapResult {
            amount_in,
            amount_out: out,
            fee,
            refund: 0,
            next: PoolState {
                sqrt_price: fill.sqrt_price,
                base_reserve: state
                    .base_reserve
                    .checked_sub(out)
                    .ok_or(CurveError::InconsistentState)?,
                quote_reserve: state.quote_reserve.safe_add(net)?,
            },
            completes: false,
        })
    }

    /// Sell `amount_in` tokens; the fee comes out of the quote paid.
    pub fn sell_exact_in(
        &self,
        state: &PoolState,
        amount_in: u64,
        fee_bps: u16,
    ) -> Result<SwapResult> {
        if amount_in == 0 {
            return Err(CurveError::ZeroAmount);
        }
        self.remaining_quote(state)?;
        let fill = self
            .curve
            .sell_base_in(state.sqrt_price, amount_in as u128)?;
        let gross = to_u64(fill.amount_out)?;
        if gross > state.quote_reserve {
            return Err(CurveError::InconsistentState);
        }
        let fee = fee_on_amount(gross, fee_bps)?;
        let out = gross.saturating_sub(fee);
        if out == 0 {
            return Err(CurveError::AmountTooSmall);
        }
        Ok(SwapResult {
            amount_in,
            amount_out: out,
            fee,
            refund: 0,
            next: PoolState {
                sqrt_price: fill.sqrt_price,
                base_reserve: state.base_reserve.safe_add(amount_in)?,
                quote_reserve: state
                    .quote_reserve
                    .checked_sub(gross)
                    .ok_or(CurveError::InconsistentState)?,
            },
            completes: false,
        })
    }

    /// Buy exactly `amount_out` tokens: the net quote is what the curve needs to give them up, rounded up
    /// (the price moves at least as far as those tokens take it), plus its fee ([`gross_for_net`]), so the
    /// trader never pays less than the exact curve asks.
    ///
    /// At the graduation boundary the buy completes the curve instead: when the tokens cost at least the
    /// quote still missing (or lie past the curve's end, in its rounding dust), the trader pays exactly the
    /// missing quote plus its fee and receives every unsold token, at least `amount_out`, as
    /// [`Market::buy_exact_in`]'s completing buy does. Asking for more than is unsold is refused
    /// ([`CurveError::InsufficientLiquidity`]).
    pub fn buy_exact_out(
        &self,
        state: &PoolState,
        amount_out: u64,
        fee_bps: u16,
    ) -> Result<SwapResult> {
        if amount_out == 0 {
            return Err(CurveError::ZeroAmount);
        }
        let needed = self.remaining_quote(state)?;
        let unsold = self.unsold(state)?;
        if amount_out > unsold {
            return Err(CurveError::InsufficientLiquidity);
        }
        let complete = |m: &Self| {
            let gross = gross_for_net(needed, fee_bps)?;
            m.completing_buy(state, gross, needed, fee_bps)
        };
        if amount_out == unsold {
            return complete(self);
        }
        let fill = match self
            .curve
            .buy_base_out(state.sqrt_price, amount_out as u128)
        {
            Ok(fill) => fill,
            // Tokens past the curve's end: only the completing buy hands out the dust.
            Err(CurveError::InsufficientLiquidity) => return complete(self),
            Err(e) => return Err(e),
        };
        let net = to_u64(fill.amount_in)?;
        if net >= needed || fill.sqrt_price >= self.curve.sqrt_end_price() {
            return complete(self);
        }
        if net == 0 {
            return Err(CurveError::AmountTooSmall);
        }
        let gross = gross_for_net(net, fee_bps)?;
        Ok(SwapResult {
            amount_in: gross,
            amount_out,
            fee: gross.safe_sub(net)?,
            refund: 0,
            next: PoolState {
                sqrt_price: fill.sqrt_price,
                base_reserve: state.base_reserve.safe_sub(amount_out)?,
                quote_reserve: state.quote_reserve.safe_add(net)?,
            },
            completes: false,
        })
    }

    /// Sell for exactly `amount_out` quote after the fee: the pool pays out the gross amount whose fee leaves
    /// `amount_out` ([`gross_for_net`]), and takes the tokens the curve needs to release that much quote,
    /// rounded up (the price falls at least as far).
    pub fn sell_exact_out(
        &self,
        state: &PoolState,
        amount_out: u64,
        fee_bps: u16,
    ) -> Result<SwapResult> {
        if amount_out == 0 {
            return Err(CurveError::ZeroAmount);
        }
        self.remaining_quote(state)?;
        let gross = gross_for_net(amount_out, fee_bps)?;
        if gross > state.quote_reserve {
            return Err(CurveError::InsufficientLiquidity);
        }
        let fill = self.curve.sell_quote_out(state.sqrt_price, gross as u128)?;
        let base_in = to_u64(fill.amount_in)?;
        if base_in == 0 {
            return Err(CurveError::AmountTooSmall);
        }
        Ok(SwapResult {
            amount_in: base_in,
            amount_out,
            fee: gross.safe_sub(amount_out)?,
            refund: 0,
            next: PoolState {
                sqrt_price: fill.sqrt_price,
                base_reserve: state.base_reserve.safe_add(base_in)?,
                quote_reserve: state.quote_reserve.safe_sub(gross)?,
            },
            completes: false,
        })
    }

    /// Swap either way, exact out.
    pub fn swap_exact_out(
        &self,
        state: &PoolState,
        side: Side,
        amount_out: u64,
        fee_bps: u16,
    ) -> Result<SwapResult> {
        match side {
            Side::Buy => self.buy_exact_out(state, amount_out, fee_bps),
            Side::Sell => self.sell_exact_out(state, amount_out, fee_bps),
        }
    }

    /// Swap either way, exact in.
    pub fn swap_exact_in(
        &self,
        state: &PoolState,
        side: Side,
        amount_in: u64,
        fee_bps: u16,
    ) -> Result<SwapResult> {
        match side {
            Side::Buy => self.buy_exact_in(state, amount_in, fee_bps),
            Side::Sell => self.sell_exact_in(state, amount_in, fee_bps),
        }
    }
}
