//! Forged accounts: a config, mint or vault that is not the pool's own is refused.

use crate::harness::*;
use anchor_lang::error::ErrorCode as AnchorError;
use curve::{Preset, QuoteAsset};
use launchpad::LaunchpadError;
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs, LaunchKeys, SwapArgs, SIDE_BUY, SIDE_SELL};
use sdk::pda;
use solana_signer::Signer;

#[tokio::test]
async fn forged_accounts_are_refused() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    let (other, _) = env
        .launch(&creator, Preset::Shield, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, QuoteAsset::Usdc, 100 * USDC).await;
    env.buy(&keys, &trader, 10 * USDC, 0).await.unwrap();
    env.buy(&other, &trader, 10 * USDC, 0).await.unwrap();
    let snapshot = env.pool(&keys.pool).await;
    let buy = SwapArgs {
        side: SIDE_BUY,
        amount_in: USDC,
        min_amount_out: 0,
    };

    // A config that is not the pool's (the shield config would charge a different fee).
    let forged = LaunchKeys {
        config: other.config,
        ..keys
    };
    let ix = lix::swap_with_ata(&forged, &trader.pubkey(), buy);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&trader]).await,
        AnchorError::ConstraintHasOne,
    );
    // A program account of another type in the config's place.
    let forged = LaunchKeys {
        config: keys.pool,
        ..keys
    };
    let ix = lix::swap_with_ata(&forged, &trader.pubkey(), buy);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&trader]).await,
        AnchorError::AccountDiscriminatorMismatch,
    );
    // Another launch's mint with this pool.
    let forged = LaunchKeys {
        mint: other.mint,
        ..keys
    };
    let ix = lix::swap_with_ata(&forged, &trader.pubkey(), buy);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&trader]).await,
        AnchorError::ConstraintSeeds,
    );
    // Another pool's vaults.
    let forged = LaunchKeys {
        base_vault: other.base_vault,
        ..keys
    };
    let ix = lix::swap_with_ata(&forged, &trader.pubkey(), buy);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&trader]).await,
        AnchorError::ConstraintHasOne,
    );
    let forged = LaunchKeys {
        quote_vault: other.quote_vault,
        ..keys
    };
    let ix = lix::swap_with_ata(&forged, &trader.pubkey(), buy);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&trader]).await,
        AnchorError::ConstraintHasOne,
    );
    // The trader's own quote account posing as the vault (sell proceeds would come from the trader).
    let forged = LaunchKeys {
        quote_vault: env.quote_ata(&keys, &trader.pubkey()),
        ..keys
    };
    let sell = SwapArgs {
        side: SIDE_SELL,
        amount_in: 1_000_000,
        min_amount_out: 0,
    };
    let ix = lix::swap_with_ata(&forged, &trader.pubkey(), sell);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&trader]).await,
        AnchorError::ConstraintDuplicateMutableAccount,
    );
    // A third party's quote account posing as the vault.
    let bystander = env.wallet().await;
    let bystander_quote = env.fund_quote(&bystander, QuoteAsset::Usdc, USDC).await;
    let forged = LaunchKeys {
        quote_vault: bystander_quote,
        ..keys
    };
    let ix = lix::swap_with_ata(&forged, &trader.pubkey(), sell);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&trader]).await,
        AnchorError::ConstraintHasOne,
    );
    // Claims through a forged vault.
    let forged = LaunchKeys {
        quote_vault: other.quote_vault,
        ..keys
    };
    let dest = env.fund_quote(&creator, QuoteAsset::Usdc, 1).await;
    let ix = lix::claim_trading_fee(&forged, &creator.pubkey(), &dest);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[ix], &[&creator]).await,
        AnchorError::ConstraintHasOne,
    );
    // Selling from someone else's token account: the token program refuses.
    let victim = env.base_ata(&keys, &trader.pubkey());
    let thief = env.wallet().await;
    let thief_quote = env.fund_quote(&thief, QuoteAsset::Usdc, 1).await;
    // An amount the curve pays for (so the swap is priced and reaches the transfer), from the victim's
    // account: the token program refuses an owner that did not sign.
    let stolen = SwapArgs {
        amount_in: env.balance(&victim).await / 2,
        ..sell
    };
    let ix = lix::swap(&keys, &thief.pubkey(), &victim, &thief_quote, stolen);
    assert_code(
        &sdk::ids::TOKEN_2022_PROGRAM,
        0,
        env.send(&[ix], &[&thief]).await,
        TOKEN_OWNER_MISMATCH,
    );

    // create_launch: a mint that is not the creator's PDA, and a quote mint that is not the config's.
    let salt = env.next_salt();
    let good = env.keys(&creator.pubkey(), salt, Preset::Fair, QuoteAsset::Usdc);
    let args = CreateLaunchArgs {
        name: "X".into(),
        symbol: "X".into(),
        uri: "ipfs://x".into(),
        salt,
    };
    let forged_mint = pda::mint(&trader.pubkey(), salt);
    let forged = LaunchKeys::new(creator.pubkey(), good.config, good.quote_mint, forged_mint);
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[lix::create_launch(&forged, args.clone())], &[&creator])
            .await,
        AnchorError::ConstraintSeeds,
    );
    let forged = LaunchKeys {
        quote_mint: env.quote_mint(QuoteAsset::Sol),
        ..good
    };
    assert_error(
        0,
        env.send(&[lix::create_launch(&forged, args)], &[&creator])
            .await,
        LaunchpadError::InvalidQuoteMint,
    );

    assert_eq!(env.pool(&keys.pool).await, snapshot);
    env.assert_reconciled(&keys).await;
    env.assert_reconciled(&other).await;
}
