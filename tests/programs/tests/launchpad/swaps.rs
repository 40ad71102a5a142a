//! `swap`: full flows for every preset x quote with several wallets, the exact graduation with refund,
//! completion, slippage, and refused amounts. The SDK's quote is checked against every on-chain result.

use crate::harness::*;
use curve::constants::*;
use curve::{Preset, QuoteAsset, Side};
use launchpad::{LaunchpadError, PoolStatus};
use sdk::events::LaunchpadEvent;
use sdk::launchpad_ix::{self as lix, LaunchKeys, SwapArgs, SIDE_BUY};
use solana_keypair::Keypair;
use solana_signer::Signer;

/// Quotes the swap with the SDK, sends it, and checks the event and balances against the quote.
/// The SDK's quote of a swap against the pool's recorded state at the chain's current time.
pub(crate) async fn quote_now(
    env: &mut Env,
    keys: &LaunchKeys,
    side: Side,
    amount: u64,
) -> curve::SwapResult {
    let pool = env.pool(&keys.pool).await;
    let config = env.config(&keys.config).await;
    let now = env
        .ctx
        .banks_client
        .get_sysvar::<anchor_lang::prelude::Clock>()
        .await
        .unwrap()
        .unix_timestamp;
    let bonding = sdk::quote::Bonding::of(&pool).expect("a bonding pool");
    sdk::quote::quote_exact_in(&config, bonding, side, amount, now).expect("quote")
}

pub(crate) async fn checked_swap(
    env: &mut Env,
    keys: &LaunchKeys,
    trader: &Keypair,
    side: Side,
    amount: u64,
) -> sdk::events::EvtSwap {
    let quoted = quote_now(env, keys, side, amount).await;
    let before = env.pool(&keys.pool).await;
    let base_ata = env.base_ata(keys, &trader.pubkey());
    let quote_ata = env.quote_ata(keys, &trader.pubkey());
    let (b0, q0) = (
        env.balance_or_zero(&base_ata).await,
        env.balance(&quote_ata).await,
    );
    let events = match side {
        Side::Buy => env
            .buy(keys, trader, amount, quoted.amount_out)
            .await
            .unwrap(),
        Side::Sell => env
            .sell(keys, trader, amount, quoted.amount_out)
            .await
            .unwrap(),
    };
    let e = swaps(&events).pop().expect("swap event");
    let (b1, q1) = (env.balance(&base_ata).await, env.balance(&quote_ata).await);
    assert_eq!(
        (e.amount_in, e.amount_out, e.fee, e.refund),
        (
            quoted.amount_in,
            quoted.amount_out,
            quoted.fee,
            quoted.refund
        )
    );
    assert_eq!(
        (e.sqrt_price, e.base_reserve, e.quote_reserve),
        (
            quoted.next.sqrt_price,
            quoted.next.base_reserve,
            quoted.next.quote_reserve
        )
    );
    assert_eq!(e.creator_fee + e.partner_fee, e.fee);
    // The fee is exactly the quote that moved without reaching the pool (a buy) or the trader (a sell).
    match side {
        Side::Buy => assert_eq!(e.amount_in - e.fee, e.quote_reserve - before.quote_reserve),
        Side::Sell => assert_eq!(e.amount_out + e.fee, before.quote_reserve - e.quote_reserve),
    }
    match side {
        Side::Buy => {
            assert_eq!(b1 - b0, e.amount_out);
            assert_eq!(
                q0 - q1,
                e.amount_in,
                "a buy takes exactly amount_in; the refund never leaves the wallet"
            );
        }
        Side::Sell => {
            assert_eq!(b0 - b1, e.amount_in);
            assert_eq!(q1 - q0, e.amount_out);
        }
    }
    env.assert_reconciled(keys).await;
    e
}

