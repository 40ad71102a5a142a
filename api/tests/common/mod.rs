//! Shared by the API's HTTP tests: a running stack (localnet, indexer over gRPC into a fresh database, API on a
//! free port), HTTP helpers, and signing as a wallet would.
#![allow(dead_code)]

use api::process::config::ApiConfig;
use api::AppState;
use index::Store;
use indexer::{Indexer, IndexerConfig};
use localnet::{Localnet, LocalnetConfig};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

pub struct Stack {
    pub net: Localnet,
    pub base: String,
    pub stop: watch::Sender<bool>,
    /// The index database's URL.
    pub db: String,
}

impl Stack {
    /// A client of the stack's Solana RPC at `confirmed`.
    pub fn rpc(&self) -> solana_rpc_client::nonblocking::rpc_client::RpcClient {
        solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
            self.net.rpc_url(),
            solana_commitment_config::CommitmentConfig::confirmed(),
        )
    }

    /// `POST /swap/submit-solana` with a signed transaction.
    pub async fn submit(&self, http: &reqwest::Client, signed: &str) -> (u16, Value) {
        post(
            http,
            &format!("{}/swap/submit-solana", self.base),
            &serde_json::json!({ "signedTransaction": signed }),
        )
        .await
    }

    /// Waits until the index has committed everything up to the chain's current confirmed slot, as a
    /// client that just landed a transaction would before asking for a fresh quote.
    pub async fn wait_indexed(&self) {
        let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
            self.net.rpc_url(),
            solana_commitment_config::CommitmentConfig::confirmed(),
        );
        let tip = rpc.get_slot().await.unwrap();
        wait_cursor(&Store::open(&self.db).await.unwrap(), tip).await;
    }
}

/// Waits until the index in `store` has committed everything up to `tip`.
pub async fn wait_cursor(store: &Store, tip: u64) {
    let start = Instant::now();
    loop {
        let cursor = store.cursor(index::store::MAIN_STREAM).await.unwrap();
        if cursor.is_some_and(|c| c >= tip) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the index never reached slot {tip} (cursor {cursor:?})"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The network fee a landed transaction paid.
pub async fn transaction_fee(
    rpc: &solana_rpc_client::nonblocking::rpc_client::RpcClient,
    signature: &str,
) -> u64 {
    let tx = api::solana::confirmed_transaction(rpc, &signature.parse().unwrap())
        .await
        .unwrap();
    tx.transaction.meta.unwrap().fee
}

pub async fn database(postgres: bool) -> String {
    let unique = format!(
        "{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    if postgres {
        let admin = std::env::var("DATABASE_URL")
            .expect("DATABASE_URL is not set: run the tests through scripts/test");
        index::store::create_postgres_database(&admin, &format!("api_{unique}"))
            .await
            .unwrap()
    } else {
        let dir = std::env::temp_dir().join(format!("api-test-{unique}"));
        std::fs::create_dir_all(&dir).unwrap();
        format!("sqlite://{}/index.db", dir.display())
    }
}

pub async fn stack(postgres: bool, rate_limit_burst: u32) -> Stack {
    stack_with(postgres, rate_limit_burst, "").await
}

/// A stack whose API uses a Jupiter adapter at `jupiter` (empty: none).
pub async fn stack_with(postgres: bool, rate_limit_burst: u32, jupiter: &str) -> Stack {
    stack_configured(postgres, |c| ApiConfig {
        rate_limit_burst,
        rate_limit_per_second: 5,
        jupiter_base_url: jupiter.to_string(),
        ..c
    })
    .await
}

/// A stack whose API configuration is `configure(ApiConfig::local(..))`.
pub async fn stack_configured(
    postgres: bool,
    configure: impl FnOnce(ApiConfig) -> ApiConfig,
) -> Stack {
    stack_on(postgres, LocalnetConfig::ephemeral(), configure).await
}

/// A stack on a localnet started with `net`, its API configured by `configure(ApiConfig::local(..))`.
pub async fn stack_on(
    postgres: bool,
    net: LocalnetConfig,
    configure: impl FnOnce(ApiConfig) -> ApiConfig,
) -> Stack {
    let net = Localnet::start(net).await.unwrap();
    let db = database(postgres).await;
    let store = Store::open(&db).await.unwrap();
    let db_url = db.clone();
    let (stop, rx) = watch::channel(false);
    let ix = Indexer::new(
        IndexerConfig {
            metrics_interval_secs: 0,
            ..IndexerConfig::local(net.rpc_url(), net.grpc_url(), db)
        },
        store.clone(),
    );
    let metrics = ix.metrics();
    tokio::spawn(ix.run(rx.clone()));
    // Ready once the indexer has the configs (its backfill at start).
    let start = Instant::now();
    while store.config_for("shield", "sol").await.unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "configs never indexed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(
        store,
        configure(ApiConfig::local(addr)),
        Arc::new(
            solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
                net.rpc_url(),
                solana_commitment_config::CommitmentConfig::confirmed(),
            ),
        ),
        Some(metrics),
    );
    let mut stopped = rx.clone();
    tokio::spawn(api::serve(state, listener, async move {
        let _ = stopped.wait_for(|s| *s).await;
    }));
    Stack {
        net,
        base: format!("http://{addr}"),
        stop,
        db: db_url,
    }
}

