//! Yellowstone gRPC (`geyser.Geyser`, as defined by `yellowstone-grpc-proto` 14.0.1) over the chain.
//!
//! Indexers and bots written against a Yellowstone (Dragon's Mouth) endpoint connect to the localnet
//! unchanged: same service, same messages, same filter semantics as a validator running the Yellowstone
//! geyser plugin. The source is the chain's [`ChainEvent`] broadcast instead of a geyser plugin.
//!
//! Four parts, one file each:
//! - `filter.rs`: a `SubscribeRequest` checked into filters once, then pure matching functions (which filter
//!   names an account, transaction, slot or block matches; account data slicing);
//! - `convert.rs`: Solana types to the proto messages (the proto crate has no conversion helpers);
//! - this file, the service: the unary methods, and `Subscribe`, which runs one task per stream
//!   (`stream.rs`).
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

mod stream;
use stream::Subscription;

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
// Tests
// ---------------------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests;