async fn full_flow(preset: Preset, quote: QuoteAsset) {
    let mut env = Env::start().await;
    let unit = match quote {
        QuoteAsset::Sol => SOL,
        QuoteAsset::Usdc => USDC,
    };
    let threshold = quote.threshold();
    let creator = env.wallet().await;
    let (keys, _) = env.launch(&creator, preset, quote, None).await.unwrap();
    let mut wallets = Vec::new();
    for _ in 0..3 {
        let w = env.wallet().await;
        env.fund_quote(&w, quote, threshold * 2).await;
        wallets.push(w);
    }
    // Several wallets buy and sell along the curve.
    let a = checked_swap(&mut env, &keys, &wallets[0], Side::Buy, threshold / 10).await;
    let b = checked_swap(&mut env, &keys, &wallets[1], Side::Buy, threshold / 4).await;
    checked_swap(&mut env, &keys, &wallets[0], Side::Sell, a.amount_out / 2).await;
    checked_swap(&mut env, &keys, &wallets[2], Side::Buy, threshold / 3).await;
    checked_swap(&mut env, &keys, &wallets[1], Side::Sell, b.amount_out / 3).await;
    checked_swap(&mut env, &keys, &wallets[0], Side::Buy, unit / 100 + 7).await;
    let before = env.pool(&keys.pool).await;
    assert_eq!(before.status, PoolStatus::Bonding);
    assert!(before.quote_reserve < threshold);

    // The crossing buy: offers far more than needed, pays exactly the missing quote plus fee.
    let needed = threshold - before.quote_reserve;
    let offer = threshold * 2 - threshold / 3;
    let events = env.buy(&keys, &wallets[2], offer, 0).await.unwrap();
    let swap = swaps(&events).pop().unwrap();
    assert!(swap.complete);
    assert_eq!(
        swap.amount_in - swap.fee,
        needed,
        "net quote is exactly what was missing"
    );
    assert_eq!(swap.amount_in + swap.refund, offer);
    assert!(swap.refund > 0);
    assert_eq!(
        swap.amount_out,
        before.base_reserve - MIGRATION_SUPPLY_BASE_UNITS
    );
    assert_eq!(swap.progress_bps, 10_000);
    assert!(events
        .iter()
        .any(|e| matches!(e, LaunchpadEvent::CurveComplete(c) if c.quote_reserve == threshold)));
    let pool = env.pool(&keys.pool).await;
    assert_eq!(pool.status, PoolStatus::Complete);
    assert_eq!(pool.quote_reserve, threshold, "threshold hit exactly");
    assert_eq!(
        pool.base_reserve, MIGRATION_SUPPLY_BASE_UNITS,
        "exactly 20% stays for the AMM"
    );
    env.assert_reconciled(&keys).await;

    // Every token sold sits in a wallet: 80% of supply in all.
    let mut held = env
        .balance_or_zero(&env.base_ata(&keys, &creator.pubkey()))
        .await;
    for w in &wallets {
        held += env.balance_or_zero(&env.base_ata(&keys, &w.pubkey())).await;
    }
    assert_eq!(held, SALE_SUPPLY_BASE_UNITS);

    // The complete curve trades no more, either way.
    assert_error(
        1,
        env.buy(&keys, &wallets[0], unit, 0).await,
        LaunchpadError::CurveComplete,
    );
    assert_error(
        0,
        env.sell(&keys, &wallets[0], 1_000_000, 0).await,
        LaunchpadError::CurveComplete,
    );
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn full_flow_fair_sol() {
    full_flow(Preset::Fair, QuoteAsset::Sol).await;
}
#[tokio::test]
async fn full_flow_fair_usdc() {
    full_flow(Preset::Fair, QuoteAsset::Usdc).await;
}
#[tokio::test]
async fn full_flow_distribute_sol() {
    full_flow(Preset::Distribute, QuoteAsset::Sol).await;
}
#[tokio::test]
async fn full_flow_distribute_usdc() {
    full_flow(Preset::Distribute, QuoteAsset::Usdc).await;
}
#[tokio::test]
async fn full_flow_shield_sol() {
    full_flow(Preset::Shield, QuoteAsset::Sol).await;
}
#[tokio::test]
async fn full_flow_shield_usdc() {
    full_flow(Preset::Shield, QuoteAsset::Usdc).await;
}

#[tokio::test]
async fn refused_amounts_change_nothing() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, QuoteAsset::Usdc, 100 * USDC).await;
    let bought = checked_swap(&mut env, &keys, &trader, Side::Buy, 10 * USDC).await;
    let snapshot = env.pool(&keys.pool).await;

    assert_error(
        1,
        env.buy(&keys, &trader, 0, 0).await,
        LaunchpadError::ZeroAmount,
    );
    assert_error(
        0,
        env.sell(&keys, &trader, 0, 0).await,
        LaunchpadError::ZeroAmount,
    );
    // One base unit buys nothing once the fee is rounded up.
    assert_error(
        1,
        env.buy(&keys, &trader, 1, 0).await,
        LaunchpadError::AmountTooSmall,
    );
    // Selling more than the curve ever sold.
    assert_error(
        0,
        env.sell(&keys, &trader, u64::MAX, 0).await,
        LaunchpadError::InsufficientLiquidity,
    );
    // Slippage: the exact quote plus one is refused.
    assert_error(
        1,
        env.buy(&keys, &trader, USDC, u64::MAX).await,
        LaunchpadError::SlippageExceeded,
    );
    assert_error(
        0,
        env.sell(&keys, &trader, bought.amount_out / 2, u64::MAX)
            .await,
        LaunchpadError::SlippageExceeded,
    );
    // u64::MAX offered by a wallet that holds 90 USDC: the buy would complete the curve for 750 USDC, which
    // the wallet cannot pay, so the token program refuses the transfer.
    // (The buy is the transaction's second instruction, after the token account's creation.)
    assert_code(
        &sdk::ids::TOKEN_PROGRAM,
        1,
        env.buy(&keys, &trader, u64::MAX, 0).await,
        TOKEN_INSUFFICIENT_FUNDS,
    );
    // An unknown side.
    let ix = lix::swap_with_ata(
        &keys,
        &trader.pubkey(),
        SwapArgs {
            side: 2,
            amount_in: USDC,
            min_amount_out: 0,
        },
    );
    assert_error(
        0,
        env.send(&[ix], &[&trader]).await,
        LaunchpadError::InvalidSide,
    );
    // Selling tokens the wallet does not hold.
    assert_code(
        &sdk::ids::TOKEN_2022_PROGRAM,
        0,
        env.sell(&keys, &trader, bought.amount_out + 1, 0).await,
        TOKEN_INSUFFICIENT_FUNDS,
    );

    assert_eq!(
        env.pool(&keys.pool).await,
        snapshot,
        "refused swaps change nothing"
    );
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn u64_max_offer_completes_the_curve_and_refunds_the_rest() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Distribute, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    let whale = env.wallet().await;
    // Enough to pay for the whole curve at a 1% fee.
    env.fund_quote(&whale, QuoteAsset::Usdc, 800 * USDC).await;
    let ix = lix::swap_with_ata(
        &keys,
        &whale.pubkey(),
        SwapArgs {
            side: SIDE_BUY,
            amount_in: u64::MAX,
            min_amount_out: 0,
        },
    );
    let ata = lix::create_ata_idempotent(
        &whale.pubkey(),
        &whale.pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    );
    let events = env.send(&[ata, ix], &[&whale]).await.unwrap();
    let s = swaps(&events).pop().unwrap();
    assert!(s.complete);
    assert_eq!(s.amount_in - s.fee, QuoteAsset::Usdc.threshold());
    assert_eq!(s.refund, u64::MAX - s.amount_in);
    assert_eq!(s.amount_out, SALE_SUPPLY_BASE_UNITS);
    assert_eq!(
        env.balance(&env.quote_ata(&keys, &whale.pubkey())).await,
        800 * USDC - s.amount_in
    );
    env.assert_reconciled(&keys).await;
}
