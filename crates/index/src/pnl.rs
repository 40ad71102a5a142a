//! Profit and loss of one wallet in one launched token, from its indexed trades (curve and AMM) in chain
//! order: tokens held, cost basis by average cost (fees included), realized and unrealized PnL. Pure; the
//! store reads the trades ([`crate::read`]) and the API prices the position.
//!
//! # The method
//! - A **buy** adds the tokens it received (`base_amount`) and what it paid (`quote_amount`: the curve's fee
//!   and the AMM's fee included) to the position: cost basis += paid, held += received.
//! - A **sell** of `q` tokens for proceeds `p` (what the wallet received, after the fee; the AMM's fee on a
//!   sell is taken in tokens and is part of `q`) takes the average cost of the tokens sold out of the cost
//!   basis: `cost_out = cost * q / held`, and realizes `p - cost_out`. The average cost per token held does
//!   not change on a sell.
//! - **Transfers move cost basis at zero.** Tokens held follow the chain's balance, not the trades:
//!   - tokens that arrived by transfer carry no cost: a balance above what the trades left adds tokens at
//!     zero cost (the average cost per token falls), and a sell of more tokens than the trades left sells
//!     the excess at zero cost (all of the cost basis leaves with the sale, the rest is profit);
//!   - tokens that left by transfer take no cost with them: a balance below what the trades left lowers
//!     the tokens held and keeps the cost basis (the average cost per token rises; with nothing left, the
//!     whole cost basis is an unrealized loss).
//!
//!   The index keeps balances, not transfers: each trade is stored with the wallet's balance of the token
//!   just before its transaction (the transaction's own pre-token balances of the wallet's accounts of the
//!   mint, `market_trades.wallet_before`, migration 0022). The position is reconciled with that balance
//!   before the trade is applied, so a transfer between two trades is accounted where it happened (a sell
//!   after tokens were sent away takes the higher average out), and once more with the balance now, after
//!   the last trade. A trade stored without it (indexed before 0022, or the second trade of the wallet in
//!   one transaction) is applied as it is; a transfer before it is then accounted at the next
//!   reconciliation.
//! - Network fees (the transaction's lamports) are not trades and are not counted.
//!
//! # Exactness and rounding
//! The cost basis and the realized PnL are carried as exact rationals (a sell's `cost * q / held` is not
//! rounded), so nothing is rounded while trades are applied. Each figure is rounded once, when it is shown:
//! toward zero, to a quote base unit ([`Figures`]), to an 18-decimal fixed price (the average entry), or to
//! a millionth of a dollar (USD).

use crate::usd::UsdRate;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};

/// Which way a trade went, as the market series records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    /// `tokens` received for `paid` quote (fee included).
    Buy { tokens: u64, paid: u64 },
    /// `tokens` given for `received` quote (after the fee).
    Sell { tokens: u64, received: u64 },
}

/// A position built from trades in chain order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// Tokens held, base units (from the trades until [`Position::reconcile`] sets the chain's balance).
    pub held: u128,
    /// Cost basis of the tokens held, quote base units, exact.
    pub cost: BigRational,
    /// Realized PnL, quote base units, exact.
    pub realized: BigRational,
    /// Totals of the trades.
    pub bought: u128,
    pub paid: u128,
    pub sold: u128,
    pub received: u128,
    pub buys: u64,
    pub sells: u64,
    /// Unix seconds of the first buy.
    pub first_buy: Option<i64>,
}

impl Default for Position {
    fn default() -> Self {
        Position {
            held: 0,
            cost: BigRational::zero(),
            realized: BigRational::zero(),
            bought: 0,
            paid: 0,
            sold: 0,
            received: 0,
            buys: 0,
            sells: 0,
            first_buy: None,
        }
    }
}

fn int(v: u128) -> BigRational {
    BigRational::from_integer(BigInt::from(v))
}

