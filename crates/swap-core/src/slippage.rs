//! Slippage bounds, in one place: the least a swap may give (`min_out`) and the most it may take (`max_in`)
//! at a tolerance in basis points. Pure integer math with the rounding spelled out; each bound rounds
//! against the wallet's counterparty's favour only as far as the tolerance allows, never past it:
//!
//! - `min_out(a, bps) = a - ceil(a * bps / 10_000)`: the bound rounds **down** (the tolerance is used
//!   up to its last base unit, never exceeded);
//! - `max_in(a, bps) = a + ceil(a * bps / 10_000)`: the bound rounds **up** (a wallet never fails a
//!   swap the tolerance allows by one base unit of rounding).
//!
//! Both are exact for every `u128` without a wider type: with `a = q * 10_000 + r`,
//! `a * bps / 10_000 = q * bps + r * bps / 10_000`, where `q * bps <= a` and `r * bps < 10_000 * 10_000`.
//! Solana amounts are `u64`: [`min_out_u64`] and [`max_in_u64`] (the latter saturating at `u64::MAX`).

/// Basis points in one whole.
pub const BPS_ONE: u16 = 10_000;

/// `ceil(amount * bps / 10_000)`, exactly; `bps` above 10 000 counts as 10 000.
fn tolerance_ceil(amount: u128, bps: u16) -> u128 {
    let bps = u128::from(bps.min(BPS_ONE));
    let one = u128::from(BPS_ONE);
    let (q, r) = (amount / one, amount % one);
    // q * bps <= amount: no overflow; r * bps < 10^8.
    q * bps + (r * bps).div_ceil(one)
}

/// The least accepted out of `amount` at `slippage_bps`: `amount - ceil(amount * bps / 10_000)`, rounded
/// down (as the aggregators compute it).
pub fn min_out(amount: u128, slippage_bps: u16) -> u128 {
    amount - tolerance_ceil(amount, slippage_bps)
}

/// The most an exact-out swap may take for a quoted `amount_in`: `amount_in + ceil(amount_in * bps /
/// 10_000)`, rounded up, saturating at `u128::MAX`.
pub fn max_in(amount_in: u128, slippage_bps: u16) -> u128 {
    amount_in.saturating_add(tolerance_ceil(amount_in, slippage_bps))
}

/// [`min_out`] of a Solana amount.
pub fn min_out_u64(amount: u64, slippage_bps: u16) -> u64 {
    // At most `amount`: it fits.
    u64::try_from(min_out(u128::from(amount), slippage_bps)).unwrap_or(amount)
}

/// [`max_in`] of a Solana amount, saturating at `u64::MAX` (no token account holds more).
pub fn max_in_u64(amount_in: u64, slippage_bps: u16) -> u64 {
    u64::try_from(max_in(u128::from(amount_in), slippage_bps)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ruint::aliases::U256;

    /// The bounds by the definition, on 256 bits.
    fn reference(amount: u128, bps: u16, up: bool) -> U256 {
        let a = U256::from(amount);
        let one = U256::from(10_000u16);
        let factor = if up {
            one + U256::from(bps)
        } else {
            one - U256::from(bps)
        };
        let product = a * factor;
        if up {
            product.div_ceil(one)
        } else {
            product / one
        }
    }

    #[test]
    fn rounding_at_the_edges() {
        // 0.5% of 199 is 0.995: the minimum gives up one whole unit, the maximum adds one.
        assert_eq!(min_out(199, 50), 198);
        assert_eq!(max_in(199, 50), 200);
        // Exact tolerances add or take exactly that.
        assert_eq!(min_out(10_000, 50), 9_950);
        assert_eq!(max_in(10_000, 50), 10_050);
        assert_eq!(min_out(1, 1), 0);
        assert_eq!(max_in(1, 1), 2);
        assert_eq!(min_out(0, 5_000), 0);
        assert_eq!(max_in(0, 5_000), 0);
        assert_eq!(min_out(u128::MAX, 0), u128::MAX);
        assert_eq!(max_in(u128::MAX, 1), u128::MAX);
        assert_eq!(min_out(777, 10_000), 0);
        assert_eq!(min_out(777, u16::MAX), 0);
        assert_eq!(max_in_u64(u64::MAX, 50), u64::MAX);
        assert_eq!(min_out_u64(u64::MAX, 0), u64::MAX);
    }

    #[test]
    fn the_exact_out_maximum_rounds_up() {
        assert_eq!(max_in(1_000, 50), 1_005);
        assert_eq!(max_in(1_001, 50), 1_007);
        assert_eq!(max_in(10_000, 0), 10_000);
        // Saturates rather than overflows (the API clamps to a Solana amount anyway).
        assert_eq!(max_in(u128::MAX, 5_000), u128::MAX);
    }

    proptest! {
        #[test]
        fn min_out_is_the_floor_of_the_definition(amount in any::<u128>(), bps in 0u16..=10_000) {
            prop_assert_eq!(U256::from(min_out(amount, bps)), reference(amount, bps, false));
        }

        #[test]
        fn max_in_is_the_ceiling_of_the_definition(amount in any::<u128>(), bps in 0u16..=10_000) {
            let want = reference(amount, bps, true).min(U256::from(u128::MAX));
            prop_assert_eq!(U256::from(max_in(amount, bps)), want);
        }

        #[test]
        fn solana_bounds_bracket_the_amount(amount in any::<u64>(), bps in 0u16..=10_000) {
            let (lo, hi) = (min_out_u64(amount, bps), max_in_u64(amount, bps));
            prop_assert!(lo <= amount && amount <= hi);
            prop_assert_eq!(u128::from(lo), min_out(u128::from(amount), bps));
            prop_assert_eq!(u128::from(hi), max_in(u128::from(amount), bps).min(u128::from(u64::MAX)));
        }
    }
}
