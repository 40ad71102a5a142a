//! Shared by the indexer's end-to-end tests: a localnet, a fresh database (PostgreSQL from DATABASE_URL,
//! or a SQLite file), the indexer in-process or as its binary, a TCP proxy that can cut connections, and
//! checks of the index against the chain.
#![allow(dead_code)]

use anchor_lang::prelude::Pubkey;
use index::sea_query::{Alias, Expr, Func, Query};
use index::store::sql;
use index::Store;
use indexer::{Indexer, IndexerConfig};
use localnet::testkit::{self, SOL};
use localnet::{Localnet, LocalnetConfig};
use sdk::launchpad_ix::LaunchKeys;
use solana_commitment_config::CommitmentConfig;
use solana_keypair::Keypair;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;
use sqlx::Row;
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Db {
    Postgres,
    Sqlite,
}

/// A database for one test: a new PostgreSQL database on the server of DATABASE_URL (scripts/test starts
/// one), or a new SQLite file.
pub struct TestDb {
    pub url: String,
    _dir: Option<tempdir::Dir>,
}

mod tempdir {
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

pub async fn fresh_db(kind: Db) -> TestDb {
    let unique = format!(
        "{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    match kind {
        Db::Postgres => {
            let admin = std::env::var("DATABASE_URL").expect(
                "DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL",
            );
            TestDb {
                url: index::store::create_postgres_database(&admin, &format!("idx_{unique}"))
                    .await
                    .expect("a fresh database on PostgreSQL"),
                _dir: None,
            }
        }
        Db::Sqlite => {
            let dir = std::env::temp_dir().join(format!("indexer-test-{unique}"));
            std::fs::create_dir_all(&dir).unwrap();
            TestDb {
                url: format!("sqlite://{}/index.db", dir.display()),
                _dir: Some(tempdir::Dir(dir)),
            }
        }
    }
}

pub async fn start_chain(keep_slots: u64) -> (Localnet, RpcClient) {
    let net = Localnet::start(LocalnetConfig {
        keep_slots,
        ..LocalnetConfig::ephemeral()
    })
    .await
    .expect("localnet starts");
    let rpc = RpcClient::new_with_commitment(net.rpc_url(), CommitmentConfig::confirmed());
    (net, rpc)
}

pub fn config(rpc_url: String, grpc_url: String, db: &TestDb) -> IndexerConfig {
    IndexerConfig {
        backoff_min_ms: 50,
        backoff_max_ms: 1_000,
        metrics_interval_secs: 0,
        ..IndexerConfig::local(rpc_url, grpc_url, db.url.clone())
    }
}

/// The indexer running as a task of this process.
pub struct Running {
    stop: watch::Sender<bool>,
    handle: tokio::task::JoinHandle<()>,
    pub metrics: Arc<indexer::Metrics>,
}

pub async fn spawn_indexer(cfg: IndexerConfig) -> Running {
    let store = Store::open(&cfg.database_url)
        .await
        .expect("database opens");
    let indexer = Indexer::new(cfg, store);
    let metrics = indexer.metrics();
    let (stop, rx) = watch::channel(false);
    let handle = tokio::spawn(indexer.run(rx));
    Running {
        stop,
        handle,
        metrics,
    }
}

impl Running {
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(20), self.handle).await;
    }
}

/// The indexer binary as a child process (killed with SIGKILL on drop).
pub struct Child(pub tokio::process::Child);

pub fn spawn_indexer_process(cfg: &IndexerConfig) -> Child {
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args([
            "--rpc-url",
            &cfg.rpc_url.join(","),
            "--grpc-url",
            &cfg.grpc_url.join(","),
            "--database-url",
            &cfg.database_url,
            "--backoff-min-ms",
            "50",
            "--backoff-max-ms",
            "1000",
            "--metrics-interval-secs",
            "0",
        ])
        .env("RUST_LOG", "warn")
        .kill_on_drop(true)
        .spawn()
        .expect("indexer binary starts");
    Child(child)
}

/// How a test stops the indexer binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGKILL: no chance to flush anything.
    Kill,
    /// SIGTERM, as systemd or a container runtime stops it: it must exit by itself, with status 0.
    Terminate,
}

