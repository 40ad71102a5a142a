//! `create_config`: the admin stores the curve, fee schedule and shares of one (preset, quote).
//!
//! Everything is validated on chain with the same `crates/curve` code that built it: the curve's shape
//! (monotone prices, bounded segments), that it sells exactly the sale supply for the threshold and ends at
//! the migration price, the fee bounds, and shares of at most 100%.

use crate::constants::*;
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::state::{Config, CurveSegment, FeeScheduleParams, Global};
use anchor_lang::prelude::*;
use anchor_spl::token_interface::Mint;
use curve::{FeeSchedule, Preset, QuoteAsset, MAX_SEGMENTS};

/// The wrapped-SOL mint of the classic token program.
pub const NATIVE_MINT: Pubkey = pubkey!("So11111111111111111111111111111111111111112");

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
    pub creator_lp_share_bps: u16,
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

pub fn handler(ctx: Context<CreateConfig>, args: CreateConfigArgs) -> Result<()> {
    Preset::from_u8(args.preset).ok_or(LaunchpadError::InvalidPreset)?;
    let quote = QuoteAsset::from_u8(args.quote).ok_or(LaunchpadError::InvalidQuote)?;
    let mint = &ctx.accounts.quote_mint;
    let is_native = mint.key() == NATIVE_MINT;
    let mint_ok = match quote {
        QuoteAsset::Sol => is_native,
        QuoteAsset::Usdc => !is_native,
    } && mint.decimals == quote.decimals();
    require!(mint_ok, LaunchpadError::InvalidQuoteMint);
    require!(
        args.threshold == quote.threshold(),
        LaunchpadError::InvalidThreshold
    );
    require!(
        args.segments.len() <= MAX_SEGMENTS,
        LaunchpadError::TooManySegments
    );
    require!(
        args.creator_fee_share_bps <= 10_000 && args.creator_lp_share_bps <= 10_000,
        LaunchpadError::InvalidShare
    );
    FeeSchedule::from(args.fees).validate().or_launchpad()?;

    let mut segments = [CurveSegment::default(); MAX_SEGMENTS];
    segments[..args.segments.len()].copy_from_slice(&args.segments);
    let config = &mut ctx.accounts.config;
    config.set_inner(Config {
        preset: args.preset,
        quote: args.quote,
        quote_mint: mint.key(),
        quote_decimals: mint.decimals,
        partner: ctx.accounts.global.partner,
        sqrt_start_price: args.sqrt_start_price,
        segment_count: args.segments.len() as u8,
        segments,
        fees: args.fees,
        threshold: args.threshold,
        sale_supply: SALE_SUPPLY_BASE_UNITS,
        migration_supply: MIGRATION_SUPPLY_BASE_UNITS,
        creator_fee_share_bps: args.creator_fee_share_bps,
        creator_lp_share_bps: args.creator_lp_share_bps,
        bump: ctx.bumps.config,
    });
    let curve_segments = config.curve_segments();
    config.market(&curve_segments).validate().or_launchpad()?;
    Ok(())
}
