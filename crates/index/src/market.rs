//! The market series of a launched token: its bonding-curve trades and then its AMM trades as one series
//! ([`MarketTrade`]), ordered by [`seq`], and the candles rolled up from it ([`Candle`]). Pure: the store
//! writes and reads them (`store::market`, `read::market`), and tests recompute candles with
//! [`candles_of`] from the trade list to check the rollup.
//!
//! Prices are fixed-point integers (`curve::display::PRICE_DIGITS` digits of whole quote per whole token,
//! rounded down): the spot price after each trade (the curve's square-root price, or the AMM's reserves).
//! Volumes are base units: tokens bought or sold, and the quote the trader paid (fee included) or received
//! (after the fee).

use crate::model::EventKey;
pub use crate::model::{MarketTrade, Venue};
use anchor_lang::prelude::Pubkey;
use sdk::quote::amm::QuoteSide;
use serde::Serialize;

/// Candle intervals: name and length in seconds.
pub const INTERVALS: [(&str, i64); 8] = [
    ("1s", 1),
    ("15s", 15),
    ("1m", 60),
    ("5m", 300),
    ("15m", 900),
    ("1h", 3_600),
    ("4h", 14_400),
    ("1d", 86_400),
];

/// The intervals whose candles are stored (seconds). The others are derived on read by [`derive`] from the
/// stored interval they are a multiple of ([`source_interval`]): 5m and 15m from 1m, 4h and 1d from 1h. A
/// trade so writes 4 candles, not 8, and a derived candle is exactly the one its trades make (merging is
/// associative: see `derived_candles_equal_the_trades_own`).
pub const STORED_INTERVALS: [i64; 4] = [1, 15, 60, 3_600];

/// The stored interval the candles of `secs` are read from: itself when stored.
pub fn source_interval(secs: i64) -> i64 {
    match secs {
        300 | 900 => 60,
        14_400 | 86_400 => 3_600,
        s => s,
    }
}

/// The candles of the interval `secs` made of `candles` (oldest first, all of one finer interval that
/// `secs` is a multiple of), oldest first: each is the merge of the finer candles that start in it.
pub fn derive(candles: impl IntoIterator<Item = Candle>, secs: i64) -> Vec<Candle> {
    let mut out: Vec<Candle> = Vec::new();
    for c in candles {
        let start = bucket(c.start, secs);
        match out.last_mut() {
            Some(last) if last.start == start => last.merge(&c),
            _ => out.push(Candle { start, ..c }),
        }
    }
    out
}

