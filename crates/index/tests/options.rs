//! How a process uses its database: the pool's size, PostgreSQL's statement timeout, opening without
//! migrating, and the writer's lease (one holder at a time, released with its session).

use index::store::lease::LeaseKind;
use index::store::{DbOptions, Store};
use std::time::Duration;

async fn fresh_postgres(name: &str) -> String {
    let admin = std::env::var("DATABASE_URL").expect(
        "DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL",
    );
    let name = format!("{name}_{}", std::process::id());
    index::store::create_postgres_database(&admin, &name)
        .await
        .unwrap()
}

#[tokio::test]
async fn postgres_cancels_a_statement_past_the_timeout() {
    let url = fresh_postgres("options_timeout").await;
    let options = DbOptions {
        max_connections: Some(2),
        statement_timeout: Some(Duration::from_millis(200)),
        migrate: false,
    };
    let store = Store::open_with(&url, options).await.unwrap();
    let slow = sqlx::query("SELECT pg_sleep(2)")
        .execute(store.pool())
        .await
        .expect_err("cancelled");
    assert!(slow.to_string().contains("statement timeout"), "{slow}");
    sqlx::query("SELECT 1").execute(store.pool()).await.unwrap();
    assert_eq!(store.pool().options().get_max_connections(), 2);
    // Not migrated: the schema is not there until someone migrates it.
    assert!(store.cursor("main").await.is_err());
    store.migrate().await.unwrap();
    assert_eq!(store.cursor("main").await.unwrap(), None);
}

#[tokio::test]
async fn one_holder_of_a_lease_at_a_time_released_with_its_session() {
    let url = fresh_postgres("options_lease").await;
    let a = Store::open(&url).await.unwrap();
    let b = Store::connect(&url).await.unwrap();
    let mut held = a
        .try_lease(LeaseKind::Indexer)
        .await
        .unwrap()
        .expect("free");
    assert!(b.try_lease(LeaseKind::Indexer).await.unwrap().is_none());
    // Another kind is another lease.
    let keeper = b.try_lease(LeaseKind::Keeper).await.unwrap();
    assert!(keeper.is_some());
    assert!(held.check().await);
    drop(held);
    let start = std::time::Instant::now();
    loop {
        if b.try_lease(LeaseKind::Indexer).await.unwrap().is_some() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "released with the session"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_sqlite_lease_is_a_lock_beside_the_database() {
    let dir = std::env::temp_dir().join(format!("options-sqlite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}/index.db", dir.display());
    let a = Store::open(&url).await.unwrap();
    let b = Store::connect(&url).await.unwrap();
    let held = a
        .try_lease(LeaseKind::Indexer)
        .await
        .unwrap()
        .expect("free");
    assert!(dir.join("index.db.indexer.lock").exists());
    assert!(b.try_lease(LeaseKind::Indexer).await.unwrap().is_none());
    drop(held);
    assert!(b.try_lease(LeaseKind::Indexer).await.unwrap().is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}
