//! The source: the Yellowstone subscription request, the connection, one session of the stream (its
//! updates handed to the [`Processor`], server pings answered, batches flushed on time) and its idle
//! watchdog, which asks the RPC node whether the chain moved on while the stream was silent.

use super::{sleep_until, stopped, Indexer, Processor, SharedLease};
use crate::config::{Commitment, IndexerConfig};
use futures::{SinkExt, StreamExt};
use ops::health::Metrics;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use yellowstone_grpc_client::GeyserGrpcClient;
use yellowstone_grpc_proto::prelude::{
    subscribe_request_filter_accounts_filter::Filter as AccountsFilter,
    subscribe_request_filter_accounts_filter_lamports::Cmp as LamportsCmp,
    subscribe_update::UpdateOneof, CommitmentLevel, SlotStatus, SubscribeRequest,
    SubscribeRequestFilterAccounts, SubscribeRequestFilterAccountsFilter,
    SubscribeRequestFilterAccountsFilterLamports, SubscribeRequestFilterSlots,
    SubscribeRequestFilterTransactions, SubscribeRequestPing,
};

/// How often the chain's slot is read for the lag metric.
pub const CHAIN_SLOT_EVERY: Duration = Duration::from_secs(10);

/// The subscription: accounts owned by either program; the SOL/USD price account (for USD values); initialized Token-2022 token accounts (the holders:
/// kept only for launched mints, the rest dropped before the database) and closed accounts (owned by the
/// system program with no lamports: how a closed token account shows, see docs/indexer.md); successful
/// transactions that mention either program; and every slot status (for the cursor, the lag metric and dead
/// forks).
pub fn subscribe_request(commitment: Commitment, from_slot: Option<u64>) -> SubscribeRequest {
    let programs = vec![launchpad::ID.to_string(), amm::ID.to_string()];
    let filter = |f| SubscribeRequestFilterAccountsFilter { filter: Some(f) };
    SubscribeRequest {
        accounts: HashMap::from([
            (
                "programs".to_string(),
                SubscribeRequestFilterAccounts {
                    owner: programs.clone(),
                    ..Default::default()
                },
            ),
            (
                "token-accounts".to_string(),
                SubscribeRequestFilterAccounts {
                    owner: vec![sdk::ids::TOKEN_2022_PROGRAM.to_string()],
                    filters: vec![filter(AccountsFilter::TokenAccountState(true))],
                    ..Default::default()
                },
            ),
            (
                "oracle".to_string(),
                SubscribeRequestFilterAccounts {
                    account: vec![sdk::oracle::SOL_USD_PRICE_ACCOUNT.to_string()],
                    owner: vec![sdk::oracle::PYTH_RECEIVER_PROGRAM.to_string()],
                    ..Default::default()
                },
            ),
            (
                "closed-accounts".to_string(),
                SubscribeRequestFilterAccounts {
                    owner: vec![sdk::ids::SYSTEM_PROGRAM.to_string()],
                    filters: vec![filter(AccountsFilter::Lamports(
                        SubscribeRequestFilterAccountsFilterLamports {
                            cmp: Some(LamportsCmp::Eq(0)),
                        },
                    ))],
                    ..Default::default()
                },
            ),
        ]),
        transactions: HashMap::from([(
            "programs".to_string(),
            SubscribeRequestFilterTransactions {
                vote: Some(false),
                failed: Some(false),
                account_include: programs,
                ..Default::default()
            },
        )]),
        slots: HashMap::from([(
            "slots".to_string(),
            SubscribeRequestFilterSlots {
                filter_by_commitment: Some(false),
                ..Default::default()
            },
        )]),
        commitment: Some(level(commitment) as i32),
        from_slot,
        ..Default::default()
    }
}

fn level(c: Commitment) -> CommitmentLevel {
    match c {
        Commitment::Confirmed => CommitmentLevel::Confirmed,
        Commitment::Finalized => CommitmentLevel::Finalized,
    }
}

pub(super) fn slot_status_of(c: Commitment) -> SlotStatus {
    match c {
        Commitment::Confirmed => SlotStatus::SlotConfirmed,
        Commitment::Finalized => SlotStatus::SlotFinalized,
    }
}