/// The length in seconds of a named interval.
pub fn interval_secs(name: &str) -> Option<i64> {
    INTERVALS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The start of the interval of length `secs` that holds `time` (unix seconds; intervals align to the
/// epoch, so days start at 00:00 UTC).
pub fn bucket(time: i64, secs: i64) -> i64 {
    time - time.rem_euclid(secs)
}

/// The order of a trade in the chain: slot, position of its transaction in the slot, instruction, inner
/// instruction, as a fixed-width decimal string (40 digits) that sorts as the chain does. Also the trade
/// list's cursor.
pub fn seq(slot: u64, tx_index: u64, ix_index: u32, inner_index: u32) -> String {
    format!(
        "{slot:020}{:010}{:05}{:05}",
        tx_index.min(9_999_999_999),
        ix_index.min(99_999),
        inner_index.min(99_999)
    )
}

/// Whether `s` is a well-formed [`seq`] (a cursor a client sends back).
pub fn is_seq(s: &str) -> bool {
    s.len() == SEQ_DIGITS && s.bytes().all(|b| b.is_ascii_digit())
}

/// Digits of a trade's order key (its `cursor`).
pub const SEQ_DIGITS: usize = 40;

/// One trade.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeEntry {
    pub signature: String,
    pub slot: u64,
    /// Block time, unix seconds.
    pub time: i64,
    /// `curve` (the bonding curve) or `amm` (the pool the curve migrated into).
    pub venue: String,
    pub pool: String,
    /// `buy` (quote in, tokens out) or `sell`.
    pub side: String,
    pub wallet: String,
    /// What the wallet paid, base units of the input token (a buy's fee included, its refund excluded).
    pub amount_in: String,
    /// What the wallet received, base units of the output token (after the fee).
    pub amount_out: String,
    /// Tokens bought or sold, base units.
    pub base_amount: String,
    /// Quote paid or received, base units.
    pub quote_amount: String,
    pub fee: String,
    /// `quote` or `base`: the token the fee was taken in.
    pub fee_token: String,
    /// Spot price after the trade, whole quote per whole token (18 decimals, rounded down).
    pub price_after: String,
    /// Pass as `before` to get the trades older than this one.
    pub cursor: String,
}

impl From<MarketTrade> for TradeEntry {
    fn from(t: MarketTrade) -> Self {
        TradeEntry {
            signature: t.signature,
            slot: t.slot,
            time: t.time,
            venue: t.venue.name().into(),
            pool: t.pool,
            side: t.side.into(),
            wallet: t.wallet,
            amount_in: t.amount_in.to_string(),
            amount_out: t.amount_out.to_string(),
            base_amount: t.base_amount.to_string(),
            quote_amount: t.quote_amount.to_string(),
            fee: t.fee.to_string(),
            fee_token: t.fee_token.into(),
            price_after: curve::display::fixed_price_to_decimal(t.price),
            cursor: t.seq,
        }
    }
}

/// One candle: open/high/low/close prices (fixed-point), volumes in base units, the trade count, and the
/// order keys of its first and last trades (so a late-arriving trade merges into the right place).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candle {
    pub start: i64,
    pub open: u128,
    pub high: u128,
    pub low: u128,
    pub close: u128,
    pub volume_base: u128,
    pub volume_quote: u128,
    pub trades: u64,
    pub open_seq: String,
    pub close_seq: String,
}

impl Candle {
    /// The candle of one trade.
    pub fn of(price: u128, base: u64, quote: u64, seq: &str, start: i64) -> Candle {
        Candle {
            start,
            open: price,
            high: price,
            low: price,
            close: price,
            volume_base: u128::from(base),
            volume_quote: u128::from(quote),
            trades: 1,
            open_seq: seq.to_string(),
            close_seq: seq.to_string(),
        }
    }

    /// Adds the trades of `other` (same interval and start, disjoint trades) to this candle.
    pub fn merge(&mut self, other: &Candle) {
        if other.open_seq < self.open_seq {
            self.open = other.open;
            self.open_seq = other.open_seq.clone();
        }
        if other.close_seq > self.close_seq {
            self.close = other.close;
            self.close_seq = other.close_seq.clone();
        }
        self.high = self.high.max(other.high);
        self.low = self.low.min(other.low);
        self.volume_base = self.volume_base.saturating_add(other.volume_base);
        self.volume_quote = self.volume_quote.saturating_add(other.volume_quote);
        self.trades = self.trades.saturating_add(other.trades);
    }

    /// An empty interval after this one, as charts draw it: the previous close, no volume, no trades.
    pub fn empty_after(&self, start: i64) -> Candle {
        Candle {
            start,
            open: self.close,
            high: self.close,
            low: self.close,
            close: self.close,
            volume_base: 0,
            volume_quote: 0,
            trades: 0,
            open_seq: self.close_seq.clone(),
            close_seq: self.close_seq.clone(),
        }
    }
}

/// The candles of `trades` (any order) for an interval of `secs`, oldest first: the reference the
/// rollup must always equal.
pub fn candles_of<'a>(
    trades: impl IntoIterator<Item = (&'a str, i64, u128, u64, u64)>,
    secs: i64,
) -> Vec<Candle> {
    let mut out: std::collections::BTreeMap<i64, Candle> = std::collections::BTreeMap::new();
    for (seq, time, price, base, quote) in trades {
        let start = bucket(time, secs);
        let c = Candle::of(price, base, quote, seq, start);
        match out.get_mut(&start) {
            Some(existing) => existing.merge(&c),
            None => {
                out.insert(start, c);
            }
        }
    }
    out.into_values().collect()
}

