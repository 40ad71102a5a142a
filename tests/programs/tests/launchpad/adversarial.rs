//! What a careless or hostile caller can try: long random trade sequences, both mint orderings, one wallet as
//! creator and partner, claims before migration, migrations with the wrong accounts, donations to vaults.

use crate::harness::*;
use crate::swaps::{checked_swap, quote_now};
use anchor_lang::prelude::Pubkey;
use curve::{Preset, QuoteAsset, Side};
use launchpad::{LaunchpadError, PoolStatus};
use rand::{Rng, SeedableRng};
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use sdk::pda;
use solana_keypair::Keypair;
use solana_signer::Signer;

/// Hundreds of seeded random buys and sells by several wallets on one curve: every swap matches the SDK's
/// quote and the wallets' balance changes, the vaults reconcile after each, and no token is created or lost.
async fn random_sequence(preset: Preset, quote: QuoteAsset, seed: u64, trades: usize) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env.launch(&creator, preset, quote, None).await.unwrap();
    let unit = quote.threshold() / 1_000; // buys of up to 0.5% of the threshold never complete the curve
    let mut wallets = Vec::new();
    for _ in 0..5 {
        let w = env.wallet().await;
        env.fund_quote(&w, quote, quote.threshold()).await;
        wallets.push(w);
    }
    for i in 0..trades {
        let w = &wallets[rng.gen_range(0..wallets.len())];
        let held = env.balance_or_zero(&env.base_ata(&keys, &w.pubkey())).await;
        let sell = held > 0 && rng.gen_bool(0.4);
        if sell {
            let amount = rng.gen_range(1..=held);
            checked_swap(&mut env, &keys, w, Side::Sell, amount).await;
        } else {
            let amount = rng.gen_range(unit / 100..=unit * 5);
            checked_swap(&mut env, &keys, w, Side::Buy, amount).await;
        }
        let pool = env.pool(&keys.pool).await;
        assert_eq!(pool.status, PoolStatus::Bonding, "trade {i}");
        let mut held = 0;
        for w in &wallets {
            held += env.balance_or_zero(&env.base_ata(&keys, &w.pubkey())).await;
        }
        assert_eq!(
            held + pool.base_reserve,
            curve::constants::TOTAL_SUPPLY_BASE_UNITS,
            "trade {i}: tokens are conserved"
        );
    }
}

#[tokio::test]
async fn random_trades_distribute_usdc() {
    random_sequence(Preset::Distribute, QuoteAsset::Usdc, 0x5eed_0001, 300).await;
}

#[tokio::test]
async fn random_trades_shield_sol() {
    random_sequence(Preset::Shield, QuoteAsset::Sol, 0x5eed_0002, 200).await;
}

/// The first salt whose mint sorts below (or above) the quote mint.
fn salt_with_order(creator: &Pubkey, quote_mint: &Pubkey, base_first: bool) -> u64 {
    (1_000..u64::MAX)
        .find(|salt| (pda::mint(creator, *salt) < *quote_mint) == base_first)
        .expect("some salt gives each order")
}

