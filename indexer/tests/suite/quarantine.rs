//! A batch cannot stop the index (issue 40): the database refuses one event (a CHECK constraint on PostgreSQL,
//! a trigger on SQLite, added by the test); the stream goes on with everything else, the event is
//! quarantined with its raw bytes and the error and counted; a replay while the cause stands leaves it
//! there; once the constraint is dropped, a replay writes it and the index equals the chain and an index
//! that never refused anything.

use crate::common;

use common::*;
use index::Store;
use indexer::Commitment;
use localnet::testkit::{self, SOL};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres() {
    a_refused_event_is_quarantined_the_stream_goes_on_and_a_replay_completes_the_index(Db::Postgres)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite() {
    a_refused_event_is_quarantined_the_stream_goes_on_and_a_replay_completes_the_index(Db::Sqlite)
        .await
}

/// The amount offered of the one buy the database refuses.
const REFUSED: u64 = 777_777_777;

async fn refuse(store: &Store, kind: Db) {
    let sql = match kind {
        Db::Postgres => format!(
            "ALTER TABLE trades ADD CONSTRAINT refuse_one CHECK (amount_offered <> '{REFUSED}')"
        ),
        Db::Sqlite => format!(
            "CREATE TRIGGER refuse_one BEFORE INSERT ON trades WHEN NEW.amount_offered = '{REFUSED}' \
             BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
        ),
    };
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .execute(store.pool())
        .await
        .unwrap();
}

async fn allow(store: &Store, kind: Db) {
    let sql = match kind {
        Db::Postgres => "ALTER TABLE trades DROP CONSTRAINT refuse_one",
        Db::Sqlite => "DROP TRIGGER refuse_one",
    };
    sqlx::query(sql).execute(store.pool()).await.unwrap();
}

async fn count(store: &Store, sql: &'static str, signature: &str) -> i64 {
    use sqlx::Row;
    sqlx::query(sql)
        .bind(signature.to_string())
        .fetch_one(store.pool())
        .await
        .unwrap()
        .get(0)
}

async fn a_refused_event_is_quarantined_the_stream_goes_on_and_a_replay_completes_the_index(
    kind: Db,
) {
    ops::metrics::prometheus();
    let (net, rpc) = start_chain(1_000).await;
    let db = fresh_db(kind).await;
    let store = Store::open(&db.url).await.unwrap();
    refuse(&store, kind).await;
    // A second index of the same chain that refuses nothing: what the first must equal in the end.
    let clean_db = fresh_db(kind).await;
    let clean_store = Store::open(&clean_db.url).await.unwrap();
    let run = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &db)).await;
    let clean = spawn_indexer(config(net.rpc_url(), net.grpc_url(), &clean_db)).await;

    let creator = testkit::funded(&rpc, 5 * SOL).await.unwrap();
    let (keys, _) = testkit::launch(&rpc, &creator, curve::Preset::Fair, 40, "QRN")
        .await
        .unwrap();
    let buyer = testkit::funded(&rpc, 20 * SOL).await.unwrap();
    let mut swaps = Vec::new();
    swaps.push(testkit::buy(&rpc, &keys, &buyer, SOL / 2).await.unwrap());
    let refused = testkit::buy(&rpc, &keys, &buyer, REFUSED).await.unwrap();
    for lamports in [SOL / 3, SOL / 4] {
        swaps.push(testkit::buy(&rpc, &keys, &buyer, lamports).await.unwrap());
    }
    let refused_sig = refused.to_string();

    // The stream went on: every other trade and the chain's accounts (the pool's write in the refused
    // trade's own batch too) are in, the cursor at the chain's slot.
    assert_caught_up(&rpc, &store, &swaps).await;
    let pending = store.quarantined(false).await.unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    let q = &pending[0];
    assert_eq!(q.entry.kind, "event");
    assert!(q.entry.ident.starts_with(&format!("event:{refused_sig}:")));
    // The raw bytes are the instruction data the program emitted: the event tag, then `EvtSwap`.
    assert!(q.entry.raw.starts_with(anchor_lang::event::EVENT_IX_TAG_LE));
    assert!(matches!(
        sdk::events::decode_event(&q.entry.raw),
        Some(sdk::events::LaunchpadEvent::Swap(s)) if s.amount_offered == REFUSED
    ));
    match kind {
        // check_violation; SQLITE_CONSTRAINT_TRIGGER
        Db::Postgres => {
            assert_eq!(q.sqlstate.as_deref(), Some("23514"));
            assert!(q.error.contains("refuse_one"), "{}", q.error);
        }
        Db::Sqlite => {
            assert_eq!(q.sqlstate.as_deref(), Some("1811"));
            assert!(q.error.contains("refused by the test"), "{}", q.error);
        }
    }
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM market_trades WHERE signature = $1",
            &refused_sig
        )
        .await,
        0
    );
    let metrics = ops::metrics::prometheus_text(None);
    let counted: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("indexer_quarantined_events_total "))
        .expect("the quarantine's counter is exported")
        .trim()
        .parse()
        .unwrap();
    assert!(counted >= 1.0, "{metrics}");

    // While the cause stands a replay writes nothing and the row says it was tried again.
    let r = indexer::pipeline::replay(&store, Commitment::Confirmed)
        .await
        .unwrap();
    assert_eq!((r.written, r.refused), (0, 1), "{r:?}");
    let again = store.quarantined(false).await.unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].attempts, 2);

    // The cause fixed, the replay writes it: the index equals the chain, and the index that refused nothing.
    allow(&store, kind).await;
    let r = indexer::pipeline::replay(&store, Commitment::Confirmed)
        .await
        .unwrap();
    assert_eq!((r.written, r.refused), (1, 0), "{r:?}");
    assert!(store.quarantined(false).await.unwrap().is_empty());
    let replayed = store.quarantined(true).await.unwrap();
    assert!(replayed[0].replayed_at.is_some());
    let mut all = swaps.clone();
    all.push(refused);
    assert_caught_up(&rpc, &store, &all).await;
    assert_caught_up(&rpc, &clean_store, &all).await;
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM market_trades WHERE signature = $1",
            &refused_sig
        )
        .await,
        1
    );
    // The feed announced it once, at the replay.
    assert_eq!(
        count(
            &store,
            "SELECT COUNT(*) FROM feed_events WHERE kind = 'trade' AND signature = $1",
            &refused_sig
        )
        .await,
        1
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        indexed_tables(&store).await,
        indexed_tables(&clean_store).await
    );
    run.stop().await;
    clean.stop().await;
    net.shutdown().await;
}
