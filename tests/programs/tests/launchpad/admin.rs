//! Administration: `initialize` only by the upgrade authority (through the program-data account), pinned
//! classic quote mints, two-step admin and partner handovers, configs disabled for new launches.

use crate::harness::*;
use anchor_lang::error::ErrorCode as AnchorError;
use anchor_lang::prelude::Pubkey;
use anchor_spl::token_2022::spl_token_2022::extension::ExtensionType;
use curve::{Preset, QuoteAsset};
use launchpad::{LaunchpadError, PoolStatus};
use sdk::amm_ix;
use sdk::launchpad_ix as lix;
use sdk::pda;
use solana_signer::Signer;

fn init_ix(
    env: &Env,
    signer: &Pubkey,
    program_data: Option<Pubkey>,
) -> anchor_lang::solana_program::instruction::Instruction {
    lix::initialize(signer, &env.partner.pubkey(), &env.usdc_mint, program_data)
}

async fn global(env: &mut Env) -> launchpad::Global {
    let acc = env
        .ctx
        .banks_client
        .get_account(pda::global())
        .await
        .unwrap()
        .expect("global exists");
    match sdk::accounts::decode_account(&acc.data) {
        Some(sdk::accounts::LaunchpadAccount::Global(g)) => g,
        other => panic!("not the global account: {other:?}"),
    }
}

#[tokio::test]
async fn initialize_requires_the_upgrade_authority() {
    let mut env = Env::start_uninitialized().await;
    let admin = env.admin.insecure_clone();
    let intruder = env.wallet().await;
    let program_data = Some(lix::program_data_address());

    // Someone else, even with the right program data.
    let ix = init_ix(&env, &intruder.pubkey(), program_data);
    assert_error(
        0,
        env.send(&[ix], &[&intruder]).await,
        LaunchpadError::NotUpgradeAuthority,
    );
    // The upgrade authority without the program data, or with another program-data account that names it.
    let ix = init_ix(&env, &admin.pubkey(), None);
    assert_error(
        0,
        env.send(&[ix], &[&admin]).await,
        LaunchpadError::InvalidProgramData,
    );
    let fake = Pubkey::new_unique();
    let data = bincode::serialize(
        &anchor_lang::solana_program::bpf_loader_upgradeable::UpgradeableLoaderState::ProgramData {
            slot: 0,
            upgrade_authority_address: Some(admin.pubkey()),
        },
    )
    .unwrap();
    env.set_loader_account(&fake, data, false);
    let ix = init_ix(&env, &admin.pubkey(), Some(fake));
    assert_error(
        0,
        env.send(&[ix], &[&admin]).await,
        LaunchpadError::InvalidProgramData,
    );
    // A Token-2022 "USDC" (transfer fee) and a classic mint of the wrong decimals are refused.
    let t22 = env
        .create_token_2022_mint(&admin.pubkey(), 6, ExtensionType::TransferFeeConfig)
        .await;
    let ix = lix::initialize(&admin.pubkey(), &env.partner.pubkey(), &t22, program_data);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&admin]).await,
        AnchorError::AccountOwnedByWrongProgram,
    );
    let nine = env.create_mint(&admin.pubkey(), 9).await;
    let ix = lix::initialize(&admin.pubkey(), &env.partner.pubkey(), &nine, program_data);
    assert_error(
        0,
        env.send(&[ix], &[&admin]).await,
        LaunchpadError::InvalidQuoteMint,
    );

    // The upgrade authority with its program data: the global state pins the quote mints.
    let ix = init_ix(&env, &admin.pubkey(), program_data);
    env.send(&[ix], &[&admin]).await.unwrap();
    let g = global(&mut env).await;
    assert_eq!(g.admin, admin.pubkey());
    assert_eq!(g.partner, env.partner.pubkey());
    assert_eq!(g.usdc_mint, env.usdc_mint);
    assert_eq!(g.sol_mint, sdk::ids::NATIVE_MINT);
    assert_eq!((g.pending_admin, g.pending_partner), (None, None));
}

#[tokio::test]
async fn initialize_refuses_a_program_without_upgrade_authority_or_upgradeable_loader() {
    // Immutable (upgrade authority removed): nobody can initialize it.
    let mut env = Env::start_native().await;
    env.make_upgradeable(None);
    let admin = env.admin.insecure_clone();
    let ix = init_ix(&env, &admin.pubkey(), Some(lix::program_data_address()));
    assert_error(
        0,
        env.send(&[ix], &[&admin]).await,
        LaunchpadError::NotUpgradeAuthority,
    );

    // Loaded by another loader (here the native loader), with no build-time authority: refused.
    let mut env = Env::start_native().await;
    assert_eq!(launchpad::INITIALIZE_AUTHORITY, None);
    let admin = env.admin.insecure_clone();
    // Without a program-data account there is no upgrade authority to check against; the upgradeable
    // loader's program-data address holds no account under the native loader.
    for (program_data, code) in [
        (None, LaunchpadError::NotUpgradeAuthority.into()),
        (Some(lix::program_data_address()), ACCOUNT_NOT_INITIALIZED),
    ] {
        let ix = init_ix(&env, &admin.pubkey(), program_data);
        assert_code(&launchpad::ID, 0, env.send(&[ix], &[&admin]).await, code);
    }
    let ix = init_ix(&env, &admin.pubkey(), None);
    assert_error(
        0,
        env.send(&[ix], &[&admin]).await,
        LaunchpadError::NotUpgradeAuthority,
    );
}

