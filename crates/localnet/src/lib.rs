//! An embedded Solana chain for development and tests: the launchpad and AMM programs run natively in a
//! `solana-runtime` bank with the real SPL programs, served over Solana JSON-RPC and Yellowstone gRPC so
//! that the API, the indexer and any standard client use the same protocols as against a real cluster.
//!
//! ```no_run
//! # async fn run() -> anyhow::Result<()> {
//! let net = localnet::Localnet::start(localnet::LocalnetConfig::default()).await?;
//! println!("RPC {} gRPC {}", net.rpc_url(), net.grpc_url());
//! # Ok(()) }
//! ```

pub mod bootstrap;
pub mod chain;
pub mod grpc;
pub mod oracle;
pub mod pubsub;
pub mod rpc;
pub mod testkit;
pub mod token;

pub use chain::{Chain, ChainEvent, SharedChain, Stamped};

use anchor_lang::prelude::{AccountInfo, Pubkey};
use anchor_lang::solana_program::entrypoint::ProgramResult;
use anyhow::Context as _;
use solana_keypair::Keypair;
use solana_signer::Signer;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Re-borrows a builtin's arguments at the lifetime of its accounts, the one lifetime Anchor's `entry` takes
/// them at (the runtime's builtin signature gives each its own).
///
/// Copying them into leaked boxes would do as well, but that kept about 1 KiB for every call of a program's
/// entry (each `AccountInfo` clone holds its two `Rc`s) for the life of the process: an `emit_cpi!` event is
/// a second call, and a preflight simulation runs them all once more, so about 4 KiB a trade.
///
/// # Safety
///
/// The references returned must not be used after the call that received the arguments returns. An Anchor
/// `entry` called with them and returned from meets that: its result borrows nothing, and nothing it is
/// given can carry a reference to them out of the call.
unsafe fn at_one_lifetime<'info>(
    program_id: &Pubkey,
    accounts: &[AccountInfo<'info>],
    data: &[u8],
) -> (&'info Pubkey, &'info [AccountInfo<'info>], &'info [u8]) {
    // SAFETY: the pointers come from live references; the caller keeps the results within the call.
    unsafe {
        (
            &*(program_id as *const Pubkey),
            &*(accounts as *const [AccountInfo<'info>]),
            &*(data as *const [u8]),
        )
    }
}

/// The launchpad's native entry, as `processor!` (solana-program-test) and the localnet's builtin take it.
pub fn launchpad_entry(
    program_id: &Pubkey,
    accounts: &[AccountInfo],
    data: &[u8],
) -> ProgramResult {
    // SAFETY: the re-borrowed arguments go to `entry` only, which has returned when this does.
    let (program_id, accounts, data) = unsafe { at_one_lifetime(program_id, accounts, data) };
    launchpad::entry(program_id, accounts, data)
}

/// The AMM's native entry, likewise.
pub fn amm_entry(program_id: &Pubkey, accounts: &[AccountInfo], data: &[u8]) -> ProgramResult {
    // SAFETY: as in `launchpad_entry`.
    let (program_id, accounts, data) = unsafe { at_one_lifetime(program_id, accounts, data) };
    amm::entry(program_id, accounts, data)
}

/// The upgradeable loader as the localnet runs it. The launchpad is made to look deployed through the
/// upgradeable loader (see [`bootstrap`]), so that `initialize` checks its upgrade authority as on a real
/// cluster; the runtime then hands its instructions to that loader, whose real builtin only runs SBF code.
/// This replacement runs the launchpad's native entry and passes every other program of that loader
/// (Token-2022) to the real loader. The program tests install it too.
pub fn upgradeable_loader(
    vm: *mut solana_program_test::EbpfVm<solana_program_test::InvokeContext<'static, 'static>>,
    a0: u64,
    a1: u64,
    a2: u64,
    a3: u64,
    a4: u64,
) {
    // SAFETY: the runtime calls a builtin with `vm` pointing into a live `EbpfVm`, offset as `processor!` expects.
    let program = unsafe {
        let vm = &*((vm as *mut u64)
            .offset(-(solana_program_test::get_runtime_environment_key() as isize))
            as *mut solana_program_test::EbpfVm<solana_program_test::InvokeContext>);
        let invoke_context = &*vm.context_object_pointer;
        invoke_context
            .transaction_context
            .get_current_instruction_context()
            .and_then(|ix| ix.get_program_key().copied())
    };
    if program == Ok(launchpad::ID) {
        let native = solana_program_test::processor!(launchpad_entry).expect("native entry");
        native(vm, a0, a1, a2, a3, a4)
    } else {
        solana_bpf_loader_program::Entrypoint::vm(vm, a0, a1, a2, a3, a4)
    }
}

/// The programs a localnet runs natively (and the upgradeable loader that runs the launchpad natively).
pub fn native_programs() -> Vec<chain::NativeProgram> {
    use solana_program_runtime::invoke_context::BuiltinFunctionWithContext;
    let launchpad: Option<BuiltinFunctionWithContext> =
        solana_program_test::processor!(launchpad_entry);
    let amm: Option<BuiltinFunctionWithContext> = solana_program_test::processor!(amm_entry);
    launchpad
        .map(|entry| chain::NativeProgram {
            id: launchpad::ID,
            name: "launchpad",
            entry,
        })
        .into_iter()
        .chain(amm.map(|entry| chain::NativeProgram {
            id: amm::ID,
            name: "amm",
            entry,
        }))
        .chain([chain::NativeProgram {
            id: anchor_lang::solana_program::bpf_loader_upgradeable::ID,
            name: "solana_bpf_loader_upgradeable_program",
            entry: upgradeable_loader,
        }])
        .collect()
}

#[derive(Debug, Clone)]
pub struct LocalnetConfig {
    /// JSON-RPC address (port 0 picks a free port).
    pub rpc_addr: SocketAddr,
    /// Yellowstone gRPC address (port 0 picks a free port).
    pub grpc_addr: SocketAddr,
    /// Slot length; a slot also closes after every transaction.
    pub slot_duration: Duration,
    /// How many recent slots subscribers can replay from.
    pub keep_slots: u64,
    /// `Some(key)`: only deploy, as a real cluster starts: the launchpad's upgrade authority is `key` and
    /// nothing is initialized (the admin tool's tests do the rest). `None`: the usual bootstrap.
    pub deploy_only: Option<Pubkey>,
    /// Serve Yellowstone gRPC over TLS with this certificate (plaintext without).
    pub grpc_tls: Option<GrpcTls>,
    /// How often the SOL/USD price account moves ([`oracle`]); `None` seeds it once and leaves it to the
    /// caller (tests that set their own prices).
    pub oracle_interval: Option<Duration>,
}

/// A TLS certificate (chain) and its private key, PEM, for the gRPC server.
#[derive(Clone)]
pub struct GrpcTls {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

impl std::fmt::Debug for GrpcTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is never printed.
        f.debug_struct("GrpcTls").finish_non_exhaustive()
    }
}

impl Default for LocalnetConfig {
    fn default() -> Self {
        LocalnetConfig {
            rpc_addr: SocketAddr::from(([127, 0, 0, 1], 8899)),
            grpc_addr: SocketAddr::from(([127, 0, 0, 1], 10000)),
            slot_duration: Duration::from_millis(400),
            keep_slots: 1_000,
            deploy_only: None,
            grpc_tls: None,
            oracle_interval: Some(oracle::INTERVAL),
        }
    }
}

impl LocalnetConfig {
    /// Loopback, free ports: for tests.
    pub fn ephemeral() -> Self {
        LocalnetConfig {
            rpc_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            grpc_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..Default::default()
        }
    }
}

/// Binds the RPC port and the PubSub port right above it (where clients look for PubSub). With port 0, tries
/// free ports until a pair is found.
async fn bind_rpc_pair(
    addr: SocketAddr,
) -> anyhow::Result<(tokio::net::TcpListener, tokio::net::TcpListener)> {
    for _ in 0..32 {
        let rpc = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("JSON-RPC port {}: binding {addr}", addr.port()))?;
        let port = rpc.local_addr()?.port();
        let Some(next) = port.checked_add(1) else {
            continue;
        };
        match tokio::net::TcpListener::bind(SocketAddr::new(addr.ip(), next)).await {
            Ok(pubsub) => return Ok((rpc, pubsub)),
            Err(e) if addr.port() != 0 => {
                return Err(anyhow::anyhow!(
                    "PubSub port {next} (the JSON-RPC port + 1): binding {}: {e}",
                    SocketAddr::new(addr.ip(), next)
                ))
            }
            Err(_) => continue,
        }
    }
    anyhow::bail!("no free pair of ports for JSON-RPC and PubSub")
}

/// A running localnet: the chain, its JSON-RPC and gRPC servers, and the slot clock.
pub struct Localnet {
    pub chain: SharedChain,
    pub rpc_addr: SocketAddr,
    pub grpc_addr: SocketAddr,
    grpc_scheme: &'static str,
    pub admin: Pubkey,
    pub partner: Keypair,
    pub usdc_mint: Pubkey,
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Localnet {
    pub async fn start(config: LocalnetConfig) -> anyhow::Result<Self> {
        let (chain, boot) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
            let mut chain = Chain::new(native_programs(), config.keep_slots)?;
            let boot = match config.deploy_only {
                None => bootstrap::bootstrap(&mut chain)?,
                Some(authority) => bootstrap::deploy_only(&mut chain, authority)?,
            };
            oracle::tick(&mut chain);
            Ok((chain, boot))
        })
        .await??;
        let chain: SharedChain = Arc::new(Mutex::new(chain));
        let (shutdown, rx) = watch::channel(false);
        let stopped = |mut rx: watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|s| *s).await;
        };
        let (rpc_listener, pubsub_listener) = bind_rpc_pair(config.rpc_addr).await?;
        let grpc_listener = tokio::net::TcpListener::bind(config.grpc_addr)
            .await
            .with_context(|| {
                format!(
                    "Yellowstone gRPC port {}: binding {}",
                    config.grpc_addr.port(),
                    config.grpc_addr
                )
            })?;
        let rpc_addr = rpc_listener.local_addr()?;
        let grpc_addr = grpc_listener.local_addr()?;
        let state = rpc::RpcState {
            chain: chain.clone(),
            local: Arc::new(rpc::LocalAuthorities {
                usdc_mint: boot.usdc_mint,
                usdc_authority: boot.usdc_authority.insecure_clone(),
                partner: boot.partner.pubkey(),
                admin: boot.admin,
            }),
        };
        let mut tasks = Vec::new();
        let rpc_stop = stopped(rx.clone());
        tasks.push(tokio::spawn(async move {
            if let Err(e) = rpc::serve_with_listener(state, rpc_listener, rpc_stop).await {
                tracing::error!("JSON-RPC server stopped: {e:#}");
            }
        }));
        let pubsub_chain = chain.clone();
        let pubsub_stop = stopped(rx.clone());
        tasks.push(tokio::spawn(async move {
            if let Err(e) =
                pubsub::serve_with_listener(pubsub_chain, pubsub_listener, pubsub_stop).await
            {
                tracing::error!("PubSub server stopped: {e:#}");
            }
        }));
        let grpc_chain = chain.clone();
        let grpc_stop = stopped(rx.clone());
        let grpc_tls = config.grpc_tls.clone();
        let grpc_scheme = if grpc_tls.is_some() { "https" } else { "http" };
        tasks.push(tokio::spawn(async move {
            if let Err(e) =
                grpc::serve_with_listener_tls(grpc_chain, grpc_listener, grpc_tls, grpc_stop).await
            {
                tracing::error!("gRPC server stopped: {e:#}");
            }
        }));
        let clock_chain = chain.clone();
        let mut clock_stop = rx.clone();
        let slot = config.slot_duration;
        tasks.push(tokio::spawn(async move {
            let mut tick = tokio::time::interval(slot);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = clock_stop.wait_for(|s| *s) => break,
                }
                let c = clock_chain.clone();
                let _ = tokio::task::spawn_blocking(move || {
                    if let Ok(mut chain) = c.lock() {
                        if let Err(e) = chain.advance_slot() {
                            tracing::error!("advancing the slot: {e:#}");
                        }
                    }
                })
                .await;
            }
        }));
        if let Some(every) = config.oracle_interval {
            let oracle_chain = chain.clone();
            let mut oracle_stop = rx.clone();
            tasks.push(tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                tick.tick().await;
                loop {
                    tokio::select! {
                        _ = tick.tick() => {}
                        _ = oracle_stop.wait_for(|s| *s) => break,
                    }
                    if let Ok(mut chain) = oracle_chain.lock() {
                        oracle::tick(&mut chain);
                    }
                }
            }));
        }
        Ok(Localnet {
            chain,
            rpc_addr,
            grpc_addr,
            grpc_scheme,
            admin: boot.admin,
            partner: boot.partner,
            usdc_mint: boot.usdc_mint,
            shutdown,
            tasks,
        })
    }

    pub fn rpc_url(&self) -> String {
        format!("http://{}", self.rpc_addr)
    }

    /// `http://` or, when it serves TLS, `https://` and the gRPC address.
    pub fn grpc_url(&self) -> String {
        format!("{}://{}", self.grpc_scheme, self.grpc_addr)
    }

    /// Stops the servers and the slot clock.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        for t in self.tasks {
            let _ = t.await;
        }
    }
}
