//! The localnet's SOL/USD price: a Pyth `PriceUpdateV2` account at mainnet's address
//! ([`sdk::oracle::SOL_USD_PRICE_ACCOUNT`]), seeded at start and moved every few seconds, so that USD values
//! work end to end without a network. The price wanders around $150 on a slow deterministic wave (it depends
//! only on the chain's clock), published at the chain's time and posted at its slot, as Pyth's poster does.

use crate::chain::Chain;
use sdk::oracle::{self, PriceUpdate};
use solana_account::AccountSharedData;
use solana_pubkey::Pubkey;

/// The exponent Pyth's SOL/USD feed uses: prices in units of 10^-8 dollars.
pub const EXPONENT: i32 = -8;

/// How often the localnet moves the price (Pyth's sponsored feeds update at least once a minute).
pub const INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

/// The wandering price at `unix` seconds, in 10^-8 dollars: $150 ± 6% over a 20-minute wave.
pub fn wave_price(unix: i64) -> i64 {
    let phase = (unix.rem_euclid(1_200) as f64) / 1_200.0 * std::f64::consts::TAU;
    (150.0 * (1.0 + 0.06 * phase.sin()) * 1e8).round() as i64
}

/// Writes the SOL/USD account with `price` (10^-8 dollars) published at `publish_time`.
pub fn set_sol_usd(chain: &mut Chain, price: i64, publish_time: i64) {
    let update = PriceUpdate {
        feed_id: oracle::SOL_USD_FEED_ID,
        price,
        // Pyth's confidence is typically a few hundredths of a percent of the price.
        conf: (price / 2_000).unsigned_abs(),
        exponent: EXPONENT,
        publish_time,
        posted_slot: chain.slot(),
    };
    let data = oracle::encode_price_update(&update, &Pubkey::new_from_array([7; 32]));
    let mut account = AccountSharedData::new(
        chain.minimum_balance(data.len()),
        data.len(),
        &oracle::PYTH_RECEIVER_PROGRAM,
    );
    account.set_data_from_slice(&data);
    chain.set_account(oracle::SOL_USD_PRICE_ACCOUNT, account);
}

/// Moves the price to the wave's value at the chain's time.
pub fn tick(chain: &mut Chain) {
    let now = chain.clock().unix_timestamp;
    set_sol_usd(chain, wave_price(now), now);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wave_stays_within_six_percent_of_150() {
        for t in (0..2_400).step_by(7) {
            let p = wave_price(1_790_000_000 + t);
            assert!((14_100_000_000..=15_900_000_000).contains(&p), "{p}");
        }
    }
}