#[tokio::test]
async fn token_2022_and_unpinned_quote_mints_are_refused() {
    let mut env = Env::start_bare().await;
    let admin = env.admin.insecure_clone();
    let args = lix::config_args(curve::pinned_preset(Preset::Fair, QuoteAsset::Usdc));
    for extension in [
        ExtensionType::TransferFeeConfig,
        ExtensionType::TransferHook,
    ] {
        let mint = env
            .create_token_2022_mint(&admin.pubkey(), 6, extension)
            .await;
        let ix = lix::create_config(&admin.pubkey(), &mint, args.clone());
        assert_error(
            0,
            env.send(&[ix], &[&admin]).await,
            LaunchpadError::QuoteMintNotClassic,
        );
    }
    // A classic 6-decimal mint that is not the pinned USDC.
    let other = env.create_mint(&admin.pubkey(), 6).await;
    let ix = lix::create_config(&admin.pubkey(), &other, args.clone());
    assert_error(
        0,
        env.send(&[ix], &[&admin]).await,
        LaunchpadError::InvalidQuoteMint,
    );
    let ix = lix::create_config(&admin.pubkey(), &env.usdc_mint, args);
    env.send(&[ix], &[&admin]).await.unwrap();
}

#[tokio::test]
async fn admin_handover_takes_two_steps() {
    let mut env = Env::start().await;
    let admin = env.admin.insecure_clone();
    let next = env.wallet().await;
    let intruder = env.wallet().await;
    let config = pda::config(Preset::Fair as u8, &env.usdc_mint);

    // Only the admin proposes; only the proposed key accepts.
    let ix = lix::propose_admin(&intruder.pubkey(), &intruder.pubkey());
    assert_error(
        0,
        env.send(&[ix], &[&intruder]).await,
        LaunchpadError::Unauthorized,
    );
    let ix = lix::accept_admin(&next.pubkey());
    assert_error(
        0,
        env.send(&[ix], &[&next]).await,
        LaunchpadError::NotProposed,
    );
    let ix = lix::propose_admin(&admin.pubkey(), &next.pubkey());
    env.send(&[ix], &[&admin]).await.unwrap();
    assert_eq!(global(&mut env).await.pending_admin, Some(next.pubkey()));
    let ix = lix::accept_admin(&intruder.pubkey());
    assert_error(
        0,
        env.send(&[ix], &[&intruder]).await,
        LaunchpadError::NotProposed,
    );
    // Until accepted, the old admin still rules.
    let ix = lix::set_config_disabled(&next.pubkey(), &config, true);
    assert_error(
        0,
        env.send(&[ix], &[&next]).await,
        LaunchpadError::Unauthorized,
    );
    let ix = lix::accept_admin(&next.pubkey());
    env.send(&[ix], &[&next]).await.unwrap();
    let g = global(&mut env).await;
    assert_eq!((g.admin, g.pending_admin), (next.pubkey(), None));
    let ix = lix::set_config_disabled(&admin.pubkey(), &config, true);
    assert_error(
        0,
        env.send(&[ix], &[&admin]).await,
        LaunchpadError::Unauthorized,
    );
    let ix = lix::set_config_disabled(&next.pubkey(), &config, true);
    env.send(&[ix], &[&next]).await.unwrap();
    assert!(env.config(&config).await.disabled);
}

