//! The AMM on its own: pools of classic SPL mints and of a Token-2022 launch token, positions that share fees
//! pro rata, withdrawals of unlocked liquidity only, and refusals.

use crate::harness::*;
use amm::AmmError;
use curve::{Preset, QuoteAsset};
use sdk::amm_ix::{self, AddLiquidityArgs, AmmKeys, AmmSwapArgs, RemoveLiquidityArgs};
use sdk::events::AmmEvent;
use sdk::ids;
use solana_keypair::Keypair;
use solana_signer::Signer;

/// Two classic mints, a pool created by `lp`, and `lp` funded with both.
async fn classic_pool(env: &mut Env, lp: &Keypair) -> AmmKeys {
    let authority = Keypair::new();
    let x = env.create_mint(&authority.pubkey(), 6).await;
    let y = env.create_mint(&authority.pubkey(), 9).await;
    env.mint_to(&x, &authority, &lp.pubkey(), 10_000_000_000_000_000)
        .await;
    env.mint_to(&y, &authority, &lp.pubkey(), 10_000_000_000_000_000)
        .await;
    let keys = AmmKeys::new(
        lp.pubkey(),
        (x, ids::TOKEN_PROGRAM),
        (y, ids::TOKEN_PROGRAM),
    );
    // Reversed mints are refused; so is a fee above 10%.
    let reversed = AmmKeys {
        mint_a: keys.mint_b,
        mint_b: keys.mint_a,
        ..keys
    };
    let reversed = AmmKeys {
        pool: AmmKeys::new(
            lp.pubkey(),
            (x, ids::TOKEN_PROGRAM),
            (y, ids::TOKEN_PROGRAM),
        )
        .pool,
        ..reversed
    };
    // The pool's address is derived from the mints in order: reversed, its seeds do not match.
    assert_code(
        &amm::ID,
        0,
        env.send(&[amm_ix::create_pool(&reversed, &lp.pubkey(), 25)], &[lp])
            .await,
        CONSTRAINT_SEEDS,
    );
    assert_amm_error(
        0,
        env.send(&[amm_ix::create_pool(&keys, &lp.pubkey(), 1_001)], &[lp])
            .await,
        AmmError::InvalidFee,
    );
    env.send(&[amm_ix::create_pool(&keys, &lp.pubkey(), 30)], &[lp])
        .await
        .unwrap();
    keys
}

