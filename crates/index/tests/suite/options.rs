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

/// Every PostgreSQL session carries TCP keepalives and `tcp_user_timeout` (startup options), so the server
/// notices a peer behind a cut network within about a minute; a URL's own value wins.
#[tokio::test]
async fn postgres_sessions_carry_keepalives_and_a_tcp_user_timeout() {
    let url = fresh_postgres("options_keepalive").await;
    let store = Store::connect(&url).await.unwrap();
    let show = |what: &'static str, pool: sqlx::AnyPool| async move {
        let row: (String,) = sqlx::query_as(sqlx::AssertSqlSafe(format!("SHOW {what}")))
            .fetch_one(&pool)
            .await
            .unwrap();
        row.0
    };
    assert_eq!(
        show("tcp_keepalives_idle", store.pool().clone()).await,
        "15"
    );
    assert_eq!(
        show("tcp_keepalives_interval", store.pool().clone()).await,
        "5"
    );
    assert_eq!(
        show("tcp_keepalives_count", store.pool().clone()).await,
        "3"
    );
    assert_eq!(
        show("tcp_user_timeout", store.pool().clone()).await,
        "30000"
    );
    // The lease's own session connects with the same URL.
    assert!(
        store.url().contains("options[tcp_user_timeout]=30000"),
        "{}",
        store.url()
    );
    let own = Store::connect(&format!("{url}?options[tcp_keepalives_idle]=7"))
        .await
        .unwrap();
    assert_eq!(show("tcp_keepalives_idle", own.pool().clone()).await, "7");
}

/// A TCP proxy to `upstream` that a test can take down (cutting its connections) and bring back.
struct Proxy {
    addr: std::net::SocketAddr,
    up: tokio::sync::watch::Sender<bool>,
}

impl Proxy {
    async fn start(upstream: std::net::SocketAddr) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (up, _) = tokio::sync::watch::channel(true);
        let state = up.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let mut rx = state.subscribe();
                if !*rx.borrow() {
                    continue;
                }
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = rx.wait_for(|up| !*up) => {}
                    }
                });
            }
        });
        Proxy { addr, up }
    }
}

/// Reads follow the read replica while it answers, the primary while it does not (readiness, which follows
/// the primary, stays up), and the replica again once it is back.
#[tokio::test]
async fn reads_fall_back_to_the_primary_while_the_read_replica_is_down() {
    let url = fresh_postgres("options_replica").await;
    // postgres://user@host:port/database: the replica is the same server through the proxy.
    let (scheme_user, rest) = url.split_once('@').unwrap();
    let (host_port, database) = rest.split_once('/').unwrap();
    let server: std::net::SocketAddr = host_port.parse().unwrap();
    let proxy = Proxy::start(server).await;
    let replica = format!("{scheme_user}@{}/{database}", proxy.addr);
    let store = Store::open(&url)
        .await
        .unwrap()
        .with_read_replica(&replica, DbOptions::default())
        .await
        .unwrap();
    assert!(store.reading_from_replica());
    let wait = |want: bool| {
        let store = store.clone();
        async move {
            let start = std::time::Instant::now();
            while store.reading_from_replica() != want {
                assert!(
                    start.elapsed() < Duration::from_secs(10),
                    "reading from the replica: {want} within 10 s"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    proxy.up.send_replace(false);
    wait(false).await;
    // Reads and readiness go on against the primary.
    store.ping(Duration::from_secs(2)).await.unwrap();
    assert_eq!(store.cursor("main").await.unwrap(), None);
    sqlx::query("SELECT 1")
        .execute(store.reads())
        .await
        .unwrap();
    assert!(std::ptr::eq(store.reads(), store.pool()));
    proxy.up.send_replace(true);
    wait(true).await;
    assert!(!std::ptr::eq(store.reads(), store.pool()));
    sqlx::query("SELECT 1")
        .execute(store.reads())
        .await
        .unwrap();
}