#[tokio::test]
async fn partner_handover_moves_fees_and_locked_position_fees() {
    let mut env = Env::start().await;
    let admin = env.admin.insecure_clone();
    let old_partner = env.funded_partner().await;
    let new_partner = env.wallet().await;
    let quote = QuoteAsset::Usdc;

    // A pool that migrates under the old partner, and one that keeps trading.
    let creator = env.wallet().await;
    let (migrated, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    env.graduate(&migrated, quote).await;
    let migrator = env.wallet().await;
    env.migrate(&migrated, &migrator).await.unwrap();
    let (live, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, 100 * USDC).await;
    env.buy(&live, &trader, 50 * USDC, 0).await.unwrap();
    let accrued = env.pool(&live.pool).await.partner_fee_unclaimed;
    assert!(accrued > 0);

    let ix = lix::propose_partner(&new_partner.pubkey(), &new_partner.pubkey());
    assert_error(
        0,
        env.send(&[ix], &[&new_partner]).await,
        LaunchpadError::Unauthorized,
    );
    let ix = lix::propose_partner(&admin.pubkey(), &new_partner.pubkey());
    env.send(&[ix], &[&admin]).await.unwrap();
    let ix = lix::accept_partner(&old_partner.pubkey());
    assert_error(
        0,
        env.send(&[ix], &[&old_partner]).await,
        LaunchpadError::NotProposed,
    );
    let ix = lix::accept_partner(&new_partner.pubkey());
    env.send(&[ix], &[&new_partner]).await.unwrap();
    assert_eq!(global(&mut env).await.partner, new_partner.pubkey());
    // The config still names the old partner until synced (by anyone).
    assert_eq!(env.config(&live.config).await.partner, old_partner.pubkey());
    let ix = lix::sync_config_partner(&live.config);
    env.send(&[ix], &[&trader]).await.unwrap();
    assert_eq!(env.config(&live.config).await.partner, new_partner.pubkey());

    // Trading fees now go to the new partner, the accrued ones included; the old one is refused.
    let old_dest = env.fund_quote(&old_partner, quote, 1).await;
    let ix = lix::claim_trading_fee(&live, &old_partner.pubkey(), &old_dest);
    assert_error(
        0,
        env.send(&[ix], &[&old_partner]).await,
        LaunchpadError::NotEntitled,
    );
    let dest = env.fund_quote(&new_partner, quote, 1).await;
    let before = env.balance(&dest).await;
    let ix = lix::claim_trading_fee(&live, &new_partner.pubkey(), &dest);
    env.send(&[ix], &[&new_partner]).await.unwrap();
    assert_eq!(env.balance(&dest).await - before, accrued);

    // The migrated pool's locked partner position belongs to the pool: its AMM fees follow the config's
    // partner, so the outgoing key (often rotated because it leaked) can claim nothing more.
    let amm = migrated.amm_keys();
    let position = migrated.partner_position();
    // Someone pays quote into the AMM, so the locked positions earn fees.
    env.ensure_amm_accounts(&amm, &trader).await;
    env.amm_swap(&amm, &trader, amm.mint_a == migrated.quote_mint, 5 * USDC)
        .await
        .unwrap();
    env.ensure_amm_accounts(&amm, &old_partner).await;
    let ix = lix::claim_locked_lp_fee(&migrated, &old_partner.pubkey(), &position);
    assert_error(
        0,
        env.send(&[ix], &[&old_partner]).await,
        LaunchpadError::NotEntitled,
    );
    env.ensure_amm_accounts(&amm, &new_partner).await;
    let owed = amm_ix::claimable_fees(
        &env.amm_pool(&amm.pool).await,
        &env.position(&position).await,
    )
    .unwrap();
    assert!(owed.0 + owed.1 > 0);
    let (na, nb) = amm.owner_accounts(&new_partner.pubkey());
    let before = (env.balance(&na).await, env.balance(&nb).await);
    let ix = lix::claim_locked_lp_fee(&migrated, &new_partner.pubkey(), &position);
    env.send(&[ix], &[&new_partner]).await.unwrap();
    assert_eq!(
        (
            env.balance(&na).await - before.0,
            env.balance(&nb).await - before.1
        ),
        owed
    );
}

#[tokio::test]
async fn a_disabled_config_stops_launches_only() {
    let mut env = Env::start().await;
    let admin = env.admin.insecure_clone();
    let quote = QuoteAsset::Sol;
    let creator = env.wallet().await;
    let (graduating, _) = env
        .launch(&creator, Preset::Distribute, quote, None)
        .await
        .unwrap();
    let (trading, _) = env
        .launch(&creator, Preset::Distribute, quote, None)
        .await
        .unwrap();
    let config = graduating.config;

    let intruder = env.wallet().await;
    let ix = lix::set_config_disabled(&intruder.pubkey(), &config, true);
    assert_error(
        0,
        env.send(&[ix], &[&intruder]).await,
        LaunchpadError::Unauthorized,
    );
    let ix = lix::set_config_disabled(&admin.pubkey(), &config, true);
    env.send(&[ix], &[&admin]).await.unwrap();
    assert_error(
        0,
        env.launch(&creator, Preset::Distribute, quote, None).await,
        LaunchpadError::ConfigDisabled,
    );
    // Other configs still launch.
    env.launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();

    // Existing pools trade, graduate, migrate and pay claims.
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, 2 * SOL).await;
    env.buy(&trading, &trader, SOL, 0).await.unwrap();
    let tokens = env.balance(&env.base_ata(&trading, &trader.pubkey())).await;
    env.sell(&trading, &trader, tokens / 2, 0).await.unwrap();
    env.graduate(&graduating, quote).await;
    let migrator = env.wallet().await;
    env.migrate(&graduating, &migrator).await.unwrap();
    assert_eq!(
        env.pool(&graduating.pool).await.status,
        PoolStatus::Migrated
    );
    let dest = env.fund_quote(&creator, quote, 1).await;
    let ix = lix::claim_trading_fee(&trading, &creator.pubkey(), &dest);
    env.send(&[ix], &[&creator]).await.unwrap();
    env.assert_reconciled(&trading).await;
    env.assert_reconciled(&graduating).await;

    // Re-enabled, it launches again.
    let ix = lix::set_config_disabled(&admin.pubkey(), &config, false);
    env.send(&[ix], &[&admin]).await.unwrap();
    env.launch(&creator, Preset::Distribute, quote, None)
        .await
        .unwrap();
}