/// `candles` (oldest first, all within `[first, last]`) with every interval from `first` to `last`
/// present: an empty interval repeats the previous close with zero volume (as GeckoTerminal does).
/// `before` is the last candle before `first`, if any; intervals before any trade stay absent.
pub fn fill(
    candles: Vec<Candle>,
    before: Option<Candle>,
    first: i64,
    last: i64,
    secs: i64,
) -> Vec<Candle> {
    let mut out = Vec::new();
    let mut prev = before;
    let mut it = candles.into_iter().peekable();
    let mut t = first;
    while t <= last {
        match it.peek() {
            Some(c) if c.start == t => {
                let c = it.next().expect("peeked");
                prev = Some(c.clone());
                out.push(c);
            }
            _ => {
                if let Some(p) = &prev {
                    out.push(p.empty_after(t));
                }
            }
        }
        t = match t.checked_add(secs) {
            Some(n) => n,
            None => break,
        };
    }
    out
}

/// A pool status as the index and the API name it.
pub fn status_name(status: sdk::accounts::PoolStatus) -> &'static str {
    match status {
        sdk::accounts::PoolStatus::Bonding => "bonding",
        sdk::accounts::PoolStatus::Complete => "complete",
        sdk::accounts::PoolStatus::Migrated => "migrated",
    }
}

/// Digits after the point of a market cap: a fixed price (18 digits) times a supply in base units (6 digits).
pub const MARKET_CAP_DIGITS: u32 =
    curve::display::PRICE_DIGITS + curve::constants::TOKEN_DECIMALS as u32;

/// The market cap of a fixed price and a supply in base units: whole quote times 10^[`MARKET_CAP_DIGITS`],
/// exact (saturating far beyond any real market).
pub fn market_cap(price: u128, supply: u64) -> u128 {
    price.saturating_mul(u128::from(supply))
}

/// `v / 10^digits` as an exact decimal string: the one fixed-point rendering (prices, market caps, USD).
pub use curve::display::fixed_to_decimal;

/// A spot price as every endpoint and the feed show it: whole quote per whole token, `PRICE_DIGITS` (18)
/// digits, rounded down once, when the fixed price is computed; `"0"` digits when it cannot be
/// (no tokens in the pool, or a price beyond u128).
pub fn price_to_decimal(price: Option<u128>) -> String {
    curve::display::fixed_price_to_decimal(price.unwrap_or(0))
}

/// The token's supply now: every launch mints [`curve::constants::TOTAL_SUPPLY_BASE_UNITS`]; migration may
/// burn what the pool does not need.
pub fn supply(pool: &sdk::accounts::Pool) -> u64 {
    curve::constants::TOTAL_SUPPLY_BASE_UNITS.saturating_sub(pool.burnt_base)
}

/// The curve's spot price (fixed-point) at a square-root price: the one formula for a curve's price.
pub fn curve_price(sqrt_price: u128, quote_decimals: u8) -> Option<u128> {
    curve::display::sqrt_price_to_fixed(
        sqrt_price,
        curve::constants::TOKEN_DECIMALS,
        quote_decimals,
    )
}

/// An AMM pool's spot price (fixed-point) at its reserves: the one formula for a pool's price.
pub fn amm_price(quote_reserve: u64, base_reserve: u64, quote_decimals: u8) -> Option<u128> {
    curve::display::reserves_to_fixed(
        quote_reserve,
        base_reserve,
        curve::constants::TOKEN_DECIMALS,
        quote_decimals,
    )
}

/// The launch a pool trades (its curve pool, and the AMM pool it migrated into): what pricing its trades
/// needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Market {
    pub mint: Pubkey,
    pub quote_mint: Pubkey,
    pub quote_decimals: u8,
}

impl Market {
    fn trade(
        &self,
        key: &EventKey,
        time: i64,
        venue: Venue,
        pool: &Pubkey,
        wallet: &Pubkey,
    ) -> MarketTrade {
        MarketTrade {
            signature: key.signature.clone(),
            ix_index: key.ix_index,
            inner_index: key.inner_index,
            slot: key.slot,
            seq: seq(key.slot, key.tx_index, key.ix_index, key.inner_index),
            time,
            mint: self.mint.to_string(),
            venue,
            pool: pool.to_string(),
            wallet: wallet.to_string(),
            side: "buy",
            amount_in: 0,
            amount_out: 0,
            base_amount: 0,
            quote_amount: 0,
            fee: 0,
            fee_token: "quote",
            price: 0,
            wallet_before: None,
        }
    }

