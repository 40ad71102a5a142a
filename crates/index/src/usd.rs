//! USD values: quote-token figures (prices, market caps, volumes) times the quote's dollar price, exact
//! and rounded down. SOL's dollar price is the oracle's (Pyth's SOL/USD account, streamed like any account:
//! [`crate::model::OraclePrice`]); USDC counts as one dollar (its own feed moves within a fraction of a cent,
//! below what these figures show).

use crate::model::OraclePrice;
use ruint::aliases::U256;

/// Decimal places of USD market caps and volumes (USDC's own precision).
pub const USD_DIGITS: u32 = 6;

/// Dollars per whole quote token: `mantissa / 10^scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsdRate {
    pub mantissa: u128,
    pub scale: u32,
}

impl UsdRate {
    /// One dollar (USDC).
    pub const ONE: UsdRate = UsdRate {
        mantissa: 1,
        scale: 0,
    };

    /// The oracle's price as a rate; `None` for a price that is not positive or an exponent out of range.
    pub fn of_oracle(p: &OraclePrice) -> Option<UsdRate> {
        let price = u128::try_from(p.price).ok().filter(|v| *v > 0)?;
        if p.exponent <= 0 {
            let scale = p.exponent.unsigned_abs();
            (scale <= 38).then_some(UsdRate {
                mantissa: price,
                scale,
            })
        } else {
            Some(UsdRate {
                mantissa: price.checked_mul(10u128.checked_pow(p.exponent as u32)?)?,
                scale: 0,
            })
        }
    }

    /// The rate as a decimal string with its own digits (e.g. `142.12345678`).
    pub fn to_decimal(self) -> String {
        crate::market::fixed_to_decimal(self.mantissa, self.scale)
    }

    /// `value / 10^value_digits` quote times the rate, as dollars times `10^out_digits`, rounded down;
    /// `None` when the result does not fit 128 bits.
    pub fn convert(self, value: u128, value_digits: u32, out_digits: u32) -> Option<u128> {
        let num = U256::from(value)
            .checked_mul(U256::from(self.mantissa))?
            .checked_mul(U256::from(10u8).checked_pow(U256::from(out_digits))?)?;
        let den = U256::from(10u8).checked_pow(U256::from(value_digits + self.scale))?;
        u128::try_from(num / den).ok()
    }

    /// [`UsdRate::convert`] as a decimal string with `out_digits` places.
    pub fn convert_decimal(
        self,
        value: u128,
        value_digits: u32,
        out_digits: u32,
    ) -> Option<String> {
        self.convert(value, value_digits, out_digits)
            .map(|v| crate::market::fixed_to_decimal(v, out_digits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Version;
    use anchor_lang::prelude::Pubkey;

    fn oracle(price: i64, exponent: i32) -> OraclePrice {
        OraclePrice {
            address: Pubkey::default(),
            version: Version {
                slot: 1,
                write_version: 1,
            },
            price,
            conf: 0,
            exponent,
            publish_time: 0,
        }
    }

    #[test]
    fn a_pyth_price_converts_exactly_and_rounds_down() {
        let sol = UsdRate::of_oracle(&oracle(14_212_345_678, -8)).unwrap();
        assert_eq!(sol.to_decimal(), "142.12345678");
        // 30 SOL (9 decimals) is $4,263.7037034.
        assert_eq!(
            sol.convert_decimal(30_000_000_000, 9, 6).as_deref(),
            Some("4263.703703")
        );
        // One base unit of SOL is 1.4212345678e-7 dollars: rounds down to 0.000000 at six places.
        assert_eq!(sol.convert(1, 9, 6), Some(0));
        assert_eq!(sol.convert(1, 9, 18), Some(142_123_456_780));
        assert_eq!(UsdRate::ONE.convert(1_500_000, 6, 6), Some(1_500_000));
    }

    #[test]
    fn nonsense_prices_give_no_rate() {
        assert_eq!(UsdRate::of_oracle(&oracle(0, -8)), None);
        assert_eq!(UsdRate::of_oracle(&oracle(-5, -8)), None);
        assert_eq!(UsdRate::of_oracle(&oracle(5, -80)), None);
        assert_eq!(
            UsdRate::of_oracle(&oracle(5, 2)),
            Some(UsdRate {
                mantissa: 500,
                scale: 0
            })
        );
    }

    #[test]
    fn conversion_matches_the_rational_for_random_values() {
        // Exact against u128 arithmetic where it fits: floor(v * m * 10^o / 10^(d + s)).
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = u128::from(x % 1_000_000_000_000_000);
            let m = u128::from(x % 100_000_000_000).max(1);
            let rate = UsdRate {
                mantissa: m,
                scale: 8,
            };
            let want = v * m / 10u128.pow(9 + 8 - 6);
            assert_eq!(rate.convert(v, 9, 6), Some(want));
        }
    }
}
