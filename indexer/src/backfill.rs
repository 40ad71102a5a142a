//! Backfill: current account state over JSON-RPC (`getProgramAccounts`), for a cold start or a gap the
//! gRPC server cannot replay. Launches are rebuilt from pool accounts and their mints' metadata; they lack
//! the creating signature until (and unless) the stream replays it.

use crate::decode::decode_account_data;
use anchor_lang::prelude::Pubkey;
use futures::{StreamExt, TryStreamExt};
use index::model::*;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use std::collections::HashMap;

/// Account state of both programs as of (at least) `slot`, and the launched mints whose holders are read
/// next, a chunk at a time ([`holders`]), so that memory never holds every holder of every launch.
pub struct Snapshot {
    pub slot: u64,
    pub version: Version,
    pub changes: Vec<Change>,
    pub mints: Vec<Pubkey>,
    pub failures: Vec<crate::decode::DecodeError>,
}

/// How many launches' holders are read and written together.
pub const HOLDER_CHUNK: usize = 64;

/// Account state of both programs, the launches rebuilt from them, and the oracle.
pub async fn snapshot(rpc: &RpcClient) -> anyhow::Result<Snapshot> {
    // Versions take the slot read before the scan: never newer than what the scan saw, so any streamed
    // update the scan might have missed still wins.
    let slot = rpc.get_slot().await?;
    let version = Version {
        slot,
        write_version: 0,
    };
    let mut changes = Vec::new();
    let mut failures = Vec::new();
    for program in [launchpad::ID, amm::ID] {
        for (address, account) in rpc.get_program_accounts(&program).await? {
            match decode_account_data(address, program, version, account.lamports, &account.data) {
                Ok(Some(c)) => changes.push(c),
                Ok(None) => {}
                Err(e) => failures.push(e),
            }
        }
    }
    let configs: HashMap<Pubkey, sdk::accounts::Config> = changes
        .iter()
        .filter_map(|c| match c {
            Change::Account(w) => match &w.state {
                AccountState::Config(cfg) => Some((w.address, (**cfg).clone())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let pools: Vec<(Pubkey, sdk::accounts::Pool)> = changes
        .iter()
        .filter_map(|c| match c {
            Change::Account(w) => match &w.state {
                AccountState::Pool(p) => Some((w.address, (**p).clone())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    for change in &mut changes {
        if let Change::Account(w) = change {
            if let AccountState::Pool(p) = &w.state {
                w.progress_bps = configs
                    .get(&p.config)
                    .map(|c| sdk::quote::progress_bps(c, p));
            }
        }
    }
    for chunk in pools.chunks(100) {
        let mints: Vec<Pubkey> = chunk.iter().map(|(_, p)| p.base_mint).collect();
        let accounts = rpc.get_multiple_accounts(&mints).await?;
        for ((address, pool), mint) in chunk.iter().zip(accounts) {
            let meta = mint
                .as_ref()
                .and_then(|m| sdk::accounts::decode_token_metadata(&m.data));
            let Some((name, symbol, uri)) = meta else {
                tracing::warn!(
                    "backfill: mint {} of pool {address} has no metadata",
                    pool.base_mint
                );
                continue;
            };
            let config = configs.get(&pool.config);
            changes.push(Change::Event(Event::Launch(Box::new(Launch {
                mint: pool.base_mint,
                pool: *address,
                config: pool.config,
                creator: pool.creator,
                quote_mint: pool.quote_mint,
                name,
                symbol,
                uri,
                preset: config
                    .and_then(|c| curve::Preset::from_u8(c.preset))
                    .map_or("unknown", |p| p.name())
                    .into(),
                quote: config
                    .and_then(|c| curve::QuoteAsset::from_u8(c.quote))
                    .map_or("unknown", |q| q.name())
                    .into(),
                salt: pool.salt,
                created_slot: slot,
                created_at: pool.launch_timestamp,
                signature: None,
            }))));
        }
    }
    let mints: Vec<Pubkey> = pools.iter().map(|(_, p)| p.base_mint).collect();
    let oracle = sdk::oracle::SOL_USD_PRICE_ACCOUNT;
    if let Some(account) = rpc
        .get_account_with_commitment(&oracle, rpc.commitment())
        .await?
        .value
        .filter(|a| a.owner == sdk::oracle::PYTH_RECEIVER_PROGRAM)
    {
        if let Some(p) = crate::decode::decode_oracle(oracle, version, &account.data) {
            changes.push(Change::Oracle(Box::new(p)));
        }
    }
    Ok(Snapshot {
        slot,
        version,
        changes,
        mints,
        failures,
    })
}

/// The holders of `mints` (each mint's token accounts and its reconciliation, in `mints`' order): one
/// `getProgramAccounts` per mint, `budget.concurrency` at a time within its rate, as the gap recovery's.
pub async fn holders(
    rpc: &RpcClient,
    budget: &crate::recover::Budget,
    mints: &[Pubkey],
    version: Version,
) -> anyhow::Result<Vec<Change>> {
    let each: Vec<Vec<Change>> = futures::stream::iter(mints.iter().copied())
        .map(|mint| holders_of(rpc, budget, mint, version))
        .buffered(budget.concurrency)
        .try_collect()
        .await?;
    Ok(each.into_iter().flatten().collect())
}

async fn holders_of(
    rpc: &RpcClient,
    budget: &crate::recover::Budget,
    mint: Pubkey,
    version: Version,
) -> anyhow::Result<Vec<Change>> {
    budget.call().await;
    token_accounts(rpc, &mint, version).await
}

/// The Token-2022 token accounts of `mint` (`getProgramAccounts` with the mint at offset 0 and the
/// token-account-state filter), then the mint's reconciliation: accounts the index holds that the chain no
/// longer has were closed meanwhile.
pub async fn token_accounts(
    rpc: &RpcClient,
    mint: &Pubkey,
    version: Version,
) -> anyhow::Result<Vec<Change>> {
    use solana_rpc_client_api::config::{
        RpcAccountInfoConfig, RpcProgramAccountsConfig, UiAccountEncoding,
    };
    use solana_rpc_client_api::filter::{Memcmp, RpcFilterType};
    let config = RpcProgramAccountsConfig {
        filters: Some(vec![
            RpcFilterType::Memcmp(Memcmp::new_base58_encoded(0, mint.as_ref())),
            RpcFilterType::TokenAccountState,
        ]),
        account_config: RpcAccountInfoConfig {
            encoding: Some(UiAccountEncoding::Base64Zstd),
            ..RpcAccountInfoConfig::default()
        },
        ..RpcProgramAccountsConfig::default()
    };
    let mut changes = Vec::new();
    let mut present = Vec::new();
    for (address, ui) in rpc
        .get_program_ui_accounts_with_config(&sdk::ids::TOKEN_2022_PROGRAM, config)
        .await?
    {
        let Some(account) = ui.decode::<solana_account::Account>() else {
            continue;
        };
        if let Some(w) = crate::decode::decode_token_update(
            address,
            account.owner,
            version,
            account.lamports,
            &account.data,
        ) {
            if w.balance.is_some_and(|b| b.mint == *mint) {
                present.push(address);
                changes.push(Change::TokenAccount(Box::new(w)));
            }
        }
    }
    changes.push(Change::TokenHolders {
        mint: *mint,
        version,
        present,
    });
    Ok(changes)
}