/// Connects to the Yellowstone endpoint of `config`: over TLS for an `https://` URL (the system's roots, or
/// the configured CA), with the `x-token` when one is set.
pub async fn connect(config: &IndexerConfig) -> anyhow::Result<GeyserGrpcClient> {
    use anyhow::Context;
    let mut builder = GeyserGrpcClient::build_from_shared(config.grpc_url.clone())
        .with_context(|| format!("--grpc-url (GRPC_URL) {}", config.grpc_url))?
        .x_token(config.grpc_x_token.clone())
        .context("--grpc-x-token (GRPC_X_TOKEN)")?
        .connect_timeout(Duration::from_secs(5))
        // HTTP/2 pings, also while idle: a connection a middlebox dropped fails within ~40 s instead of
        // hanging for ever.
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_timeout(Duration::from_secs(20))
        .keep_alive_while_idle(true)
        .tcp_keepalive(Some(Duration::from_secs(30)))
        .max_decoding_message_size(64 * 1024 * 1024);
    if let Some(tls) = config.grpc_tls()? {
        builder = builder.tls_config(tls)?;
    }
    builder
        .connect()
        .await
        .with_context(|| format!("connecting to {}", config.grpc_url))
}

/// An error with its causes, and for a TLS failure what to configure.
pub fn explain(e: &anyhow::Error) -> String {
    // Transport errors repeat their source in their own message: each cause once.
    let mut causes: Vec<String> = Vec::new();
    for cause in e.chain() {
        let cause = cause.to_string();
        if !causes.last().is_some_and(|last| last.contains(&cause)) {
            causes.push(cause);
        }
    }
    let text = causes.join(": ");
    if text.contains("native certs") {
        format!(
            "{text}: the system has no CA roots (install ca-certificates), or give the provider's CA with \
             --grpc-ca-cert (GRPC_CA_CERT)"
        )
    } else if text.contains("certificate") {
        format!(
            "{text}: TLS: the server's certificate is not trusted; give its CA with --grpc-ca-cert \
             (GRPC_CA_CERT), or check the system's roots"
        )
    } else {
        text
    }
}

/// How a session with the gRPC server ended.
pub(super) enum End {
    Shutdown,
    /// The connection or subscription failed; reconnect. `gap` when the server cannot replay from the
    /// cursor.
    Lost {
        reason: String,
        gap: bool,
    },
}

impl Indexer {
    /// Reads the chain's slot from the RPC node every [`CHAIN_SLOT_EVERY`] until shutdown, so that the
    /// chain slot less the committed cursor is the index's true lag (`indexer_chain_lag_slots`), whatever
    /// the stream says.
    pub(super) fn watch_chain_slot(&self, mut shutdown: watch::Receiver<bool>) {
        let rpc =
            RpcClient::new_with_commitment(self.config.rpc_url.clone(), self.rpc.commitment());
        let metrics = self.metrics.clone();
        tokio::spawn(async move {
            loop {
                if let Ok(slot) = rpc.get_slot().await {
                    Metrics::raise(&metrics.chain_slot, slot);
                }
                tokio::select! {
                    _ = tokio::time::sleep(CHAIN_SLOT_EVERY) => {}
                    _ = stopped(&mut shutdown) => return,
                }
            }
        });
    }

