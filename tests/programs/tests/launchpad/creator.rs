//! The creator role's handover (`propose_creator`, `accept_creator`): only the creator proposes, only the
//! proposed wallet accepts; from then on every creator claim (trading fees already accrued included, surplus,
//! the locked position's AMM fees) is the new holder's, paid to any account it names, and the previous creator
//! is refused. The locked position belongs to the pool: nobody claims it on the AMM directly.

use crate::harness::*;
use curve::{Preset, QuoteAsset};
use launchpad::LaunchpadError;
use sdk::amm_ix;
use sdk::events::LaunchpadEvent;
use sdk::launchpad_ix as lix;
use solana_signer::Signer;

#[tokio::test]
async fn the_creator_role_moves_in_two_steps_and_every_creator_claim_follows_it() {
    let mut env = Env::start().await;
    let quote = QuoteAsset::Usdc;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, 100 * USDC).await;
    env.buy(&keys, &trader, 50 * USDC, 0).await.unwrap();
    let accrued = env.pool(&keys.pool).await.creator_fee_unclaimed;
    assert!(accrued > 0);

    let team = env.wallet().await;
    let stranger = env.wallet().await;
    // Only the creator proposes; only the proposed wallet accepts.
    assert_error(
        0,
        env.send(
            &[lix::propose_creator(
                &keys,
                &stranger.pubkey(),
                &stranger.pubkey(),
            )],
            &[&stranger],
        )
        .await,
        LaunchpadError::NotEntitled,
    );
    let events = env
        .send(
            &[lix::propose_creator(
                &keys,
                &creator.pubkey(),
                &team.pubkey(),
            )],
            &[&creator],
        )
        .await
        .unwrap();
    assert!(events.iter().any(|e| matches!(e,
        LaunchpadEvent::CreatorProposed(p) if p.pending_creator == team.pubkey() && p.creator == creator.pubkey())));
    assert_eq!(env.pool(&keys.pool).await.pending_creator, team.pubkey());
    assert_error(
        0,
        env.send(
            &[lix::accept_creator(&keys, &stranger.pubkey())],
            &[&stranger],
        )
        .await,
        LaunchpadError::NotProposedCreator,
    );
    // Until accepted nothing changes: the creator still claims (nothing here: keep the fees for later).
    assert_eq!(env.pool(&keys.pool).await.creator, creator.pubkey());
    let events = env
        .send(&[lix::accept_creator(&keys, &team.pubkey())], &[&team])
        .await
        .unwrap();
    assert!(events.iter().any(|e| matches!(e,
        LaunchpadEvent::CreatorTransferred(t) if t.previous_creator == creator.pubkey() && t.creator == team.pubkey())));
    let pool = env.pool(&keys.pool).await;
    assert_eq!(
        (pool.creator, pool.pending_creator),
        (team.pubkey(), Default::default())
    );
    // A second accept is refused (the proposal is spent).
    assert_error(
        0,
        env.send(&[lix::accept_creator(&keys, &team.pubkey())], &[&team])
            .await,
        LaunchpadError::NotProposedCreator,
    );

    // The previous creator is refused; the new one is paid the fees accrued before the handover, into an
    // account of its choosing (here a third wallet's).
    let old_dest = env.fund_quote(&creator, quote, 1).await;
    assert_error(
        0,
        env.send(
            &[lix::claim_trading_fee(&keys, &creator.pubkey(), &old_dest)],
            &[&creator],
        )
        .await,
        LaunchpadError::NotEntitled,
    );
    let recipient = env.wallet().await;
    let dest = env.fund_quote(&recipient, quote, 1).await;
    let before = env.balance(&dest).await;
    env.send(
        &[lix::claim_trading_fee(&keys, &team.pubkey(), &dest)],
        &[&team],
    )
    .await
    .unwrap();
    assert_eq!(env.balance(&dest).await - before, accrued);

    // After graduation and migration the locked creator position's AMM fees are the new holder's too.
    env.graduate(&keys, quote).await;
    let migrator = env.wallet().await;
    env.migrate(&keys, &migrator).await.unwrap();
    let amm = keys.amm_keys();
    env.ensure_amm_accounts(&amm, &trader).await;
    env.amm_swap(&amm, &trader, amm.mint_a == keys.quote_mint, 5 * USDC)
        .await
        .unwrap();
    let position = keys.creator_position();
    assert_eq!(
        env.position(&position).await.owner,
        keys.pool,
        "the pool owns it"
    );
    for who in [&creator, &team] {
        env.ensure_amm_accounts(&amm, who).await;
    }
    assert_error(
        0,
        env.send(
            &[lix::claim_locked_lp_fee(
                &keys,
                &creator.pubkey(),
                &position,
            )],
            &[&creator],
        )
        .await,
        LaunchpadError::NotEntitled,
    );
    // Nor can anyone claim the locked position on the AMM directly: only the pool signs for it.
    assert_code(
        &amm::ID,
        0,
        env.send(
            &[amm_ix::claim_position_fee(
                &amm,
                &creator.pubkey(),
                &position,
            )],
            &[&creator],
        )
        .await,
        2001u32, // Anchor's ConstraintHasOne: the position's owner is the pool
    );
    let owed = amm_ix::claimable_fees(
        &env.amm_pool(&amm.pool).await,
        &env.position(&position).await,
    )
    .unwrap();
    assert!(owed.0 + owed.1 > 0);
    let (ta, tb) = amm.owner_accounts(&team.pubkey());
    let before = (env.balance(&ta).await, env.balance(&tb).await);
    env.send(
        &[lix::claim_locked_lp_fee(&keys, &team.pubkey(), &position)],
        &[&team],
    )
    .await
    .unwrap();
    assert_eq!(
        (
            env.balance(&ta).await - before.0,
            env.balance(&tb).await - before.1
        ),
        owed
    );
    env.assert_reconciled(&keys).await;
}

/// The creator's own trades pay the creator share like anyone's (the spec fixes the creator's share of every
/// bonding-phase fee at 50%): a creator's first buy on a `shield` launch pays the launch-minute 50% fee, half of
/// which (rounded down) accrues back to it, an effective 25%; docs/protocol.md records the decision.
#[tokio::test]
async fn the_creators_own_first_buy_pays_the_launch_fee_with_its_share_back() {
    let mut env = Env::start().await;
    let quote = QuoteAsset::Sol;
    let creator = env.wallet().await;
    env.fund_quote(&creator, quote, 2 * SOL).await;
    let (keys, events) = env
        .launch(&creator, Preset::Shield, quote, Some(SOL))
        .await
        .unwrap();
    let first = swaps(&events).pop().expect("the first buy");
    assert_eq!(first.fee_bps, 5_000, "the launch-minute fee");
    let share = env.config(&keys.config).await.creator_fee_share_bps;
    assert_eq!(share, 5_000);
    assert_eq!(
        first.creator_fee,
        curve::split_fee(first.fee, share).unwrap().creator
    );
    assert_eq!(first.creator_fee + first.partner_fee, first.fee);
    assert_eq!(
        env.pool(&keys.pool).await.creator_fee_unclaimed,
        first.creator_fee
    );
    env.assert_reconciled(&keys).await;
}