async fn migrate_with_order(quote: QuoteAsset, base_first: bool) {
    let mut env = Env::start().await;
    let partner = env.funded_partner().await;
    let creator = env.wallet().await;
    let salt = salt_with_order(&creator.pubkey(), &env.quote_mint(quote), base_first);
    let (keys, _) = env
        .launch_with_salt(&creator, Preset::Fair, quote, None, salt)
        .await
        .unwrap();
    let amm = keys.amm_keys();
    assert_eq!(amm.mint_a == keys.mint, base_first);
    env.graduate(&keys, quote).await;
    let migrator = env.wallet().await;
    env.migrate(&keys, &migrator).await.unwrap();
    env.assert_reconciled(&keys).await;
    let creator_pos = env.position(&keys.creator_position()).await;
    let partner_pos = env.position(&keys.partner_position()).await;
    assert_eq!(creator_pos.locked_liquidity, partner_pos.locked_liquidity);
    // AMM trading both ways, then both parties claim their locked positions' fees.
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, quote.threshold() / 10).await;
    env.ensure_amm_accounts(&amm, &trader).await;
    let quote_is_a = amm.mint_a == keys.quote_mint;
    env.amm_swap(&amm, &trader, quote_is_a, quote.threshold() / 20)
        .await
        .unwrap();
    let tokens = env.balance(&env.base_ata(&keys, &trader.pubkey())).await;
    env.amm_swap(&amm, &trader, !quote_is_a, tokens / 2)
        .await
        .unwrap();
    for (who, position) in [
        (&creator, keys.creator_position()),
        (&partner, keys.partner_position()),
    ] {
        env.ensure_amm_accounts(&amm, who).await;
        let ix = lix::claim_locked_lp_fee(&keys, &who.pubkey(), &position);
        env.send(&[ix], &[who]).await.unwrap();
    }
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn base_mint_below_the_quote_mint() {
    migrate_with_order(QuoteAsset::Usdc, true).await;
    migrate_with_order(QuoteAsset::Sol, true).await;
}

#[tokio::test]
async fn base_mint_above_the_quote_mint() {
    migrate_with_order(QuoteAsset::Usdc, false).await;
    migrate_with_order(QuoteAsset::Sol, false).await;
}