#[tokio::test]
async fn positions_share_fees_pro_rata_and_only_unlocked_liquidity_leaves() {
    let mut env = Env::start().await;
    let lp = env.wallet().await;
    let keys = classic_pool(&mut env, &lp).await;
    let pos1 = amm_ix::position_address(&keys.pool, &lp.pubkey(), 1);
    let pos2 = amm_ix::position_address(&keys.pool, &lp.pubkey(), 2);
    env.send(
        &[
            amm_ix::create_position(&keys, &lp.pubkey(), &lp.pubkey(), 1),
            amm_ix::create_position(&keys, &lp.pubkey(), &lp.pubkey(), 2),
        ],
        &[&lp],
    )
    .await
    .unwrap();

    // The first deposit sets the price and must not name a liquidity.
    let first = AddLiquidityArgs {
        liquidity: 5,
        max_a: 1_000_000_000,
        max_b: 4_000_000_000_000,
        lock: false,
    };
    assert_amm_error(
        0,
        env.send(
            &[amm_ix::add_liquidity(&keys, &lp.pubkey(), &pos1, first)],
            &[&lp],
        )
        .await,
        AmmError::FirstDepositLiquidity,
    );
    // Nobody but the pool's creator makes the first deposit: it sets the price.
    let stranger = env.wallet().await;
    env.ensure_amm_accounts(&keys, &stranger).await;
    assert_amm_error(
        0,
        env.send(
            &[amm_ix::add_liquidity(
                &keys,
                &stranger.pubkey(),
                &pos1,
                AddLiquidityArgs {
                    liquidity: 0,
                    ..first
                },
            )],
            &[&stranger],
        )
        .await,
        AmmError::FirstDepositNotCreator,
    );
    env.send(
        &[amm_ix::add_liquidity(
            &keys,
            &lp.pubkey(),
            &pos1,
            AddLiquidityArgs {
                liquidity: 0,
                ..first
            },
        )],
        &[&lp],
    )
    .await
    .unwrap();
    let pool = env.amm_pool(&keys.pool).await;
    let l1 = pool.liquidity;
    assert_eq!(l1, (1_000_000_000u128 * 4_000_000_000_000).isqrt());
    // A second position with a third of the first's liquidity, locked at once; a tight maximum is refused.
    let l2 = l1 / 3;
    let tight = AddLiquidityArgs {
        liquidity: l2,
        max_a: 1,
        max_b: u64::MAX,
        lock: true,
    };
    assert_amm_error(
        0,
        env.send(
            &[amm_ix::add_liquidity(&keys, &lp.pubkey(), &pos2, tight)],
            &[&lp],
        )
        .await,
        AmmError::SlippageExceeded,
    );
    let add2 = AddLiquidityArgs {
        liquidity: l2,
        max_a: u64::MAX,
        max_b: u64::MAX,
        lock: true,
    };
    env.send(
        &[amm_ix::add_liquidity(&keys, &lp.pubkey(), &pos2, add2)],
        &[&lp],
    )
    .await
    .unwrap();
    env.assert_amm_reconciled(&keys).await;

    // Swaps both ways; k never decreases; a swap below its minimum is refused.
    let trader = env.wallet().await;
    env.ensure_amm_accounts(&keys, &trader).await;
    let (ta, tb) = keys.owner_accounts(&trader.pubkey());
    let (la, lb) = keys.owner_accounts(&lp.pubkey());
    let t = [(la, ta), (lb, tb)];
    for (from, to) in t {
        let ix = anchor_spl::token::spl_token::instruction::transfer(
            &ids::TOKEN_PROGRAM,
            &from,
            &to,
            &lp.pubkey(),
            &[],
            100_000_000_000,
        )
        .unwrap();
        env.send(&[ix], &[&lp]).await.unwrap();
    }
    let mut k = pool.reserve_a as u128 * pool.reserve_b as u128;
    for (a_to_b, amount) in [
        (true, 50_000_000u64),
        (false, 90_000_000_000),
        (true, 7_777_777),
        (false, 1_234_567_890),
    ] {
        let before = env.amm_pool(&keys.pool).await;
        let q = sdk::quote::amm::quote_exact_in(&before, a_to_b, amount).unwrap();
        let too_much = AmmSwapArgs {
            a_to_b,
            amount_in: amount,
            min_amount_out: q.amount_out + 1,
        };
        assert_amm_error(
            0,
            env.send(
                &[amm_ix::swap(&keys, &trader.pubkey(), too_much)],
                &[&trader],
            )
            .await,
            AmmError::SlippageExceeded,
        );
        let args = AmmSwapArgs {
            a_to_b,
            amount_in: amount,
            min_amount_out: q.amount_out,
        };
        env.send(&[amm_ix::swap(&keys, &trader.pubkey(), args)], &[&trader])
            .await
            .unwrap();
        let Some(AmmEvent::Swap(e)) = env.amm_events.first().cloned() else {
            panic!("{:?}", env.amm_events)
        };
        assert_eq!((e.amount_out, e.fee), (q.amount_out, q.fee));
        let after = env.amm_pool(&keys.pool).await;
        let k2 = after.reserve_a as u128 * after.reserve_b as u128;
        assert!(k2 >= k, "k never decreases");
        k = k2;
        env.assert_amm_reconciled(&keys).await;
    }

    // Fees accrue in proportion to liquidity, locked or not.
    let pool = env.amm_pool(&keys.pool).await;
    let p1 = env.position(&pos1).await;
    let p2 = env.position(&pos2).await;
    let (f1a, f1b) = amm_ix::claimable_fees(&pool, &p1).unwrap();
    let (f2a, f2b) = amm_ix::claimable_fees(&pool, &p2).unwrap();
    assert!(f1a > 0 && f1b > 0 && f2a > 0 && f2b > 0);
    assert!(
        f1a.abs_diff(3 * f2a) <= 3 && f1b.abs_diff(3 * f2b) <= 3,
        "{f1a} {f2a} {f1b} {f2b}"
    );
    assert!(f1a + f2a <= pool.fees_a_total && f1b + f2b <= pool.fees_b_total);
    let (ba, bb) = (env.balance(&la).await, env.balance(&lb).await);
    env.send(
        &[amm_ix::claim_position_fee(&keys, &lp.pubkey(), &pos2)],
        &[&lp],
    )
    .await
    .unwrap();
    assert_eq!(
        (env.balance(&la).await - ba, env.balance(&lb).await - bb),
        (f2a, f2b),
        "locked liquidity's fees are claimable"
    );
    assert_amm_error(
        0,
        env.send(
            &[amm_ix::claim_position_fee(&keys, &lp.pubkey(), &pos2)],
            &[&lp],
        )
        .await,
        AmmError::NothingToClaim,
    );
    // Someone else cannot claim or withdraw a position.
    let thief = env.wallet().await;
    env.ensure_amm_accounts(&keys, &thief).await;
    assert_code(
        &amm::ID,
        0,
        env.send(
            &[amm_ix::claim_position_fee(&keys, &thief.pubkey(), &pos1)],
            &[&thief],
        )
        .await,
        CONSTRAINT_HAS_ONE, // the position's owner
    );
    let steal = RemoveLiquidityArgs {
        liquidity: 1,
        min_a: 0,
        min_b: 0,
    };
    assert_code(
        &amm::ID,
        0,
        env.send(
            &[amm_ix::remove_liquidity(
                &keys,
                &thief.pubkey(),
                &pos1,
                steal,
            )],
            &[&thief],
        )
        .await,
        CONSTRAINT_HAS_ONE,
    );

    // Unlocked liquidity leaves (rounded down); locked never does.
    let remove = RemoveLiquidityArgs {
        liquidity: l1 / 2,
        min_a: 0,
        min_b: 0,
    };
    let (ba, bb) = (env.balance(&la).await, env.balance(&lb).await);
    let pool = env.amm_pool(&keys.pool).await;
    let (wa, wb) =
        curve::amm::withdraw_amounts(pool.reserve_a, pool.reserve_b, pool.liquidity, l1 / 2)
            .unwrap();
    env.send(
        &[amm_ix::remove_liquidity(&keys, &lp.pubkey(), &pos1, remove)],
        &[&lp],
    )
    .await
    .unwrap();
    let p1_fees =
        amm_ix::claimable_fees(&env.amm_pool(&keys.pool).await, &env.position(&pos1).await)
            .unwrap();
    assert_eq!(
        (env.balance(&la).await - ba, env.balance(&lb).await - bb),
        (wa, wb)
    );
    assert_eq!(
        p1_fees,
        (f1a, f1b),
        "fees accrued before a withdrawal are kept"
    );
    let all_locked = RemoveLiquidityArgs {
        liquidity: 1,
        min_a: 0,
        min_b: 0,
    };
    assert_amm_error(
        0,
        env.send(
            &[amm_ix::remove_liquidity(
                &keys,
                &lp.pubkey(),
                &pos2,
                all_locked,
            )],
            &[&lp],
        )
        .await,
        AmmError::LiquidityLocked,
    );
    // Locking the rest of position 1 makes it unremovable too.
    let rest = env.position(&pos1).await.liquidity;
    env.send(
        &[amm_ix::permanent_lock(&keys, &lp.pubkey(), &pos1, rest)],
        &[&lp],
    )
    .await
    .unwrap();
    assert_amm_error(
        0,
        env.send(
            &[amm_ix::remove_liquidity(
                &keys,
                &lp.pubkey(),
                &pos1,
                all_locked,
            )],
            &[&lp],
        )
        .await,
        AmmError::LiquidityLocked,
    );
    let pool = env.amm_pool(&keys.pool).await;
    assert_eq!(pool.locked_liquidity, pool.liquidity);
    env.assert_amm_reconciled(&keys).await;
}

