//! Referral fees: a swap that names a referral quote account pays it the config's referral share (20%) of the
//! partner's part of the fee at trade time, on buys and sells, exact in and exact out; the creator's part is
//! unchanged, the partner keeps the rest, and the event says who was paid what. A trader cannot refer itself
//! and the account must hold the pool's quote token.

use crate::harness::*;
use curve::{split_fee, split_referral, Preset, QuoteAsset};
use launchpad::LaunchpadError;
use sdk::launchpad_ix::{self as lix, SwapArgs, SwapExactOutArgs, SIDE_BUY, SIDE_SELL};
use sdk::{associated_token_address, ids};
use solana_signer::Signer;

#[tokio::test]
async fn a_referred_swap_pays_its_referrer_a_share_of_the_partner_fee() {
    let mut env = Env::start().await;
    let quote = QuoteAsset::Usdc;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let config = env.config(&keys.config).await;
    assert_eq!(config.referral_share_bps, 2_000);
    let trader = env.wallet().await;
    let trader_quote = env.fund_quote(&trader, quote, 500 * USDC).await;
    let trader_base =
        associated_token_address(&trader.pubkey(), &keys.mint, &ids::TOKEN_2022_PROGRAM);
    let referrer = env.wallet().await;
    let referral_account = env.fund_quote(&referrer, quote, 0).await;

    let mut paid = 0u64;
    let mut partner_total = 0u64;
    let mut creator_total = 0u64;
    let ata = lix::create_ata_idempotent(
        &trader.pubkey(),
        &trader.pubkey(),
        &keys.mint,
        &ids::TOKEN_2022_PROGRAM,
    );
    let trades = [
        lix::swap_referred(
            &keys,
            &trader.pubkey(),
            &trader_base,
            &trader_quote,
            SwapArgs {
                side: SIDE_BUY,
                amount_in: 100 * USDC,
                min_amount_out: 0,
            },
            Some(referral_account),
        ),
        lix::swap_referred(
            &keys,
            &trader.pubkey(),
            &trader_base,
            &trader_quote,
            SwapArgs {
                side: SIDE_SELL,
                amount_in: 10_000_000 * 1_000_000,
                min_amount_out: 0,
            },
            Some(referral_account),
        ),
        lix::swap_exact_out_referred(
            &keys,
            &trader.pubkey(),
            &trader_base,
            &trader_quote,
            SwapExactOutArgs {
                side: SIDE_BUY,
                amount_out: 5_000_000 * 1_000_000,
                max_amount_in: 100 * USDC,
            },
            Some(referral_account),
        ),
        lix::swap_exact_out_referred(
            &keys,
            &trader.pubkey(),
            &trader_base,
            &trader_quote,
            SwapExactOutArgs {
                side: SIDE_SELL,
                amount_out: 3 * USDC,
                max_amount_in: u64::MAX,
            },
            Some(referral_account),
        ),
    ];
    for (i, ix) in trades.into_iter().enumerate() {
        let ixs = if i == 0 {
            vec![ata.clone(), ix]
        } else {
            vec![ix]
        };
        let before = env.balance(&referral_account).await;
        let events = env.send(&ixs, &[&trader]).await.unwrap();
        let s = swaps(&events).pop().unwrap();
        let split = split_fee(s.fee, config.creator_fee_share_bps).unwrap();
        let cut = split_referral(split.partner, 2_000).unwrap();
        assert!(s.fee > 0);
        assert_eq!(
            s.creator_fee, split.creator,
            "the creator's part is unchanged"
        );
        assert_eq!((s.referral_fee, s.partner_fee), (cut.referral, cut.partner));
        assert_eq!(s.creator_fee + s.partner_fee + s.referral_fee, s.fee);
        assert_eq!(s.referrer, referrer.pubkey());
        assert_eq!(
            env.balance(&referral_account).await - before,
            s.referral_fee
        );
        paid += s.referral_fee;
        partner_total += s.partner_fee;
        creator_total += s.creator_fee;
        env.assert_reconciled(&keys).await;
    }
    assert!(paid > 0);
    let pool = env.pool(&keys.pool).await;
    assert_eq!(
        (pool.partner_fee_unclaimed, pool.creator_fee_unclaimed),
        (partner_total, creator_total)
    );

    // Without a referral the event names none and the partner keeps its whole part.
    let events = env.buy(&keys, &trader, 10 * USDC, 0).await.unwrap();
    let s = swaps(&events).pop().unwrap();
    assert_eq!((s.referrer, s.referral_fee), (Default::default(), 0));
    assert_eq!(s.creator_fee + s.partner_fee, s.fee);

    // A trader cannot refer itself (with a second quote account of its own: naming the one it pays from is
    // refused by Anchor as a duplicate); the referral account must hold the quote token.
    let second = solana_keypair::Keypair::new();
    let rent = 2_039_280; // rent-exempt minimum of a 165-byte token account
    let open = [
        anchor_lang::solana_program::system_instruction::create_account(
            &trader.pubkey(),
            &second.pubkey(),
            rent,
            165,
            &ids::TOKEN_PROGRAM,
        ),
        anchor_spl::token::spl_token::instruction::initialize_account3(
            &ids::TOKEN_PROGRAM,
            &second.pubkey(),
            &keys.quote_mint,
            &trader.pubkey(),
        )
        .unwrap(),
    ];
    env.send(&open, &[&trader, &second]).await.unwrap();
    let self_ref = lix::swap_referred(
        &keys,
        &trader.pubkey(),
        &trader_base,
        &trader_quote,
        SwapArgs {
            side: SIDE_BUY,
            amount_in: USDC,
            min_amount_out: 0,
        },
        Some(second.pubkey()),
    );
    assert_error(
        0,
        env.send(&[self_ref], &[&trader]).await,
        LaunchpadError::SelfReferral,
    );
    let referrer_wsol = env.fund_quote(&referrer, QuoteAsset::Sol, 0).await;
    let wrong_mint = lix::swap_referred(
        &keys,
        &trader.pubkey(),
        &trader_base,
        &trader_quote,
        SwapArgs {
            side: SIDE_BUY,
            amount_in: USDC,
            min_amount_out: 0,
        },
        Some(referrer_wsol),
    );
    assert_code(
        &launchpad::ID,
        0,
        env.send(&[wrong_mint], &[&trader]).await,
        CONSTRAINT_TOKEN_MINT,
    );
}

