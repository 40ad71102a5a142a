//! Yellowstone gRPC (`geyser.Geyser`, as defined by `yellowstone-grpc-proto` 14.0.1) over the chain.
//!
//! Indexers and bots written against a Yellowstone (Dragon's Mouth) endpoint connect to the localnet
//! unchanged: same service, same messages, same filter semantics as a validator running the Yellowstone
//! geyser plugin. The source is the chain's [`ChainEvent`] broadcast instead of a geyser plugin.
//!
//! Three parts, one file each:
//! - `filter.rs`: a `SubscribeRequest` checked into filters once, then pure matching functions (which filter
//!   names an account, transaction, slot or block matches; account data slicing);
//! - `convert.rs`: Solana types to the proto messages (the proto crate has no conversion helpers);
//! - this file, the service: the unary methods, and `Subscribe`, which runs one task per stream.
//!
//! Commitment on this single node: a slot's accounts and transactions are emitted as they are processed;
//! when the slot closes the chain emits its block meta, then `confirmed` and `finalized` together. A
//! subscription at `confirmed` or `finalized` buffers a slot's account, transaction and block updates and
//! releases them when the slot reaches that commitment, just before that slot status update (so a client
//! that sees "slot S confirmed" already has everything of S).

use crate::chain::{Chain, ChainEvent, SharedChain, SlotStatus as ChainSlotStatus, Stamped};
use anyhow::Context as _;
use solana_account::ReadableAccount;
use solana_clock::Slot;
use solana_hash::Hash;
use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::{Arc, MutexGuard};
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream};
use tokio_stream::StreamExt as _;
use tonic::codec::CompressionEncoding;
use tonic::{Request, Response, Status, Streaming};
use yellowstone_grpc_proto::geyser as pb;
use yellowstone_grpc_proto::geyser::geyser_server::{Geyser, GeyserServer};
use yellowstone_grpc_proto::geyser::subscribe_update::UpdateOneof;
use yellowstone_grpc_proto::solana::storage::confirmed_block as cb;

use self::filter::{AccountView, BlockFilter, Filters};

/// How often a subscription gets a `SubscribeUpdatePing`: Yellowstone servers ping every 15 s so that
/// proxies and load balancers keep quiet streams open, and clients use it to detect dead streams.
pub const PING_INTERVAL: Duration = Duration::from_secs(15);

/// Largest message accepted or sent. An account update carries the whole account (up to 10 MiB of
/// data) and a request can carry large cuckoo filters, so the limit is far above tonic's 4 MiB default.
pub const MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// Version reported by `GetVersion`.
pub const VERSION: &str = concat!("localnet-", env!("CARGO_PKG_VERSION"));

/// Updates queued per stream before its task waits for the client to read (backpressure). While the
/// task waits, the chain's broadcast buffer holds new events; a client too slow for that buffer gets its
/// stream ended with `DATA_LOSS`, never a silent gap.
const STREAM_QUEUE: usize = 4_096;

fn invalid(message: impl Into<String>) -> Status {
    Status::invalid_argument(message)
}

fn lock(chain: &SharedChain) -> Result<MutexGuard<'_, Chain>, Status> {
    chain
        .lock()
        .map_err(|_| Status::internal("the chain lock is poisoned (a chain operation panicked)"))
}

fn level_of(status: ChainSlotStatus) -> pb::CommitmentLevel {
    match status {
        ChainSlotStatus::Processed => pb::CommitmentLevel::Processed,
        ChainSlotStatus::Confirmed => pb::CommitmentLevel::Confirmed,
        ChainSlotStatus::Finalized => pb::CommitmentLevel::Finalized,
    }
}

/// A request's commitment: absent means processed (the Yellowstone default); unknown values are refused.
fn parse_commitment(commitment: Option<i32>) -> Result<pb::CommitmentLevel, Status> {
    match commitment {
        None => Ok(pb::CommitmentLevel::Processed),
        Some(v) => pb::CommitmentLevel::try_from(v).map_err(|_| {
            invalid(format!(
                "commitment: unknown level {v} (expected 0 processed, 1 confirmed, 2 finalized)"
            ))
        }),
    }
}

