//! Token and launch constants. Units are in the names: `*_BASE_UNITS` are token base units (6 decimals),
//! `*_LAMPORTS` and `*_USDC_UNITS` are quote base units, `*_BPS` are basis points of 10_000.

/// Decimals of every launched token.
pub const TOKEN_DECIMALS: u8 = 6;
/// Whole tokens minted per launch.
pub const TOTAL_SUPPLY_TOKENS: u64 = 1_000_000_000;
/// Base units minted per launch: 1e9 tokens at 6 decimals.
pub const TOTAL_SUPPLY_BASE_UNITS: u64 = TOTAL_SUPPLY_TOKENS * 1_000_000;
/// Share of supply sold along the curve.
pub const SALE_SHARE_BPS: u64 = 8_000;
/// Base units sold along the curve (80% of supply).
pub const SALE_SUPPLY_BASE_UNITS: u64 = TOTAL_SUPPLY_BASE_UNITS / 10_000 * SALE_SHARE_BPS;
/// Base units that go into the AMM at graduation (20% of supply).
pub const MIGRATION_SUPPLY_BASE_UNITS: u64 = TOTAL_SUPPLY_BASE_UNITS - SALE_SUPPLY_BASE_UNITS;
/// Quote raised at graduation with SOL as the quote: 10 SOL.
pub const GRADUATION_LAMPORTS: u64 = 10_000_000_000;
/// Quote raised at graduation with USDC as the quote: 750 USDC (6 decimals).
pub const GRADUATION_USDC_UNITS: u64 = 750_000_000;
/// Decimals of the quote mints (wrapped SOL has 9, USDC 6).
pub const SOL_DECIMALS: u8 = 9;
pub const USDC_DECIMALS: u8 = 6;

/// Basis-point denominator.
pub const BPS_DENOMINATOR: u64 = 10_000;
/// The fixed trading fee of `fair` and `distribute`, and the final fee of `shield`: 1%.
pub const FEE_BPS: u16 = 100;
/// `shield`: fee in the first 60 seconds (50%).
pub const SHIELD_CLIFF_FEE_BPS: u16 = 5_000;
/// `shield`: fee reduction per period (4.9 percentage points).
pub const SHIELD_REDUCTION_BPS_PER_PERIOD: u16 = 490;
/// `shield`: period length.
pub const SHIELD_PERIOD_SECONDS: u32 = 60;
/// `shield`: number of reductions (10 periods of 60 s = 10 minutes).
pub const SHIELD_NUMBER_OF_PERIODS: u16 = 10;
/// Lowest fee any schedule may charge (0.25%).
pub const MIN_FEE_BPS: u16 = 25;
/// Highest fee any schedule may charge (99%).
pub const MAX_FEE_BPS: u16 = 9_900;
/// Creator's share of each bonding-phase trading fee (the partner gets the rest).
pub const CREATOR_FEE_SHARE_BPS: u16 = 5_000;
/// Creator's share of the migration surplus, the raised quote the AMM does not take at the final curve price
/// (the partner gets the rest). The locked LP is not split by this: it is always two positions of equal
/// liquidity, creator and partner (see [`crate::amm::plan_migration`]).
pub const CREATOR_SURPLUS_SHARE_BPS: u16 = 5_000;
/// A referral's share of the partner's part of each bonding-phase trading fee, paid at trade time to the
/// referral account a swap names (20%, as Meteora's host fee). The creator's part is never reduced.
pub const REFERRAL_SHARE_BPS: u16 = 2_000;

/// Largest shortfall, in token base units, between the sale supply and what the exact curve sells; the
/// difference (rounding dust) goes to the buyer that completes the curve.
pub const MAX_SALE_DUST_BASE_UNITS: u64 = 10;
/// Largest excess, in quote base units, of the exact curve's quote over the threshold; the buy that
/// completes the curve pays exactly the threshold, never more.
pub const MAX_QUOTE_EXCESS_UNITS: u64 = 10;

const _: () = assert!(SALE_SUPPLY_BASE_UNITS == 800_000_000_000_000);
const _: () = assert!(MIGRATION_SUPPLY_BASE_UNITS == 200_000_000_000_000);
const _: () = assert!(MAX_FEE_BPS as u64 <= BPS_DENOMINATOR);
const _: () = assert!(CREATOR_FEE_SHARE_BPS as u64 <= BPS_DENOMINATOR);
const _: () = assert!(CREATOR_SURPLUS_SHARE_BPS as u64 <= BPS_DENOMINATOR);
const _: () = assert!(REFERRAL_SHARE_BPS as u64 <= BPS_DENOMINATOR);
const _: () = assert!(
    SHIELD_CLIFF_FEE_BPS - SHIELD_REDUCTION_BPS_PER_PERIOD * SHIELD_NUMBER_OF_PERIODS == FEE_BPS
);
