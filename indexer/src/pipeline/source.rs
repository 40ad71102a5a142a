//! The source: the Yellowstone subscription request, the connection, one session of the stream (its
//! updates handed to the [`Processor`], server pings answered, batches flushed on time) and its idle
//! watchdog, which asks the RPC node whether the chain moved on while the stream was silent.

use super::{sleep_until, stopped, Indexer, Processor, SharedLease};
use crate::config::{Commitment, IndexerConfig};
use futures::{SinkExt, StreamExt};
use ops::health::Metrics;
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

/// Longest an endpoint may take to connect and answer `GetVersion` before the next one is tried.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// How often a session on a later gRPC endpoint checks whether an earlier one answers again (and, if so,
/// ends to reconnect to it).
pub const RETURN_EVERY: Duration = crate::rpc::RETURN_EVERY;

/// Connects to the first Yellowstone endpoint of `config`.
pub async fn connect(config: &IndexerConfig) -> anyhow::Result<GeyserGrpcClient> {
    connect_to(config, &config.grpc_url[0]).await
}

/// Connects to the Yellowstone endpoint `url` with the settings of `config`: over TLS for an `https://`
/// URL (the system's roots, or the configured CA), with the `x-token` when one is set.
pub async fn connect_to(config: &IndexerConfig, url: &str) -> anyhow::Result<GeyserGrpcClient> {
    use anyhow::Context;
    let mut builder = GeyserGrpcClient::build_from_shared(url.to_string())
        .with_context(|| format!("--grpc-url (GRPC_URL) {url}"))?
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
    if let Some(tls) = config.grpc_tls_for(url)? {
        builder = builder.tls_config(tls)?;
    }
    builder
        .connect()
        .await
        .with_context(|| format!("connecting to {url}"))
}

/// Connects to the gRPC endpoint `i` of `config` and checks that it answers (`GetVersion`) within
/// [`PROBE_TIMEOUT`].
pub async fn probe(config: &IndexerConfig, i: usize) -> anyhow::Result<GeyserGrpcClient> {
    let url = &config.grpc_url[i];
    let call = ops::upstream::Call::start(ops::upstream::YELLOWSTONE, "connect");
    let answered = tokio::time::timeout(PROBE_TIMEOUT, async {
        let mut client = connect_to(config, url).await?;
        client.get_version().await?;
        anyhow::Ok(client)
    })
    .await;
    call.finish(match &answered {
        Ok(Ok(_)) => None,
        Ok(Err(_)) => Some(ops::upstream::ErrorKind::Connect),
        Err(_) => Some(ops::upstream::ErrorKind::Timeout),
    });
    match answered {
        Ok(r) => r,
        Err(_) => anyhow::bail!("{url} did not answer within {PROBE_TIMEOUT:?}"),
    }
}

/// The first of the gRPC endpoints of `config` (in their order) that answers, with its index; else every
/// endpoint's error.
pub async fn open_source(config: &IndexerConfig) -> anyhow::Result<(usize, GeyserGrpcClient)> {
    let mut errors = Vec::new();
    for i in 0..config.grpc_url.len() {
        match probe(config, i).await {
            Ok(client) => return Ok((i, client)),
            Err(e) => errors.push(explain(&e)),
        }
    }
    anyhow::bail!("no gRPC endpoint answers: {}", errors.join("; "))
}

