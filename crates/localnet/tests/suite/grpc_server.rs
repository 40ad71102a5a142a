//! The Yellowstone gRPC service end to end: a real chain behind a real server (`localnet::grpc`), through the
//! generated client: the unary methods, live and replayed subscriptions, slot statuses, blocks, pings.
//! (The filters and conversions are unit-tested beside their private code, `src/grpc/tests.rs`.)

use localnet::grpc::{serve_with_listener, VERSION};
use localnet::SharedChain;
use solana_hash::Hash;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Status, Streaming};
use yellowstone_grpc_proto::geyser as pb;
use yellowstone_grpc_proto::geyser::subscribe_update::UpdateOneof;
use yellowstone_grpc_proto::solana::storage::confirmed_block as cb;

use solana_signer::Signer as _;
use std::sync::Mutex;
use yellowstone_grpc_proto::geyser::geyser_client::GeyserClient;

const WAIT: Duration = Duration::from_secs(20);

struct Harness {
    chain: SharedChain,
    client: GeyserClient<tonic::transport::Channel>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl Harness {
    async fn start(chain: SharedChain) -> Harness {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve_with_listener(chain.clone(), listener, async {
            let _ = stopped.await;
        }));
        let client = GeyserClient::connect(format!("http://{addr}"))
            .await
            .expect("connect");
        Harness {
            chain,
            client,
            stop: Some(stop),
            server,
        }
    }

    async fn subscribe(
        &mut self,
        request: pb::SubscribeRequest,
    ) -> (
        mpsc::Sender<pb::SubscribeRequest>,
        Streaming<pb::SubscribeUpdate>,
    ) {
        let (tx, rx) = mpsc::channel(16);
        tx.send(request).await.expect("queue request");
        let updates = self
            .client
            .subscribe(ReceiverStream::new(rx))
            .await
            .expect("subscribe")
            .into_inner();
        (tx, updates)
    }

    async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        drop(self.client);
        let result = tokio::time::timeout(WAIT, self.server)
            .await
            .expect("server stops")
            .expect("server task");
        result.expect("server result");
    }
}

fn new_chain() -> SharedChain {
    Arc::new(Mutex::new(
        localnet::chain::Chain::new(Vec::new(), 64).expect("chain"),
    ))
}

async fn next(updates: &mut Streaming<pb::SubscribeUpdate>) -> Result<pb::SubscribeUpdate, Status> {
    match tokio::time::timeout(WAIT, updates.message())
        .await
        .expect("an update in time")
    {
        Ok(Some(u)) => Ok(u),
        Ok(None) => panic!("stream ended"),
        Err(status) => Err(status),
    }
}

