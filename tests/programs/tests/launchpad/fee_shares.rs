//! Shared creator fees (`set_fee_shares`, `claim_fee_share`, `share_locked_lp_fee`): set at launch in the
//! launch's transaction, every creator fee is credited to the recipients by their shares, exactly; each
//! recipient claims its own, a dropped recipient keeps what it was credited, the shares change only by the
//! creator role and only until locked, and after migration the locked creator position's fees follow the
//! same shares. The creator role itself is refused once the fees are shared.

use crate::harness::*;
use curve::{Preset, QuoteAsset};
use launchpad::{FeeRecipient, LaunchpadError};
use sdk::amm_ix;
use sdk::events::LaunchpadEvent;
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs, LaunchKeys};
use sdk::{associated_token_address, ids};
use solana_keypair::Keypair;
use solana_signer::Signer;

fn shares(list: &[(&Keypair, u16)]) -> Vec<FeeRecipient> {
    list.iter()
        .map(|(k, bps)| FeeRecipient {
            wallet: k.pubkey(),
            bps: *bps,
        })
        .collect()
}

/// Launches with the shares set in the launch's own transaction.
async fn launch_shared(
    env: &mut Env,
    creator: &Keypair,
    quote: QuoteAsset,
    recipients: Vec<FeeRecipient>,
) -> (LaunchKeys, Vec<LaunchpadEvent>) {
    let salt = env.next_salt();
    let keys = env.keys(&creator.pubkey(), salt, Preset::Fair, quote);
    let args = CreateLaunchArgs {
        name: "Shared".into(),
        symbol: "SHR".into(),
        uri: "https://example.org/shared.json".into(),
        salt,
    };
    let events = env
        .send(
            &[
                lix::create_launch(&keys, args),
                lix::set_fee_shares(&keys, &creator.pubkey(), recipients, false),
            ],
            &[creator],
        )
        .await
        .unwrap();
    (keys, events)
}

/// `who` claims its fee share into its quote account (and token account, `with_base`); returns what arrived.
async fn claim(env: &mut Env, keys: &LaunchKeys, who: &Keypair, with_base: bool) -> (u64, u64) {
    let quote_account = env.fund_quote(who, quote_of(env, keys), 0).await;
    let base_account =
        associated_token_address(&who.pubkey(), &keys.mint, &ids::TOKEN_2022_PROGRAM);
    let mut ixs = vec![lix::create_ata_idempotent(
        &who.pubkey(),
        &who.pubkey(),
        &keys.mint,
        &ids::TOKEN_2022_PROGRAM,
    )];
    let before = (
        env.balance(&quote_account).await,
        env.balance_or_zero(&base_account).await,
    );
    ixs.push(lix::claim_fee_share(
        keys,
        &who.pubkey(),
        &quote_account,
        with_base.then_some(base_account),
    ));
    env.send(&ixs, &[who]).await.unwrap();
    (
        env.balance(&quote_account).await - before.0,
        env.balance(&base_account).await - before.1,
    )
}

fn quote_of(env: &Env, keys: &LaunchKeys) -> QuoteAsset {
    if keys.quote_mint == env.usdc_mint {
        QuoteAsset::Usdc
    } else {
        QuoteAsset::Sol
    }
}

/// What `curve::distribute` gives each share of `amount`.
fn parts(amount: u64, bps: &[u16]) -> Vec<u64> {
    let mut out = vec![0; bps.len()];
    curve::distribute(amount, bps, &mut out).unwrap();
    out
}

