//! Indexer benchmarks (`cargo bench -p indexer --bench ingest`; results in the README).
//!
//! 1. Ingest throughput: a generated stream of account updates and trade transactions, shaped as a
//!    Yellowstone server sends them (per slot: transactions and account writes, then the slot status), fed
//!    through decode -> process -> store, on SQLite and (with DATABASE_URL) PostgreSQL. In the same run the
//!    same rows are written raw, one multi-row INSERT per table and slot, and the ratio is reported.
//! 2. End-to-end latency: a buy confirmed on the localnet until its trade row is visible in the database,
//!    with the indexer streaming over gRPC: the first buy (cold) apart, then p50, p99 and max of the rest.

use anchor_lang::prelude::Pubkey;
use anchor_lang::{AnchorSerialize, Discriminator};
use clap::Parser;
use index::sea_query::OnConflict;
use index::store::{row_of, sql, Val};
use index::Store;
use indexer::{Commitment, IndexerConfig, Metrics, Processor};
use localnet::testkit::{self, SOL};
use localnet::{Localnet, LocalnetConfig};
use solana_commitment_config::CommitmentConfig;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;
use sqlx::Row as _;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use yellowstone_grpc_proto::prelude::{
    subscribe_update::UpdateOneof, InnerInstruction, InnerInstructions, Message, SlotStatus,
    SubscribeUpdate, SubscribeUpdateAccount, SubscribeUpdateAccountInfo, SubscribeUpdateSlot,
    SubscribeUpdateTransaction, SubscribeUpdateTransactionInfo, Transaction, TransactionStatusMeta,
};

#[derive(Parser, Debug)]
struct Args {
    /// Trades in the generated stream (each with its pool's account update).
    #[arg(long, default_value_t = 20_000)]
    trades: usize,
    /// Trades per slot.
    #[arg(long, default_value_t = 100)]
    per_slot: usize,
    /// Distinct pools the trades spread over.
    #[arg(long, default_value_t = 200)]
    pools: usize,
    /// Token-account updates per trade in the second ingest run (the trader's account and the pool's
    /// base vault, as a curve trade writes them).
    #[arg(long, default_value_t = 2)]
    token_accounts: usize,
    /// Distinct traders (each with one token account per pool it trades).
    #[arg(long, default_value_t = 1_000)]
    traders: usize,
    /// Buys timed end to end.
    #[arg(long, default_value_t = 200)]
    samples: usize,
    /// Only the bytes per trade on PostgreSQL (no throughput or latency runs), with each table's heap,
    /// TOAST and indexes apart.
    #[arg(long)]
    bytes_only: bool,
    /// Cargo passes `--bench`.
    #[arg(long, hide = true)]
    bench: bool,
}

fn update(u: UpdateOneof) -> SubscribeUpdate {
    SubscribeUpdate {
        filters: vec!["programs".into()],
        update_oneof: Some(u),
        created_at: None,
    }
}

