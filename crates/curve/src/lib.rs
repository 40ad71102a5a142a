//! Exact bonding-curve math for the launchpad: one implementation used by the on-chain program, the indexer
//! and the API's quoter, so a quote never disagrees with the chain.
//!
//! * [`math`]: checked 256-bit helpers, the constant-product range formulas on Q64.64 square-root prices and
//!   the migration price every curve ends at.
//! * [`curve`]: a start price plus up to 16 segments; traversal in both directions, exact in and exact out.
//! * [`swap`]: pool-level swaps with fees, the exact graduation fill and refund.
//! * [`fee`]: fixed and time-decaying fee schedules, the creator/partner split.
//! * [`shares`]: creator fees split among up to 10 recipients, the referral's cut of the partner's fee.
//! * [`preset`]: `fair`, `distribute`, `shield` for SOL and USDC, built and validated.
//! * [`pinned`]: the six preset configs as constants, which the program requires configs to equal.
//! * [`display`]: integer-only decimal formatting of amounts and prices.
//! * [`safe_math`]: [`SafeMath`], the checked `+ - * /` every module uses, failing with
//!   [`CurveError::MathOverflow`].
//!
//! No floats, no panics on any input: every fallible function returns [`CurveError`]. Rounding always
//! favours the pool: amounts paid out round down, amounts taken in and fees round up.
#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]

pub mod amm;
pub mod constants;
pub mod curve;
pub mod display;
pub mod error;
pub mod fee;
pub mod math;
pub mod pinned;
pub mod preset;
pub mod safe_math;
pub mod shares;
pub mod swap;

pub use curve::{Curve, Fill, Segment, MAX_SEGMENTS};
pub use error::{CurveError, Result};
pub use fee::{fee_on_amount, gross_for_net, split_fee, FeeSchedule, FeeSplit};
pub use math::Rounding;
pub use pinned::pinned_preset;
pub use preset::{preset_config, Preset, PresetConfig, QuoteAsset};
pub use safe_math::SafeMath;
pub use shares::{distribute, split_referral, validate_shares, ReferralSplit, MAX_FEE_RECIPIENTS};
pub use swap::{Market, PoolState, Side, SwapResult};