// ---------------------------------------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------------------------------------

/// Subscription filters. A request is checked once into these types (malformed input is refused with
/// `INVALID_ARGUMENT` before anything streams), so matching an event is cheap and cannot fail.
///
/// Semantics follow Yellowstone: inside one named filter the criteria are ANDed and an empty criterion
/// means "any"; an update is sent when at least one named filter matches, and carries the names of all
/// the filters that matched.
mod filter;

// ---------------------------------------------------------------------------------------------------------
// Conversions: Solana types to proto messages
// ---------------------------------------------------------------------------------------------------------

/// Solana types to the Yellowstone and `solana.storage.ConfirmedBlock` proto messages, field for field as
/// the Yellowstone plugin fills them, so that clients' own proto-to-Solana conversions round-trip.
mod convert;

// ---------------------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------------------

/// The `geyser.Geyser` service over a shared chain.
#[derive(Clone)]
pub struct GeyserService {
    chain: SharedChain,
    /// Turns true when the server shuts down. Subscriptions never end on their own, and a graceful
    /// shutdown waits for open streams, so they watch this to end theirs.
    closing: watch::Receiver<bool>,
}

impl GeyserService {
    /// A service whose streams end only when their clients leave (embed it with [`geyser_server`]).
    pub fn new(chain: SharedChain) -> Self {
        let (_, closing) = watch::channel(false);
        GeyserService { chain, closing }
    }

    fn with_closing(chain: SharedChain, closing: watch::Receiver<bool>) -> Self {
        GeyserService { chain, closing }
    }
}

/// The service wrapped for tonic, configured as Yellowstone deployments are: large messages, and
/// gzip/zstd compression when the client asks for it.
pub fn geyser_server(chain: SharedChain) -> GeyserServer<GeyserService> {
    configure(GeyserServer::new(GeyserService::new(chain)))
}

fn configure(server: GeyserServer<GeyserService>) -> GeyserServer<GeyserService> {
    server
        .max_decoding_message_size(MAX_MESSAGE_SIZE)
        .max_encoding_message_size(MAX_MESSAGE_SIZE)
        .accept_compressed(CompressionEncoding::Gzip)
        .accept_compressed(CompressionEncoding::Zstd)
        .send_compressed(CompressionEncoding::Gzip)
        .send_compressed(CompressionEncoding::Zstd)
}

/// Binds `addr` and serves until `shutdown` resolves.
pub async fn serve(
    chain: SharedChain,
    addr: SocketAddr,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding the Yellowstone gRPC listener on {addr}"))?;
    serve_with_listener(chain, listener, shutdown).await
}

/// Serves on an already bound listener (tests bind port 0 first to learn the port) until `shutdown`
/// resolves.
pub async fn serve_with_listener(
    chain: SharedChain,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    serve_with_listener_tls(chain, listener, None, shutdown).await
}

/// Serves on an already bound listener, over TLS with `tls` (a certificate and its key, PEM), until
/// `shutdown` resolves.
pub async fn serve_with_listener_tls(
    chain: SharedChain,
    listener: tokio::net::TcpListener,
    tls: Option<crate::GrpcTls>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let mut server = tonic::transport::Server::builder();
    if let Some(tls) = tls {
        // tonic's server takes rustls's process-wide crypto provider, which rustls cannot pick by itself when
        // a build enables two (a whole-workspace build does): ring, as tonic's client uses. Already installed
        // is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        server = server
            .tls_config(tonic::transport::ServerTlsConfig::new().identity(
                tonic::transport::Identity::from_pem(tls.cert_pem, tls.key_pem),
            ))
            .context("the gRPC server's TLS certificate and key")?;
    }
    if let Ok(addr) = listener.local_addr() {
        tracing::info!("Yellowstone gRPC listening on {addr}");
    }
    // Updates are small and latency matters more than packet count.
    let incoming = TcpListenerStream::new(listener).map(|conn| {
        if let Ok(stream) = &conn {
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!("gRPC connection: setting TCP_NODELAY: {e}");
            }
        }
        conn
    });
    let (closing_tx, closing) = watch::channel(false);
    let signal = async move {
        shutdown.await;
        // Ends the open subscriptions, so that the graceful shutdown does not wait on them forever.
        closing_tx.send_replace(true);
    };
    server
        .add_service(configure(GeyserServer::new(GeyserService::with_closing(
            chain, closing,
        ))))
        .serve_with_incoming_shutdown(incoming, signal)
        .await
        .context("Yellowstone gRPC server")?;
    Ok(())
}