#[tokio::test]
async fn a_graduated_token_2022_pool_takes_outside_liquidity() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let (keys, _) = env
        .launch(&creator, Preset::Distribute, QuoteAsset::Sol, None)
        .await
        .unwrap();
    env.graduate(&keys, QuoteAsset::Sol).await;
    let migrator = env.wallet().await;
    env.migrate(&keys, &migrator).await.unwrap();
    let amm = keys.amm_keys();

    // An outside LP buys tokens on the AMM, then adds liquidity to its own position.
    let lp = env.wallet().await;
    env.fund_quote(&lp, QuoteAsset::Sol, 5 * SOL).await;
    env.ensure_amm_accounts(&amm, &lp).await;
    let base_is_a = amm.mint_a == keys.mint;
    env.send(
        &[amm_ix::swap(
            &amm,
            &lp.pubkey(),
            AmmSwapArgs {
                a_to_b: !base_is_a,
                amount_in: 2 * SOL,
                min_amount_out: 1,
            },
        )],
        &[&lp],
    )
    .await
    .unwrap();
    let pos = amm_ix::position_address(&amm.pool, &lp.pubkey(), 9);
    let pool = env.amm_pool(&amm.pool).await;
    let delta = pool.liquidity / 100;
    env.send(
        &[
            amm_ix::create_position(&amm, &lp.pubkey(), &lp.pubkey(), 9),
            amm_ix::add_liquidity(
                &amm,
                &lp.pubkey(),
                &pos,
                AddLiquidityArgs {
                    liquidity: delta,
                    max_a: u64::MAX,
                    max_b: u64::MAX,
                    lock: false,
                },
            ),
        ],
        &[&lp],
    )
    .await
    .unwrap();
    let (da, db) =
        curve::amm::deposit_amounts(pool.reserve_a, pool.reserve_b, pool.liquidity, delta).unwrap();
    // Withdrawing it all returns no more than was deposited.
    let (la, lb) = amm.owner_accounts(&lp.pubkey());
    let (ba, bb) = (env.balance(&la).await, env.balance(&lb).await);
    env.send(
        &[amm_ix::remove_liquidity(
            &amm,
            &lp.pubkey(),
            &pos,
            RemoveLiquidityArgs {
                liquidity: delta,
                min_a: 0,
                min_b: 0,
            },
        )],
        &[&lp],
    )
    .await
    .unwrap();
    let (ga, gb) = (env.balance(&la).await - ba, env.balance(&lb).await - bb);
    assert!(ga <= da && gb <= db, "no free value from a round trip");
    env.assert_reconciled(&keys).await;
}
