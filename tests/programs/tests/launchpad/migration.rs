//! `migrate`, `claim_surplus`, `claim_locked_lp_fee`: per preset x quote, buy to graduation, migrate, and
//! check the AMM pool, the two locked positions, every claim and every refusal.

use crate::harness::*;
use amm::AmmError;
use curve::constants::*;
use curve::{Preset, QuoteAsset};
use launchpad::{LaunchpadError, PoolStatus};
use sdk::amm_ix::{self, AmmSwapArgs, RemoveLiquidityArgs};
use sdk::events::{AmmEvent, LaunchpadEvent};
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use solana_keypair::Keypair;
use solana_signer::Signer;

const COMPUTE_BUDGET_PROGRAM: anchor_lang::prelude::Pubkey =
    anchor_lang::prelude::pubkey!("ComputeBudget111111111111111111111111111111");

async fn claim_lp(
    env: &mut Env,
    keys: &LaunchKeys,
    who: &Keypair,
    position: &anchor_lang::prelude::Pubkey,
) -> TxResult<Vec<LaunchpadEvent>> {
    let amm = keys.amm_keys();
    env.ensure_amm_accounts(&amm, who).await;
    env.send(
        &[lix::claim_locked_lp_fee(keys, &who.pubkey(), position)],
        &[who],
    )
    .await
}

async fn claim_surplus(
    env: &mut Env,
    keys: &LaunchKeys,
    who: &Keypair,
) -> TxResult<Vec<LaunchpadEvent>> {
    let dest = env.quote_ata(keys, &who.pubkey());
    let ixs = [
        lix::create_ata_idempotent(
            &who.pubkey(),
            &who.pubkey(),
            &keys.quote_mint,
            &sdk::ids::TOKEN_PROGRAM,
        ),
        lix::claim_surplus(keys, &who.pubkey(), &dest),
    ];
    env.send(&ixs, &[who]).await
}

