//! `create_launch`: the mint, its metadata and authorities, the pool and vaults, the first buy in the same
//! transaction, and refused metadata.

use crate::harness::*;
use anchor_spl::token_2022::spl_token_2022::{
    extension::{metadata_pointer::MetadataPointer, BaseStateWithExtensions, StateWithExtensions},
    state::Mint,
};
use anchor_spl::token_interface::spl_token_metadata_interface::state::TokenMetadata;
use curve::constants::*;
use curve::{Preset, QuoteAsset};
use launchpad::{LaunchpadError, PoolStatus};
use sdk::events::LaunchpadEvent;
use sdk::ids;
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs};
use solana_signer::Signer;

#[tokio::test]
async fn launch_creates_an_immutable_fixed_supply_token_for_every_preset_and_quote() {
    let mut env = Env::start().await;
    for preset in Preset::ALL {
        for quote in QuoteAsset::ALL {
            let creator = env.wallet().await;
            let (keys, events) = env.launch(&creator, preset, quote, None).await.unwrap();

            let acc = env
                .ctx
                .banks_client
                .get_account(keys.mint)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(acc.owner, ids::TOKEN_2022_PROGRAM);
            let mint = StateWithExtensions::<Mint>::unpack(&acc.data).unwrap();
            assert_eq!(mint.base.decimals, TOKEN_DECIMALS);
            assert_eq!(mint.base.supply, TOTAL_SUPPLY_BASE_UNITS);
            assert!(
                mint.base.mint_authority.is_none(),
                "mint authority must be gone"
            );
            assert!(mint.base.freeze_authority.is_none(), "no freeze authority");
            let pointer = mint.get_extension::<MetadataPointer>().unwrap();
            assert_eq!(
                Option::<anchor_lang::prelude::Pubkey>::from(pointer.metadata_address),
                Some(keys.mint)
            );
            assert_eq!(
                Option::<anchor_lang::prelude::Pubkey>::from(pointer.authority),
                None
            );
            let meta = mint.get_variable_len_extension::<TokenMetadata>().unwrap();
            assert!(meta.name.starts_with("Token "));
            assert!(meta.symbol.starts_with("TK"));
            assert!(meta.uri.starts_with("https://example.org/meta/"));
            assert_eq!(
                Option::<anchor_lang::prelude::Pubkey>::from(meta.update_authority),
                None,
                "metadata immutable"
            );

            let pool = env.pool(&keys.pool).await;
            assert_eq!(pool.status, PoolStatus::Bonding);
            assert_eq!(pool.creator, creator.pubkey());
            assert_eq!(pool.base_reserve, TOTAL_SUPPLY_BASE_UNITS);
            assert_eq!(pool.quote_reserve, 0);
            assert_eq!(pool.config, keys.config);
            assert_eq!(env.balance(&keys.base_vault).await, TOTAL_SUPPLY_BASE_UNITS);
            env.assert_reconciled(&keys).await;

            let [LaunchpadEvent::CreateLaunch(e)] = events.as_slice() else {
                panic!("{events:?}")
            };
            assert_eq!(
                (e.pool, e.mint, e.creator, e.config),
                (keys.pool, keys.mint, creator.pubkey(), keys.config)
            );
            assert_eq!((e.preset, e.quote), (preset as u8, quote as u8));
            assert_eq!(e.base_reserve, TOTAL_SUPPLY_BASE_UNITS);
            assert_eq!(e.launch_timestamp, pool.launch_timestamp);
        }
    }
}

#[tokio::test]
async fn first_buy_lands_in_the_launch_transaction() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    env.fund_quote(&creator, QuoteAsset::Usdc, 100 * USDC).await;
    let (keys, events) = env
        .launch(&creator, Preset::Fair, QuoteAsset::Usdc, Some(50 * USDC))
        .await
        .unwrap();
    assert!(matches!(events[0], LaunchpadEvent::CreateLaunch(_)));
    let swap = &swaps(&events)[0];
    assert_eq!(swap.trader, creator.pubkey());
    assert_eq!(swap.amount_in, 50 * USDC);
    assert_eq!(
        env.balance(&env.base_ata(&keys, &creator.pubkey())).await,
        swap.amount_out
    );
    assert_eq!(
        env.balance(&env.quote_ata(&keys, &creator.pubkey())).await,
        50 * USDC
    );
    env.assert_reconciled(&keys).await;
}

#[tokio::test]
async fn bad_metadata_is_refused_and_changes_nothing() {
    let mut env = Env::start().await;
    let creator = env.wallet().await;
    let long_name = "N".repeat(33);
    let cases = [
        (
            long_name.as_str(),
            "OK",
            "https://x",
            LaunchpadError::InvalidName,
        ),
        ("", "OK", "https://x", LaunchpadError::InvalidName),
        ("Bad\u{7}", "OK", "https://x", LaunchpadError::InvalidName),
        ("Fine", "lower", "https://x", LaunchpadError::InvalidSymbol),
        (
            "Fine",
            "ELEVENCHARS",
            "https://x",
            LaunchpadError::InvalidSymbol,
        ),
        ("Fine", "AB-C", "https://x", LaunchpadError::InvalidSymbol),
        ("Fine", "", "https://x", LaunchpadError::InvalidSymbol),
        ("Fine", "OK", "", LaunchpadError::InvalidUri),
    ];
    let long_uri = format!("https://{}", "u".repeat(200));
    let mut all: Vec<(String, String, String, LaunchpadError)> = cases
        .iter()
        .map(|(n, s, u, e)| (n.to_string(), s.to_string(), u.to_string(), *e))
        .collect();
    all.push((
        "Fine".into(),
        "OK".into(),
        long_uri,
        LaunchpadError::InvalidUri,
    ));
    // 32 characters of multi-byte text is still a valid name.
    let salt = env.next_salt();
    let keys = env.keys(&creator.pubkey(), salt, Preset::Fair, QuoteAsset::Sol);
    for (name, symbol, uri, expected) in all {
        let ix = lix::create_launch(
            &keys,
            CreateLaunchArgs {
                name,
                symbol,
                uri,
                salt,
            },
        );
        assert_error(0, env.send(&[ix], &[&creator]).await, expected);
        assert!(env
            .ctx
            .banks_client
            .get_account(keys.pool)
            .await
            .unwrap()
            .is_none());
    }
    let ok = CreateLaunchArgs {
        name: "é".repeat(32),
        symbol: "A1B2C3D4E5".into(),
        uri: "ipfs://x".into(),
        salt,
    };
    env.send(&[lix::create_launch(&keys, ok.clone())], &[&creator])
        .await
        .unwrap();
    // The same creator and salt cannot launch twice.
    assert_already_created(
        env.send(&[lix::create_launch(&keys, ok)], &[&creator])
            .await,
    );
}