#[tonic::async_trait]
impl Geyser for GeyserService {
    type SubscribeStream = ReceiverStream<Result<pb::SubscribeUpdate, Status>>;

    async fn subscribe(
        &self,
        request: Request<Streaming<pb::SubscribeRequest>>,
    ) -> Result<Response<Self::SubscribeStream>, Status> {
        let (out, rx) = mpsc::channel(STREAM_QUEUE);
        let subscription = Subscription::new(self.chain.clone(), out);
        tokio::spawn(subscription.run(request.into_inner(), self.closing.clone()));
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type SubscribeDeshredStream = tokio_stream::Empty<Result<pb::SubscribeUpdateDeshred, Status>>;

    async fn subscribe_deshred(
        &self,
        _request: Request<Streaming<pb::SubscribeDeshredRequest>>,
    ) -> Result<Response<Self::SubscribeDeshredStream>, Status> {
        Err(Status::unimplemented(
            "SubscribeDeshred is not supported: the localnet has no shreds (transactions execute as they arrive)",
        ))
    }

    type SubscribeGossipStream = tokio_stream::Empty<Result<pb::SubscribeUpdateGossip, Status>>;

    async fn subscribe_gossip(
        &self,
        _request: Request<pb::SubscribeGossipRequest>,
    ) -> Result<Response<Self::SubscribeGossipStream>, Status> {
        Err(Status::unimplemented(
            "SubscribeGossip is not supported: the localnet is a single node without gossip",
        ))
    }

    /// The oldest slot `from_slot` can replay from.
    async fn subscribe_replay_info(
        &self,
        _request: Request<pb::SubscribeReplayInfoRequest>,
    ) -> Result<Response<pb::SubscribeReplayInfoResponse>, Status> {
        let first_available = lock(&self.chain)?.first_replayable_slot();
        Ok(Response::new(pb::SubscribeReplayInfoResponse {
            first_available: Some(first_available),
        }))
    }

    async fn ping(
        &self,
        request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PongResponse>, Status> {
        Ok(Response::new(pb::PongResponse {
            count: request.into_inner().count,
        }))
    }

    // Commitment on the unary methods: a slot's bank is frozen, confirmed and finalized in one step and the
    // working bank carries the last frozen blockhash, so every level sees the same tip. The level is still
    // checked so that a bad value is refused as on a real endpoint.

    async fn get_latest_blockhash(
        &self,
        request: Request<pb::GetLatestBlockhashRequest>,
    ) -> Result<Response<pb::GetLatestBlockhashResponse>, Status> {
        parse_commitment(request.into_inner().commitment)?;
        let (slot, (hash, last_valid_block_height)) = {
            let chain = lock(&self.chain)?;
            (chain.slot(), chain.latest_blockhash())
        };
        Ok(Response::new(pb::GetLatestBlockhashResponse {
            slot,
            blockhash: hash.to_string(),
            last_valid_block_height,
        }))
    }

    async fn get_block_height(
        &self,
        request: Request<pb::GetBlockHeightRequest>,
    ) -> Result<Response<pb::GetBlockHeightResponse>, Status> {
        parse_commitment(request.into_inner().commitment)?;
        let block_height = lock(&self.chain)?.block_height();
        Ok(Response::new(pb::GetBlockHeightResponse { block_height }))
    }

    async fn get_slot(
        &self,
        request: Request<pb::GetSlotRequest>,
    ) -> Result<Response<pb::GetSlotResponse>, Status> {
        parse_commitment(request.into_inner().commitment)?;
        let slot = lock(&self.chain)?.slot();
        Ok(Response::new(pb::GetSlotResponse { slot }))
    }

    async fn is_blockhash_valid(
        &self,
        request: Request<pb::IsBlockhashValidRequest>,
    ) -> Result<Response<pb::IsBlockhashValidResponse>, Status> {
        let request = request.into_inner();
        parse_commitment(request.commitment)?;
        let hash = Hash::from_str(&request.blockhash).map_err(|_| {
            invalid(format!(
                "blockhash: {:?} is not a valid base58 hash",
                request.blockhash
            ))
        })?;
        let (slot, valid) = {
            let chain = lock(&self.chain)?;
            (chain.slot(), chain.is_blockhash_valid(&hash))
        };
        Ok(Response::new(pb::IsBlockhashValidResponse { slot, valid }))
    }

    async fn get_version(
        &self,
        _request: Request<pb::GetVersionRequest>,
    ) -> Result<Response<pb::GetVersionResponse>, Status> {
        let version =
            serde_json::json!({ "version": VERSION, "proto": "yellowstone-grpc-proto 14.0.1" })
                .to_string();
        Ok(Response::new(pb::GetVersionResponse { version }))
    }
}

// ---------------------------------------------------------------------------------------------------------
// One Subscribe stream
// ---------------------------------------------------------------------------------------------------------

/// Something to send once its slot reaches the subscription's commitment.
enum Item {
    /// An account, transaction or block meta event.
    Event(Arc<Stamped>),
    /// A whole block: its meta event and the account and transaction events of its slot.
    Block {
        meta: Arc<Stamped>,
        events: Vec<Arc<Stamped>>,
    },
}

impl Item {
    fn slot(&self) -> Slot {
        match self {
            Item::Event(e) | Item::Block { meta: e, .. } => e.event.slot(),
        }
    }
}

/// Why a stream ends.
enum Stop {
    /// The client went away: nothing more to send.
    ClientGone,
    /// End the stream with this status.
    Fail(Status),
}

impl From<Status> for Stop {
    fn from(status: Status) -> Self {
        Stop::Fail(status)
    }
}

/// What woke the stream task.
enum Step {
    Request(Option<Result<Box<pb::SubscribeRequest>, Status>>),
    Keepalive,
    Live(Result<Arc<Stamped>, RecvError>),
}

/// Resolves when the server shuts down; never when there is no server to shut down (sender dropped).
async fn server_closing(closing: &mut watch::Receiver<bool>) {
    if closing.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Waits for the next live chain event; never resolves before the stream has subscribed to the chain.
async fn next_live(
    live: &mut Option<broadcast::Receiver<Arc<Stamped>>>,
) -> Result<Arc<Stamped>, RecvError> {
    match live {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// The state of one `Subscribe` stream, run by its own task.
///
/// The stream subscribes to the chain when the first request with filters arrives (so that `from_slot`
/// can replay history joined to the live feed under one lock). Every event goes through `on_event`,
/// whether replayed or live, so the commitment buffering and block assembly behave the same for both.
struct Subscription {
    chain: SharedChain,
    out: mpsc::Sender<Result<pb::SubscribeUpdate, Status>>,
    filters: Filters,
    live: Option<broadcast::Receiver<Arc<Stamped>>>,
    /// The `from_slot` the stream started with; events of earlier slots are not sent.
    from_slot: Option<Slot>,
    /// Sequence number of the last replayed event: live events up to it were already handled.
    replayed_through: u64,
    /// Account and transaction events of slots whose block meta has not arrived yet, to assemble blocks.
    /// A slot's events are emitted under one chain lock, so a stream never starts in the middle of one.
    open: BTreeMap<Slot, Vec<Arc<Stamped>>>,
    /// Updates waiting for their slot to reach the subscription's commitment.
    pending: BTreeMap<Slot, Vec<Item>>,
    confirmed: Option<Slot>,
    finalized: Option<Slot>,
}

impl Subscription {
    fn new(chain: SharedChain, out: mpsc::Sender<Result<pb::SubscribeUpdate, Status>>) -> Self {
        Subscription {
            chain,
            out,
            filters: Filters::default(),
            live: None,
            from_slot: None,
            replayed_through: 0,
            open: BTreeMap::new(),
            pending: BTreeMap::new(),
            confirmed: None,
            finalized: None,
        }
    }

    async fn run(
        mut self,
        mut requests: Streaming<pb::SubscribeRequest>,
        mut closing: watch::Receiver<bool>,
    ) {
        let first_ping = Instant::now()
            .checked_add(PING_INTERVAL)
            .unwrap_or_else(Instant::now);
        let mut keepalive = tokio::time::interval_at(first_ping, PING_INTERVAL);
        keepalive.set_missed_tick_behavior(MissedTickBehavior::Delay);
        // After the client half-closes its request stream, updates keep flowing with the last filters.
        let mut reading = true;
        let stop = loop {
            let step = tokio::select! {
                biased;
                () = self.out.closed() => break Stop::ClientGone,
                () = server_closing(&mut closing) => break Stop::Fail(Status::unavailable("the server is shutting down")),
                request = requests.next(), if reading => Step::Request(request.map(|r| r.map(Box::new))),
                _ = keepalive.tick() => Step::Keepalive,
                event = next_live(&mut self.live) => Step::Live(event),
            };
            let result = match step {
                Step::Request(Some(Ok(request))) => self.on_request(*request).await,
                Step::Request(Some(Err(status))) => {
                    tracing::debug!("gRPC subscription: request stream failed: {status}");
                    Err(Stop::ClientGone)
                }
                Step::Request(None) => {
                    reading = false;
                    Ok(())
                }
                Step::Keepalive => {
                    self.send(convert::update(
                        Vec::new(),
                        UpdateOneof::Ping(pb::SubscribeUpdatePing {}),
                    ))
                    .await
                }
                Step::Live(Ok(event)) if event.seq <= self.replayed_through => Ok(()),
                Step::Live(Ok(event)) => self.on_event(event).await,
                Step::Live(Err(RecvError::Lagged(missed))) => {
                    Err(Stop::Fail(Status::data_loss(format!(
                        "the subscription fell behind the chain and {missed} events were dropped; \
                     resubscribe with from_slot to replay what was missed"
                    ))))
                }
                Step::Live(Err(RecvError::Closed)) => {
                    Err(Stop::Fail(Status::unavailable("the chain stopped")))
                }
            };
            if let Err(stop) = result {
                break stop;
            }
        };
        if let Stop::Fail(status) = stop {
            tracing::debug!("gRPC subscription ended: {status}");
            // The client may be gone already; nothing else to tell it.
            let _ = self.out.send(Err(status)).await;
        }
    }

    async fn send(&self, update: pb::SubscribeUpdate) -> Result<(), Stop> {
        self.out
            .send(Ok(update))
            .await
            .map_err(|_| Stop::ClientGone)
    }

    /// Answers a ping, then (unless the request is only a ping) replaces the filters, and starts the
    /// stream on the first request with filters.
    async fn on_request(&mut self, request: pb::SubscribeRequest) -> Result<(), Stop> {
        if let Some(ping) = &request.ping {
            self.send(convert::update(
                Vec::new(),
                UpdateOneof::Pong(pb::SubscribeUpdatePong { id: ping.id }),
            ))
            .await?;
        }
        if filter::is_ping_only(&request) {
            return Ok(());
        }
        let filters = Filters::parse(&request)?;
        let started = self.live.is_some();
        if started && request.from_slot.is_some() && request.from_slot != self.from_slot {
            return Err(invalid(
                "from_slot can only be set by the request that starts a subscription; open a new stream to replay",
            )
            .into());
        }
        let previous = std::mem::replace(&mut self.filters, filters).commitment;
        if !started {
            self.start(request.from_slot).await
        } else if previous != self.filters.commitment {
            // What the new commitment already allows goes out now.
            self.release(self.reached_slot()).await
        } else {
            Ok(())
        }
    }

    /// Subscribes to the chain, replaying history first when `from_slot` asks for it. History and the live
    /// receiver are taken under one lock so that they join without a gap or a duplicate.
    async fn start(&mut self, from_slot: Option<Slot>) -> Result<(), Stop> {
        let (history, live) = {
            let chain = lock(&self.chain)?;
            match from_slot {
                None => (Vec::new(), chain.subscribe()),
                Some(from) => {
                    let oldest = chain.first_replayable_slot();
                    if from < oldest {
                        return Err(invalid(format!(
                            "from_slot {from} is not available: the oldest slot that can be replayed is {oldest}"
                        ))
                        .into());
                    }
                    (chain.history_from(from), chain.subscribe())
                }
            }
        };
        tracing::debug!(
            "gRPC subscription started (from_slot {from_slot:?}, {} events to replay)",
            history.len()
        );
        self.live = Some(live);
        self.from_slot = from_slot;
        self.replayed_through = history.last().map_or(0, |e| e.seq);
        for event in history {
            self.on_event(event).await?;
        }
        Ok(())
    }

    async fn on_event(&mut self, event: Arc<Stamped>) -> Result<(), Stop> {
        let slot = event.event.slot();
        if self.from_slot.is_some_and(|from| slot < from) {
            return Ok(());
        }
        match &event.event {
            ChainEvent::Account { .. } | ChainEvent::Transaction(_) => {
                self.open.entry(slot).or_default().push(Arc::clone(&event));
                self.route(Item::Event(event)).await
            }
            ChainEvent::BlockMeta { .. } => {
                let closed: Vec<Slot> = self.open.range(..=slot).map(|(s, _)| *s).collect();
                let events = closed
                    .into_iter()
                    .filter_map(|s| self.open.remove(&s))
                    .flatten()
                    .collect();
                self.route(Item::Event(Arc::clone(&event))).await?;
                self.route(Item::Block {
                    meta: event,
                    events,
                })
                .await
            }
            ChainEvent::Slot {
                slot,
                parent,
                status,
            } => {
                let (slot, parent, status) = (*slot, *parent, *status);
                if status >= ChainSlotStatus::Confirmed {
                    self.confirmed = self.confirmed.max(Some(slot));
                }
                if status == ChainSlotStatus::Finalized {
                    self.finalized = self.finalized.max(Some(slot));
                }
                if status != ChainSlotStatus::Processed
                    && level_of(status) == self.filters.commitment
                {
                    self.release(Some(slot)).await?;
                }
                let names = self.filters.slots_matching(status);
                if names.is_empty() {
                    return Ok(());
                }
                let update = pb::SubscribeUpdateSlot {
                    slot,
                    parent,
                    status: convert::slot_status(status) as i32,
                    dead_error: None,
                    bank_id: None,
                };
                self.send(convert::update(names, UpdateOneof::Slot(update)))
                    .await
            }
        }
    }

    /// The highest slot at the subscription's commitment (processed: everything).
    fn reached_slot(&self) -> Option<Slot> {
        match self.filters.commitment {
            pb::CommitmentLevel::Processed => Some(Slot::MAX),
            pb::CommitmentLevel::Confirmed => self.confirmed,
            pb::CommitmentLevel::Finalized => self.finalized,
        }
    }

    async fn route(&mut self, item: Item) -> Result<(), Stop> {
        let slot = item.slot();
        if self.reached_slot().is_some_and(|reached| slot <= reached) {
            self.emit(&item).await
        } else {
            self.pending.entry(slot).or_default().push(item);
            Ok(())
        }
    }

    /// Sends the buffered updates of every slot up to `through`, oldest first.
    async fn release(&mut self, through: Option<Slot>) -> Result<(), Stop> {
        let Some(through) = through else {
            return Ok(());
        };
        let slots: Vec<Slot> = self.pending.range(..=through).map(|(s, _)| *s).collect();
        for slot in slots {
            for item in self.pending.remove(&slot).unwrap_or_default() {
                self.emit(&item).await?;
            }
        }
        Ok(())
    }

    async fn emit(&self, item: &Item) -> Result<(), Stop> {
        for update in self.updates_for(item) {
            self.send(update).await?;
        }
        Ok(())
    }

    /// The updates an item produces under the current filters (none when no filter matches).
    fn updates_for(&self, item: &Item) -> Vec<pb::SubscribeUpdate> {
        let f = &self.filters;
        let mut out = Vec::new();
        match item {
            Item::Event(event) => match &event.event {
                ChainEvent::Account {
                    slot,
                    pubkey,
                    account,
                    write_version,
                    txn_signature,
                } => {
                    let view = AccountView {
                        pubkey,
                        owner: account.owner(),
                        lamports: account.lamports(),
                        data: account.data(),
                        has_txn_signature: txn_signature.is_some(),
                    };
                    let names = f.accounts_matching(&view);
                    if !names.is_empty() {
                        let info = convert::account_info(
                            pubkey,
                            account,
                            *write_version,
                            txn_signature.as_ref(),
                            &f.data_slice,
                        );
                        let update = pb::SubscribeUpdateAccount {
                            account: Some(info),
                            slot: *slot,
                            is_startup: false,
                            bank_id: None,
                        };
                        out.push(convert::update(names, UpdateOneof::Account(update)));
                    }
                }
                ChainEvent::Transaction(tx) => {
                    let facts = convert::tx_facts(tx);
                    let names = f.transactions_matching(&facts);
                    if !names.is_empty() {
                        let update = pb::SubscribeUpdateTransaction {
                            transaction: Some(convert::transaction_info(tx)),
                            slot: tx.slot,
                            bank_id: 0,
                        };
                        out.push(convert::update(names, UpdateOneof::Transaction(update)));
                    }
                    let names = f.transaction_statuses_matching(&facts);
                    if !names.is_empty() {
                        out.push(convert::update(
                            names,
                            UpdateOneof::TransactionStatus(convert::transaction_status(tx)),
                        ));
                    }
                }
                ChainEvent::BlockMeta { .. } => {
                    if let Some(info) = block_info(&event.event) {
                        if !f.blocks_meta.is_empty() {
                            out.push(convert::update(
                                f.blocks_meta.clone(),
                                UpdateOneof::BlockMeta(convert::block_meta(&info)),
                            ));
                        }
                    }
                }
                // Slot statuses are sent as they arrive, never buffered.
                ChainEvent::Slot { .. } => {}
            },
            Item::Block { meta, events } => {
                if let Some(info) = block_info(&meta.event) {
                    for (name, filter) in &f.blocks {
                        let block = self.block_for(filter, &info, events);
                        out.push(convert::update(
                            vec![name.clone()],
                            UpdateOneof::Block(block),
                        ));
                    }
                }
            }
        }
        out
    }

    /// A block as one `blocks` filter selects it. Each filter gets its own update because their
    /// `account_include` lists select different contents.
    fn block_for(
        &self,
        filter: &BlockFilter,
        info: &convert::BlockInfo,
        events: &[Arc<Stamped>],
    ) -> pb::SubscribeUpdateBlock {
        let mut transactions = Vec::new();
        let mut accounts = Vec::new();
        let mut updated_account_count: u64 = 0;
        for event in events {
            match &event.event {
                ChainEvent::Account {
                    pubkey,
                    account,
                    write_version,
                    txn_signature,
                    ..
                } => {
                    updated_account_count = updated_account_count.saturating_add(1);
                    if filter.include_accounts && filter.includes_account(pubkey) {
                        accounts.push(convert::account_info(
                            pubkey,
                            account,
                            *write_version,
                            txn_signature.as_ref(),
                            &self.filters.data_slice,
                        ));
                    }
                }
                ChainEvent::Transaction(tx) => {
                    let keys: Vec<_> = tx.account_keys.iter().map(|(k, _)| *k).collect();
                    if filter.include_transactions && filter.includes_transaction(&keys) {
                        transactions.push(convert::transaction_info(tx));
                    }
                }
                ChainEvent::Slot { .. } | ChainEvent::BlockMeta { .. } => {}
            }
        }
        convert::block(info, transactions, accounts, updated_account_count)
    }
}

fn block_info(event: &ChainEvent) -> Option<convert::BlockInfo> {
    match event {
        ChainEvent::BlockMeta {
            slot,
            parent_slot,
            blockhash,
            parent_blockhash,
            block_time,
            block_height,
            executed_transaction_count,
        } => Some(convert::BlockInfo {
            slot: *slot,
            parent_slot: *parent_slot,
            blockhash: *blockhash,
            parent_blockhash: *parent_blockhash,
            block_time: *block_time,
            block_height: *block_height,
            executed_transaction_count: *executed_transaction_count,
        }),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests;