#[tokio::test]
async fn three_recipients_each_claim_their_share_of_bonding_and_locked_lp_fees() {
    let mut env = Env::start().await;
    let quote = QuoteAsset::Usdc;
    let creator = env.wallet().await;
    let (r1, r2, r3) = (env.wallet().await, env.wallet().await, env.wallet().await);
    let (keys, events) = launch_shared(
        &mut env,
        &creator,
        quote,
        shares(&[(&r1, 5_000), (&r2, 3_000), (&r3, 2_000)]),
    )
    .await;
    assert!(events.iter().any(|e| matches!(e,
        LaunchpadEvent::FeeSharesSet(s) if s.recipients.len() == 3 && !s.locked && s.creator == creator.pubkey())));
    assert!(env.pool(&keys.pool).await.fee_shared);

    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, 200 * USDC).await;
    env.buy(&keys, &trader, 100 * USDC, 0).await.unwrap();
    let accrued = env.pool(&keys.pool).await.creator_fee_unclaimed;
    assert!(accrued > 0);
    env.assert_reconciled(&keys).await;

    // The creator role no longer claims creator fees (it is no recipient here); the partner still claims its own.
    let creator_dest = env.fund_quote(&creator, quote, 0).await;
    assert_error(
        0,
        env.send(
            &[lix::claim_trading_fee(
                &keys,
                &creator.pubkey(),
                &creator_dest,
            )],
            &[&creator],
        )
        .await,
        LaunchpadError::FeesShared,
    );
    let partner = env.funded_partner().await;
    let partner_dest = env.fund_quote(&partner, quote, 0).await;
    env.send(
        &[lix::claim_trading_fee(
            &keys,
            &partner.pubkey(),
            &partner_dest,
        )],
        &[&partner],
    )
    .await
    .unwrap();

    // Each recipient claims exactly its share (the dust to the first); a stranger is refused; a second claim
    // with nothing new is refused.
    let expected = parts(accrued, &[5_000, 3_000, 2_000]);
    assert_eq!(claim(&mut env, &keys, &r2, false).await, (expected[1], 0));
    assert_eq!(env.pool(&keys.pool).await.creator_fee_unclaimed, 0);
    let stranger = env.wallet().await;
    let dest = env.fund_quote(&stranger, quote, 0).await;
    assert_error(
        0,
        env.send(
            &[lix::claim_fee_share(&keys, &stranger.pubkey(), &dest, None)],
            &[&stranger],
        )
        .await,
        LaunchpadError::NotEntitled,
    );
    let r2_dest = env.fund_quote(&r2, quote, 0).await;
    assert_error(
        0,
        env.send(
            &[lix::claim_fee_share(&keys, &r2.pubkey(), &r2_dest, None)],
            &[&r2],
        )
        .await,
        LaunchpadError::NothingToClaim,
    );
    env.assert_reconciled(&keys).await;

    // Only the creator role changes the shares, only to a valid list.
    let bad_lists = [
        shares(&[(&r1, 5_000), (&r2, 4_999)]),
        shares(&[(&r1, 5_000), (&r1, 5_000)]),
        shares(&[(&r1, 10_000), (&r2, 0)]),
        vec![],
        vec![
            FeeRecipient {
                wallet: Default::default(),
                bps: 10_000
            };
            1
        ],
    ];
    for list in bad_lists {
        assert_error(
            0,
            env.send(
                &[lix::set_fee_shares(&keys, &creator.pubkey(), list, false)],
                &[&creator],
            )
            .await,
            LaunchpadError::InvalidFeeShares,
        );
    }
    let eleven: Vec<Keypair> = (0..11).map(|_| Keypair::new()).collect();
    let too_many: Vec<FeeRecipient> = eleven
        .iter()
        .enumerate()
        .map(|(i, k)| FeeRecipient {
            wallet: k.pubkey(),
            bps: if i == 0 { 0 } else { 1_000 },
        })
        .collect();
    assert_error(
        0,
        env.send(
            &[lix::set_fee_shares(
                &keys,
                &creator.pubkey(),
                too_many,
                false,
            )],
            &[&creator],
        )
        .await,
        LaunchpadError::InvalidFeeShares,
    );
    assert_error(
        0,
        env.send(
            &[lix::set_fee_shares(
                &keys,
                &r1.pubkey(),
                shares(&[(&r1, 10_000)]),
                false,
            )],
            &[&r1],
        )
        .await,
        LaunchpadError::NotEntitled,
    );

    // New shares, locked: r1 is dropped before claiming and keeps its credit; fees from now on follow the new
    // shares; nothing changes them again.
    env.buy(&keys, &trader, 50 * USDC, 0).await.unwrap();
    let before_change = env.pool(&keys.pool).await.creator_fee_unclaimed;
    let old = parts(before_change, &[5_000, 3_000, 2_000]);
    env.send(
        &[lix::set_fee_shares(
            &keys,
            &creator.pubkey(),
            shares(&[(&r3, 2_500), (&r2, 7_500)]),
            true,
        )],
        &[&creator],
    )
    .await
    .unwrap();
    let fs = env.fee_shares(&keys).await;
    assert_eq!(fs.count, 3, "r3, r2, then r1 kept at share 0");
    assert!(fs.locked);
    assert_eq!(
        (
            fs.slots[2].wallet,
            fs.slots[2].bps,
            fs.slots[2].quote_unclaimed
        ),
        (r1.pubkey(), 0, expected[0] + old[0])
    );
    assert_error(
        0,
        env.send(
            &[lix::set_fee_shares(
                &keys,
                &creator.pubkey(),
                shares(&[(&r1, 10_000)]),
                false,
            )],
            &[&creator],
        )
        .await,
        LaunchpadError::FeeSharesLocked,
    );
    env.sell(&keys, &trader, 1_000_000 * 1_000_000, 0)
        .await
        .unwrap();
    let after_change = env.pool(&keys.pool).await.creator_fee_unclaimed;
    let new = parts(after_change, &[2_500, 7_500]);
    assert_eq!(
        claim(&mut env, &keys, &r1, false).await,
        (expected[0] + old[0], 0)
    );
    assert_eq!(
        claim(&mut env, &keys, &r3, false).await,
        (expected[2] + old[2] + new[0], 0)
    );
    assert_eq!(
        claim(&mut env, &keys, &r2, false).await,
        (old[1] + new[1], 0)
    );
    env.assert_reconciled(&keys).await;

    // After migration the creator position's AMM fees follow the shares: anyone collects them into the pool's
    // vaults, each recipient claims its part in both tokens; the creator role cannot claim the position.
    env.graduate(&keys, quote).await;
    let migrator = env.wallet().await;
    env.migrate(&keys, &migrator).await.unwrap();
    let amm = keys.amm_keys();
    env.ensure_amm_accounts(&amm, &trader).await;
    env.amm_swap(&amm, &trader, amm.mint_a == keys.quote_mint, 20 * USDC)
        .await
        .unwrap();
    env.amm_swap(
        &amm,
        &trader,
        amm.mint_a != keys.quote_mint,
        100_000 * 1_000_000,
    )
    .await
    .unwrap();
    env.ensure_amm_accounts(&amm, &creator).await;
    assert_error(
        0,
        env.send(
            &[lix::claim_locked_lp_fee(
                &keys,
                &creator.pubkey(),
                &keys.creator_position(),
            )],
            &[&creator],
        )
        .await,
        LaunchpadError::FeesShared,
    );
    let owed = amm_ix::claimable_fees(
        &env.amm_pool(&amm.pool).await,
        &env.position(&keys.creator_position()).await,
    )
    .unwrap();
    let (owed_base, owed_quote) = if amm.mint_a == keys.mint {
        owed
    } else {
        (owed.1, owed.0)
    };
    assert!(owed_base > 0 && owed_quote > 0);
    let cranker = env.wallet().await;
    let events = env
        .send(
            &[lix::share_locked_lp_fee(&keys, &cranker.pubkey())],
            &[&cranker],
        )
        .await
        .unwrap();
    assert!(events.iter().any(|e| matches!(e,
        LaunchpadEvent::Claim(c) if c.kind == launchpad::CLAIM_KIND_LOCKED_LP_SHARED
            && c.amount == owed_quote && c.base_amount == owed_base)));
    env.assert_reconciled(&keys).await;
    // Nothing new to collect: the launchpad refuses it before any CPI.
    assert_error(
        0,
        env.send(
            &[lix::share_locked_lp_fee(&keys, &cranker.pubkey())],
            &[&cranker],
        )
        .await,
        LaunchpadError::NothingToClaim,
    );
    let (q, b) = (
        parts(owed_quote, &[2_500, 7_500]),
        parts(owed_base, &[2_500, 7_500]),
    );
    // The graduating buy's creator fee is still on the pool: the first claim credits it too.
    let graduation = parts(
        env.pool(&keys.pool).await.creator_fee_unclaimed,
        &[2_500, 7_500],
    );
    assert!(graduation[1] > 0);
    // Without a token account, only the quote is paid and the tokens wait.
    assert_eq!(
        claim(&mut env, &keys, &r3, false).await,
        (q[0] + graduation[0], 0)
    );
    assert_eq!(claim(&mut env, &keys, &r3, true).await, (0, b[0]));
    assert_eq!(
        claim(&mut env, &keys, &r2, true).await,
        (q[1] + graduation[1], b[1])
    );
    env.assert_reconciled(&keys).await;
    let fs = env.fee_shares(&keys).await;
    assert_eq!(
        fs.slots[..2]
            .iter()
            .map(|s| (s.quote_unclaimed, s.base_unclaimed))
            .collect::<Vec<_>>(),
        vec![(0, 0), (0, 0)]
    );
}