async fn migration_flow(preset: Preset, quote: QuoteAsset) {
    let mut env = Env::start().await;
    let partner = env.partner.insecure_clone();
    env.airdrop(&partner.pubkey(), 10 * SOL).await;
    let creator = env.wallet().await;
    let (keys, _) = env.launch(&creator, preset, quote, None).await.unwrap();
    let trader = env.wallet().await;
    env.fund_quote(&trader, quote, quote.threshold()).await;
    env.buy(&keys, &trader, quote.threshold() / 5, 0)
        .await
        .unwrap();

    // Not before completion.
    let migrator = env.wallet().await;
    assert_error(
        0,
        env.migrate(&keys, &migrator).await,
        LaunchpadError::CurveNotComplete,
    );
    env.graduate(&keys, quote).await;
    let completed = env.pool(&keys.pool).await;
    assert_eq!(completed.status, PoolStatus::Complete);

    // Anyone migrates.
    let events = env.migrate(&keys, &migrator).await.unwrap();
    let [LaunchpadEvent::Migrate(m)] = events.as_slice() else {
        panic!("{events:?}")
    };
    let amm = keys.amm_keys();
    assert_eq!(m.amm_pool, amm.pool);
    assert_eq!(
        m.base_amount, MIGRATION_SUPPLY_BASE_UNITS,
        "20% of supply goes to the AMM"
    );
    assert_eq!(m.burnt_base, 0);
    assert_eq!(
        m.quote_amount + m.surplus,
        quote.threshold(),
        "the raised quote goes to the AMM, the rest is surplus"
    );
    assert!(m.surplus <= 3, "surplus is rounding only");
    assert_eq!(m.creator_surplus + m.partner_surplus, m.surplus);
    assert!(env
        .amm_events
        .iter()
        .any(|e| matches!(e, AmmEvent::CreatePool(_))));

    // The AMM pool: 20% of supply and the raised quote, at the curve's final price.
    let pool = env.pool(&keys.pool).await;
    assert_eq!(pool.status, PoolStatus::Migrated);
    assert_eq!((pool.base_reserve, pool.quote_reserve), (0, 0));
    let ammp = env.amm_pool(&amm.pool).await;
    let base_is_a = amm.mint_a == keys.mint;
    let (base_res, quote_res) = if base_is_a {
        (ammp.reserve_a, ammp.reserve_b)
    } else {
        (ammp.reserve_b, ammp.reserve_a)
    };
    assert_eq!(base_res, MIGRATION_SUPPLY_BASE_UNITS);
    assert_eq!(quote_res, m.quote_amount);
    let at_curve_price =
        curve::amm::quote_at_sqrt_price(MIGRATION_SUPPLY_BASE_UNITS, completed.sqrt_price).unwrap();
    assert!(
        at_curve_price - quote_res <= 1,
        "AMM price is the final curve price to the quote's last unit"
    );
    assert_eq!(ammp.fee_bps, curve::amm::DEFAULT_SWAP_FEE_BPS);

    // Two positions, equal, locked for good, owned by the pool (their fees follow the roles).
    let cpos = env.position(&keys.creator_position()).await;
    let ppos = env.position(&keys.partner_position()).await;
    assert_eq!((cpos.owner, ppos.owner), (keys.pool, keys.pool));
    assert_eq!(cpos.locked_liquidity, ppos.locked_liquidity);
    assert_eq!(cpos.locked_liquidity, m.liquidity_per_position);
    assert_eq!((cpos.liquidity, ppos.liquidity), (0, 0));
    assert_eq!(ammp.locked_liquidity, ammp.liquidity);
    assert_eq!(ammp.liquidity, 2 * m.liquidity_per_position);
    env.assert_reconciled(&keys).await;

    // Once only; the curve trades no more, and says where trading went.
    let again = env.wallet().await;
    assert_error(
        0,
        env.migrate(&keys, &again).await,
        LaunchpadError::AlreadyMigrated,
    );
    assert_error(
        1,
        env.buy(&keys, &trader, 1_000_000, 0).await,
        LaunchpadError::PoolMigrated,
    );

    // Locked liquidity cannot be removed: its owner is the pool, which signs nothing but fee claims, and
    // anyone else fails the AMM's owner check (a locked position of one's own is refused with
    // `LiquidityLocked`, as the AMM's own tests show).
    env.ensure_amm_accounts(&amm, &creator).await;
    let rm = amm_ix::remove_liquidity(
        &amm,
        &creator.pubkey(),
        &keys.creator_position(),
        RemoveLiquidityArgs {
            liquidity: 1,
            min_a: 0,
            min_b: 0,
        },
    );
    assert_code(&amm::ID, 0, env.send(&[rm], &[&creator]).await, 2001u32); // ConstraintHasOne: not the owner

    // Trading on the AMM accrues fees to both locked positions.
    env.ensure_amm_accounts(&amm, &trader).await;
    let quote_in = quote.threshold() / 10;
    let buy = AmmSwapArgs {
        a_to_b: !base_is_a,
        amount_in: quote_in,
        min_amount_out: 1,
    };
    env.send(&[amm_ix::swap(&amm, &trader.pubkey(), buy)], &[&trader])
        .await
        .unwrap();
    let held = env.balance(&env.base_ata(&keys, &trader.pubkey())).await;
    let sell = AmmSwapArgs {
        a_to_b: base_is_a,
        amount_in: held / 3,
        min_amount_out: 1,
    };
    env.send(&[amm_ix::swap(&amm, &trader.pubkey(), sell)], &[&trader])
        .await
        .unwrap();
    env.assert_reconciled(&keys).await;

    // Each party claims its position's fees through the launchpad; nobody else can.
    let stranger = env.wallet().await;
    assert_error(
        0,
        claim_lp(&mut env, &keys, &stranger, &keys.creator_position()).await,
        LaunchpadError::NotEntitled,
    );
    assert_error(
        0,
        claim_lp(&mut env, &keys, &creator, &keys.partner_position()).await,
        LaunchpadError::InvalidPosition,
    );
    let events = claim_lp(&mut env, &keys, &creator, &keys.creator_position())
        .await
        .unwrap();
    let [LaunchpadEvent::Claim(c)] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(c.kind, launchpad::CLAIM_KIND_LOCKED_LP);
    assert!(
        c.amount > 0 && c.base_amount > 0,
        "fees in both tokens: {c:?}"
    );
    let events = claim_lp(&mut env, &keys, &partner, &keys.partner_position())
        .await
        .unwrap();
    let [LaunchpadEvent::Claim(p)] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(
        (p.amount, p.base_amount),
        (c.amount, c.base_amount),
        "equal positions earn equal fees"
    );
    assert_amm_error(
        0,
        claim_lp(&mut env, &keys, &creator, &keys.creator_position()).await,
        AmmError::NothingToClaim,
    );
    env.assert_reconciled(&keys).await;

    // Surplus: each party once.
    for (who, share) in [(&creator, m.creator_surplus), (&partner, m.partner_surplus)] {
        if share == 0 {
            assert_error(
                1,
                claim_surplus(&mut env, &keys, who).await,
                LaunchpadError::NothingToClaim,
            );
            continue;
        }
        let dest = env.quote_ata(&keys, &who.pubkey());
        let before = env.balance(&dest).await;
        claim_surplus(&mut env, &keys, who).await.unwrap();
        assert_eq!(env.balance(&dest).await - before, share);
        assert_error(
            1,
            claim_surplus(&mut env, &keys, who).await,
            LaunchpadError::SurplusAlreadyClaimed,
        );
    }
    assert_error(
        1,
        claim_surplus(&mut env, &keys, &stranger).await,
        LaunchpadError::NotEntitled,
    );

    // Bonding-phase trading fees stay claimable after migration.
    let dest = env.quote_ata(&keys, &creator.pubkey());
    let before = env.balance(&dest).await;
    env.send(
        &[lix::claim_trading_fee(&keys, &creator.pubkey(), &dest)],
        &[&creator],
    )
    .await
    .unwrap();
    assert_eq!(
        env.balance(&dest).await - before,
        pool.creator_fee_unclaimed
    );
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn migration_fair_sol() {
    migration_flow(Preset::Fair, QuoteAsset::Sol).await;
}
#[tokio::test]
async fn migration_fair_usdc() {
    migration_flow(Preset::Fair, QuoteAsset::Usdc).await;
}
#[tokio::test]
async fn migration_distribute_sol() {
    migration_flow(Preset::Distribute, QuoteAsset::Sol).await;
}
#[tokio::test]
async fn migration_distribute_usdc() {
    migration_flow(Preset::Distribute, QuoteAsset::Usdc).await;
}
#[tokio::test]
async fn migration_shield_sol() {
    migration_flow(Preset::Shield, QuoteAsset::Sol).await;
}
#[tokio::test]
async fn migration_shield_usdc() {
    migration_flow(Preset::Shield, QuoteAsset::Usdc).await;
}

#[tokio::test]
async fn the_completing_buy_and_migrate_fit_in_one_transaction_by_size() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    let whale = env.wallet().await;
    env.fund_quote(&whale, QuoteAsset::Usdc, 1_000 * USDC).await;
    // The compute-budget pair the API puts first (limit, price), then the buy and the migration: what the API
    // sends. The programs run natively here, unmetered, so this checks the transaction's size and accounts
    // (one packet, at most 64 accounts), not its compute: that is measured on SBF (docs/deploying.md).
    let budget = |tag: u8, value: &[u8]| {
        anchor_lang::solana_program::instruction::Instruction::new_with_bytes(
            COMPUTE_BUDGET_PROGRAM,
            &[&[tag][..], value].concat(),
            vec![],
        )
    };
    let ixs = [
        budget(2, &1_400_000u32.to_le_bytes()),
        budget(3, &1u64.to_le_bytes()),
        lix::create_ata_idempotent(
            &whale.pubkey(),
            &whale.pubkey(),
            &keys.mint,
            &sdk::ids::TOKEN_2022_PROGRAM,
        ),
        lix::swap_with_ata(
            &keys,
            &whale.pubkey(),
            lix::SwapArgs {
                side: lix::SIDE_BUY,
                amount_in: 1_000 * USDC,
                min_amount_out: 0,
            },
        ),
        lix::migrate(&keys, &whale.pubkey()),
    ];
    let tx = solana_transaction::Transaction::new_with_payer(&ixs, Some(&whale.pubkey()));
    let mut signed = tx.clone();
    signed.signatures =
        vec![Default::default(); tx.message.header.num_required_signatures as usize];
    let size = bincode::serialize(&signed).unwrap().len();
    assert!(size <= 1_232, "{size} bytes: above one packet");
    assert!(tx.message.account_keys.len() <= 64);
    let events = env.send(&ixs, &[&whale]).await.unwrap();
    assert!(events
        .iter()
        .any(|e| matches!(e, LaunchpadEvent::CurveComplete(_))));
    assert!(events
        .iter()
        .any(|e| matches!(e, LaunchpadEvent::Migrate(_))));
    assert_eq!(env.pool(&keys.pool).await.status, PoolStatus::Migrated);
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn a_forged_amm_pool_is_refused() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    env.graduate(&keys, QuoteAsset::Usdc).await;
    // An AMM pool of the same pair created by someone else (its address is namespaced by its creator).
    let squatter = env.wallet().await;
    let theirs = sdk::amm_ix::AmmKeys::new(
        squatter.pubkey(),
        (keys.mint, sdk::ids::TOKEN_2022_PROGRAM),
        (keys.quote_mint, sdk::ids::TOKEN_PROGRAM),
    );
    env.send(
        &[amm_ix::create_pool(&theirs, &squatter.pubkey(), 25)],
        &[&squatter],
    )
    .await
    .unwrap();
    let mut ix = lix::migrate(&keys, &creator.pubkey());
    let ours = keys.amm_keys().pool;
    for meta in ix.accounts.iter_mut().filter(|m| m.pubkey == ours) {
        meta.pubkey = theirs.pool;
    }
    assert_error(
        0,
        env.send(&[ix], &[&creator]).await,
        LaunchpadError::InvalidAmmAccount,
    );
    // The squatter's pool does not block the real migration.
    env.migrate(&keys, &creator).await.unwrap();
    env.assert_reconciled(&keys).await;
}