pub async fn get(http: &reqwest::Client, url: &str) -> (u16, Value) {
    let r = http.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

pub async fn post(http: &reqwest::Client, url: &str, body: &Value) -> (u16, Value) {
    let r = http.post(url).json(body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Signs a base64 unsigned transaction from the API as a wallet would, returning base64.
pub fn sign(unsigned: &str, signer: &solana_keypair::Keypair) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let tx: solana_transaction::versioned::VersionedTransaction =
        bincode::deserialize(&b64.decode(unsigned).unwrap()).unwrap();
    let signed =
        solana_transaction::versioned::VersionedTransaction::try_new(tx.message, &[signer])
            .unwrap();
    b64.encode(bincode::serialize(&signed).unwrap())
}

pub fn assert_error(body: &Value, code: &str) {
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
}

/// Another API process on the stack's index: its own database pool (so no in-process commit wakes its live
/// feed), the same chain. With `send_buffer`, every accepted connection's kernel send buffer is that small
/// (a slow network, so that a client that stops reading fills it with a few events).
pub async fn replica(
    s: &Stack,
    configure: impl FnOnce(ApiConfig) -> ApiConfig,
    send_buffer: Option<usize>,
) -> String {
    use axum::serve::ListenerExt;
    let store = Store::connect(&s.db).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(
        store,
        configure(ApiConfig::local(addr)),
        Arc::new(s.rpc()),
        None,
    );
    let app = api::router(state).into_make_service_with_connect_info::<std::net::SocketAddr>();
    let mut stopped = s.stop.subscribe();
    let shutdown = async move {
        let _ = stopped.wait_for(|s| *s).await;
    };
    let listener = listener.tap_io(move |tcp| {
        if let Some(n) = send_buffer {
            socket2::SockRef::from(&*tcp)
                .set_send_buffer_size(n)
                .unwrap();
        }
    });
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown)
            .await
    });
    format!("http://{addr}")
}

/// Trades of [`trade_through_migration`].
pub const TRADES_THROUGH_MIGRATION: usize = 8;

/// A launch's life in trades: four wallets buy (1/3, 2/3, 1 and 4/3 SOL), the first sells half its tokens,
/// the second buys to graduation (12 SOL), the third migrates the curve, and the third and fourth buy on the
/// AMM (1/2 SOL each): [`TRADES_THROUGH_MIGRATION`] trades. Returns the four wallets.
pub async fn trade_through_migration(
    rpc: &solana_rpc_client::nonblocking::rpc_client::RpcClient,
    keys: &sdk::launchpad_ix::LaunchKeys,
) -> Vec<solana_keypair::Keypair> {
    use localnet::testkit::{self, SOL};
    use solana_signer::Signer;
    let mut wallets = Vec::new();
    for _ in 0..4 {
        wallets.push(testkit::funded(rpc, 20 * SOL).await.unwrap());
    }
    for (i, w) in wallets.iter().enumerate() {
        testkit::buy(rpc, keys, w, (i as u64 + 1) * SOL / 3)
            .await
            .unwrap();
    }
    let held = testkit::token_balance(
        rpc,
        &wallets[0].pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await;
    testkit::sell(rpc, keys, &wallets[0], held / 2)
        .await
        .unwrap();
    testkit::buy(rpc, keys, &wallets[1], 12 * SOL)
        .await
        .unwrap();
    testkit::migrate(rpc, keys, &wallets[2]).await.unwrap();
    for w in &wallets[2..] {
        testkit::amm_buy(rpc, keys, w, SOL / 2).await.unwrap();
    }
    wallets
}

/// Posts `body` to `path`, signs the returned transaction with `signer`, submits it and waits for the index.
pub async fn build_sign_submit(
    s: &Stack,
    http: &reqwest::Client,
    path: &str,
    body: &Value,
    signer: &solana_keypair::Keypair,
) -> Value {
    let (status, built) = post(http, &format!("{}{path}", s.base), body).await;
    assert_eq!(status, 200, "{path}: {built}");
    let signed = sign(built["solanaTransaction"].as_str().unwrap(), signer);
    let (status, sent) = s.submit(http, &signed).await;
    assert_eq!(status, 200, "{sent}");
    s.wait_indexed().await;
    built
}