#[tokio::test]
async fn unshared_pools_refuse_the_share_instructions_and_the_first_shares_take_unclaimed_fees() {
    let mut env = Env::start().await;
    let quote = QuoteAsset::Sol;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, 2 * SOL).await;
    env.buy(&keys, &trader, SOL, 0).await.unwrap();
    // No shares account yet: a claim against it finds none.
    let dest = env.fund_quote(&trader, quote, 0).await;
    assert_code(
        &launchpad::ID,
        0,
        env.send(
            &[lix::claim_fee_share(&keys, &trader.pubkey(), &dest, None)],
            &[&trader],
        )
        .await,
        ACCOUNT_NOT_INITIALIZED,
    );
    // Shares set later: the creator fees not yet claimed are shared from then on (documented).
    let accrued = env.pool(&keys.pool).await.creator_fee_unclaimed;
    let team = env.wallet().await;
    env.send(
        &[lix::set_fee_shares(
            &keys,
            &creator.pubkey(),
            shares(&[(&creator, 6_000), (&team, 4_000)]),
            false,
        )],
        &[&creator],
    )
    .await
    .unwrap();
    let pool = env.pool(&keys.pool).await;
    assert_eq!(pool.creator_fee_unclaimed, 0);
    let expected = parts(accrued, &[6_000, 4_000]);
    // The creator, also a recipient, claims its share through the shares only.
    assert_eq!(
        claim(&mut env, &keys, &creator, false).await,
        (expected[0], 0)
    );
    assert_eq!(claim(&mut env, &keys, &team, false).await, (expected[1], 0));
    env.assert_reconciled(&keys).await;
    // The surplus stays the creator role's: after migration the creator role claims it, the recipients
    // have no part in it.
    env.graduate(&keys, quote).await;
    let migrator = env.wallet().await;
    env.migrate(&keys, &migrator).await.unwrap();
    let surplus = env.pool(&keys.pool).await.creator_surplus_unclaimed;
    assert!(surplus > 0);
    let creator_dest = env.fund_quote(&creator, quote, 0).await;
    let before = env.balance(&creator_dest).await;
    let team_credit = env.fee_shares(&keys).await.slots[1].quote_unclaimed;
    env.send(
        &[lix::claim_surplus(&keys, &creator.pubkey(), &creator_dest)],
        &[&creator],
    )
    .await
    .unwrap();
    assert_eq!(env.balance(&creator_dest).await - before, surplus);
    assert_eq!(
        env.fee_shares(&keys).await.slots[1].quote_unclaimed,
        team_credit
    );
    let pool = env.pool(&keys.pool).await;
    assert!(pool.creator_surplus_claimed);
    assert_eq!(pool.creator_surplus_unclaimed, 0);
    env.assert_reconciled(&keys).await;
}
