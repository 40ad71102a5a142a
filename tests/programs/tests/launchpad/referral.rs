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
        env.send(&[wrong_mint], &[&trader]).await,
        CONSTRAINT_TOKEN_MINT,
    );
}
