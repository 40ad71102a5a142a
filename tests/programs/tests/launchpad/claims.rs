//! `claim_trading_fee`: the creator and the partner are each paid their share, once per accrual; nobody
//! else is paid anything.

use crate::harness::*;
use curve::{Preset, QuoteAsset};
use launchpad::LaunchpadError;
use sdk::events::LaunchpadEvent;
use sdk::ids;
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use solana_keypair::Keypair;
use solana_signer::Signer;

async fn claim(env: &mut Env, keys: &LaunchKeys, who: &Keypair) -> TxResult<Vec<LaunchpadEvent>> {
    let dest = env.quote_ata(keys, &who.pubkey());
    let ixs = [
        lix::create_ata_idempotent(
            &who.pubkey(),
            &who.pubkey(),
            &keys.quote_mint,
            &ids::TOKEN_PROGRAM,
        ),
        lix::claim_trading_fee(keys, &who.pubkey(), &dest),
    ];
    env.send(&ixs, &[who]).await
}

async fn claims_for(quote: QuoteAsset) {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let partner = env.partner.insecure_clone();
    env.airdrop(&partner.pubkey(), 5 * SOL).await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, quote.threshold()).await;
    let unit = quote.threshold() / 100;
    for _ in 0..3 {
        env.buy(&keys, &trader, unit, 0).await.unwrap();
    }
    let pool = env.pool(&keys.pool).await;
    let (creator_due, partner_due) = (pool.creator_fee_unclaimed, pool.partner_fee_unclaimed);
    assert!(creator_due > 0 && partner_due >= creator_due);

    // Anyone else: refused, nothing moves.
    let stranger = env.wallet().await;
    assert_error(
        1,
        claim(&mut env, &keys, &stranger).await,
        LaunchpadError::NotEntitled,
    );
    assert_error(
        1,
        claim(&mut env, &keys, &trader).await,
        LaunchpadError::NotEntitled,
    );

    // The creator is paid the creator share.
    let dest = env.quote_ata(&keys, &creator.pubkey());
    let before = env.balance_or_zero(&dest).await;
    let events = claim(&mut env, &keys, &creator).await.unwrap();
    assert_eq!(env.balance(&dest).await - before, creator_due);
    let [LaunchpadEvent::Claim(c)] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(
        (c.claimer, c.amount, c.kind),
        (creator.pubkey(), creator_due, 0)
    );
    env.assert_reconciled(&keys).await;
    // Nothing more until more trading happens.
    assert_error(
        1,
        claim(&mut env, &keys, &creator).await,
        LaunchpadError::NothingToClaim,
    );

    // The partner is paid the partner share.
    let pdest = env.quote_ata(&keys, &partner.pubkey());
    let pbefore = env.balance_or_zero(&pdest).await;
    claim(&mut env, &keys, &partner).await.unwrap();
    assert_eq!(env.balance(&pdest).await - pbefore, partner_due);
    assert_error(
        1,
        claim(&mut env, &keys, &partner).await,
        LaunchpadError::NothingToClaim,
    );

    // More trading: each claim pays only what accrued since the last one.
    let e = swaps(&env.buy(&keys, &trader, unit, 0).await.unwrap())
        .pop()
        .unwrap();
    let before = env.balance(&dest).await;
    claim(&mut env, &keys, &creator).await.unwrap();
    assert_eq!(env.balance(&dest).await - before, e.creator_fee);
    let pool = env.pool(&keys.pool).await;
    assert_eq!(pool.creator_fee_claimed, creator_due + e.creator_fee);
    assert_eq!(pool.creator_fee_unclaimed, 0);
    assert_eq!(pool.partner_fee_unclaimed, e.partner_fee);
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn trading_fee_claims_sol() {
    claims_for(QuoteAsset::Sol).await;
}

#[tokio::test]
async fn trading_fee_claims_usdc() {
    claims_for(QuoteAsset::Usdc).await;
}

#[tokio::test]
async fn fees_stay_claimable_after_completion() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    let whale = env.wallet().await;
    env.fund_quote(&whale, QuoteAsset::Usdc, 1_000 * USDC).await;
    env.buy(&keys, &whale, 1_000 * USDC, 0).await.unwrap();
    let pool = env.pool(&keys.pool).await;
    assert_eq!(pool.status, launchpad::PoolStatus::Complete);
    let dest = env.quote_ata(&keys, &creator.pubkey());
    claim(&mut env, &keys, &creator).await.unwrap();
    assert_eq!(env.balance(&dest).await, pool.creator_fee_unclaimed);
    env.assert_reconciled(&keys).await;
}
