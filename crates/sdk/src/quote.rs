//! Quotes for bonding-curve pools from decoded accounts, with the exact math the program runs; the AMM's
//! beside them ([`amm`]).

pub mod amm;

use curve::{Market, Segment, Side, SwapResult, MAX_SEGMENTS};
use launchpad::state::{Config, Pool, PoolStatus};

/// The fee the pool charges at `now` (unix seconds).
pub fn fee_bps_at(config: &Config, pool: &Pool, now: i64) -> u16 {
    config
        .fee_schedule()
        .fee_bps_at(now.saturating_sub(pool.launch_timestamp))
}

/// Why a curve quote is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteError {
    /// The curve completed; it trades no more (waiting for migration).
    Complete,
    /// The pool migrated; it trades on the AMM.
    Migrated,
    Curve(curve::CurveError),
}

impl From<curve::CurveError> for QuoteError {
    fn from(e: curve::CurveError) -> Self {
        QuoteError::Curve(e)
    }
}

fn with_market<T>(config: &Config, f: impl FnOnce(Market<'_>) -> T) -> T {
    let segments: [Segment; MAX_SEGMENTS] = config.curve_segments();
    f(config.market(&segments))
}

/// Where a launch's pool trades, from its status: decided once on the quote path, and only a [`Bonding`]
/// pool is quoted on the curve.
#[derive(Debug, Clone, Copy)]
pub enum Venue<'a> {
    /// On its curve.
    Curve(Bonding<'a>),
    /// Graduated and waiting for migration: it trades nowhere until then.
    AwaitingMigration,
    /// Migrated: it trades on its AMM pool ([`amm`]).
    Amm,
}

/// A pool whose status was checked to be bonding (see [`venue`]): what the curve's quotes take.
#[derive(Debug, Clone, Copy)]
pub struct Bonding<'a>(&'a Pool);

impl<'a> Bonding<'a> {
    /// The pool, when it trades on its curve; else why it cannot be quoted there.
    pub fn of(pool: &'a Pool) -> Result<Bonding<'a>, QuoteError> {
        match venue(pool) {
            Venue::Curve(b) => Ok(b),
            Venue::AwaitingMigration => Err(QuoteError::Complete),
            Venue::Amm => Err(QuoteError::Migrated),
        }
    }
}

/// Where `pool` trades now: the one check of a pool's status on the quote path.
pub fn venue(pool: &Pool) -> Venue<'_> {
    match pool.status {
        PoolStatus::Bonding => Venue::Curve(Bonding(pool)),
        PoolStatus::Complete => Venue::AwaitingMigration,
        PoolStatus::Migrated => Venue::Amm,
    }
}

/// What `swap` would do right now with `amount_in`.
pub fn quote_exact_in(
    config: &Config,
    pool: Bonding<'_>,
    side: Side,
    amount_in: u64,
    now: i64,
) -> Result<SwapResult, QuoteError> {
    let fee = fee_bps_at(config, pool.0, now);
    Ok(with_market(config, |m| {
        m.swap_exact_in(&pool.0.state(), side, amount_in, fee)
    })?)
}

/// What `swap_exact_out` would do right now for exactly `amount_out`.
pub fn quote_exact_out(
    config: &Config,
    pool: Bonding<'_>,
    side: Side,
    amount_out: u64,
    now: i64,
) -> Result<SwapResult, QuoteError> {
    let fee = fee_bps_at(config, pool.0, now);
    Ok(with_market(config, |m| match side {
        Side::Buy => m.buy_exact_out(&pool.0.state(), amount_out, fee),
        Side::Sell => m.sell_exact_out(&pool.0.state(), amount_out, fee),
    })?)
}

/// Progress to graduation in basis points (complete and migrated pools are at 10,000: their reserves
/// have moved on, but the curve was sold out).
pub fn progress_bps(config: &Config, pool: &Pool) -> u16 {
    if pool.status != PoolStatus::Bonding {
        return 10_000;
    }
    with_market(config, |m| m.progress_bps(&pool.state()).unwrap_or(0))
}