impl Position {
    /// Applies one trade made at `time` (unix seconds).
    pub fn apply(&mut self, fill: Fill, time: i64) {
        match fill {
            Fill::Buy { tokens, paid } => {
                self.held += u128::from(tokens);
                self.cost += int(u128::from(paid));
                self.bought += u128::from(tokens);
                self.paid += u128::from(paid);
                self.buys += 1;
                self.first_buy.get_or_insert(time);
            }
            Fill::Sell { tokens, received } => {
                let q = u128::from(tokens);
                // Tokens beyond what the trades left came by transfer, at zero cost.
                let cost_out = if q >= self.held {
                    std::mem::replace(&mut self.cost, BigRational::zero())
                } else {
                    let out = &self.cost * int(q) / int(self.held);
                    self.cost -= &out;
                    out
                };
                self.held = self.held.saturating_sub(q);
                self.realized += int(u128::from(received)) - cost_out;
                self.sold += q;
                self.received += u128::from(received);
                self.sells += 1;
            }
        }
    }

    /// Sets the tokens held to the chain's `balance` (just before a trade, or now): the difference moved by
    /// transfer, at zero cost (see the module's documentation); the cost basis does not change.
    pub fn reconcile(&mut self, balance: u64) {
        self.held = u128::from(balance);
    }

    /// The position's figures with the tokens held valued at `value` (quote base units, as the spot price
    /// values them), rounded toward zero.
    pub fn figures(&self, value: u64) -> Figures {
        let unrealized = int(u128::from(value)) - &self.cost;
        let total = &self.realized + &unrealized;
        Figures {
            held: self.held,
            cost_basis: toward_zero(&self.cost),
            realized: toward_zero(&self.realized),
            unrealized: toward_zero(&unrealized),
            total: toward_zero(&total),
            value,
        }
    }

    /// The average cost per token held as a fixed price (whole quote per whole token times 10^18, the
    /// prices' format), rounded toward zero; `None` with no tokens held or a price beyond 128 bits.
    pub fn average_entry(&self, token_decimals: u8, quote_decimals: u8) -> Option<u128> {
        if self.held == 0 {
            return None;
        }
        let exp = i32::from(token_decimals) + curve::display::PRICE_DIGITS as i32
            - i32::from(quote_decimals);
        let ten = BigRational::from_integer(BigInt::from(10u8));
        let scale = if exp >= 0 {
            num_traits::pow(ten, exp as usize)
        } else {
            num_traits::pow(ten, (-exp) as usize).recip()
        };
        (&self.cost / int(self.held) * scale)
            .trunc()
            .to_integer()
            .to_u128()
    }

    /// The exact `figure` (one of the rationals above, or a difference of them) in dollars at `rate` per
    /// whole quote of `quote_decimals`, in millionths of a dollar rounded toward zero.
    pub fn usd(figure: &BigRational, rate: UsdRate, quote_decimals: u8) -> Option<i128> {
        let ten = BigInt::from(10u8);
        let num = BigInt::from(rate.mantissa)
            * num_traits::pow(ten.clone(), crate::usd::USD_DIGITS as usize);
        let den = num_traits::pow(ten, rate.scale as usize + usize::from(quote_decimals));
        (figure * BigRational::new(num, den))
            .trunc()
            .to_integer()
            .to_i128()
    }

    /// The figures of [`Position::figures`] in dollars at `rate` (millionths, each from the exact quote
    /// figure, rounded toward zero once); `None` when one does not fit 128 bits.
    pub fn usd_figures(&self, value: u64, rate: UsdRate, quote_decimals: u8) -> Option<UsdFigures> {
        let usd = |v: &BigRational| Position::usd(v, rate, quote_decimals);
        let unrealized = int(u128::from(value)) - &self.cost;
        Some(UsdFigures {
            cost_basis: usd(&self.cost)?,
            value: usd(&int(u128::from(value)))?,
            realized: usd(&self.realized)?,
            unrealized: usd(&unrealized)?,
            total: usd(&(&self.realized + &unrealized))?,
        })
    }
}

/// A position's figures in millionths of a dollar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsdFigures {
    pub cost_basis: i128,
    pub value: i128,
    pub realized: i128,
    pub unrealized: i128,
    pub total: i128,
}