impl Child {
    pub async fn stop(mut self, how: Stop) {
        match how {
            Stop::Kill => self.0.kill().await.expect("kill"),
            Stop::Terminate => {
                let pid = self.0.id().expect("running").to_string();
                let sent = std::process::Command::new("kill")
                    .args(["-TERM", &pid])
                    .status()
                    .expect("kill runs");
                assert!(sent.success());
                let status = tokio::time::timeout(Duration::from_secs(30), self.0.wait())
                    .await
                    .expect("exits within 30 s of SIGTERM")
                    .expect("wait");
                assert!(status.success(), "SIGTERM is a clean stop: {status:?}");
            }
        }
    }
}

/// A TCP proxy in front of a server that can cut every open connection and refuse new ones.
pub struct Proxy {
    pub addr: SocketAddr,
    /// Connections forwarded to the server so far.
    pub forwarded: Arc<std::sync::atomic::AtomicUsize>,
    /// Connections open through the proxy now.
    pub open: Arc<std::sync::atomic::AtomicUsize>,
    up: Arc<AtomicBool>,
    generation: watch::Sender<u64>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let up = Arc::new(AtomicBool::new(true));
        let (generation, _) = watch::channel(0u64);
        let forwarded = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let open = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (gen_tx, flag, count) = (generation.clone(), up.clone(), forwarded.clone());
        let live = open.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    return;
                };
                if !flag.load(Ordering::SeqCst) {
                    drop(inbound);
                    continue;
                }
                let mut cut = gen_tx.subscribe();
                count.fetch_add(1, Ordering::SeqCst);
                let live = live.clone();
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    live.fetch_add(1, Ordering::SeqCst);
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cut.changed() => {}
                    }
                    live.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Proxy {
            addr,
            forwarded,
            open,
            up,
            generation,
        }
    }

    pub fn url(&self, scheme: &str) -> String {
        format!("{scheme}://{}", self.addr)
    }

    /// Cuts every open connection.
    pub fn sever(&self) {
        self.generation.send_modify(|g| *g += 1);
    }

    /// Cuts every connection and refuses new ones until [`Proxy::restore`].
    pub fn down(&self) {
        self.up.store(false, Ordering::SeqCst);
        self.sever();
    }

    pub fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

/// Buys and sells from two wallets in the background until stopped, recording every swap signature.
pub struct Trader {
    stop: Arc<std::sync::atomic::AtomicBool>,
    swaps: Arc<std::sync::Mutex<Vec<solana_signature::Signature>>>,
    handle: tokio::task::JoinHandle<()>,
}

pub async fn start_trader(rpc_url: String, salt: u64) -> Trader {
    let rpc = solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
        rpc_url,
        solana_commitment_config::CommitmentConfig::confirmed(),
    );
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Distribute, salt, "BG")
        .await
        .unwrap();
    let wallets = [
        testkit::funded(&rpc, 20 * SOL).await.unwrap(),
        testkit::funded(&rpc, 20 * SOL).await.unwrap(),
    ];
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swaps = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (s, out) = (stop.clone(), swaps.clone());
    let handle = tokio::spawn(async move {
        let mut i = 0u64;
        while !s.load(std::sync::atomic::Ordering::SeqCst) {
            let w = &wallets[(i % 2) as usize];
            let sig = if i % 3 == 2 {
                let held = testkit::token_balance(
                    &rpc,
                    &w.pubkey(),
                    &keys.mint,
                    &sdk::ids::TOKEN_2022_PROGRAM,
                )
                .await;
                testkit::sell(&rpc, &keys, w, held / 4).await
            } else {
                testkit::buy(&rpc, &keys, w, SOL / 20 + i).await
            };
            out.lock().unwrap().push(sig.expect("trade lands"));
            i += 1;
        }
    });
    Trader {
        stop,
        swaps,
        handle,
    }
}

impl Trader {
    pub fn count(&self) -> usize {
        self.swaps.lock().unwrap().len()
    }

    pub async fn wait_for(&self, n: usize) {
        eventually(60, "background trades", || async { self.count() >= n }).await;
    }

    pub async fn finish(self) -> Vec<solana_signature::Signature> {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        self.handle.await.unwrap();
        Arc::try_unwrap(self.swaps).unwrap().into_inner().unwrap()
    }
}