    pub(super) async fn session(
        &self,
        shutdown: &mut watch::Receiver<bool>,
        force_backfill: bool,
        lease: &SharedLease,
    ) -> anyhow::Result<End> {
        let store = self.store.clone();
        let Some(cursor) = self
            .db_retry(shutdown, || {
                let store = store.clone();
                async move { store.cursor(index::store::MAIN_STREAM).await }
            })
            .await
        else {
            return Ok(End::Shutdown);
        };
        let metrics = self.metrics.clone();
        let commitment = self.config.commitment;
        let batch_size = self.config.batch_size;
        let Some(processor) = self
            .db_retry(shutdown, || {
                Processor::new(store.clone(), metrics.clone(), commitment, batch_size)
            })
            .await
        else {
            return Ok(End::Shutdown);
        };
        let mut processor = processor.with_lease(lease.clone());

        let mut client = connect(&self.config).await?;
        let Some(start) = self
            .start_slot(
                &mut client,
                &mut processor,
                shutdown,
                cursor,
                force_backfill,
            )
            .await?
        else {
            return Ok(End::Shutdown);
        };
        let from_slot = Some(start);
        let (mut sink, mut stream) = client
            .subscribe_with_request(Some(subscribe_request(self.config.commitment, from_slot)))
            .await?;
        self.metrics
            .connected
            .store(1, std::sync::atomic::Ordering::Relaxed);
        self.metrics.set_last_error(None);
        tracing::info!("indexer: streaming from slot {from_slot:?}");
        let mut received_any = false;
        let wait = self.config.batch_wait();
        self.metrics.heard();
        let idle = Duration::from_secs(self.config.stream_idle_secs);
        let mut last_heard = Instant::now();
        let mut chain_slot = self.rpc.get_slot().await.unwrap_or(0);
        Metrics::raise(&self.metrics.chain_slot, chain_slot);
        loop {
            let deadline = processor.deadline(wait);
            let watchdog = (!idle.is_zero()).then(|| last_heard + idle);
            let mut stop = shutdown.clone();
            tokio::select! {
                _ = stopped(&mut stop) => {
                    self.flush(&mut processor, shutdown).await;
                    return Ok(End::Shutdown);
                }
                _ = sleep_until(deadline) => {
                    if !self.flush(&mut processor, shutdown).await {
                        return Ok(End::Shutdown);
                    }
                }
                _ = sleep_until(watchdog) => {
                    // Silence: a halted chain sends nothing either, so ask the RPC node whether it moved on.
                    match self.rpc.get_slot().await {
                        Ok(now) if now > chain_slot => {
                            Metrics::raise(&self.metrics.chain_slot, now);
                            self.flush(&mut processor, shutdown).await;
                            return Ok(End::Lost {
                                reason: format!(
                                    "the stream sent nothing for {}s while the chain moved from slot {chain_slot} to {now}",
                                    idle.as_secs()
                                ),
                                gap: false,
                            });
                        }
                        Ok(now) => chain_slot = now,
                        Err(e) => tracing::warn!("indexer: the stream is silent and getSlot failed: {e}"),
                    }
                    last_heard = Instant::now();
                }
                next = stream.next() => match next {
                    Some(Ok(update)) => {
                        received_any = true;
                        last_heard = Instant::now();
                        self.metrics.heard();
                        match &update.update_oneof {
                            Some(UpdateOneof::Ping(_)) => {
                                // Answer server pings so that load balancers keep the stream open.
                                sink.send(SubscribeRequest {
                                    ping: Some(SubscribeRequestPing { id: 1 }),
                                    ..Default::default()
                                }).await?;
                            }
                            Some(UpdateOneof::Pong(_)) => {}
                            _ => {
                                let flush_now = match processor.process(&update).await {
                                    Ok(f) => f,
                                    Err(e) => {
                                        Metrics::bump(&self.metrics.db_errors, 1);
                                        processor.discard();
                                        return Ok(End::Lost { reason: format!("database: {e}"), gap: false });
                                    }
                                };
                                if flush_now && !self.flush(&mut processor, shutdown).await {
                                    return Ok(End::Shutdown);
                                }
                            }
                        }
                    }
                    Some(Err(status)) => {
                        let gap = !received_any
                            && from_slot.is_some()
                            && status.code() == tonic::Code::InvalidArgument;
                        if !self.flush(&mut processor, shutdown).await {
                            return Ok(End::Shutdown);
                        }
                        return Ok(End::Lost { reason: status.to_string(), gap });
                    }
                    None => {
                        if !self.flush(&mut processor, shutdown).await {
                            return Ok(End::Shutdown);
                        }
                        return Ok(End::Lost { reason: "the server ended the stream".into(), gap: false });
                    }
                }
            }
        }
    }
}
