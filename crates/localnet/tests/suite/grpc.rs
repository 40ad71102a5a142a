//! The real `yellowstone-grpc-client` against a running localnet: unary calls, a launch and a buy arriving
//! as account and transaction updates with the right filters (inner instructions included, so `emit_cpi!`
//! events decode), replay from a slot, and a slot too old to replay refused.

use crate::common;

use common::*;
use futures::{SinkExt, StreamExt};
use solana_signer::Signer;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use yellowstone_grpc_client::GeyserGrpcClient;
use yellowstone_grpc_proto::prelude::{
    subscribe_request_filter_accounts_filter::Filter,
    subscribe_request_filter_accounts_filter_memcmp::Data, subscribe_update::UpdateOneof,
    CommitmentLevel, SubscribeRequest, SubscribeRequestFilterAccounts,
    SubscribeRequestFilterAccountsFilter, SubscribeRequestFilterAccountsFilterMemcmp,
    SubscribeRequestFilterSlots, SubscribeRequestFilterTransactions, SubscribeUpdate,
};

fn launchpad_request(from_slot: Option<u64>) -> SubscribeRequest {
    use anchor_lang::Discriminator;
    let mut accounts = HashMap::new();
    accounts.insert(
        "pools".to_string(),
        SubscribeRequestFilterAccounts {
            owner: vec![launchpad::ID.to_string()],
            filters: vec![SubscribeRequestFilterAccountsFilter {
                filter: Some(Filter::Memcmp(SubscribeRequestFilterAccountsFilterMemcmp {
                    offset: 0,
                    data: Some(Data::Bytes(launchpad::Pool::DISCRIMINATOR.to_vec())),
                })),
            }],
            ..Default::default()
        },
    );
    let mut transactions = HashMap::new();
    transactions.insert(
        "launchpad".to_string(),
        SubscribeRequestFilterTransactions {
            vote: Some(false),
            failed: Some(false),
            account_include: vec![launchpad::ID.to_string()],
            ..Default::default()
        },
    );
    let mut slots = HashMap::new();
    slots.insert(
        "slots".to_string(),
        SubscribeRequestFilterSlots {
            filter_by_commitment: Some(true),
            ..Default::default()
        },
    );
    SubscribeRequest {
        accounts,
        transactions,
        slots,
        commitment: Some(CommitmentLevel::Confirmed as i32),
        from_slot,
        ..Default::default()
    }
}

/// Reads updates until `done` says so or 15 s pass.
async fn collect(
    stream: &mut (impl futures::Stream<Item = Result<SubscribeUpdate, tonic::Status>> + Unpin),
    mut done: impl FnMut(&[SubscribeUpdate]) -> bool,
) -> Vec<SubscribeUpdate> {
    let mut seen = Vec::new();
    let start = Instant::now();
    while !done(&seen) && start.elapsed() < Duration::from_secs(15) {
        match tokio::time::timeout(Duration::from_secs(1), stream.next()).await {
            Ok(Some(Ok(u))) => seen.push(u),
            Ok(Some(Err(e))) => panic!("stream error: {e}"),
            Ok(None) => break,
            Err(_) => {}
        }
    }
    seen
}

fn has_account(updates: &[SubscribeUpdate], key: &solana_pubkey::Pubkey) -> bool {
    updates.iter().any(|u| matches!(&u.update_oneof, Some(UpdateOneof::Account(a)) if a.account.as_ref().is_some_and(|i| i.pubkey == key.to_bytes())))
}