    /// A curve trade of this launch, priced at the curve's spot price after it.
    pub fn curve_trade(&self, trade: &crate::model::Trade) -> MarketTrade {
        let (key, e) = (&trade.key, &trade.event);
        let mut t = self.trade(key, e.timestamp, Venue::Curve, &e.pool, &e.trader);
        t.trade(trade.side, e.amount_in, e.amount_out, e.fee);
        t.price = curve_price(e.sqrt_price, self.quote_decimals).unwrap_or(u128::MAX);
        t
    }

    /// A swap in this launch's AMM pool, priced at the pool's spot price after it; the AMM orders its
    /// mints by address and takes its fee in the input token.
    pub fn amm_trade(&self, key: &EventKey, s: &sdk::events::amm_events::EvtSwap) -> MarketTrade {
        let quote_side = QuoteSide::of(&self.quote_mint, &self.mint);
        let side = if s.a_to_b == (quote_side == QuoteSide::A) {
            curve::Side::Buy
        } else {
            curve::Side::Sell
        };
        let buy = side == curve::Side::Buy;
        let (quote_reserve, base_reserve) = quote_side.split(s.reserve_a, s.reserve_b);
        let mut t = self.trade(key, s.timestamp, Venue::Amm, &s.pool, &s.trader);
        t.trade(side, s.amount_in, s.amount_out, s.fee);
        t.fee_token = if buy { "quote" } else { "base" };
        t.price = amm_price(quote_reserve, base_reserve, self.quote_decimals).unwrap_or(u128::MAX);
        t
    }
}

/// Where a launch trades now and its spot price there (fixed-point): the curve, also while migration is
/// pending, or the AMM pool it migrated into when that pool is known.
pub fn spot_price(
    pool: &sdk::accounts::Pool,
    config: &sdk::accounts::Config,
    amm: Option<&sdk::accounts::AmmPool>,
) -> (Venue, u128) {
    match amm {
        Some(a) if pool.status == sdk::accounts::PoolStatus::Migrated => {
            let (quote, base) = QuoteSide::in_pool(a, &pool.quote_mint).reserves(a);
            let p = amm_price(quote, base, config.quote_decimals);
            (Venue::Amm, p.unwrap_or(0))
        }
        _ => {
            let p = curve_price(pool.sqrt_price, config.quote_decimals);
            (Venue::Curve, p.unwrap_or(0))
        }
    }
}

/// The change from `before` to `now` in percent, two decimals, rounded toward zero (`"-12.50"`); `None`
/// without a reference price.
pub fn change_percent(before: u128, now: u128) -> Option<String> {
    if before == 0 {
        return None;
    }
    let (diff, sign) = if now >= before {
        (now - before, "")
    } else {
        (before - now, "-")
    };
    // Basis points of percent: diff * 10^4 / before, in 256 bits.
    let bp = ruint::aliases::U256::from(diff) * ruint::aliases::U256::from(10_000u32)
        / ruint::aliases::U256::from(before);
    let bp = u128::try_from(bp).unwrap_or(u128::MAX);
    let sign = if bp == 0 { "" } else { sign };
    Some(format!("{sign}{}.{:02}", bp / 100, bp % 100))
}

/// The candle interval rolling 24h figures are summed from.
pub const WINDOW_INTERVAL_SECS: i64 = 3_600;

