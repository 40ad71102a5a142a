//! `swap_exact_out` on the curve and on the AMM: exactly the amount asked for, paid as the SDK quotes it (the
//! same math the program runs), at most the maximum in; the graduation boundary; refusals that change nothing.

use crate::harness::*;
use curve::{Preset, QuoteAsset, Side};
use launchpad::{LaunchpadError, PoolStatus};
use sdk::events::AmmEvent;
use sdk::launchpad_ix::LaunchKeys;
use solana_keypair::Keypair;
use solana_signer::Signer;

/// The SDK's exact-out quote against the pool's state at the chain's time.
async fn quote_out(
    env: &mut Env,
    keys: &LaunchKeys,
    side: Side,
    amount_out: u64,
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
    sdk::quote::quote_exact_out(&config, bonding, side, amount_out, now).expect("quote")
}

async fn send_exact_out(
    env: &mut Env,
    keys: &LaunchKeys,
    trader: &Keypair,
    side: Side,
    amount_out: u64,
    max_in: u64,
) -> TxResult<Vec<sdk::events::LaunchpadEvent>> {
    match side {
        Side::Buy => env.buy_exact_out(keys, trader, amount_out, max_in).await,
        Side::Sell => env.sell_exact_out(keys, trader, amount_out, max_in).await,
    }
}

/// An exact-out swap at exactly its quoted input: the event, the wallet's balances and the pool follow the
/// quote to the base unit, and the quote's input less one unit is refused as slippage.
async fn checked_exact_out(
    env: &mut Env,
    keys: &LaunchKeys,
    trader: &Keypair,
    side: Side,
    amount_out: u64,
) -> sdk::events::EvtSwap {
    let q = quote_out(env, keys, side, amount_out).await;
    let before = env.pool(&keys.pool).await;
    let base_ata = env.base_ata(keys, &trader.pubkey());
    let quote_ata = env.quote_ata(keys, &trader.pubkey());
    let (b0, q0) = (
        env.balance_or_zero(&base_ata).await,
        env.balance(&quote_ata).await,
    );
    // A buy opens the trader's token account first: the swap is then the second instruction.
    assert_error(
        if side == Side::Buy { 1 } else { 0 },
        send_exact_out(env, keys, trader, side, amount_out, q.amount_in - 1).await,
        LaunchpadError::SlippageExceeded,
    );
    let events = send_exact_out(env, keys, trader, side, amount_out, q.amount_in)
        .await
        .unwrap();
    let e = swaps(&events).pop().expect("swap event");
    assert!(e.exact_out);
    assert_eq!(
        (e.amount_offered, e.min_amount_out),
        (q.amount_in, amount_out)
    );
    assert_eq!(
        (e.amount_in, e.amount_out, e.fee, e.refund),
        (q.amount_in, q.amount_out, q.fee, 0)
    );
    assert_eq!(
        (e.sqrt_price, e.base_reserve, e.quote_reserve),
        (q.next.sqrt_price, q.next.base_reserve, q.next.quote_reserve)
    );
    assert_eq!(e.creator_fee + e.partner_fee, e.fee);
    let (b1, q1) = (env.balance(&base_ata).await, env.balance(&quote_ata).await);
    match side {
        Side::Buy => {
            assert_eq!(b1 - b0, amount_out, "exactly the tokens asked for");
            assert_eq!(q0 - q1, e.amount_in);
            assert_eq!(e.amount_in - e.fee, e.quote_reserve - before.quote_reserve);
        }
        Side::Sell => {
            assert_eq!(q1 - q0, amount_out, "exactly the quote asked for");
            assert_eq!(b0 - b1, e.amount_in);
            assert_eq!(e.amount_out + e.fee, before.quote_reserve - e.quote_reserve);
        }
    }
    env.assert_reconciled(keys).await;
    e
}

async fn exact_out_flow(preset: Preset, quote: QuoteAsset) {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env.launch(&creator, preset, quote, None).await.unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, quote.threshold() * 3).await;
    let threshold = quote.threshold();
    // Buy exactly 10,000,000 tokens, then exactly 123,456,789.012345 more.
    checked_exact_out(&mut env, &keys, &trader, Side::Buy, 10_000_000_000_000).await;
    checked_exact_out(&mut env, &keys, &trader, Side::Buy, 123_456_789_012_345).await;
    // Sell for exactly a tenth of what was raised.
    let raised = env.pool(&keys.pool).await.quote_reserve;
    checked_exact_out(&mut env, &keys, &trader, Side::Sell, raised / 10).await;
    // Asking for more than is unsold is refused and changes nothing.
    let pool = env.pool(&keys.pool).await;
    let unsold = pool.base_reserve - curve::constants::MIGRATION_SUPPLY_BASE_UNITS;
    assert_error(
        1,
        env.buy_exact_out(&keys, &trader, unsold + 1, u64::MAX)
            .await,
        LaunchpadError::InsufficientLiquidity,
    );
    // Selling for more than the pool holds, likewise.
    assert_error(
        0,
        env.sell_exact_out(&keys, &trader, pool.quote_reserve, u64::MAX)
            .await,
        LaunchpadError::InsufficientLiquidity,
    );
    assert_error(
        1,
        env.buy_exact_out(&keys, &trader, 0, u64::MAX).await,
        LaunchpadError::ZeroAmount,
    );
    assert_eq!(
        env.pool(&keys.pool).await,
        pool,
        "refused swaps change nothing"
    );
    // Every unsold token: the buy completes the curve, paying exactly the missing quote plus its fee.
    let q = quote_out(&mut env, &keys, Side::Buy, unsold).await;
    assert!(q.completes);
    let events = env
        .buy_exact_out(&keys, &trader, unsold, q.amount_in)
        .await
        .unwrap();
    let e = swaps(&events).pop().unwrap();
    assert!(e.complete && e.exact_out);
    assert_eq!(e.amount_out, unsold);
    assert_eq!(e.amount_in - e.fee, threshold - pool.quote_reserve);
    let done = env.pool(&keys.pool).await;
    assert_eq!(done.status, PoolStatus::Complete);
    assert_eq!(done.quote_reserve, threshold);
    assert_eq!(
        done.base_reserve,
        curve::constants::MIGRATION_SUPPLY_BASE_UNITS
    );
    env.assert_reconciled(&keys).await;
    assert_error(
        1,
        env.buy_exact_out(&keys, &trader, 1, u64::MAX).await,
        LaunchpadError::CurveComplete,
    );
}

