//! Changing shared creator fees without moving what was earned: after migration the creator position's
//! uncollected AMM fees are credited by the old shares before new ones apply (the change and a collection
//! bundled in one transaction take nothing from the old recipients); a pending creator handover freezes the
//! role's shares and claims; dropped recipients are paid out on the change so that they never hold a slot,
//! and when they are not, `FeeSharesFull` says so; a recipient's quote-only claim opens no account.

use crate::harness::*;
use anchor_lang::prelude::Pubkey;
use curve::{Preset, QuoteAsset};
use launchpad::{FeeRecipient, LaunchpadError};
use sdk::amm_ix;
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs, LaunchKeys};
use sdk::{associated_token_address, ids};
use solana_keypair::Keypair;
use solana_signer::Signer;

fn shares(list: &[(Pubkey, u16)]) -> Vec<FeeRecipient> {
    list.iter()
        .map(|(wallet, bps)| FeeRecipient {
            wallet: *wallet,
            bps: *bps,
        })
        .collect()
}

/// What `curve::distribute` gives each share of `amount`.
fn parts(amount: u64, bps: &[u16]) -> Vec<u64> {
    let mut out = vec![0; bps.len()];
    curve::distribute(amount, bps, &mut out).unwrap();
    out
}

/// A Fair launch in USDC with `recipients` set in the launch's own transaction.
async fn launch_shared(
    env: &mut Env,
    creator: &Keypair,
    recipients: Vec<FeeRecipient>,
) -> LaunchKeys {
    let salt = env.next_salt();
    let keys = env.keys(&creator.pubkey(), salt, Preset::Fair, QuoteAsset::Usdc);
    let args = CreateLaunchArgs {
        name: "Shared".into(),
        symbol: "SHR".into(),
        uri: "https://example.org/shared.json".into(),
        salt,
    };
    env.send(
        &[
            lix::create_launch(&keys, args),
            lix::set_fee_shares(&keys, &creator.pubkey(), recipients, false),
        ],
        &[creator],
    )
    .await
    .unwrap();
    keys
}

/// Graduates and migrates `keys`, then trades both ways on the AMM so that the locked positions earn fees
/// in both tokens.
async fn migrate_and_trade(env: &mut Env, keys: &LaunchKeys) {
    env.graduate(keys, QuoteAsset::Usdc).await;
    let migrator = env.wallet().await;
    env.migrate(keys, &migrator).await.unwrap();
    let amm = keys.amm_keys();
    let trader = env.wallet().await;
    env.fund_quote(&trader, QuoteAsset::Usdc, 100 * USDC).await;
    env.ensure_amm_accounts(&amm, &trader).await;
    for _ in 0..3 {
        env.amm_swap(&amm, &trader, amm.mint_a == keys.quote_mint, 20 * USDC)
            .await
            .unwrap();
    }
    env.amm_swap(
        &amm,
        &trader,
        amm.mint_a != keys.quote_mint,
        100_000 * 1_000_000,
    )
    .await
    .unwrap();
}

/// The creator position's uncollected fees, (base, quote).
async fn creator_position_owed(env: &mut Env, keys: &LaunchKeys) -> (u64, u64) {
    let amm = keys.amm_keys();
    let owed = amm_ix::claimable_fees(
        &env.amm_pool(&amm.pool).await,
        &env.position(&keys.creator_position()).await,
    )
    .unwrap();
    if amm.mint_a == keys.mint {
        owed
    } else {
        (owed.1, owed.0)
    }
}

/// (quote, base) credited to `wallet` and not yet claimed.
async fn credit(env: &mut Env, keys: &LaunchKeys, wallet: &Pubkey) -> (u64, u64) {
    let fs = env.fee_shares(keys).await;
    fs.slots[..fs.count as usize]
        .iter()
        .find(|s| s.wallet == *wallet)
        .map(|s| (s.quote_unclaimed, s.base_unclaimed))
        .unwrap_or((0, 0))
}