/// Referrals are an open rebate to any wallet's associated quote account; a vault is never one: another
/// launch's quote vault (the review's "untracked donation"), or any account that is not its owner's associated
/// account, is refused and the swap changes nothing.
#[tokio::test]
async fn a_referral_must_be_a_wallets_associated_account_never_a_vault() {
    let mut env = Env::start().await;
    let quote = QuoteAsset::Usdc;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let (other, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    let trader_quote = env.fund_quote(&trader, quote, 100 * USDC).await;
    let trader_base =
        associated_token_address(&trader.pubkey(), &keys.mint, &ids::TOKEN_2022_PROGRAM);
    let ata = lix::create_ata_idempotent(
        &trader.pubkey(),
        &trader.pubkey(),
        &keys.mint,
        &ids::TOKEN_2022_PROGRAM,
    );
    let buy = |referral| {
        lix::swap_referred(
            &keys,
            &trader.pubkey(),
            &trader_base,
            &trader_quote,
            SwapArgs {
                side: SIDE_BUY,
                amount_in: 10 * USDC,
                min_amount_out: 0,
            },
            Some(referral),
        )
    };
    let snapshot = env.pool(&keys.pool).await;
    let vault_before = env.balance(&other.quote_vault).await;
    // Another launch's quote vault.
    assert_error(
        1,
        env.send(&[ata.clone(), buy(other.quote_vault)], &[&trader])
            .await,
        LaunchpadError::ReferralNotAssociated,
    );
    // The launch's own quote vault: already among the swap's writable accounts, Anchor refuses it first.
    assert_code(
        &launchpad::ID,
        1,
        env.send(&[ata.clone(), buy(keys.quote_vault)], &[&trader])
            .await,
        anchor_lang::error::ErrorCode::ConstraintDuplicateMutableAccount as u32,
    );
    // A quote account of another wallet that is not its associated account.
    let referrer = env.wallet().await;
    let loose = solana_keypair::Keypair::new();
    let open = [
        anchor_lang::solana_program::system_instruction::create_account(
            &referrer.pubkey(),
            &loose.pubkey(),
            2_039_280,
            165,
            &ids::TOKEN_PROGRAM,
        ),
        anchor_spl::token::spl_token::instruction::initialize_account3(
            &ids::TOKEN_PROGRAM,
            &loose.pubkey(),
            &keys.quote_mint,
            &referrer.pubkey(),
        )
        .unwrap(),
    ];
    env.send(&open, &[&referrer, &loose]).await.unwrap();
    assert_error(
        1,
        env.send(&[ata.clone(), buy(loose.pubkey())], &[&trader])
            .await,
        LaunchpadError::ReferralNotAssociated,
    );
    assert_eq!(env.pool(&keys.pool).await, snapshot);
    assert_eq!(env.balance(&other.quote_vault).await, vault_before);
    // The same wallet's associated account is paid.
    let referral = env.fund_quote(&referrer, quote, 0).await;
    let events = env.send(&[ata, buy(referral)], &[&trader]).await.unwrap();
    let s = swaps(&events).pop().unwrap();
    assert!(s.referral_fee > 0);
    assert_eq!(env.balance(&referral).await, s.referral_fee);
    env.assert_reconciled(&keys).await;
}

/// The buy that completes the curve pays its referral the share of the fee it was charged (on the filled
/// part only: the refunded rest pays no fee).
#[tokio::test]
async fn a_referral_on_the_completing_buy_is_paid_its_share_of_the_fee_charged() {
    let mut env = Env::start().await;
    let quote = QuoteAsset::Usdc;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let config = env.config(&keys.config).await;
    let whale = env.wallet().await;
    let offer = quote.threshold() * 2;
    let whale_quote = env.fund_quote(&whale, quote, offer).await;
    let whale_base =
        associated_token_address(&whale.pubkey(), &keys.mint, &ids::TOKEN_2022_PROGRAM);
    let referrer = env.wallet().await;
    let referral = env.fund_quote(&referrer, quote, 0).await;
    let ixs = [
        lix::create_ata_idempotent(
            &whale.pubkey(),
            &whale.pubkey(),
            &keys.mint,
            &ids::TOKEN_2022_PROGRAM,
        ),
        lix::swap_referred(
            &keys,
            &whale.pubkey(),
            &whale_base,
            &whale_quote,
            SwapArgs {
                side: SIDE_BUY,
                amount_in: offer,
                min_amount_out: 0,
            },
            Some(referral),
        ),
    ];
    let events = env.send(&ixs, &[&whale]).await.unwrap();
    let s = swaps(&events).pop().unwrap();
    assert!(s.complete && s.refund > 0);
    let split = split_fee(s.fee, config.creator_fee_share_bps).unwrap();
    let cut = split_referral(split.partner, config.referral_share_bps).unwrap();
    assert_eq!((s.referral_fee, s.partner_fee), (cut.referral, cut.partner));
    assert!(s.referral_fee > 0);
    assert_eq!(env.balance(&referral).await, s.referral_fee);
    assert_eq!(s.amount_in - s.fee, quote.threshold());
    assert_eq!(env.balance(&whale_quote).await, offer - s.amount_in);
    env.assert_reconciled(&keys).await;
}
