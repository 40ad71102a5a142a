//! Quotes for the AMM pools launches migrate into, beside the curve's ([`super`]), and which side of a pool
//! is the quote.

use crate::accounts::AmmPool;
use anchor_lang::prelude::Pubkey;

/// Which of an AMM pool's two tokens is the quote token. The AMM orders a pool's mints by address
/// (`mint_a < mint_b`, enforced when the pool is made), so the quote is token a exactly when its mint sorts
/// first: one rule for a pool's account and for its events, which carry reserves but no mints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteSide {
    A,
    B,
}

impl QuoteSide {
    /// The quote's side in the pool that trades `base_mint` against `quote_mint`.
    pub fn of(quote_mint: &Pubkey, base_mint: &Pubkey) -> QuoteSide {
        if quote_mint < base_mint {
            QuoteSide::A
        } else {
            QuoteSide::B
        }
    }

    /// The quote's side in `pool`, trading against `quote_mint`.
    pub fn in_pool(pool: &AmmPool, quote_mint: &Pubkey) -> QuoteSide {
        let base_mint = if pool.mint_a == *quote_mint {
            &pool.mint_b
        } else {
            &pool.mint_a
        };
        QuoteSide::of(quote_mint, base_mint)
    }

    /// `(quote, base)` from a pool's `(a, b)` pair (reserves, fees owed, ...).
    pub fn split<T>(self, a: T, b: T) -> (T, T) {
        match self {
            QuoteSide::A => (a, b),
            QuoteSide::B => (b, a),
        }
    }

    /// `(quote reserve, base reserve)` of `pool`.
    pub fn reserves(self, pool: &AmmPool) -> (u64, u64) {
        self.split(pool.reserve_a, pool.reserve_b)
    }

    /// Whether a swap pays token a for token b: a buy (quote in, base out) does exactly when the quote is a.
    pub fn a_to_b(self, buying: bool) -> bool {
        (self == QuoteSide::A) == buying
    }
}

/// The pool's `(input, output)` reserves for a swap (`a_to_b`: token a in).
fn reserves_in_out(pool: &AmmPool, a_to_b: bool) -> (u64, u64) {
    if a_to_b {
        (pool.reserve_a, pool.reserve_b)
    } else {
        (pool.reserve_b, pool.reserve_a)
    }
}

/// What `swap` would do now on a decoded pool (`a_to_b`: token a in).
pub fn quote_exact_in(
    pool: &AmmPool,
    a_to_b: bool,
    amount_in: u64,
) -> curve::Result<curve::amm::AmmSwap> {
    let (r_in, r_out) = reserves_in_out(pool, a_to_b);
    curve::amm::swap_exact_in(r_in, r_out, amount_in, pool.fee_bps)
}

/// What `swap_exact_out` would do now for exactly `amount_out`.
pub fn quote_exact_out(
    pool: &AmmPool,
    a_to_b: bool,
    amount_out: u64,
) -> curve::Result<curve::amm::AmmSwap> {
    let (r_in, r_out) = reserves_in_out(pool, a_to_b);
    curve::amm::swap_exact_out(r_in, r_out, amount_out, pool.fee_bps)
}

#[cfg(test)]
mod tests {
    use super::QuoteSide;
    use anchor_lang::prelude::Pubkey;

    #[test]
    fn the_quote_is_a_exactly_when_its_mint_sorts_first() {
        let (low, high) = (
            Pubkey::new_from_array([1; 32]),
            Pubkey::new_from_array([2; 32]),
        );
        assert_eq!(QuoteSide::of(&low, &high), QuoteSide::A);
        assert_eq!(QuoteSide::of(&high, &low), QuoteSide::B);
        assert_eq!(QuoteSide::A.split(7, 9), (7, 9));
        assert_eq!(QuoteSide::B.split(7, 9), (9, 7));
    }

    #[test]
    fn a_buy_pays_token_a_exactly_when_the_quote_is_a() {
        assert!(QuoteSide::A.a_to_b(true));
        assert!(!QuoteSide::A.a_to_b(false));
        assert!(!QuoteSide::B.a_to_b(true));
        assert!(QuoteSide::B.a_to_b(false));
    }
}
