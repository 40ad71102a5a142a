//! `initialize` and `create_config`: the stored curves are the presets, and every invalid config is refused.

use crate::harness::*;
use anchor_lang::prelude::Pubkey;
use curve::{Preset, QuoteAsset};
use launchpad::LaunchpadError;
use sdk::launchpad_ix::{self as lix, CreateConfigArgs, CurveSegment};
use sdk::pda;
use solana_keypair::Keypair;
use solana_signer::Signer;

#[tokio::test]
async fn every_preset_and_quote_is_stored_as_built() {
    let mut env = Env::start().await;
    for preset in Preset::ALL {
        for quote in QuoteAsset::ALL {
            let key = pda::config(preset as u8, &env.quote_mint(quote));
            let stored = env.config(&key).await;
            let built = curve::preset_config(preset, quote).unwrap();
            assert_eq!(stored.preset, preset as u8);
            assert_eq!(stored.quote, quote as u8);
            assert_eq!(stored.quote_mint, env.quote_mint(quote));
            assert_eq!(stored.partner, env.partner.pubkey());
            assert_eq!(stored.sqrt_start_price, built.sqrt_start_price);
            assert_eq!(stored.segment_count, built.segment_count);
            assert_eq!(stored.threshold, quote.threshold());
            assert_eq!(
                stored.sale_supply + stored.migration_supply,
                1_000_000_000_000_000
            );
            assert_eq!(stored.fee_schedule(), built.fees);
            assert_eq!(stored.creator_fee_share_bps, 5_000);
            assert_eq!(stored.creator_surplus_share_bps, 5_000);
            let segs = stored.curve_segments();
            assert_eq!(stored.market(&segs).curve, built.curve());
        }
    }
}

fn args(preset: Preset, quote: QuoteAsset) -> CreateConfigArgs {
    lix::config_args(&curve::preset_config(preset, quote).unwrap())
}

#[tokio::test]
async fn invalid_configs_are_refused() {
    let mut env = Env::start_bare().await;
    let admin = env.admin.insecure_clone();
    let sol = env.quote_mint(QuoteAsset::Sol);
    let usdc = env.quote_mint(QuoteAsset::Usdc);
    let good = args(Preset::Fair, QuoteAsset::Sol);

    // Not the admin.
    let intruder = env.wallet().await;
    let ix = lix::create_config(&intruder.pubkey(), &sol, good.clone());
    assert_error(
        0,
        env.send(&[ix], &[&intruder]).await,
        LaunchpadError::Unauthorized,
    );

    let cases: Vec<(CreateConfigArgs, Pubkey, LaunchpadError)> = vec![
        (
            CreateConfigArgs {
                preset: 7,
                ..good.clone()
            },
            sol,
            LaunchpadError::InvalidPreset,
        ),
        (
            CreateConfigArgs {
                quote: 9,
                ..good.clone()
            },
            sol,
            LaunchpadError::InvalidQuote,
        ),
        // SOL economics on the USDC mint, and USDC economics on wrapped SOL.
        (good.clone(), usdc, LaunchpadError::InvalidQuoteMint),
        (
            args(Preset::Fair, QuoteAsset::Usdc),
            sol,
            LaunchpadError::InvalidQuoteMint,
        ),
        (
            CreateConfigArgs {
                threshold: good.threshold - 1,
                ..good.clone()
            },
            sol,
            LaunchpadError::InvalidThreshold,
        ),
        (
            CreateConfigArgs {
                creator_fee_share_bps: 10_001,
                ..good.clone()
            },
            sol,
            LaunchpadError::InvalidShare,
        ),
        (
            CreateConfigArgs {
                creator_surplus_share_bps: 20_000,
                ..good.clone()
            },
            sol,
            LaunchpadError::InvalidShare,
        ),
        (
            CreateConfigArgs {
                fees: launchpad::FeeScheduleParams {
                    cliff_fee_bps: 9_950,
                    ..good.fees
                },
                ..good.clone()
            },
            sol,
            LaunchpadError::InvalidFee,
        ),
        (
            CreateConfigArgs {
                segments: vec![good.segments[0]; 17],
                ..good.clone()
            },
            sol,
            LaunchpadError::TooManySegments,
        ),
        (
            CreateConfigArgs {
                segments: vec![],
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
        // A start price above the end price: not monotone.
        (
            CreateConfigArgs {
                sqrt_start_price: good.segments[0].sqrt_price_upper + 1,
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
        // Liquidity nudged: the curve no longer sells the sale supply for the threshold.
        (
            CreateConfigArgs {
                segments: vec![CurveSegment {
                    liquidity: good.segments[0].liquidity + 1_000,
                    ..good.segments[0]
                }],
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
        // Ending anywhere but the migration price.
        (
            CreateConfigArgs {
                segments: vec![CurveSegment {
                    sqrt_price_upper: good.segments[0].sqrt_price_upper * 2,
                    ..good.segments[0]
                }],
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
        // A preset is the same economics for everyone: `shield` with the fair fee, `fair` with shield's decay,
        // `distribute` on the fair curve, other shares.
        (
            CreateConfigArgs {
                preset: Preset::Shield as u8,
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
        (
            CreateConfigArgs {
                fees: args(Preset::Shield, QuoteAsset::Sol).fees,
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
        (
            CreateConfigArgs {
                preset: Preset::Distribute as u8,
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
        (
            CreateConfigArgs {
                creator_fee_share_bps: 9_000,
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
        (
            CreateConfigArgs {
                creator_surplus_share_bps: 0,
                ..good.clone()
            },
            sol,
            LaunchpadError::PresetMismatch,
        ),
    ];
    for (args, mint, expected) in cases {
        let ix = lix::create_config(&admin.pubkey(), &mint, args);
        assert_error(0, env.send(&[ix], &[&admin]).await, expected);
    }

    // The good one lands once; a second config for the same (preset, quote) cannot be created.
    let ix = lix::create_config(&admin.pubkey(), &sol, good.clone());
    env.send(&[ix], &[&admin]).await.unwrap();
    let again = lix::create_config(
        &admin.pubkey(),
        &sol,
        CreateConfigArgs {
            creator_fee_share_bps: 1,
            ..good
        },
    );
    // The config's address is taken: creating it again fails in the system program's allocation.
    assert_already_created(env.send(&[again], &[&admin]).await);
}

#[tokio::test]
async fn initialize_runs_once() {
    let mut env = Env::start_bare().await;
    let global = pda::global();
    let before = env.ctx.banks_client.get_account(global).await.unwrap();
    // The upgrade authority itself, with the program-data account that names it and another partner: every
    // check but "once" passes, and the global account's creation refuses it.
    let admin = env.admin.insecure_clone();
    let ix = lix::initialize(
        &admin.pubkey(),
        &Keypair::new().pubkey(),
        &env.usdc_mint,
        Some(lix::program_data_address()),
    );
    assert_already_created(env.send(&[ix], &[&admin]).await);
    let after = env.ctx.banks_client.get_account(global).await.unwrap();
    assert_eq!(before, after, "the global account is unchanged");
}