/// The start of the rolling 24h window at `now`: the current hour and the 23 before it (so the window
/// covers between 23 and 24 hours, and every launch's figure comes from at most 24 hourly candles).
pub fn window_start(now: i64) -> i64 {
    bucket(now, WINDOW_INTERVAL_SECS) - 23 * WINDOW_INTERVAL_SECS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_sorts_as_the_chain_orders_trades() {
        assert!(seq(9, 5, 0, 0) < seq(10, 0, 0, 0));
        assert!(seq(10, 1, 0, 0) > seq(10, 0, 7, 3));
        assert!(seq(10, 0, 2, 1) > seq(10, 0, 2, 0));
        assert!(is_seq(&seq(u64::MAX, u64::MAX, u32::MAX, u32::MAX)));
        assert!(!is_seq("12x"));
    }

    #[test]
    fn market_caps_and_changes_are_exact() {
        assert_eq!(fixed_to_decimal(5, 3), "0.005");
        assert_eq!(fixed_to_decimal(12_345, 2), "123.45");
        let price = 28_000_000_000u128; // 0.000000028 quote per token
        let cap = market_cap(price, curve::constants::TOTAL_SUPPLY_BASE_UNITS);
        assert_eq!(
            fixed_to_decimal(cap, MARKET_CAP_DIGITS),
            format!("28.{}", "0".repeat(24))
        );
        assert_eq!(change_percent(200, 250).as_deref(), Some("25.00"));
        assert_eq!(change_percent(300, 200).as_deref(), Some("-33.33"));
        assert_eq!(change_percent(3, 3).as_deref(), Some("0.00"));
        assert_eq!(change_percent(0, 3), None);
    }

    #[test]
    fn buckets_align_to_the_epoch() {
        assert_eq!(bucket(86_399, 86_400), 0);
        assert_eq!(bucket(90_061, 3_600), 86_400 + 3_600);
        assert_eq!(bucket(-1, 60), -60);
    }

    #[test]
    fn merging_in_any_order_gives_the_same_candle() {
        let trades = [
            (seq(1, 0, 0, 0), 100, 5u128, 10u64, 20u64),
            (seq(1, 1, 0, 0), 101, 9, 1, 2),
            (seq(2, 0, 0, 0), 119, 3, 4, 5),
        ];
        let forward = candles_of(
            trades.iter().map(|t| (t.0.as_str(), t.1, t.2, t.3, t.4)),
            60,
        );
        let backward = candles_of(
            trades
                .iter()
                .rev()
                .map(|t| (t.0.as_str(), t.1, t.2, t.3, t.4)),
            60,
        );
        assert_eq!(forward, backward);
        let c = &forward[0];
        assert_eq!((c.open, c.high, c.low, c.close), (5, 9, 3, 3));
        assert_eq!((c.volume_base, c.volume_quote, c.trades), (15, 27, 3));
    }

    proptest::proptest! {
        /// Every interval read from its stored source equals the candles computed from the trades.
        #[test]
        fn derived_candles_equal_the_trades_own(
            trades in proptest::collection::vec(
                (0u64..50, 0u64..3, 0i64..200_000, 1u128..1_000, 0u64..1_000, 0u64..1_000),
                1..60,
            ),
        ) {
            let trades: Vec<(String, i64, u128, u64, u64)> = trades
                .iter()
                .enumerate()
                .map(|(i, (slot, tx, time, p, b, q))| (seq(*slot, *tx, i as u32, 0), *time, *p, *b, *q))
                .collect();
            let of = |secs| candles_of(trades.iter().map(|t| (t.0.as_str(), t.1, t.2, t.3, t.4)), secs);
            for (_, secs) in INTERVALS {
                let source = source_interval(secs);
                proptest::prop_assert!(STORED_INTERVALS.contains(&source));
                proptest::prop_assert_eq!(secs % source, 0);
                proptest::prop_assert_eq!(derive(of(source), secs), of(secs));
            }
        }
    }

    #[test]
    fn fill_repeats_the_previous_close_and_skips_time_before_any_trade() {
        let a = Candle::of(5, 1, 1, &seq(1, 0, 0, 0), 120);
        let b = Candle::of(7, 1, 1, &seq(2, 0, 0, 0), 300);
        let filled = fill(vec![a.clone(), b.clone()], None, 0, 360, 60);
        let starts: Vec<i64> = filled.iter().map(|c| c.start).collect();
        assert_eq!(starts, [120, 180, 240, 300, 360]);
        assert_eq!(
            (filled[1].open, filled[1].close, filled[1].trades),
            (5, 5, 0)
        );
        assert_eq!(filled[4].close, 7);
        let before = Candle::of(4, 1, 1, &seq(0, 0, 0, 0), 0);
        assert_eq!(fill(vec![b], Some(before), 240, 300, 60)[0].close, 4);
    }
}