#[tokio::test]
async fn a_change_after_migration_credits_the_uncollected_amm_fees_by_the_old_shares() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (r1, r2) = (env.wallet().await, env.wallet().await);
    let keys = launch_shared(
        &mut env,
        &creator,
        shares(&[(r1.pubkey(), 5_000), (r2.pubkey(), 5_000)]),
    )
    .await;
    migrate_and_trade(&mut env, &keys).await;
    // The graduating buy's creator fee is still on the pool: it goes by the old shares too.
    let on_pool = env.pool(&keys.pool).await.creator_fee_unclaimed;
    let (owed_base, owed_quote) = creator_position_owed(&mut env, &keys).await;
    assert!(owed_base > 0 && owed_quote > 0 && on_pool > 0);
    let before = (
        credit(&mut env, &keys, &r1.pubkey()).await,
        credit(&mut env, &keys, &r2.pubkey()).await,
    );
    let to_creator = shares(&[(creator.pubkey(), 10_000)]);

    // Without the AMM accounts a change after migration is refused: it could not settle the old shares.
    assert_error(
        0,
        env.send(
            &[lix::set_fee_shares(
                &keys,
                &creator.pubkey(),
                to_creator.clone(),
                false,
            )],
            &[&creator],
        )
        .await,
        LaunchpadError::SettlementAccountsMissing,
    );
    // The review's bundle: the change, then the collection. The change collected everything by the old
    // shares, so the collection after it finds nothing and the whole transaction fails.
    let change = lix::set_fee_shares_settling(
        &keys,
        &creator.pubkey(),
        to_creator.clone(),
        false,
        true,
        &[],
    );
    let collect = lix::share_locked_lp_fee(&keys, &creator.pubkey());
    assert_error(
        1,
        env.send(&[change.clone(), collect], &[&creator]).await,
        LaunchpadError::NothingToClaim,
    );
    // The change alone: the old recipients are credited every fee earned under their shares.
    let events = env.send(&[change], &[&creator]).await.unwrap();
    assert!(events.iter().any(|e| matches!(e,
        sdk::events::LaunchpadEvent::Claim(c) if c.kind == launchpad::CLAIM_KIND_LOCKED_LP_SHARED
            && (c.amount, c.base_amount) == (owed_quote, owed_base))));
    let (q, b, p) = (
        parts(owed_quote, &[5_000, 5_000]),
        parts(owed_base, &[5_000, 5_000]),
        parts(on_pool, &[5_000, 5_000]),
    );
    assert_eq!(
        credit(&mut env, &keys, &r1.pubkey()).await,
        (before.0 .0 + q[0] + p[0], before.0 .1 + b[0])
    );
    assert_eq!(
        credit(&mut env, &keys, &r2.pubkey()).await,
        (before.1 .0 + q[1] + p[1], before.1 .1 + b[1])
    );
    assert_eq!(credit(&mut env, &keys, &creator.pubkey()).await, (0, 0));
    assert_eq!(creator_position_owed(&mut env, &keys).await, (0, 0));
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn a_pending_handover_freezes_the_creator_roles_shares_and_claims() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    migrate_and_trade(&mut env, &keys).await;
    let accrued = env.pool(&keys.pool).await.creator_fee_unclaimed;
    let surplus = env.pool(&keys.pool).await.creator_surplus_unclaimed;
    let owed = creator_position_owed(&mut env, &keys).await;
    assert!(accrued > 0 && surplus > 0 && owed.0 > 0 && owed.1 > 0);
    let buyer = env.wallet().await;
    env.send(
        &[lix::propose_creator(
            &keys,
            &creator.pubkey(),
            &buyer.pubkey(),
        )],
        &[&creator],
    )
    .await
    .unwrap();

    // Until the buyer accepts, the outgoing creator can neither share nor lock the fees, nor claim any of
    // the role's income.
    let grab = lix::set_fee_shares_settling(
        &keys,
        &creator.pubkey(),
        shares(&[(creator.pubkey(), 10_000)]),
        true,
        true,
        &[],
    );
    assert_error(
        0,
        env.send(&[grab], &[&creator]).await,
        LaunchpadError::HandoverPending,
    );
    let dest = env.fund_quote(&creator, QuoteAsset::Usdc, 0).await;
    assert_error(
        0,
        env.send(
            &[lix::claim_trading_fee(&keys, &creator.pubkey(), &dest)],
            &[&creator],
        )
        .await,
        LaunchpadError::HandoverPending,
    );
    assert_error(
        0,
        env.send(
            &[lix::claim_surplus(&keys, &creator.pubkey(), &dest)],
            &[&creator],
        )
        .await,
        LaunchpadError::HandoverPending,
    );
    env.ensure_amm_accounts(&keys.amm_keys(), &creator).await;
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
        LaunchpadError::HandoverPending,
    );
    assert!(!env.pool(&keys.pool).await.fee_shared);

    // The buyer accepts and is paid everything the role had earned.
    env.send(&[lix::accept_creator(&keys, &buyer.pubkey())], &[&buyer])
        .await
        .unwrap();
    let buyer_dest = env.fund_quote(&buyer, QuoteAsset::Usdc, 0).await;
    env.send(
        &[lix::claim_trading_fee(&keys, &buyer.pubkey(), &buyer_dest)],
        &[&buyer],
    )
    .await
    .unwrap();
    assert_eq!(env.balance(&buyer_dest).await, accrued);
    env.send(
        &[lix::claim_surplus(&keys, &buyer.pubkey(), &buyer_dest)],
        &[&buyer],
    )
    .await
    .unwrap();
    assert_eq!(env.balance(&buyer_dest).await, accrued + surplus);
    let amm = keys.amm_keys();
    env.ensure_amm_accounts(&amm, &buyer).await;
    let (to_a, to_b) = amm.owner_accounts(&buyer.pubkey());
    env.send(
        &[lix::claim_locked_lp_fee(
            &keys,
            &buyer.pubkey(),
            &keys.creator_position(),
        )],
        &[&buyer],
    )
    .await
    .unwrap();
    let (base_to, quote_to) = if amm.mint_a == keys.mint {
        (to_a, to_b)
    } else {
        (to_b, to_a)
    };
    assert_eq!(env.balance(&base_to).await, owed.0);
    assert_eq!(env.balance(&quote_to).await, accrued + surplus + owed.1);
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn dropped_recipients_are_paid_out_on_the_change_or_else_fill_the_slots() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let former: Vec<Keypair> = (0..10).map(|_| Keypair::new()).collect();
    let list: Vec<(Pubkey, u16)> = former.iter().map(|k| (k.pubkey(), 1_000)).collect();
    let keys = launch_shared(&mut env, &creator, shares(&list)).await;
    let trader = env.wallet().await;
    env.fund_quote(&trader, QuoteAsset::Usdc, 200 * USDC).await;
    env.buy(&keys, &trader, 100 * USDC, 0).await.unwrap();
    let accrued = env.pool(&keys.pool).await.creator_fee_unclaimed;
    let each = parts(accrued, &[1_000; 10]);
    assert!(each.iter().all(|&p| p > 0));

    // Seven new recipients while the ten former ones hold balances: 17 slots would be needed, 16 exist.
    let seven: Vec<(Pubkey, u16)> = (0..7)
        .map(|i| (Pubkey::new_unique(), if i == 0 { 4_000 } else { 1_000 }))
        .collect();
    let snapshot = env.fee_shares(&keys).await;
    assert_error(
        0,
        env.send(
            &[lix::set_fee_shares(
                &keys,
                &creator.pubkey(),
                shares(&seven),
                false,
            )],
            &[&creator],
        )
        .await,
        LaunchpadError::FeeSharesFull,
    );
    assert_eq!(env.fee_shares(&keys).await, snapshot);

    // Paying out one former recipient with the change frees its slot: it receives exactly its balance, and
    // the other nine keep theirs at share 0.
    let paid = &former[0];
    let payer = env.ctx.payer.insecure_clone();
    let paid_account = {
        let ata = associated_token_address(&paid.pubkey(), &keys.quote_mint, &ids::TOKEN_PROGRAM);
        env.send(
            &[lix::create_ata_idempotent(
                &payer.pubkey(),
                &paid.pubkey(),
                &keys.quote_mint,
                &ids::TOKEN_PROGRAM,
            )],
            &[&payer],
        )
        .await
        .unwrap();
        ata
    };
    let events = env
        .send(
            &[lix::set_fee_shares_settling(
                &keys,
                &creator.pubkey(),
                shares(&seven),
                false,
                false,
                &[paid_account],
            )],
            &[&creator],
        )
        .await
        .unwrap();
    assert_eq!(env.balance(&paid_account).await, each[0]);
    assert!(events.iter().any(|e| matches!(e,
        sdk::events::LaunchpadEvent::Claim(c) if c.kind == launchpad::CLAIM_KIND_FEE_SHARE
            && c.claimer == paid.pubkey() && c.amount == each[0])));
    let fs = env.fee_shares(&keys).await;
    assert_eq!(fs.count, 16);
    assert!(fs.slots[..16].iter().all(|s| s.wallet != paid.pubkey()));
    for (k, part) in former[1..].iter().zip(&each[1..]) {
        assert_eq!(credit(&mut env, &keys, &k.pubkey()).await, (*part, 0));
    }
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn a_recipients_quote_only_claim_opens_no_account() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let recipient = env.wallet().await;
    let keys = launch_shared(&mut env, &creator, shares(&[(recipient.pubkey(), 10_000)])).await;
    let trader = env.wallet().await;
    env.fund_quote(&trader, QuoteAsset::Usdc, 200 * USDC).await;
    env.buy(&keys, &trader, 100 * USDC, 0).await.unwrap();
    let accrued = env.pool(&keys.pool).await.creator_fee_unclaimed;
    let quote_account = env.fund_quote(&recipient, QuoteAsset::Usdc, 0).await;
    let base_account = env.base_ata(&keys, &recipient.pubkey());
    let before = env
        .ctx
        .banks_client
        .get_balance(recipient.pubkey())
        .await
        .unwrap();
    env.send(
        &[lix::claim_fee_share(
            &keys,
            &recipient.pubkey(),
            &quote_account,
            None,
        )],
        &[&recipient],
    )
    .await
    .unwrap();
    // The quote arrives in full; the wallet paid the signature fee and no rent; no token account exists.
    assert_eq!(env.balance(&quote_account).await, accrued);
    let after = env
        .ctx
        .banks_client
        .get_balance(recipient.pubkey())
        .await
        .unwrap();
    assert_eq!(before - after, 5_000);
    assert!(env
        .ctx
        .banks_client
        .get_account(base_account)
        .await
        .unwrap()
        .is_none());
}
