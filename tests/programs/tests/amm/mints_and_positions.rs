//! The AMM refuses mints whose transfers do not deliver what they send or whose custody is not the pool's, and
//! positions that neither their owner nor the pool's creator signed. A position opened late earns nothing of
//! earlier fees; liquidity added to another wallet's position belongs to that wallet.

use crate::harness::*;
use amm::AmmError;
use anchor_spl::token_2022::spl_token_2022::extension::ExtensionType;
use sdk::amm_ix::{self, AddLiquidityArgs, AmmKeys, AmmSwapArgs, RemoveLiquidityArgs};
use sdk::ids;
use solana_keypair::Keypair;
use solana_signer::Signer;

#[tokio::test]
async fn mints_with_transfer_altering_extensions_are_refused() {
    let mut env = Env::start_bare().await;
    let lp = env.wallet().await;
    let authority = Keypair::new();
    let classic = env.create_mint(&authority.pubkey(), 6).await;
    for extension in [
        ExtensionType::TransferFeeConfig,
        ExtensionType::TransferHook,
        ExtensionType::PermanentDelegate,
        ExtensionType::NonTransferable,
    ] {
        let mint = env
            .create_token_2022_mint(&authority.pubkey(), 6, extension)
            .await;
        let keys = AmmKeys::new(
            lp.pubkey(),
            (mint, ids::TOKEN_2022_PROGRAM),
            (classic, ids::TOKEN_PROGRAM),
        );
        assert_amm_error(
            0,
            env.send(&[amm_ix::create_pool(&keys, &lp.pubkey(), 25)], &[&lp])
                .await,
            AmmError::UnsupportedMintExtension,
        );
    }
}

#[tokio::test]
async fn positions_need_the_owner_or_the_pool_creator() {
    let mut env = Env::start_bare().await;
    let creator = env.wallet().await;
    let stranger = env.wallet().await;
    let victim = env.wallet().await;
    let authority = Keypair::new();
    let x = env.create_mint(&authority.pubkey(), 6).await;
    let y = env.create_mint(&authority.pubkey(), 6).await;
    env.mint_to(&x, &authority, &creator.pubkey(), 1_000_000_000_000)
        .await;
    env.mint_to(&y, &authority, &creator.pubkey(), 1_000_000_000_000)
        .await;
    let keys = AmmKeys::new(
        creator.pubkey(),
        (x, ids::TOKEN_PROGRAM),
        (y, ids::TOKEN_PROGRAM),
    );
    env.send(
        &[amm_ix::create_pool(&keys, &creator.pubkey(), 30)],
        &[&creator],
    )
    .await
    .unwrap();

    // A stranger cannot occupy the victim's position address, even paying for it.
    let ix = amm_ix::create_position_by(
        &keys,
        &stranger.pubkey(),
        &stranger.pubkey(),
        &victim.pubkey(),
        0,
    );
    assert_amm_error(
        0,
        env.send(&[ix], &[&stranger]).await,
        AmmError::Unauthorized,
    );
    // The owner can; so can the pool's creator for someone else.
    let ix = amm_ix::create_position(&keys, &victim.pubkey(), &victim.pubkey(), 0);
    env.send(&[ix], &[&victim]).await.unwrap();
    let ix = amm_ix::create_position_by(
        &keys,
        &creator.pubkey(),
        &creator.pubkey(),
        &stranger.pubkey(),
        0,
    );
    env.send(&[ix], &[&creator]).await.unwrap();
    let own = amm_ix::position_address(&keys.pool, &creator.pubkey(), 0);
    let ix = amm_ix::create_position(&keys, &creator.pubkey(), &creator.pubkey(), 0);
    env.send(&[ix], &[&creator]).await.unwrap();

    // The creator opens the pool, then deposits into the victim's position: a gift the victim owns.
    let first = AddLiquidityArgs {
        liquidity: 0,
        max_a: 100_000_000_000,
        max_b: 100_000_000_000,
        lock: false,
    };
    env.send(
        &[amm_ix::add_liquidity(&keys, &creator.pubkey(), &own, first)],
        &[&creator],
    )
    .await
    .unwrap();
    let victim_position = amm_ix::position_address(&keys.pool, &victim.pubkey(), 0);
    let gift = AddLiquidityArgs {
        liquidity: 1_000_000_000,
        max_a: u64::MAX,
        max_b: u64::MAX,
        lock: false,
    };
    env.send(
        &[amm_ix::add_liquidity(
            &keys,
            &creator.pubkey(),
            &victim_position,
            gift,
        )],
        &[&creator],
    )
    .await
    .unwrap();
    assert_eq!(
        env.position(&victim_position).await.liquidity,
        1_000_000_000
    );
    // The depositor cannot take it back; the owner can.
    let remove = RemoveLiquidityArgs {
        liquidity: 1_000_000_000,
        min_a: 0,
        min_b: 0,
    };
    let ix = amm_ix::remove_liquidity(&keys, &creator.pubkey(), &victim_position, remove);
    // A gift is the victim's: the pool's creator cannot take it back.
    assert_code(
        &amm::ID,
        0,
        env.send(&[ix], &[&creator]).await,
        CONSTRAINT_HAS_ONE,
    );
    env.ensure_amm_accounts(&keys, &victim).await;
    let ix = amm_ix::remove_liquidity(&keys, &victim.pubkey(), &victim_position, remove);
    env.send(&[ix], &[&victim]).await.unwrap();
    env.assert_amm_reconciled(&keys).await;

    // Swaps earn fees for the positions that exist; a position opened afterwards earns none of them.
    env.ensure_amm_accounts(&keys, &creator).await;
    for a_to_b in [true, false, true] {
        let ix = amm_ix::swap(
            &keys,
            &creator.pubkey(),
            AmmSwapArgs {
                a_to_b,
                amount_in: 1_000_000_000,
                min_amount_out: 0,
            },
        );
        env.send(&[ix], &[&creator]).await.unwrap();
    }
    let late = amm_ix::position_address(&keys.pool, &stranger.pubkey(), 7);
    let ix = amm_ix::create_position(&keys, &stranger.pubkey(), &stranger.pubkey(), 7);
    env.send(&[ix], &[&stranger]).await.unwrap();
    env.send(
        &[amm_ix::add_liquidity(&keys, &creator.pubkey(), &late, gift)],
        &[&creator],
    )
    .await
    .unwrap();
    let pool = env.amm_pool(&keys.pool).await;
    let late_fees = amm_ix::claimable_fees(&pool, &env.position(&late).await).unwrap();
    assert_eq!(late_fees, (0, 0));
    let own_fees = amm_ix::claimable_fees(&pool, &env.position(&own).await).unwrap();
    assert!(own_fees.0 > 0 && own_fees.1 > 0);
    env.ensure_amm_accounts(&keys, &stranger).await;
    let ix = amm_ix::claim_position_fee(&keys, &stranger.pubkey(), &late);
    assert_amm_error(
        0,
        env.send(&[ix], &[&stranger]).await,
        AmmError::NothingToClaim,
    );
    env.assert_amm_reconciled(&keys).await;
}