/// A rational rounded toward zero to an integer (clamped to `i128`, which no sum of `u64` trades leaves).
pub fn toward_zero(v: &BigRational) -> i128 {
    let t = v.trunc().to_integer();
    t.to_i128().unwrap_or(if t.is_negative() {
        i128::MIN
    } else {
        i128::MAX
    })
}

/// A signed amount of millionths (of a dollar) as a decimal string (`-12.500000`).
pub fn signed_decimal(v: i128, digits: u32) -> String {
    let s = curve::display::fixed_to_decimal(v.unsigned_abs(), digits);
    if v < 0 {
        format!("-{s}")
    } else {
        s
    }
}

/// The shown figures of a position, quote base units rounded toward zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figures {
    pub held: u128,
    pub cost_basis: i128,
    pub realized: i128,
    pub unrealized: i128,
    /// `realized + unrealized`, rounded once.
    pub total: i128,
    /// The tokens held at the spot price.
    pub value: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn buy(tokens: u64, paid: u64) -> Fill {
        Fill::Buy { tokens, paid }
    }
    fn sell(tokens: u64, received: u64) -> Fill {
        Fill::Sell { tokens, received }
    }

    #[test]
    fn a_hand_computed_round_trip() {
        let mut p = Position::default();
        p.apply(buy(1_000, 10_000), 100); // avg 10
        p.apply(buy(3_000, 20_001), 200); // cost 30_001 for 4_000: avg 7.50025
        p.apply(sell(1_000, 9_000), 300); // cost out 7_500.25: realized 1_499.75
        assert_eq!(p.held, 3_000);
        assert_eq!(p.cost, BigRational::new(90_003.into(), 4.into()));
        assert_eq!(p.realized, BigRational::new(5_999.into(), 4.into()));
        assert_eq!(p.first_buy, Some(100));
        // 3_000 tokens worth 20_000: unrealized 20_000 - 22_500.75 = -2_500.75.
        let f = p.figures(20_000);
        assert_eq!(
            (f.cost_basis, f.realized, f.unrealized, f.total),
            (22_500, 1_499, -2_500, -1_001)
        );
        // 7.50025 base units of quote per base unit of token, 6 and 9 decimals: 0.00750025 SOL a token.
        assert_eq!(p.average_entry(6, 9), Some(7_500_250_000_000_000));
        p.apply(sell(3_000, 25_000), 400);
        // Sold out: realized is exactly everything received minus everything paid.
        assert_eq!(p.cost, BigRational::zero());
        assert_eq!(p.figures(0).realized, 9_000 + 25_000 - 30_001);
        assert_eq!(p.average_entry(6, 9), None);
    }

    #[test]
    fn transfers_move_cost_basis_at_zero() {
        let mut p = Position::default();
        p.apply(buy(1_000, 10_000), 1);
        // 500 more arrived by transfer: 1_500 held for 10_000, the average falls to 6.666...
        p.reconcile(1_500);
        assert_eq!(p.figures(0).cost_basis, 10_000);
        assert_eq!(p.average_entry(6, 6), Some(6_666_666_666_666_666_666));
        // Selling more than the trades left: the excess is at zero cost.
        let mut q = Position::default();
        q.apply(buy(1_000, 10_000), 1);
        q.apply(sell(1_500, 12_000), 2);
        assert_eq!((q.held, q.figures(0).realized), (0, 2_000));
        // All of it sent away: the cost basis stays, an unrealized loss.
        let mut r = Position::default();
        r.apply(buy(1_000, 10_000), 1);
        r.reconcile(0);
        let f = r.figures(0);
        assert_eq!(
            (f.cost_basis, f.unrealized, f.total),
            (10_000, -10_000, -10_000)
        );
    }

    #[test]
    fn usd_is_the_exact_figure_times_the_rate_toward_zero() {
        // $142.5 a SOL; -1.5 lamports... -1_500_000_001 lamports is -$213.750000142.
        let rate = UsdRate {
            mantissa: 1_425,
            scale: 1,
        };
        let v = BigRational::from_integer(BigInt::from(-1_500_000_001i64));
        assert_eq!(Position::usd(&v, rate, 9), Some(-213_750_000));
        assert_eq!(signed_decimal(-213_750_000, 6), "-213.750000");
        assert_eq!(signed_decimal(5, 6), "0.000005");
    }

    /// The textbook average-cost method, written independently: the average price per token is tracked
    /// directly, a sell realizes `(received - average * q)`, a buy reprices the average.
    fn reference(fills: &[Fill]) -> (u128, BigRational, BigRational) {
        let mut held: u128 = 0;
        let mut avg = BigRational::zero();
        let mut realized = BigRational::zero();
        for f in fills {
            match *f {
                Fill::Buy { tokens, paid } => {
                    let total = avg.clone() * int(held) + int(u128::from(paid));
                    held += u128::from(tokens);
                    avg = if held == 0 {
                        BigRational::zero()
                    } else {
                        total / int(held)
                    };
                }
                Fill::Sell { tokens, received } => {
                    let costed = u128::from(tokens).min(held);
                    realized += int(u128::from(received)) - avg.clone() * int(costed);
                    held -= costed;
                    if held == 0 {
                        avg = BigRational::zero();
                    }
                }
            }
        }
        (held, avg.clone() * int(held), realized)
    }

    /// What happened to a wallet's balance of one token, in chain order: its trades and its transfers.
    #[derive(Debug, Clone, Copy)]
    enum Step {
        Trade(Fill),
        /// Tokens received from another wallet.
        In(u64),
        /// Tokens sent to another wallet (at most what it holds).
        Out(u64),
    }

    /// Transfers at their place, written independently: the average cost per token held is tracked
    /// directly; a transfer in spreads the cost over more tokens, a transfer out over fewer, and a cost
    /// left with no token (everything sent away) waits for the next tokens. Sells sell at most what is held
    /// (the chain refuses more).
    fn reference_with_transfers(steps: &[Step]) -> (u128, BigRational, BigRational) {
        let mut held: u128 = 0;
        let mut avg = BigRational::zero();
        let mut stranded = BigRational::zero();
        let mut realized = BigRational::zero();
        let spread =
            |held: u128, total: BigRational, avg: &mut BigRational, stranded: &mut BigRational| {
                if held == 0 {
                    *avg = BigRational::zero();
                    *stranded = total;
                } else {
                    *avg = total / int(held);
                    *stranded = BigRational::zero();
                }
            };
        for s in steps {
            let total = avg.clone() * int(held) + &stranded;
            match *s {
                Step::Trade(Fill::Buy { tokens, paid }) => {
                    held += u128::from(tokens);
                    spread(held, total + int(u128::from(paid)), &mut avg, &mut stranded);
                }
                Step::Trade(Fill::Sell { tokens, received }) => {
                    let q = u128::from(tokens);
                    assert!(q <= held && q > 0);
                    realized += int(u128::from(received)) - avg.clone() * int(q);
                    held -= q;
                    if held == 0 {
                        avg = BigRational::zero();
                    }
                }
                Step::In(t) => {
                    held += u128::from(t);
                    spread(held, total, &mut avg, &mut stranded);
                }
                Step::Out(t) => {
                    held -= u128::from(t).min(held);
                    spread(held, total, &mut avg, &mut stranded);
                }
            }
        }
        (held, avg * int(held) + stranded, realized)
    }

    /// Steps a chain allows: a sell or a transfer out never moves more than the balance.
    fn steps() -> impl Strategy<Value = Vec<Step>> {
        prop::collection::vec(
            (
                0u8..4,
                0u64..5_000_000_000_000,
                0u64..100_000_000_000,
                1u64..10_000,
            ),
            0..40,
        )
        .prop_map(|raw| {
            let mut balance: u64 = 0;
            let mut out = Vec::new();
            for (kind, tokens, quote, share) in raw {
                // A fraction (share / 10_000) of the balance, at least one token.
                let part = ((u128::from(balance) * u128::from(share) / 10_000) as u64).max(1);
                match kind {
                    0 => {
                        balance += tokens;
                        out.push(Step::Trade(buy(tokens, quote)));
                    }
                    1 if balance > 0 => {
                        let q = part.min(balance);
                        balance -= q;
                        out.push(Step::Trade(sell(q, quote)));
                    }
                    2 => {
                        balance += tokens;
                        out.push(Step::In(tokens));
                    }
                    3 if balance > 0 => {
                        let t = part.min(balance);
                        balance -= t;
                        out.push(Step::Out(t));
                    }
                    _ => {}
                }
            }
            out
        })
    }

    #[test]
    fn a_transfer_between_trades_is_accounted_where_it_happened() {
        // Buy 1_000 for 10_000, send 500 away, sell 250 for 4_000: the 500 left cost 10_000 (20 each), the
        // sale takes 5_000 out and realizes -1_000.
        let mut p = Position::default();
        p.apply(buy(1_000, 10_000), 1);
        p.reconcile(500);
        p.apply(sell(250, 4_000), 2);
        p.reconcile(250);
        assert_eq!(p.figures(0).realized, -1_000);
        assert_eq!(p.figures(0).cost_basis, 5_000);
        // Reconciled only after the last trade, the sale would have taken 2_500 out (10 each).
        let mut late = Position::default();
        late.apply(buy(1_000, 10_000), 1);
        late.apply(sell(250, 4_000), 2);
        late.reconcile(250);
        assert_eq!(late.figures(0).realized, 1_500);
    }

    fn fills() -> impl Strategy<Value = Vec<Fill>> {
        prop::collection::vec(
            prop_oneof![
                (0u64..5_000_000_000_000, 0u64..100_000_000_000).prop_map(|(t, p)| buy(t, p)),
                (0u64..5_000_000_000_000, 0u64..100_000_000_000).prop_map(|(t, r)| sell(t, r)),
            ],
            0..40,
        )
    }

    proptest! {
        #[test]
        fn matches_the_reference_exactly(fills in fills(), value in 0u64..200_000_000_000) {
            let mut p = Position::default();
            for (i, f) in fills.iter().enumerate() {
                p.apply(*f, i as i64);
            }
            let (held, cost, realized) = reference(&fills);
            prop_assert_eq!(p.held, held);
            prop_assert_eq!(&p.cost, &cost);
            prop_assert_eq!(&p.realized, &realized);
            // Nothing is lost to rounding: what was received minus what was paid is the realized PnL
            // plus the cost basis still held, exactly.
            prop_assert_eq!(
                &p.realized - &p.cost,
                int(p.received) - int(p.paid)
            );
            // Each shown figure is the exact one rounded toward zero: within one base unit of it, never
            // beyond it.
            let f = p.figures(value);
            let exact_total = &realized + int(u128::from(value)) - &cost;
            let diff = exact_total - BigRational::from_integer(BigInt::from(f.total));
            prop_assert!(diff.abs() < int(1));
            prop_assert!(f.total == 0 || (diff.is_zero() || diff.is_positive() == (f.total > 0)));
            prop_assert_eq!(f.cost_basis, cost.trunc().to_integer().to_i128().unwrap());
        }

        /// The read path's way (the balance before each trade, then the balance now) equals transfers
        /// applied where they happened, exactly.
        #[test]
        fn transfers_between_trades_match_the_reference(steps in steps()) {
            let mut p = Position::default();
            let mut balance: u128 = 0;
            for (i, s) in steps.iter().enumerate() {
                match *s {
                    Step::Trade(f) => {
                        p.reconcile(balance as u64);
                        p.apply(f, i as i64);
                        balance = match f {
                            Fill::Buy { tokens, .. } => balance + u128::from(tokens),
                            Fill::Sell { tokens, .. } => balance - u128::from(tokens),
                        };
                    }
                    Step::In(t) => balance += u128::from(t),
                    Step::Out(t) => balance -= u128::from(t),
                }
            }
            p.reconcile(balance as u64);
            let (held, cost, realized) = reference_with_transfers(&steps);
            prop_assert_eq!(p.held, held);
            prop_assert_eq!(&p.cost, &cost);
            prop_assert_eq!(&p.realized, &realized);
        }
    }
}