/// What a test did on chain: the launch, every swap signature, and the wallets.
pub struct Lifecycle {
    pub keys: LaunchKeys,
    pub creator: Keypair,
    pub swaps: Vec<solana_signature::Signature>,
    pub claims: Vec<solana_signature::Signature>,
}

/// A launch, trades by three wallets, graduation (with refund), migration, an AMM trade, and every claim
/// kind by the creator and the partner.
pub async fn full_lifecycle(net: &Localnet, rpc: &RpcClient, salt: u64) -> Lifecycle {
    let creator = testkit::funded(rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(rpc, &creator, curve::Preset::Fair, salt, "IDX")
        .await
        .unwrap();
    let mut swaps = Vec::new();
    let wallets = [
        testkit::funded(rpc, 30 * SOL).await.unwrap(),
        testkit::funded(rpc, 30 * SOL).await.unwrap(),
        testkit::funded(rpc, 30 * SOL).await.unwrap(),
    ];
    for (i, w) in wallets.iter().enumerate() {
        swaps.push(
            testkit::buy(rpc, &keys, w, (i as u64 + 1) * SOL / 2)
                .await
                .unwrap(),
        );
    }
    let held = testkit::token_balance(
        rpc,
        &wallets[0].pubkey(),
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    )
    .await;
    swaps.push(
        testkit::sell(rpc, &keys, &wallets[0], held / 3)
            .await
            .unwrap(),
    );
    // Crosses the threshold: partially filled, the rest refunded.
    swaps.push(
        testkit::buy(rpc, &keys, &wallets[1], 12 * SOL)
            .await
            .unwrap(),
    );
    testkit::migrate(rpc, &keys, &wallets[2]).await.unwrap();
    testkit::amm_buy(rpc, &keys, &wallets[2], SOL)
        .await
        .unwrap();
    let mut claims = Vec::new();
    claims.push(
        testkit::claim_trading_fee(rpc, &keys, &creator)
            .await
            .unwrap(),
    );
    claims.push(
        testkit::claim_trading_fee(rpc, &keys, &net.partner)
            .await
            .unwrap(),
    );
    claims.push(testkit::claim_surplus(rpc, &keys, &creator).await.unwrap());
    claims.push(
        testkit::claim_locked_lp_fee(rpc, &keys, &creator, &keys.creator_position())
            .await
            .unwrap(),
    );
    Lifecycle {
        keys,
        creator,
        swaps,
        claims,
    }
}

/// Polls `check` until it returns true or `secs` pass.
pub async fn eventually<F, Fut>(secs: u64, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(secs) {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("timed out after {secs}s waiting for: {what}");
}

/// Account data of both programs on chain, per address (global settings excluded: not indexed).
pub async fn chain_accounts(rpc: &RpcClient) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for program in [launchpad::ID, amm::ID] {
        for (address, account) in rpc.get_program_accounts(&program).await.unwrap() {
            if sdk::accounts::decode_account(&account.data)
                .is_some_and(|a| matches!(a, sdk::accounts::LaunchpadAccount::Global(_)))
            {
                continue;
            }
            out.insert(address.to_string(), account.data);
        }
    }
    out
}

/// Account data in the index, per address.
pub async fn indexed_accounts(store: &Store) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for table in ["configs", "pools", "amm_pools", "amm_positions"] {
        let select = Query::select()
            .columns(["address", "data"])
            .from(table)
            .to_owned();
        for row in sql::query(store.backend(), &select)
            .fetch_all(store.pool())
            .await
            .unwrap()
        {
            out.insert(row.get::<String, _>(0), row.get::<Vec<u8>, _>(1));
        }
    }
    out
}

/// The tables of events, one row per emitted event.
pub const EVENT_TABLES: [&str; 6] = [
    "trades",
    "curve_completions",
    "claims",
    "migrations",
    "amm_swaps",
    "amm_liquidity",
];