#[tokio::test]
async fn one_wallet_as_creator_and_partner() {
    let mut env = Env::start().await;
    let both = env.funded_partner().await;
    let quote = QuoteAsset::Usdc;
    let (keys, _) = env.launch(&both, Preset::Fair, quote, None).await.unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, 100 * USDC).await;
    env.buy(&keys, &trader, 50 * USDC, 0).await.unwrap();
    let pool = env.pool(&keys.pool).await;
    let owed = pool.creator_fee_unclaimed + pool.partner_fee_unclaimed;
    let dest = env.fund_quote(&both, quote, 1).await;
    let before = env.balance(&dest).await;
    let ix = lix::claim_trading_fee(&keys, &both.pubkey(), &dest);
    env.send(&[ix], &[&both]).await.unwrap();
    assert_eq!(
        env.balance(&dest).await - before,
        owed,
        "both shares at once"
    );

    env.graduate(&keys, quote).await;
    let migrator = env.wallet().await;
    env.migrate(&keys, &migrator).await.unwrap();
    let pool = env.pool(&keys.pool).await;
    let surplus = pool.creator_surplus_unclaimed + pool.partner_surplus_unclaimed;
    let before = env.balance(&dest).await;
    let ix = lix::claim_surplus(&keys, &both.pubkey(), &dest);
    if surplus > 0 {
        env.send(std::slice::from_ref(&ix), &[&both]).await.unwrap();
        assert_eq!(env.balance(&dest).await - before, surplus);
    }
    assert_error(
        0,
        env.send(&[ix], &[&both]).await,
        LaunchpadError::SurplusAlreadyClaimed,
    );
    // Two positions, one owner: each claims through its own id.
    let amm = keys.amm_keys();
    env.ensure_amm_accounts(&amm, &both).await;
    let creator_pos = keys.creator_position();
    let partner_pos = keys.partner_position();
    assert_ne!(creator_pos, partner_pos);
    let tokens = env.balance(&env.base_ata(&keys, &trader.pubkey())).await;
    env.ensure_amm_accounts(&amm, &trader).await;
    env.amm_swap(&amm, &trader, amm.mint_a == keys.mint, tokens / 2)
        .await
        .unwrap();
    for position in [creator_pos, partner_pos] {
        let ix = lix::claim_locked_lp_fee(&keys, &both.pubkey(), &position);
        env.send(&[ix], &[&both]).await.unwrap();
    }
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn claims_before_migration_and_migrations_with_wrong_accounts_are_refused() {
    let mut env = Env::start().await;
    env.funded_partner().await;
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
    env.graduate(&keys, quote).await;
    let snapshot = env.pool(&keys.pool).await;

    // Claims that only exist after migration.
    let dest = env.fund_quote(&creator, quote, 1).await;
    assert_error(
        0,
        env.send(
            &[lix::claim_surplus(&keys, &creator.pubkey(), &dest)],
            &[&creator],
        )
        .await,
        LaunchpadError::NotMigrated,
    );
    let amm = keys.amm_keys();
    env.ensure_amm_accounts(&amm, &creator).await;
    let ix = lix::claim_locked_lp_fee(&keys, &creator.pubkey(), &keys.creator_position());
    assert_error(
        0,
        env.send(&[ix], &[&creator]).await,
        LaunchpadError::InvalidAmmAccount,
    );

    // migrate with a wrong position, AMM vault, AMM pool or token program.
    let migrator = env.wallet().await;
    let good = lix::migrate(&keys, &migrator.pubkey());
    let idx = |ix: &anchor_lang::solana_program::instruction::Instruction, key: &Pubkey| {
        ix.accounts.iter().position(|a| a.pubkey == *key).unwrap()
    };
    let other_amm = other.amm_keys();
    let stranger = Pubkey::new_unique();
    // Each replacement fails where it is checked: the AMM's seeds for its accounts, the launchpad for its
    // pool, the token program (a quote mint it does not own) or Anchor (the base must be Token-2022).
    use anchor_lang::solana_program::instruction::error::InstructionError;
    let custom = |code: u32| TransactionError::InstructionError(0, InstructionError::Custom(code));
    let swaps: Vec<(Pubkey, Pubkey, TransactionError)> = vec![
        (
            keys.creator_position(),
            other.creator_position(),
            custom(CONSTRAINT_SEEDS),
        ),
        (keys.partner_position(), stranger, custom(CONSTRAINT_SEEDS)),
        (amm.vault_a, other_amm.vault_a, custom(CONSTRAINT_SEEDS)),
        (amm.vault_b, other_amm.vault_b, custom(CONSTRAINT_SEEDS)),
        (
            amm.pool,
            other_amm.pool,
            custom(LaunchpadError::InvalidAmmAccount.into()),
        ),
        (
            keys.quote_token_program,
            sdk::ids::TOKEN_2022_PROGRAM,
            TransactionError::InstructionError(0, InstructionError::IncorrectProgramId),
        ),
        (
            sdk::ids::TOKEN_2022_PROGRAM,
            sdk::ids::TOKEN_PROGRAM,
            custom(INVALID_PROGRAM_ID),
        ),
    ];
    for (from, to, expected) in swaps {
        let mut ix = good.clone();
        let i = idx(&ix, &from);
        ix.accounts[i].pubkey = to;
        let err = env.send(&[ix], &[&migrator]).await.unwrap_err();
        assert_eq!(err.error, expected, "migrate with {from} replaced by {to}");
    }
    assert_eq!(env.pool(&keys.pool).await, snapshot);
    env.send(&[good], &[&migrator]).await.unwrap();

    // claim_locked_lp_fee with mismatched accounts: another launch's AMM pool, the partner's position for
    // the creator, the creator's own position of another pool.
    let mut ix = lix::claim_locked_lp_fee(&keys, &creator.pubkey(), &keys.creator_position());
    let i = idx(&ix, &amm.pool);
    ix.accounts[i].pubkey = other_amm.pool;
    assert_error(
        0,
        env.send(&[ix], &[&creator]).await,
        LaunchpadError::InvalidAmmAccount,
    );
    let ix = lix::claim_locked_lp_fee(&keys, &creator.pubkey(), &keys.partner_position());
    assert_error(
        0,
        env.send(&[ix], &[&creator]).await,
        LaunchpadError::InvalidPosition,
    );
    let stranger = env.wallet().await;
    env.ensure_amm_accounts(&amm, &stranger).await;
    let ix = lix::claim_locked_lp_fee(&keys, &stranger.pubkey(), &keys.creator_position());
    assert_error(
        0,
        env.send(&[ix], &[&stranger]).await,
        LaunchpadError::NotEntitled,
    );
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn donations_to_vaults_move_no_price_and_break_no_claim() {
    let mut env = Env::start().await;
    let quote = QuoteAsset::Usdc;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, quote, None)
        .await
        .unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, 200 * USDC).await;
    env.buy(&keys, &trader, 20 * USDC, 0).await.unwrap();
    let before = env.pool(&keys.pool).await;

    // Someone sends quote and tokens straight into the vaults.
    let donor = env.wallet().await;
    env.fund_quote(&donor, quote, 30 * USDC).await;
    env.buy(&keys, &donor, 10 * USDC, 0).await.unwrap();
    let donor_tokens = env.balance(&env.base_ata(&keys, &donor.pubkey())).await;
    let before = {
        let after_donor_buy = env.pool(&keys.pool).await;
        assert_ne!(after_donor_buy, before);
        after_donor_buy
    };
    let donate = [
        anchor_spl::token::spl_token::instruction::transfer(
            &sdk::ids::TOKEN_PROGRAM,
            &env.quote_ata(&keys, &donor.pubkey()),
            &keys.quote_vault,
            &donor.pubkey(),
            &[],
            5 * USDC,
        )
        .unwrap(),
        anchor_spl::token_2022::spl_token_2022::instruction::transfer_checked(
            &sdk::ids::TOKEN_2022_PROGRAM,
            &env.base_ata(&keys, &donor.pubkey()),
            &keys.mint,
            &keys.base_vault,
            &donor.pubkey(),
            &[],
            donor_tokens,
            6,
        )
        .unwrap(),
    ];
    env.send(&donate, &[&donor]).await.unwrap();
    // The ledger ignores the donation: same price, same reserves, same fees owed.
    assert_eq!(env.pool(&keys.pool).await, before);
    let quote_vault = env.balance(&keys.quote_vault).await;
    assert_eq!(
        quote_vault,
        before.quote_reserve
            + before.creator_fee_unclaimed
            + before.partner_fee_unclaimed
            + 5 * USDC
    );
    // The next trade is priced from the ledger, exactly as the SDK quotes it without the donation.
    checked_swap_ignoring_vaults(&mut env, &keys, &trader).await;
    // Claims pay exactly what is owed.
    let pool = env.pool(&keys.pool).await;
    let dest = env.fund_quote(&creator, quote, 1).await;
    let b0 = env.balance(&dest).await;
    let ix = lix::claim_trading_fee(&keys, &creator.pubkey(), &dest);
    env.send(&[ix], &[&creator]).await.unwrap();
    assert_eq!(env.balance(&dest).await - b0, pool.creator_fee_unclaimed);
    // Graduation and migration go by the ledger too; the donation stays in the vaults.
    env.graduate(&keys, quote).await;
    let migrator = env.wallet().await;
    env.migrate(&keys, &migrator).await.unwrap();
    let pool = env.pool(&keys.pool).await;
    assert_eq!(
        pool.migrated_base,
        curve::constants::MIGRATION_SUPPLY_BASE_UNITS
    );
    assert_eq!(env.balance(&keys.base_vault).await, donor_tokens);
}

/// A buy whose event matches the SDK's quote from the pool's recorded state.
async fn checked_swap_ignoring_vaults(env: &mut Env, keys: &LaunchKeys, trader: &Keypair) {
    let quoted = quote_now(env, keys, Side::Buy, 10 * USDC).await;
    let events = env
        .buy(keys, trader, 10 * USDC, quoted.amount_out)
        .await
        .unwrap();
    let e = swaps(&events).pop().unwrap();
    assert_eq!(
        (e.amount_in, e.amount_out, e.fee),
        (quoted.amount_in, quoted.amount_out, quoted.fee)
    );
}