/// Reports (once) when an endpoint earlier than `current` answers again, checking every [`RETURN_EVERY`].
fn watch_for_earlier(config: &IndexerConfig, current: usize) -> Option<ReturnWatch> {
    if current == 0 {
        return None;
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let config = config.clone();
    let task = tokio::spawn(async move {
        loop {
            tokio::time::sleep(RETURN_EVERY).await;
            for i in 0..current {
                if probe(&config, i).await.is_ok() {
                    let _ = tx.send(i);
                    return;
                }
            }
        }
    });
    Some(ReturnWatch { rx, task })
}

/// The watch of [`watch_for_earlier`]; stopped when dropped.
struct ReturnWatch {
    rx: tokio::sync::oneshot::Receiver<usize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ReturnWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Waits for an earlier endpoint from `watch` (for ever without one).
async fn earlier(watch: &mut Option<ReturnWatch>) -> usize {
    match watch {
        Some(w) => match (&mut w.rx).await {
            Ok(i) => i,
            Err(_) => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
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
    /// The database refused the stream's writes (the source itself was fine).
    Database(String),
}

impl Indexer {
    /// Reads the chain's slot from the RPC node every [`CHAIN_SLOT_EVERY`] until shutdown, so that the
    /// chain slot less the committed cursor is the index's true lag (`indexer_chain_lag_slots`), whatever
    /// the stream says.
    pub(super) fn watch_chain_slot(&self, mut shutdown: watch::Receiver<bool>) {
        let rpc = crate::rpc::client(&self.config.rpc_url, self.rpc.commitment());
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

        let (endpoint, mut client) = open_source(&self.config).await?;
        if self.config.grpc_url.len() > 1 {
            tracing::info!(
                "indexer: on gRPC endpoint {} of {}",
                endpoint + 1,
                self.config.grpc_url.len()
            );
        }
        metrics::gauge!("indexer_grpc_endpoint").set(endpoint as f64);
        let mut back_to = watch_for_earlier(&self.config, endpoint);
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
        let call = ops::upstream::Call::start(ops::upstream::YELLOWSTONE, "subscribe");
        let opened = tokio::time::timeout(
            PROBE_TIMEOUT,
            client
                .subscribe_with_request(Some(subscribe_request(self.config.commitment, from_slot))),
        )
        .await;
        call.finish(match &opened {
            Ok(Ok(_)) => None,
            Ok(Err(_)) => Some(ops::upstream::ErrorKind::Rpc),
            Err(_) => Some(ops::upstream::ErrorKind::Timeout),
        });
        let (mut sink, mut stream) = opened.map_err(|_| {
            anyhow::anyhow!("the subscription did not open within {PROBE_TIMEOUT:?}")
        })??;
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
        // When the stream last delivered anything (`last_heard` also moves when the RPC node says the chain
        // is quiet).
        let mut heard_at = Instant::now();
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
                        Err(e) => {
                            tracing::warn!("indexer: the stream is silent and getSlot failed: {e}");
                            // Every source silent or unreachable: end the session, so that the writer can
                            // give its lease up (see `lease_yield_secs`).
                            if self.config.lease_yield().is_some_and(|y| heard_at.elapsed() >= y) {
                                self.flush(&mut processor, shutdown).await;
                                return Ok(End::Lost {
                                    reason: format!(
                                        "the stream sent nothing for {:?} and the RPC node cannot be reached: {e}",
                                        heard_at.elapsed()
                                    ),
                                    gap: false,
                                });
                            }
                        }
                    }
                    last_heard = Instant::now();
                }
                i = earlier(&mut back_to) => {
                    if !self.flush(&mut processor, shutdown).await {
                        return Ok(End::Shutdown);
                    }
                    return Ok(End::Lost {
                        reason: format!("gRPC endpoint {} of {} answers again: returning to it", i + 1, self.config.grpc_url.len()),
                        gap: false,
                    });
                }
                next = stream.next() => match next {
                    Some(Ok(update)) => {
                        received_any = true;
                        last_heard = Instant::now();
                        heard_at = last_heard;
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
                                        return Ok(End::Database(format!("database: {e}")));
                                    }
                                };
                                if flush_now && !self.flush(&mut processor, shutdown).await {
                                    return Ok(End::Shutdown);
                                }
                            }
                        }
                    }
                    Some(Err(status)) => {
                        // The stream a subscription opened ended in an error: counted against it.
                        ops::upstream::error_of(
                            ops::upstream::YELLOWSTONE,
                            "subscribe",
                            None,
                            match status.code() {
                                tonic::Code::Unavailable => ops::upstream::ErrorKind::Connect,
                                tonic::Code::DeadlineExceeded => ops::upstream::ErrorKind::Timeout,
                                _ => ops::upstream::ErrorKind::Rpc,
                            },
                        );
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