/// Event rows of the index: (table, signature, ix_index, inner_index), with duplicates kept (there must be
/// none).
pub async fn indexed_events(store: &Store) -> Vec<(String, String, i64, i64)> {
    let mut out = Vec::new();
    for table in EVENT_TABLES {
        let key = ["signature", "ix_index", "inner_index"];
        let select = Query::select()
            .columns(key)
            .from(table)
            .order_by_columns(key.map(|c| (c, index::sea_query::Order::Asc)))
            .to_owned();
        for row in sql::query(store.backend(), &select)
            .fetch_all(store.pool())
            .await
            .unwrap()
        {
            out.push((table.to_string(), row.get(0), row.get(1), row.get(2)));
        }
    }
    out
}

/// Signatures of the index's curve trades.
pub async fn trade_signatures(store: &Store) -> Vec<String> {
    sqlx::query("SELECT signature FROM trades ORDER BY signature")
        .fetch_all(store.pool())
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// Waits until the index holds exactly the chain's account state and every signature in `swaps` as a
/// trade, then checks there are no other trades.
pub async fn assert_caught_up(
    rpc: &RpcClient,
    store: &Store,
    swaps: &[solana_signature::Signature],
) {
    let expected: BTreeSet<String> = swaps.iter().map(|s| s.to_string()).collect();
    // Every event up to here is in once the cursor (committed with the batch that completes its slot)
    // reaches the chain's slot: account state alone can match earlier, after a backfill.
    let tip = rpc.get_slot().await.unwrap();
    let mut last;
    let start = Instant::now();
    loop {
        let chain = chain_accounts(rpc).await;
        let index = indexed_accounts(store).await;
        let trades = trade_signatures(store).await;
        let cursor = store.cursor(index::store::MAIN_STREAM).await.unwrap();
        let seen: BTreeSet<String> = trades.iter().cloned().collect();
        if chain == index
            && seen == expected
            && trades.len() == expected.len()
            && cursor.is_some_and(|c| c >= tip)
        {
            assert_candles_are_the_trades(store).await;
            return;
        }
        last = (chain, index, trades, cursor);
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let (chain, index, trades, cursor) = last;
    let differing: Vec<&String> = chain
        .keys()
        .chain(index.keys())
        .filter(|k| chain.get(*k) != index.get(*k))
        .collect();
    panic!(
        "index did not converge: {} accounts differ ({differing:?}); {} trades indexed, {} expected; \
         cursor {cursor:?}, chain slot {tip}",
        differing.len(),
        trades.len(),
        expected.len()
    );
}

/// Every stored candle is the candle of the stored trades of its mint, interval and start, and every trade
/// is in its candles (the rollup against [`index::market::candles_of`], the reference).
pub async fn assert_candles_are_the_trades(store: &Store) {
    // (seq, time, price, base, quote) of each mint's trades.
    type Priced = (String, i64, u128, u64, u64);
    let mut trades: BTreeMap<String, Vec<Priced>> = BTreeMap::new();
    let rows =
        sqlx::query("SELECT mint, seq, time, price, base_amount, quote_amount FROM market_trades")
            .fetch_all(store.pool())
            .await
            .unwrap();
    for r in &rows {
        let number = |i: usize| r.get::<String, _>(i);
        trades.entry(r.get(0)).or_default().push((
            r.get(1),
            r.get(2),
            number(3).parse().unwrap(),
            number(4).parse().unwrap(),
            number(5).parse().unwrap(),
        ));
    }
    for secs in index::market::STORED_INTERVALS {
        let mut stored: BTreeMap<String, Vec<index::market::Candle>> = BTreeMap::new();
        let rows = sqlx::query(
            "SELECT mint, start_time, open, high, low, close, volume_base, volume_quote, trades, open_seq, \
             close_seq FROM candles WHERE interval_secs = $1 ORDER BY mint, start_time",
        )
        .bind(secs)
        .fetch_all(store.pool())
        .await
        .unwrap();
        for r in &rows {
            stored
                .entry(r.get(0))
                .or_default()
                .push(index::store::candle_row(r));
        }
        let want: BTreeMap<String, Vec<index::market::Candle>> = trades
            .iter()
            .map(|(mint, t)| {
                let candles = index::market::candles_of(
                    t.iter().map(|t| (t.0.as_str(), t.1, t.2, t.3, t.4)),
                    secs,
                );
                (mint.clone(), candles)
            })
            .collect();
        assert_eq!(stored, want, "the {secs}s candles are their trades'");
    }
}

/// A certificate authority made at test time, and a server certificate it signed for 127.0.0.1 and
/// localhost.
pub struct TestCa {
    pub ca_pem: String,
    pub server: localnet::GrpcTls,
}

pub fn test_ca() -> TestCa {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "launchpad test CA");
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    let ca =
        rcgen::CertifiedIssuer::self_signed(params, rcgen::KeyPair::generate().unwrap()).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let cert =
        rcgen::CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .unwrap()
            .signed_by(&key, &ca)
            .unwrap();
    TestCa {
        ca_pem: ca.pem(),
        server: localnet::GrpcTls {
            cert_pem: cert.pem().into_bytes(),
            key_pem: key.serialize_pem().into_bytes(),
        },
    }
}

pub fn pubkey(s: &str) -> Pubkey {
    s.parse().unwrap()
}

/// Columns that record how a row reached the index rather than what it says: account and token-account
/// versions (a backfill writes the snapshot's slot where a stream wrote the update's) and the raw account
/// data (compared apart by [`indexed_accounts`]).
const BOOKKEEPING: [&str; 3] = ["slot", "write_version", "data"];

/// The feed's columns that record when a row was written (its number follows commit order, which a
/// recovery or a cold start reaches differently), not what it says.
const FEED_BOOKKEEPING: [&str; 2] = ["seq", "written_at"];

/// Every table the stream and a gap's recovery write, as text rows (sorted), bookkeeping columns left
/// out for the account tables: events, the market series and candles, the listing's stats, launches,
/// holders, the live feed's events (as stored and as read) and accounts.
pub async fn indexed_tables(store: &Store) -> BTreeMap<&'static str, Vec<Vec<Option<String>>>> {
    const ACCOUNT_TABLES: [&str; 5] = [
        "configs",
        "pools",
        "amm_pools",
        "amm_positions",
        "token_accounts",
    ];
    let mut out = BTreeMap::new();
    let derived = [
        "market_trades",
        "candles",
        "launch_stats",
        "launches",
        "holder_counts",
        "feed_events",
    ];
    for table in EVENT_TABLES
        .into_iter()
        .chain(derived)
        .chain(ACCOUNT_TABLES)
    {
        let names_sql = match store.backend() {
            index::Backend::Sqlite => "SELECT name FROM pragma_table_info($1)",
            index::Backend::Postgres => {
                "SELECT column_name::text FROM information_schema.columns WHERE table_name = $1 \
                 ORDER BY ordinal_position"
            }
        };
        let columns: Vec<String> = sqlx::query(names_sql)
            .bind(table)
            .fetch_all(store.pool())
            .await
            .unwrap()
            .iter()
            .map(|r| r.get::<String, _>(0))
            .filter(|c| !(ACCOUNT_TABLES.contains(&table) && BOOKKEEPING.contains(&c.as_str())))
            .filter(|c| !(table == "feed_events" && FEED_BOOKKEEPING.contains(&c.as_str())))
            .collect();
        assert!(!columns.is_empty(), "table {table} has columns");
        let select = Query::select()
            .exprs(
                columns
                    .iter()
                    .map(|c| Func::cast_as(Expr::col(Alias::new(c)), "TEXT")),
            )
            .from(table)
            .to_owned();
        let mut rows: Vec<Vec<Option<String>>> = sql::query(store.backend(), &select)
            .fetch_all(store.pool())
            .await
            .unwrap()
            .iter()
            .map(|r| (0..columns.len()).map(|i| r.get(i)).collect())
            .collect();
        rows.sort();
        out.insert(table, rows);
    }
    // The feed as it is read: a trade's rows are references, rendered from the trade's one stored copy.
    let mut feed: Vec<Vec<Option<String>>> = store
        .feed_after(0, u32::MAX)
        .await
        .unwrap()
        .into_iter()
        .map(|r| {
            vec![
                Some(r.kind),
                Some(r.mint),
                r.wallet,
                Some(r.slot.to_string()),
                Some(r.signature),
                Some(r.time.to_string()),
                Some(format!("{:?}", r.payload)),
            ]
        })
        .collect();
    feed.sort();
    out.insert("feed_events (as read)", feed);
    out
}