/// Sends a ping and waits for its pong: after it, the server has handled every earlier request.
async fn sync(
    requests: &mpsc::Sender<pb::SubscribeRequest>,
    updates: &mut Streaming<pb::SubscribeUpdate>,
    id: i32,
) {
    requests
        .send(pb::SubscribeRequest {
            ping: Some(pb::SubscribeRequestPing { id }),
            ..Default::default()
        })
        .await
        .expect("ping");
    loop {
        if let Some(UpdateOneof::Pong(p)) = next(updates).await.expect("update").update_oneof {
            assert_eq!(p.id, id);
            return;
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn unary_methods() {
    // The chain starts its own runtime once per process: create it outside ours.
    let chain = new_chain();
    runtime().block_on(async {
        let mut h = Harness::start(chain).await;
        assert_eq!(
            h.client
                .ping(pb::PingRequest { count: 7 })
                .await
                .expect("ping")
                .into_inner()
                .count,
            7
        );
        let (slot, hash, height) = {
            let chain = h.chain.lock().expect("lock");
            (
                chain.slot(),
                chain.latest_blockhash().0,
                chain.block_height(),
            )
        };
        let latest = h
            .client
            .get_latest_blockhash(pb::GetLatestBlockhashRequest {
                commitment: Some(pb::CommitmentLevel::Finalized as i32),
            })
            .await
            .expect("latest blockhash")
            .into_inner();
        assert_eq!(
            (latest.slot, latest.blockhash.clone()),
            (slot, hash.to_string())
        );
        assert!(latest.last_valid_block_height > height);
        let got = h
            .client
            .get_slot(pb::GetSlotRequest::default())
            .await
            .expect("slot")
            .into_inner()
            .slot;
        assert_eq!(got, slot);
        let got = h
            .client
            .get_block_height(pb::GetBlockHeightRequest::default())
            .await
            .expect("height")
            .into_inner();
        assert_eq!(got.block_height, height);
        let valid = h
            .client
            .is_blockhash_valid(pb::IsBlockhashValidRequest {
                blockhash: latest.blockhash,
                commitment: None,
            })
            .await
            .expect("valid")
            .into_inner();
        assert!(valid.valid);
        let unknown = h
            .client
            .is_blockhash_valid(pb::IsBlockhashValidRequest {
                blockhash: Hash::new_unique().to_string(),
                commitment: None,
            })
            .await
            .expect("valid")
            .into_inner();
        assert!(!unknown.valid);
        let bad = h
            .client
            .is_blockhash_valid(pb::IsBlockhashValidRequest {
                blockhash: "xyz0".into(),
                commitment: None,
            })
            .await
            .expect_err("bad hash");
        assert_eq!(bad.code(), tonic::Code::InvalidArgument);
        let bad = h
            .client
            .get_slot(pb::GetSlotRequest {
                commitment: Some(9),
            })
            .await
            .expect_err("bad commitment");
        assert_eq!(bad.code(), tonic::Code::InvalidArgument);
        let version = h
            .client
            .get_version(pb::GetVersionRequest {})
            .await
            .expect("version")
            .into_inner()
            .version;
        let version: serde_json::Value = serde_json::from_str(&version).expect("json");
        assert_eq!(version["version"], VERSION);
        let gossip = h
            .client
            .subscribe_gossip(pb::SubscribeGossipRequest {})
            .await
            .expect_err("gossip");
        assert_eq!(gossip.code(), tonic::Code::Unimplemented);
        h.shutdown().await;
    });
}

#[test]
fn subscribe_live_confirmed_and_replay() {
    let chain = new_chain();
    runtime().block_on(async {
        let mut h = Harness::start(chain).await;
        let wallet = solana_keypair::Keypair::new().pubkey();
        let faucet = h.chain.lock().expect("lock").faucet().pubkey();
        let request = pb::SubscribeRequest {
            accounts: HashMap::from([(
                "wallet".to_string(),
                pb::SubscribeRequestFilterAccounts {
                    account: vec![wallet.to_string()],
                    ..Default::default()
                },
            )]),
            transactions: HashMap::from([(
                "to_wallet".to_string(),
                pb::SubscribeRequestFilterTransactions {
                    account_include: vec![wallet.to_string()],
                    ..Default::default()
                },
            )]),
            slots: HashMap::from([(
                "slots".to_string(),
                pb::SubscribeRequestFilterSlots {
                    filter_by_commitment: Some(true),
                    ..Default::default()
                },
            )]),
            blocks_meta: HashMap::from([(
                "meta".to_string(),
                pb::SubscribeRequestFilterBlocksMeta {},
            )]),
            commitment: Some(pb::CommitmentLevel::Confirmed as i32),
            accounts_data_slice: vec![pb::SubscribeRequestAccountsDataSlice {
                offset: 0,
                length: 0,
            }],
            ..Default::default()
        };
        let (requests, mut updates) = h.subscribe(request).await;
        sync(&requests, &mut updates, 1).await;

        let signature = h
            .chain
            .lock()
            .expect("lock")
            .airdrop(&wallet, 1_000_000_000)
            .expect("airdrop");
        let slot = h
            .chain
            .lock()
            .expect("lock")
            .transaction(&signature)
            .expect("recorded")
            .slot;

        // At confirmed: the slot's account and transaction, its block meta, then its confirmed status.
        let u = next(&mut updates).await.expect("account");
        assert_eq!(u.filters, vec!["wallet"]);
        assert!(u.created_at.is_some());
        let Some(UpdateOneof::Account(a)) = u.update_oneof else {
            panic!("expected an account, got {u:?}")
        };
        let info = a.account.expect("account info");
        assert_eq!(
            (a.slot, info.pubkey.as_slice(), info.lamports),
            (slot, wallet.as_ref(), 1_000_000_000)
        );
        assert_eq!(info.txn_signature.as_deref(), Some(signature.as_ref()));
        assert!(info.data.is_empty());

        let u = next(&mut updates).await.expect("transaction");
        assert_eq!(u.filters, vec!["to_wallet"]);
        let Some(UpdateOneof::Transaction(t)) = u.update_oneof else {
            panic!("expected a transaction, got {u:?}")
        };
        let info = t.transaction.expect("transaction info");
        assert_eq!(
            (t.slot, info.signature.as_slice(), info.is_vote),
            (slot, signature.as_ref(), false)
        );
        let meta = info.meta.expect("meta");
        assert!(meta.err.is_none());
        assert_eq!(meta.fee, 5_000);
        assert!(!meta.log_messages_none && !meta.log_messages.is_empty());
        let message = info
            .transaction
            .expect("transaction")
            .message
            .expect("message");
        assert_eq!(
            message.account_keys.first().map(Vec::as_slice),
            Some(faucet.as_ref())
        );

        let u = next(&mut updates).await.expect("block meta");
        assert_eq!(u.filters, vec!["meta"]);
        let Some(UpdateOneof::BlockMeta(m)) = u.update_oneof else {
            panic!("expected a block meta, got {u:?}")
        };
        assert_eq!((m.slot, m.executed_transaction_count), (slot, 1));
        let record = h
            .chain
            .lock()
            .expect("lock")
            .slot_record(slot)
            .cloned()
            .expect("slot record");
        assert_eq!(m.blockhash, record.blockhash.to_string());
        assert_eq!(
            m.block_height,
            Some(cb::BlockHeight {
                block_height: record.block_height
            })
        );

        let u = next(&mut updates).await.expect("slot");
        assert_eq!(u.filters, vec!["slots"]);
        let Some(UpdateOneof::Slot(s)) = u.update_oneof else {
            panic!("expected a slot, got {u:?}")
        };
        assert_eq!(
            (s.slot, s.status),
            (slot, pb::SlotStatus::SlotConfirmed as i32)
        );

        // Replacing the filters: only processed slot statuses from now on.
        requests
            .send(pb::SubscribeRequest {
                slots: HashMap::from([(
                    "processed".to_string(),
                    pb::SubscribeRequestFilterSlots {
                        filter_by_commitment: Some(true),
                        ..Default::default()
                    },
                )]),
                ..Default::default()
            })
            .await
            .expect("replace filters");
        sync(&requests, &mut updates, 2).await;
        let next_slot = {
            let mut chain = h.chain.lock().expect("lock");
            chain.advance_slot().expect("advance");
            chain.slot()
        };
        let u = next(&mut updates).await.expect("slot");
        assert_eq!(u.filters, vec!["processed"]);
        let Some(UpdateOneof::Slot(s)) = u.update_oneof else {
            panic!("expected a slot, got {u:?}")
        };
        assert_eq!(
            (s.slot, s.status),
            (next_slot, pb::SlotStatus::SlotProcessed as i32)
        );

        // A later from_slot is refused and ends the stream.
        requests
            .send(pb::SubscribeRequest {
                from_slot: Some(slot),
                blocks_meta: HashMap::from([(
                    "m".to_string(),
                    pb::SubscribeRequestFilterBlocksMeta {},
                )]),
                ..Default::default()
            })
            .await
            .expect("send");
        let status = loop {
            match next(&mut updates).await {
                Ok(_) => continue,
                Err(status) => break status,
            }
        };
        assert_eq!(status.code(), tonic::Code::InvalidArgument);

        // Replay: history from the airdrop's slot, then live, without duplicates.
        let replay = pb::SubscribeRequest {
            accounts: HashMap::from([(
                "wallet".to_string(),
                pb::SubscribeRequestFilterAccounts {
                    account: vec![wallet.to_string()],
                    ..Default::default()
                },
            )]),
            transactions_status: HashMap::from([("statuses".to_string(), Default::default())]),
            blocks: HashMap::from([(
                "blocks".to_string(),
                pb::SubscribeRequestFilterBlocks {
                    account_include: vec![wallet.to_string()],
                    ..Default::default()
                },
            )]),
            from_slot: Some(slot),
            ..Default::default()
        };
        let (requests, mut updates) = h.subscribe(replay).await;
        let u = next(&mut updates).await.expect("replayed account");
        let Some(UpdateOneof::Account(a)) = u.update_oneof else {
            panic!("expected an account, got {u:?}")
        };
        assert_eq!(a.slot, slot);
        let u = next(&mut updates).await.expect("replayed status");
        let Some(UpdateOneof::TransactionStatus(t)) = u.update_oneof else {
            panic!("expected a status, got {u:?}")
        };
        assert_eq!(t.signature.as_slice(), signature.as_ref());
        let u = next(&mut updates).await.expect("replayed block");
        let Some(UpdateOneof::Block(b)) = u.update_oneof else {
            panic!("expected a block, got {u:?}")
        };
        assert_eq!(
            (b.slot, b.transactions.len(), b.accounts.len()),
            (slot, 1, 1)
        );
        assert_eq!(b.accounts[0].pubkey.as_slice(), wallet.as_ref());
        assert!(b.updated_account_count >= 2, "faucet and wallet");
        sync(&requests, &mut updates, 3).await;
        let second = h
            .chain
            .lock()
            .expect("lock")
            .airdrop(&wallet, 5)
            .expect("airdrop");
        let u = next(&mut updates).await.expect("live account");
        let Some(UpdateOneof::Account(a)) = u.update_oneof else {
            panic!("expected an account, got {u:?}")
        };
        assert_eq!(
            a.account.expect("info").txn_signature.as_deref(),
            Some(second.as_ref())
        );

        // A slot older than the history is refused, saying which is the oldest.
        let oldest = h.chain.lock().expect("lock").first_replayable_slot();
        let too_old = oldest.checked_sub(1).expect("history starts after slot 0");
        let (_requests, mut updates) = h
            .subscribe(pb::SubscribeRequest {
                slots: HashMap::from([("s".to_string(), Default::default())]),
                from_slot: Some(too_old),
                ..Default::default()
            })
            .await;
        let status = next(&mut updates).await.expect_err("too old");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(
            status
                .message()
                .contains(&format!("oldest slot that can be replayed is {oldest}")),
            "{status}"
        );
        let info = h
            .client
            .subscribe_replay_info(pb::SubscribeReplayInfoRequest {})
            .await
            .expect("replay info");
        assert_eq!(info.into_inner().first_available, Some(oldest));

        // A malformed filter is refused.
        let (_requests, mut updates) = h
            .subscribe(pb::SubscribeRequest {
                accounts: HashMap::from([(
                    "bad".to_string(),
                    pb::SubscribeRequestFilterAccounts {
                        owner: vec!["not-a-key".into()],
                        ..Default::default()
                    },
                )]),
                ..Default::default()
            })
            .await;
        let status = next(&mut updates).await.expect_err("malformed");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(status.message().contains("not-a-key"), "{status}");
        h.shutdown().await;
    });
}
