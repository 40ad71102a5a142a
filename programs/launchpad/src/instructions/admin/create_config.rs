//! `create_config`: the admin stores the curve, fee schedule and shares of one (preset, quote).
//!
//! A preset means the same economics for every creator: the arguments must equal, field for field, the
//! config pinned for (preset, quote) in `crates/curve` (`curve::pinned_preset`), and anything else is refused
//! with `PresetMismatch`. The quote mint must be the one the global state pins for the quote (wrapped SOL, or
//! the USDC mint named at initialization), owned by the classic SPL Token program. The stored curve is also checked
//! again with the same `crates/curve` code that built it (monotone prices, bounded segments), that it sells exactly the sale supply for the threshold and ends at
//! the migration price, the fee bounds, and shares of at most 100%.

use crate::constants::*;
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::state::{Config, CurveSegment, FeeScheduleParams, Global};
use anchor_lang::prelude::*;
use anchor_spl::token_interface::Mint;
use curve::{pinned_preset, FeeSchedule, Preset, QuoteAsset, MAX_SEGMENTS};

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Debug, PartialEq, Eq)]
pub struct CreateConfigArgs {
    /// `curve::Preset` discriminant (0 fair, 1 distribute, 2 shield).
    pub preset: u8,
    /// `curve::QuoteAsset` discriminant (0 sol, 1 usdc).
    pub quote: u8,
    pub sqrt_start_price: u128,
    pub segments: Vec<CurveSegment>,
    pub fees: FeeScheduleParams,
    pub threshold: u64,
    pub creator_fee_share_bps: u16,
    /// Creator's share of the migration surplus (the locked LP always splits 50/50).
    pub creator_surplus_share_bps: u16,
    /// The referral's share of the partner's part of each fee (paid to a swap's referral account).
    pub referral_share_bps: u16,
}

#[derive(Accounts)]
#[instruction(args: CreateConfigArgs)]
pub struct CreateConfig<'info> {
    #[account(mut)]
    pub admin: Signer<'info>,
    #[account(seeds = [GLOBAL_SEED], bump = global.bump, has_one = admin @ LaunchpadError::Unauthorized)]
    pub global: Box<Account<'info, Global>>,
    #[account(
        init,
        payer = admin,
        space = 8 + Config::INIT_SPACE,
        seeds = [CONFIG_SEED, &[args.preset], quote_mint.key().as_ref()],
        bump,
    )]
    pub config: Box<Account<'info, Config>>,
    pub quote_mint: Box<InterfaceAccount<'info, Mint>>,
    pub system_program: Program<'info, System>,
}

/// Whether `args` are exactly the pinned config of their (preset, quote).
fn matches_preset(args: &CreateConfigArgs, preset: Preset, quote: QuoteAsset) -> bool {
    let pinned = pinned_preset(preset, quote);
    let segments = pinned.curve().segments;
    args.sqrt_start_price == pinned.sqrt_start_price
        && args.segments.len() == segments.len()
        && args
            .segments
            .iter()
            .zip(segments)
            .all(|(a, p)| a.sqrt_price_upper == p.sqrt_price_upper && a.liquidity == p.liquidity)
        && FeeSchedule::from(args.fees) == pinned.fees
        && args.threshold == pinned.threshold
        && args.creator_fee_share_bps == pinned.creator_fee_share_bps
        && args.creator_surplus_share_bps == pinned.creator_surplus_share_bps
        && args.referral_share_bps == pinned.referral_share_bps
        && pinned.sale_supply == SALE_SUPPLY_BASE_UNITS
        && pinned.migration_supply == MIGRATION_SUPPLY_BASE_UNITS
}

pub fn handler(ctx: Context<CreateConfig>, args: CreateConfigArgs) -> Result<()> {
    let preset = Preset::from_u8(args.preset).ok_or(LaunchpadError::InvalidPreset)?;
    let quote = QuoteAsset::from_u8(args.quote).ok_or(LaunchpadError::InvalidQuote)?;
    let mint = &ctx.accounts.quote_mint;
    require_keys_eq!(
        *mint.to_account_info().owner,
        anchor_spl::token::ID,
        LaunchpadError::QuoteMintNotClassic
    );
    let global = &ctx.accounts.global;
    let pinned_mint = match quote {
        QuoteAsset::Sol => global.sol_mint,
        QuoteAsset::Usdc => global.usdc_mint,
    };
    require!(
        mint.key() == pinned_mint && mint.decimals == quote.decimals(),
        LaunchpadError::InvalidQuoteMint
    );
    require!(
        args.threshold == quote.threshold(),
        LaunchpadError::InvalidThreshold
    );
    require!(
        args.segments.len() <= MAX_SEGMENTS,
        LaunchpadError::TooManySegments
    );
    require!(
        args.creator_fee_share_bps <= 10_000
            && args.creator_surplus_share_bps <= 10_000
            && args.referral_share_bps <= 10_000,
        LaunchpadError::InvalidShare
    );
    FeeSchedule::from(args.fees).validate().or_launchpad()?;
    require!(
        matches_preset(&args, preset, quote),
        LaunchpadError::PresetMismatch
    );

    let mut segments = [CurveSegment::default(); MAX_SEGMENTS];
    segments[..args.segments.len()].copy_from_slice(&args.segments);
    let config = &mut ctx.accounts.config;
    config.set_inner(Config {
        preset: args.preset,
        quote: args.quote,
        quote_mint: mint.key(),
        quote_decimals: mint.decimals,
        partner: global.partner,
        sqrt_start_price: args.sqrt_start_price,
        segment_count: args.segments.len() as u8,
        segments,
        fees: args.fees,
        threshold: args.threshold,
        sale_supply: SALE_SUPPLY_BASE_UNITS,
        migration_supply: MIGRATION_SUPPLY_BASE_UNITS,
        creator_fee_share_bps: args.creator_fee_share_bps,
        creator_surplus_share_bps: args.creator_surplus_share_bps,
        referral_share_bps: args.referral_share_bps,
        bump: ctx.bumps.config,
        disabled: false,
    });
    let curve_segments = config.curve_segments();
    config.market(&curve_segments).validate().or_launchpad()?;
    Ok(())
}