/// Nobody but a position's owner (or the pool's creator, here the launch's pool itself) adds liquidity to a
/// launch's locked positions: they stay exactly equal, as indexers rely on.
#[tokio::test]
async fn nobody_adds_liquidity_to_a_launchs_locked_positions() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, None)
        .await
        .unwrap();
    env.graduate(&keys, QuoteAsset::Usdc).await;
    let migrator = env.wallet().await;
    env.migrate(&keys, &migrator).await.unwrap();
    let amm = keys.amm_keys();
    // A wallet holding both tokens (bought on the AMM) tries to add to either position, locked or not.
    let stranger = env.wallet().await;
    env.fund_quote(&stranger, QuoteAsset::Usdc, 50 * USDC).await;
    env.ensure_amm_accounts(&amm, &stranger).await;
    env.amm_swap(&amm, &stranger, amm.mint_a == keys.quote_mint, 20 * USDC)
        .await
        .unwrap();
    let before = (
        env.position(&keys.creator_position()).await,
        env.position(&keys.partner_position()).await,
        env.amm_pool(&amm.pool).await,
    );
    for position in [keys.creator_position(), keys.partner_position()] {
        for lock in [false, true] {
            let args = amm_ix::AddLiquidityArgs {
                liquidity: 1_000,
                max_a: u64::MAX,
                max_b: u64::MAX,
                lock,
            };
            assert_amm_error(
                0,
                env.send(
                    &[amm_ix::add_liquidity(
                        &amm,
                        &stranger.pubkey(),
                        &position,
                        args,
                    )],
                    &[&stranger],
                )
                .await,
                AmmError::NotPositionOwner,
            );
        }
    }
    let after = (
        env.position(&keys.creator_position()).await,
        env.position(&keys.partner_position()).await,
        env.amm_pool(&amm.pool).await,
    );
    assert_eq!(before, after);
    assert_eq!(
        after.0.locked_liquidity, after.1.locked_liquidity,
        "the two locked positions stay equal"
    );
}