#[tokio::test]
async fn exact_out_fair_sol() {
    exact_out_flow(Preset::Fair, QuoteAsset::Sol).await;
}
#[tokio::test]
async fn exact_out_distribute_usdc() {
    exact_out_flow(Preset::Distribute, QuoteAsset::Usdc).await;
}
#[tokio::test]
async fn exact_out_shield_sol() {
    exact_out_flow(Preset::Shield, QuoteAsset::Sol).await;
}

/// A buy asking for a few tokens fewer than are unsold still completes the curve when those tokens cost
/// the missing quote: it receives every unsold token, at least what it asked for.
#[tokio::test]
async fn an_exact_out_buy_at_the_boundary_completes_the_curve() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, QuoteAsset::Usdc, 2_000 * USDC)
        .await;
    let pool = env.pool(&keys.pool).await;
    let unsold = pool.base_reserve - curve::constants::MIGRATION_SUPPLY_BASE_UNITS;
    let q = quote_out(&mut env, &keys, Side::Buy, unsold - 1).await;
    let events = env
        .buy_exact_out(&keys, &trader, unsold - 1, q.amount_in)
        .await
        .unwrap();
    let e = swaps(&events).pop().unwrap();
    // The quote and the program agree that the buy completes the curve, and it did: every unsold token for
    // exactly the missing quote plus its fee, and the pool waits for migration.
    assert!(q.completes, "the quote says the boundary buy completes");
    assert!(e.complete, "the boundary buy completed the curve");
    assert_eq!(e.amount_out, unsold);
    assert_eq!(e.amount_in - e.fee, QuoteAsset::Usdc.threshold());
    let pool = env.pool(&keys.pool).await;
    assert_eq!(pool.status, launchpad::PoolStatus::Complete);
    assert_eq!(
        pool.base_reserve,
        curve::constants::MIGRATION_SUPPLY_BASE_UNITS
    );
    env.assert_reconciled(&keys).await;
}

/// On the AMM a graduated token is bought and sold exact out: exactly the amount asked for, as quoted, the
/// product of the reserves never falling, the fee accruing to the locked positions.
#[tokio::test]
async fn exact_out_on_the_amm() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    env.graduate(&keys, QuoteAsset::Usdc).await;
    env.migrate(&keys, &creator).await.unwrap();
    let amm = keys.amm_keys();
    let trader = env.wallet().await;
    env.fund_quote(&trader, QuoteAsset::Usdc, 500 * USDC).await;
    env.ensure_amm_accounts(&amm, &trader).await;
    let quote_is_a = amm.mint_a == keys.quote_mint;
    for (a_to_b, amount_out) in [(quote_is_a, 5_000_000_000_000u64), (!quote_is_a, 2 * USDC)] {
        let pool = env.amm_pool(&amm.pool).await;
        let q = sdk::quote::amm::quote_exact_out(&pool, a_to_b, amount_out).unwrap();
        let args = |max_amount_in| sdk::amm_ix::AmmSwapExactOutArgs {
            a_to_b,
            amount_out,
            max_amount_in,
        };
        assert_amm_error(
            0,
            env.send(
                &[sdk::amm_ix::swap_exact_out(
                    &amm,
                    &trader.pubkey(),
                    args(q.amount_in - 1),
                )],
                &[&trader],
            )
            .await,
            amm::AmmError::SlippageExceeded,
        );
        let (out_ata, in_ata) = {
            let (ta, tb) = amm.owner_accounts(&trader.pubkey());
            if a_to_b {
                (tb, ta)
            } else {
                (ta, tb)
            }
        };
        let (o0, i0) = (env.balance(&out_ata).await, env.balance(&in_ata).await);
        env.send(
            &[sdk::amm_ix::swap_exact_out(
                &amm,
                &trader.pubkey(),
                args(q.amount_in),
            )],
            &[&trader],
        )
        .await
        .unwrap();
        let Some(AmmEvent::Swap(e)) = env.amm_events.first().cloned() else {
            panic!("{:?}", env.amm_events)
        };
        assert!(e.exact_out);
        assert_eq!(
            (e.amount_in, e.amount_out, e.fee),
            (q.amount_in, amount_out, q.fee)
        );
        assert_eq!(
            env.balance(&out_ata).await - o0,
            amount_out,
            "exactly what was asked"
        );
        assert_eq!(i0 - env.balance(&in_ata).await, q.amount_in);
        let after = env.amm_pool(&amm.pool).await;
        assert!(
            after.reserve_a as u128 * after.reserve_b as u128
                >= pool.reserve_a as u128 * pool.reserve_b as u128
        );
        env.assert_amm_reconciled(&amm).await;
    }
}