fn generate(
    args: &Args,
    config: (Pubkey, Vec<u8>),
    pool_data: &[u8],
    token_accounts: usize,
) -> Vec<SubscribeUpdate> {
    let template = sdk::accounts::decode_pool(pool_data).expect("pool decodes");
    let pools: Vec<(Pubkey, sdk::accounts::Pool)> = (0..args.pools)
        .map(|_| {
            let mut p = template.clone();
            p.base_mint = Pubkey::new_unique();
            (Pubkey::new_unique(), p)
        })
        .collect();
    let traders: Vec<Pubkey> = (0..args.traders.max(1))
        .map(|_| Pubkey::new_unique())
        .collect();
    let owned = |program: Pubkey, address: &Pubkey, slot: u64, wv: u64, data: Vec<u8>| {
        update(UpdateOneof::Account(SubscribeUpdateAccount {
            account: Some(SubscribeUpdateAccountInfo {
                pubkey: address.to_bytes().to_vec(),
                lamports: 1_000_000,
                owner: program.to_bytes().to_vec(),
                data,
                write_version: wv,
                ..Default::default()
            }),
            slot,
            ..Default::default()
        }))
    };
    let account =
        |address: &Pubkey, slot: u64, wv: u64, data| owned(launchpad::ID, address, slot, wv, data);
    let mut out = vec![account(&config.0, 1, 0, config.1)];
    let mut slot = 10u64;
    for i in 0..args.trades {
        let (address, pool) = &pools[i % pools.len()];
        let mut pool = pool.clone();
        pool.sqrt_price = pool.sqrt_price.saturating_add(i as u128);
        pool.quote_reserve = i as u64;
        let mut data = Vec::new();
        anchor_lang::AccountSerialize::try_serialize(&pool, &mut data).unwrap();
        let event = sdk::events::EvtSwap {
            pool: *address,
            mint: pool.base_mint,
            trader: Pubkey::new_unique(),
            side: (i % 2) as u8,
            amount_offered: 1_000_000 + i as u64,
            amount_in: 1_000_000 + i as u64,
            amount_out: 35_000_000 + i as u64,
            min_amount_out: 1,
            fee: 10_000,
            creator_fee: 5_000,
            partner_fee: 5_000,
            refund: 0,
            fee_bps: 100,
            sqrt_price: pool.sqrt_price,
            base_reserve: pool.base_reserve,
            quote_reserve: pool.quote_reserve,
            progress_bps: 100,
            creator_fee_unclaimed: 5_000,
            partner_fee_unclaimed: 5_000,
            complete: false,
            timestamp: 1_700_000_000 + i as i64,
            exact_out: false,
            referrer: Default::default(),
            referral_fee: 0,
        };
        let mut ix = anchor_lang::event::EVENT_IX_TAG_LE.to_vec();
        ix.extend_from_slice(sdk::events::EvtSwap::DISCRIMINATOR);
        event.serialize(&mut ix).unwrap();
        let mut signature = [0u8; 64];
        signature[..8].copy_from_slice(&(i as u64).to_le_bytes());
        out.push(update(UpdateOneof::Transaction(
            SubscribeUpdateTransaction {
                transaction: Some(SubscribeUpdateTransactionInfo {
                    signature: signature.to_vec(),
                    // Its position in the slot: a trade's key within the launch's series.
                    index: (i % args.per_slot) as u64,
                    transaction: Some(Transaction {
                        signatures: vec![signature.to_vec()],
                        message: Some(Message {
                            account_keys: vec![
                                Pubkey::new_unique().to_bytes().to_vec(),
                                launchpad::ID.to_bytes().to_vec(),
                            ],
                            ..Default::default()
                        }),
                    }),
                    meta: Some(TransactionStatusMeta {
                        inner_instructions: vec![InnerInstructions {
                            index: 0,
                            instructions: vec![InnerInstruction {
                                program_id_index: 1,
                                data: ix,
                                ..Default::default()
                            }],
                        }],
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                slot,
                ..Default::default()
            },
        )));
        out.push(account(address, slot, i as u64 + 1, data));
        // The trader's token account (now and then emptied) and the pool's base vault.
        let trader = traders[i % traders.len()];
        let holders = [
            (
                sdk::associated_token_address(
                    &trader,
                    &pool.base_mint,
                    &sdk::ids::TOKEN_2022_PROGRAM,
                ),
                trader,
                (i as u64 * 7_919) % 1_000 * 1_000_000,
            ),
            (
                sdk::pda::base_vault(address),
                *address,
                800_000_000_000_000 - i as u64,
            ),
        ];
        for (k, (ta, owner, amount)) in holders.iter().cycle().take(token_accounts).enumerate() {
            out.push(owned(
                sdk::ids::TOKEN_2022_PROGRAM,
                ta,
                slot,
                (args.trades + i * token_accounts + k) as u64 + 1,
                testkit::token_account_data(&pool.base_mint, owner, *amount),
            ));
        }
        if (i + 1) % args.per_slot == 0 || i + 1 == args.trades {
            out.push(update(UpdateOneof::Slot(SubscribeUpdateSlot {
                slot,
                status: SlotStatus::SlotConfirmed as i32,
                ..Default::default()
            })));
            slot += 1;
        }
    }
    out
}

async fn fresh_url(backend: &str, tag: &str) -> String {
    match backend {
        "postgres" => {
            let admin = std::env::var("DATABASE_URL").unwrap();
            let name = format!("bench_{tag}_{}", std::process::id());
            index::store::create_postgres_database(&admin, &name)
                .await
                .unwrap()
        }
        _ => {
            let dir =
                std::env::temp_dir().join(format!("indexer-bench-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            format!("sqlite://{}/index.db", dir.display())
        }
    }
}

/// PostgreSQL: each table's bytes on disk with its indexes and TOAST (a partitioned table's partitions
/// summed), largest first, after a `VACUUM` (what autovacuum leaves: the dead versions of upserted rows
/// become reusable space, still counted).
async fn table_bytes(store: &Store) -> BTreeMap<String, i64> {
    sqlx::query("VACUUM").execute(store.pool()).await.unwrap();
    sqlx::query(
        "SELECT COALESCE(pg_partition_root(c.oid), c.oid)::regclass::TEXT, \
         SUM(pg_total_relation_size(c.oid))::BIGINT FROM pg_class c \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_sqlx_migrations' GROUP BY 1",
    )
    .fetch_all(store.pool())
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get::<String, _>(0), r.get::<i64, _>(1)))
    .collect()
}

/// PostgreSQL, after [`table_bytes`]' `VACUUM`: each table's parts apart (`heap`, `toast`, and each index by
/// name; a partitioned table's partitions summed into their parent's names).
async fn part_bytes(store: &Store) -> BTreeMap<(String, String), i64> {
    const QUERIES: [&str; 3] = [
        "SELECT COALESCE(pg_partition_root(c.oid), c.oid)::regclass::TEXT, 'heap', \
         SUM(pg_table_size(c.oid) - COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0))::BIGINT \
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_sqlx_migrations' GROUP BY 1",
        "SELECT COALESCE(pg_partition_root(c.oid), c.oid)::regclass::TEXT, 'toast', \
         SUM(COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0))::BIGINT \
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_sqlx_migrations' GROUP BY 1",
        "SELECT COALESCE(pg_partition_root(c.oid), c.oid)::regclass::TEXT, \
         'index ' || COALESCE(pg_partition_root(x.indexrelid), x.indexrelid)::regclass::TEXT, \
         SUM(pg_relation_size(x.indexrelid))::BIGINT \
         FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_sqlx_migrations' GROUP BY 1, 2",
    ];
    let mut out = BTreeMap::new();
    for q in QUERIES {
        for r in sqlx::query(q).fetch_all(store.pool()).await.unwrap() {
            out.insert(
                (r.get::<String, _>(0), r.get::<String, _>(1)),
                r.get::<i64, _>(2),
            );
        }
    }
    out
}

/// Bytes per trade on PostgreSQL: the pipeline's database after the stream, less an empty one's, per table
/// (and with `parts`, per table's heap, TOAST and index).
async fn bytes_per_trade(stream: &[SubscribeUpdate], trades: usize, tag: &str, parts: bool) {
    let empty = Store::open(&fresh_url("postgres", &format!("empty{tag}")).await)
        .await
        .unwrap();
    let base = table_bytes(&empty).await;
    let base_parts = part_bytes(&empty).await;
    empty.close().await;
    let url = fresh_url("postgres", &format!("bytes{tag}")).await;
    pipeline(&url, stream).await;
    let store = Store::connect(&url).await.unwrap();
    let full = table_bytes(&store).await;
    let full_parts = part_bytes(&store).await;
    store.close().await;
    if parts {
        println!("\n| table ({tag}) | part | bytes per trade |\n|---|---|---|");
        for ((t, part), b) in &full_parts {
            let grown = b - base_parts
                .get(&(t.clone(), part.clone()))
                .copied()
                .unwrap_or(0);
            if grown > 0 {
                println!("| `{t}` | {part} | {:.0} |", grown as f64 / trades as f64);
            }
        }
    }
    let mut grown: Vec<(String, i64)> = full
        .iter()
        .map(|(t, b)| (t.clone(), b - base.get(t).copied().unwrap_or(0)))
        .filter(|(_, b)| *b > 0)
        .collect();
    grown.sort_by_key(|(_, b)| -b);
    let total: i64 = grown.iter().map(|(_, b)| b).sum();
    let per = |b: i64| b as f64 / trades as f64;
    println!("\n| table ({tag}) | bytes | bytes per trade |\n|---|---|---|");
    for (t, b) in &grown {
        println!("| `{t}` | {b} | {:.0} |", per(*b));
    }
    let day = per(total) * 86_400.0;
    println!(
        "| all | {total} | {:.0} |\n\nprojection: {:.1} GB a day at 100 trades/s, {:.1} GB a day at 1,000 trades/s",
        per(total),
        day * 100.0 / 1e9,
        day * 1_000.0 / 1e9
    );
}

/// Feeds the stream through the pipeline; returns (updates, seconds).
async fn pipeline(url: &str, stream: &[SubscribeUpdate]) -> (u64, f64) {
    let store = Store::open(url).await.unwrap();
    let metrics = Arc::new(Metrics::default());
    let mut p = Processor::new(store.clone(), metrics.clone(), Commitment::Confirmed, 1_000)
        .await
        .unwrap();
    let start = Instant::now();
    for u in stream {
        if p.process(u).await.unwrap() {
            p.flush().await.unwrap();
        }
    }
    p.flush().await.unwrap();
    let secs = start.elapsed().as_secs_f64();
    let s = metrics.snapshot();
    assert_eq!(s.decode_failures, 0);
    // Token accounts of the launched mints are kept (the pools announce the launches).
    let tokens = stream.iter().any(|u| {
        matches!(&u.update_oneof, Some(UpdateOneof::Account(a))
            if a.account.as_ref().is_some_and(|i| i.owner == sdk::ids::TOKEN_2022_PROGRAM.to_bytes()))
    });
    let kept: i64 = sqlx::query("SELECT COUNT(*) FROM token_accounts")
        .fetch_one(store.pool())
        .await
        .unwrap()
        .get(0);
    assert_eq!(kept > 0, tokens);
    store.close().await;
    (s.account_updates + s.events, secs)
}

/// Writes the same rows raw: per slot, one transaction with one multi-row INSERT per table.
async fn raw(url: &str, stream: &[SubscribeUpdate]) -> (u64, f64) {
    let store = Store::open(url).await.unwrap();
    let mut slots: Vec<BTreeMap<&'static str, Vec<index::store::Row>>> = vec![BTreeMap::new()];
    let mut rows = 0u64;
    let mut events = Vec::new();
    for u in stream {
        let changes = match &u.update_oneof {
            Some(UpdateOneof::Account(a)) => indexer::decode::decode_account_update(a)
                .unwrap()
                .into_iter()
                .collect::<Vec<_>>(),
            Some(UpdateOneof::Transaction(t)) => indexer::decode::decode_transaction_update(t)
                .0
                .into_iter()
                .map(index::model::Change::Event)
                .collect(),
            Some(UpdateOneof::Slot(_)) => {
                slots.push(BTreeMap::new());
                continue;
            }
            _ => continue,
        };
        for c in changes {
            if matches!(c, index::model::Change::Event(_)) {
                events.push(c.clone());
            }
            if let Some((table, row)) = row_of(&c) {
                rows += 1;
                slots
                    .last_mut()
                    .unwrap()
                    .entry(table)
                    .or_default()
                    .push(row);
            }
        }
    }
    if store.backend() == index::store::Backend::Postgres {
        // The partitions the rows go into exist before the clock starts (the pipeline makes them once too).
        let mut conn = store.pool().acquire().await.unwrap();
        index::store::partitions::Partitions::default()
            .ensure(&mut conn, &index::store::slot_writes(&events), store.now())
            .await
            .unwrap();
    }
    let start = Instant::now();
    for slot in &slots {
        let mut tx = store.pool().begin().await.unwrap();
        for (table, rows) in slot {
            // Within a slot an account can be written twice; keep the last write (an upsert would).
            let upserted = ["pools", "configs", "token_accounts"].contains(table);
            let rows: Vec<&index::store::Row> = if upserted {
                let mut last = BTreeMap::new();
                for r in rows {
                    if let Val::Text(a) = &r[0].1 {
                        last.insert(a.clone(), r);
                    }
                }
                last.into_values().collect()
            } else {
                rows.iter().collect()
            };
            for chunk in rows.chunks(500) {
                let mut insert = sql::insert(table, chunk.iter().map(|r| (*r).clone()).collect());
                if upserted {
                    insert.on_conflict(OnConflict::column("address").do_nothing().to_owned());
                }
                sql::query(store.backend(), &insert)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
            }
        }
        tx.commit().await.unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    store.close().await;
    (rows, secs)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// End-to-end latencies of one run.
struct Latency {
    /// The first buy's.
    cold: Duration,
    /// Of the other buys.
    p50: Duration,
    p99: Duration,
    max: Duration,
}

async fn latency(net: &Localnet, rpc: &RpcClient, backend: &str, samples: usize) -> Latency {
    let url = fresh_url(backend, "latency").await;
    let store = Store::open(&url).await.unwrap();
    let indexer = indexer::Indexer::new(
        IndexerConfig {
            metrics_interval_secs: 0,
            batch_wait_ms: 5,
            ..IndexerConfig::local(net.rpc_url(), net.grpc_url(), url.clone())
        },
        store.clone(),
    );
    let (stop, rx) = tokio::sync::watch::channel(false);
    let task = tokio::spawn(indexer.run(rx));
    let creator = testkit::funded(rpc, 5 * SOL).await.unwrap();
    let salt = if backend == "postgres" { 2 } else { 1 };
    let (keys, _) = testkit::launch(rpc, &creator, curve::Preset::Fair, salt, "LAT")
        .await
        .unwrap();
    let buyer = testkit::funded(rpc, 10 * SOL).await.unwrap();
    let mut times = Vec::new();
    for i in 0..=samples {
        // Timed from the submission: the client's own confirmation polling would add its poll interval,
        // while the indexer learns of the confirmed slot from the stream.
        let ixs = testkit::buy_instructions(&keys, &buyer.pubkey(), SOL / 1000 + i as u64);
        let blockhash = rpc.get_latest_blockhash().await.unwrap();
        let tx = solana_transaction::Transaction::new_signed_with_payer(
            &ixs,
            Some(&buyer.pubkey()),
            &[&buyer],
            blockhash,
        );
        let submitted = Instant::now();
        let sig = rpc.send_transaction(&tx).await.unwrap();
        loop {
            let found = sqlx::query("SELECT 1 FROM trades WHERE signature = $1")
                .bind(sig.to_string())
                .fetch_optional(store.pool())
                .await
                .unwrap();
            if found.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_micros(500)).await;
        }
        times.push(submitted.elapsed());
    }
    let _ = stop.send(true);
    let _ = task.await;
    // The launch's first trade is the cold one (the indexer has just started and every statement is
    // prepared for the first time): reported apart, the percentiles are of the rest.
    let cold = times.remove(0);
    times.sort();
    Latency {
        cold,
        p50: percentile(&times, 0.5),
        p99: percentile(&times, 0.99),
        max: times.last().copied().unwrap_or_default(),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = Args::parse();
    let net = Localnet::start(LocalnetConfig::ephemeral()).await.unwrap();
    let rpc = RpcClient::new_with_commitment(net.rpc_url(), CommitmentConfig::confirmed());
    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 0, "GEN")
        .await
        .unwrap();
    let pool = rpc.get_account(&keys.pool).await.unwrap().data;
    let config = rpc.get_account(&keys.config).await.unwrap().data;
    let streams = [0, args.token_accounts]
        .map(|t| (t, generate(&args, (keys.config, config.clone()), &pool, t)));
    let mut backends = vec!["sqlite"];
    if std::env::var("DATABASE_URL").is_ok() {
        backends.push("postgres");
    } else {
        eprintln!("DATABASE_URL not set: PostgreSQL skipped");
    }
    println!(
        "ingest: {} trades + {} pool account updates over {} pools, {} trades per slot; then with {} \
         token-account updates per trade ({} traders)\n",
        args.trades, args.trades, args.pools, args.per_slot, args.token_accounts, args.traders
    );
    println!(
        "| database | token accounts per trade | pipeline (updates/s) | raw multi-row INSERT (rows/s) | pipeline / raw |"
    );
    println!("|---|---|---|---|---|");
    for b in backends.iter().filter(|_| !args.bytes_only) {
        for (t, stream) in &streams {
            let tag = format!("t{t}");
            let (n, secs) = pipeline(&fresh_url(b, &format!("pipeline{tag}")).await, stream).await;
            let (rows, raw_secs) = raw(&fresh_url(b, &format!("raw{tag}")).await, stream).await;
            let (rate, raw_rate) = (n as f64 / secs, rows as f64 / raw_secs);
            println!(
                "| {b} | {t} | {rate:.0} | {raw_rate:.0} | {:.2} |",
                rate / raw_rate
            );
        }
    }
    if backends.contains(&"postgres") {
        for (t, stream) in &streams {
            bytes_per_trade(stream, args.trades, &format!("t{t}"), args.bytes_only).await;
        }
    }
    if args.bytes_only {
        net.shutdown().await;
        return;
    }
    println!(
        "\n| database | first buy (cold) | then p50 | p99 | max | samples |\n|---|---|---|---|---|---|"
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for b in &backends {
        let l = latency(&net, &rpc, b, args.samples).await;
        println!(
            "| {b} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms | {} |",
            ms(l.cold),
            ms(l.p50),
            ms(l.p99),
            ms(l.max),
            args.samples
        );
    }
    net.shutdown().await;
}