fn has_tx(updates: &[SubscribeUpdate], sig: &solana_signature::Signature) -> bool {
    updates.iter().any(|u| matches!(&u.update_oneof, Some(UpdateOneof::Transaction(t)) if t.transaction.as_ref().is_some_and(|i| i.signature == sig.as_ref())))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launchpad_updates_stream_filtered_and_replay_from_a_slot() {
    let (net, rpc) = start().await;
    let mut client = GeyserGrpcClient::build_from_shared(net.grpc_url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    assert_eq!(client.ping(3).await.unwrap().count, 3);
    assert!(client
        .get_version()
        .await
        .unwrap()
        .version
        .contains("version"));
    let bh = client.get_latest_blockhash(None).await.unwrap();
    assert!(
        client
            .is_blockhash_valid(bh.blockhash.clone(), None)
            .await
            .unwrap()
            .valid
    );
    let start_slot = client.get_slot(None).await.unwrap().slot;

    let (mut sink, mut stream) = client
        .subscribe_with_request(Some(launchpad_request(None)))
        .await
        .unwrap();
    let creator = funded(&rpc, 5 * SOL).await;
    let buyer = funded(&rpc, 5 * SOL).await;
    let airdrop = rpc.request_airdrop(&buyer.pubkey(), 1).await.unwrap();
    let (keys, buy_sig) = launch_and_buy(&rpc, &creator, &buyer).await;

    let updates = collect(&mut stream, |seen| {
        has_account(seen, &keys.pool) && has_tx(seen, &buy_sig)
    })
    .await;
    assert!(
        has_account(&updates, &keys.pool),
        "the pool arrives as an account update"
    );
    assert!(
        has_tx(&updates, &buy_sig),
        "the buy arrives as a transaction update"
    );
    assert!(
        !has_tx(&updates, &airdrop),
        "a transaction without the launchpad is filtered out"
    );
    for u in &updates {
        match &u.update_oneof {
            Some(UpdateOneof::Account(a)) => {
                assert_eq!(u.filters, vec!["pools".to_string()]);
                let data = &a.account.as_ref().unwrap().data;
                assert!(
                    sdk::accounts::decode_pool(data).is_some(),
                    "only pools pass the memcmp filter"
                );
            }
            Some(UpdateOneof::Transaction(t))
                if t.transaction.as_ref().unwrap().signature == buy_sig.as_ref() =>
            {
                let meta = t.transaction.as_ref().unwrap().meta.as_ref().unwrap();
                let events: Vec<_> = meta
                    .inner_instructions
                    .iter()
                    .flat_map(|i| &i.instructions)
                    .filter_map(|ix| sdk::events::decode_event(&ix.data))
                    .collect();
                assert!(
                    events
                        .iter()
                        .any(|e| matches!(e, sdk::events::LaunchpadEvent::Swap(_))),
                    "{events:?}"
                );
            }
            Some(UpdateOneof::Slot(s)) => assert_eq!(s.status, 1, "confirmed slots only"),
            _ => {}
        }
    }
    // Pings are answered.
    sink.send(SubscribeRequest {
        ping: Some(yellowstone_grpc_proto::prelude::SubscribeRequestPing { id: 42 }),
        ..Default::default()
    })
    .await
    .unwrap();
    let pong = collect(&mut stream, |seen| {
        seen.iter()
            .any(|u| matches!(u.update_oneof, Some(UpdateOneof::Pong(_))))
    })
    .await;
    assert!(pong
        .iter()
        .any(|u| matches!(&u.update_oneof, Some(UpdateOneof::Pong(p)) if p.id == 42)));

    // A new subscriber replays from the slot before the launch and sees the same updates.
    let mut late = GeyserGrpcClient::build_from_shared(net.grpc_url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let (_sink2, mut replay) = late
        .subscribe_with_request(Some(launchpad_request(Some(start_slot))))
        .await
        .unwrap();
    let replayed = collect(&mut replay, |seen| {
        has_account(seen, &keys.pool) && has_tx(seen, &buy_sig)
    })
    .await;
    assert!(
        has_account(&replayed, &keys.pool) && has_tx(&replayed, &buy_sig),
        "replay from slot {start_slot}"
    );

    // A slot older than what the server keeps is refused with a clear status.
    let mut old = GeyserGrpcClient::build_from_shared(net.grpc_url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let (_sink3, mut refused) = old
        .subscribe_with_request(Some(launchpad_request(Some(0))))
        .await
        .unwrap();
    match tokio::time::timeout(Duration::from_secs(5), refused.next()).await {
        Ok(Some(Err(status))) => assert!(status.message().contains("oldest"), "{status}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    net.shutdown().await;
}
