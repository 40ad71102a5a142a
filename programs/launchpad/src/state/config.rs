use anchor_lang::prelude::*;
use curve::{Curve, FeeSchedule, Market, Segment, MAX_SEGMENTS};

/// One constant-product range of a curve, as stored on chain.
#[derive(
    AnchorSerialize, AnchorDeserialize, Clone, Copy, Default, InitSpace, Debug, PartialEq, Eq,
)]
pub struct CurveSegment {
    /// Q64.64 square-root price at the top of the range.
    pub sqrt_price_upper: u128,
    pub liquidity: u128,
}

/// A fee that starts at `cliff_fee_bps` and falls by `reduction_bps_per_period` every `period_seconds`
/// after launch, `number_of_periods` times (a fixed fee has no periods).
#[derive(
    AnchorSerialize, AnchorDeserialize, Clone, Copy, Default, InitSpace, Debug, PartialEq, Eq,
)]
pub struct FeeScheduleParams {
    pub cliff_fee_bps: u16,
    pub reduction_bps_per_period: u16,
    pub period_seconds: u32,
    pub number_of_periods: u16,
}

impl From<FeeScheduleParams> for FeeSchedule {
    fn from(p: FeeScheduleParams) -> Self {
        FeeSchedule {
            cliff_fee_bps: p.cliff_fee_bps,
            reduction_bps_per_period: p.reduction_bps_per_period,
            period_seconds: p.period_seconds,
            number_of_periods: p.number_of_periods,
        }
    }
}

impl From<FeeSchedule> for FeeScheduleParams {
    fn from(p: FeeSchedule) -> Self {
        FeeScheduleParams {
            cliff_fee_bps: p.cliff_fee_bps,
            reduction_bps_per_period: p.reduction_bps_per_period,
            period_seconds: p.period_seconds,
            number_of_periods: p.number_of_periods,
        }
    }
}

/// The economics of one (preset, quote) (`["config", preset, quote_mint]`). Every pool of a config trades
/// on exactly this curve and fee schedule: pools copy nothing a creator could vary.
#[account]
#[derive(InitSpace, Debug, PartialEq, Eq)]
pub struct Config {
    /// `curve::Preset` discriminant.
    pub preset: u8,
    /// `curve::QuoteAsset` discriminant.
    pub quote: u8,
    pub quote_mint: Pubkey,
    pub quote_decimals: u8,
    /// Receives the partner share of trading fees.
    pub partner: Pubkey,
    pub sqrt_start_price: u128,
    pub segment_count: u8,
    pub segments: [CurveSegment; MAX_SEGMENTS],
    pub fees: FeeScheduleParams,
    /// Quote raised (net of fees) at which the curve completes.
    pub threshold: u64,
    pub sale_supply: u64,
    pub migration_supply: u64,
    pub creator_fee_share_bps: u16,
    /// Creator's share of the migration surplus (raised quote the AMM does not take at the final price); the
    /// partner gets the rest. The locked LP itself always splits 50/50 (two positions of equal liquidity).
    pub creator_surplus_share_bps: u16,
    pub bump: u8,
    /// No new launches on this config (set by the admin); its pools are unaffected.
    pub disabled: bool,
    /// The referral's share of the partner's part of each trading fee, paid at trade time to the referral
    /// account a swap names (the creator's part is never reduced).
    pub referral_share_bps: u16,
}

impl Config {
    /// The stored curve in the form `crates/curve` computes on.
    pub fn curve_segments(&self) -> [Segment; MAX_SEGMENTS] {
        let mut out = [Segment::default(); MAX_SEGMENTS];
        for (o, s) in out.iter_mut().zip(self.segments.iter()) {
            *o = Segment {
                sqrt_price_upper: s.sqrt_price_upper,
                liquidity: s.liquidity,
            };
        }
        out
    }

    pub fn market<'a>(&self, segments: &'a [Segment; MAX_SEGMENTS]) -> Market<'a> {
        let n = (self.segment_count as usize).min(MAX_SEGMENTS);
        Market {
            curve: Curve {
                sqrt_start_price: self.sqrt_start_price,
                segments: &segments[..n],
            },
            threshold: self.threshold,
            sale_supply: self.sale_supply,
            migration_supply: self.migration_supply,
        }
    }

    pub fn fee_schedule(&self) -> FeeSchedule {
        self.fees.into()
    }
}
