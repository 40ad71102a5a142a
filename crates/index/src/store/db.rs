//! The handle on the index database: [`Backend`] (PostgreSQL or SQLite, by URL), [`Store`] (connect, open,
//! migrate, a read replica, and [`Store::apply`]: one batch in one transaction with the cursor), its
//! [`Clock`] and [`DbOptions`]. The tables' statements are the sibling modules'.

use super::{feed, lease, listing, partitions, retention, slot_writes, write};
use crate::model::Change;
use futures::future::BoxFuture;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyConnection, AnyPool, Connection, Row as _};
use std::time::Duration;

/// The database kind behind a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

impl Backend {
    pub fn of_url(url: &str) -> Option<Backend> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(Backend::Postgres)
        } else if url.starts_with("sqlite:") {
            Some(Backend::Sqlite)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Postgres => "postgres",
            Backend::Sqlite => "sqlite",
        }
    }
}

static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/postgres");
static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations/sqlite");

/// The name of the main stream's cursor row.
pub const MAIN_STREAM: &str = "main";

/// How long the live feed keeps its rows by default (by the indexer's clock): a resume point older than that
/// is answered `RESUME_TOO_OLD`.
pub const FEED_RETENTION_SECS: i64 = 86_400;

/// What a process's [`Store::apply`] calls have committed so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Commits {
    /// Batches committed: the index's generation, as this process wrote it (anything read from the index
    /// under an older one is out of date).
    pub batches: u64,
    /// The highest feed `seq` committed.
    pub feed_seq: i64,
}

/// A handle on the index database (cheap to clone).
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    /// Where the read side ([`crate::read`]) queries: a PostgreSQL read replica when one was given
    /// ([`Store::with_read_replica`]), else the primary. Writes, the feed and `LISTEN` stay on the primary.
    reads: Option<AnyPool>,
    /// Whether the read replica answered its last check ([`REPLICA_CHECK_EVERY`]); while it does not, reads
    /// go to the primary.
    replica_up: std::sync::Arc<std::sync::atomic::AtomicBool>,
    backend: Backend,
    /// What this process committed: the one signal that a batch committed (shared by every clone; other
    /// processes learn of feed commits by PostgreSQL's `NOTIFY`).
    commits: std::sync::Arc<tokio::sync::watch::Sender<Commits>>,
    /// Unix seconds of the last prune.
    pruned: std::sync::Arc<std::sync::atomic::AtomicI64>,
    /// What the writer's periodic prune keeps.
    retention: std::sync::Arc<retention::Retention>,
    /// The partitions this process made or saw (PostgreSQL).
    partitions: partitions::Partitions,
    clock: Clock,
}

/// Unix seconds now, as the store's writes read it: where the listing's rolling 24h window stands. The wall
/// clock unless the store was given another ([`Store::with_clock`]).
#[derive(Clone)]
pub struct Clock(std::sync::Arc<dyn Fn() -> i64 + Send + Sync>);

impl Clock {
    /// The system's wall clock.
    pub fn wall() -> Clock {
        Clock::new(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        })
    }

    pub fn new(now: impl Fn() -> i64 + Send + Sync + 'static) -> Clock {
        Clock(std::sync::Arc::new(now))
    }

    pub fn now(&self) -> i64 {
        (self.0)()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Clock({})", self.now())
    }
}

/// How a process uses its database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbOptions {
    /// Most pooled connections (`None`: 10 on PostgreSQL, 4 on SQLite).
    pub max_connections: Option<u32>,
    /// Longest a statement may run before PostgreSQL cancels it (`None`: no limit).
    pub statement_timeout: Option<Duration>,
    /// Bring the schema up to date when opening (off for a replica, or where migrations run apart).
    pub migrate: bool,
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions {
            max_connections: None,
            statement_timeout: None,
            migrate: true,
        }
    }
}

/// Each new connection's settings: SQLite's pragmas, PostgreSQL's statement timeout.
fn prepare(
    conn: &mut AnyConnection,
    statement_timeout: Option<Duration>,
) -> BoxFuture<'_, Result<(), sqlx::Error>> {
    Box::pin(async move {
        if let (false, Some(t)) = (
            conn.backend_name().eq_ignore_ascii_case("sqlite"),
            statement_timeout,
        ) {
            sqlx::query("SELECT set_config('statement_timeout', $1, false)")
                .bind(t.as_millis().to_string())
                .execute(&mut *conn)
                .await?;
        }
        sqlite_pragmas(conn).await
    })
}

fn sqlite_pragmas(conn: &mut AnyConnection) -> BoxFuture<'_, Result<(), sqlx::Error>> {
    Box::pin(async move {
        if conn.backend_name().eq_ignore_ascii_case("sqlite") {
            // WAL lets the API read while the indexer writes; a writer waits for a lock instead of failing.
            for pragma in [
                "PRAGMA journal_mode = WAL",
                "PRAGMA synchronous = NORMAL",
                "PRAGMA busy_timeout = 5000",
                "PRAGMA foreign_keys = ON",
            ] {
                sqlx::query(pragma).execute(&mut *conn).await?;
            }
        }
        Ok(())
    })
}

/// How often a read replica is checked (`SELECT 1` within the same time); reads leave it at the first failed
/// check and come back at the first answered one.
pub const REPLICA_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Checks the read replica every [`REPLICA_CHECK_EVERY`] while its store lives, noting in `up` whether it
/// answers.
fn watch_replica(replica: AnyPool, up: std::sync::Weak<std::sync::atomic::AtomicBool>) {
    use std::sync::atomic::Ordering;
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(REPLICA_CHECK_EVERY).await;
            let Some(up) = up.upgrade() else {
                return;
            };
            let answered = matches!(
                tokio::time::timeout(
                    REPLICA_CHECK_EVERY,
                    sqlx::query("SELECT 1").execute(&replica)
                )
                .await,
                Ok(Ok(_))
            );
            if up.swap(answered, Ordering::Relaxed) != answered {
                if answered {
                    tracing::info!("database: the read replica answers again; reads go back to it");
                } else {
                    tracing::warn!(
                        "database: the read replica does not answer; reads go to the primary"
                    );
                }
            }
        }
    });
}

/// TCP keepalives and `tcp_user_timeout` for every PostgreSQL session (pools, the writer's lease, the feed's
/// `LISTEN`), as startup options: the server notices a peer gone behind a cut network within about a minute
/// (and releases a lost writer's lease with its session), instead of the kernel's two hours. Keys the URL
/// already sets (`options[tcp_keepalives_idle]=...`) are left as given.
pub const SESSION_OPTIONS: [(&str, &str); 4] = [
    ("tcp_keepalives_idle", "15"),
    ("tcp_keepalives_interval", "5"),
    ("tcp_keepalives_count", "3"),
    ("tcp_user_timeout", "30000"),
];

/// `url` with [`SESSION_OPTIONS`] added as `options[key]=value` parameters.
pub fn session_url(url: &str) -> String {
    let mut out = url.to_string();
    for (key, value) in SESSION_OPTIONS {
        if url.contains(&format!("options[{key}]")) || url.contains(&format!("{key}=")) {
            continue;
        }
        out.push(if out.contains('?') { '&' } else { '?' });
        out.push_str(&format!("options[{key}]={value}"));
    }
    out
}

/// Creates an empty PostgreSQL database `name` (ASCII letters, digits and `_`) on the server of
/// `admin_url`, dropping any old one of that name, and returns its URL. Tests and benchmarks index into
/// fresh databases.
pub async fn create_postgres_database(admin_url: &str, name: &str) -> anyhow::Result<String> {
    use sqlx::Connection;
    anyhow::ensure!(
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "database names here are ASCII letters, digits and `_`"
    );
    let base = admin_url
        .rsplit_once('/')
        .map(|(base, _)| base)
        .ok_or_else(|| anyhow::anyhow!("the admin URL names no database"))?;
    sqlx::any::install_default_drivers();
    let mut conn = AnyConnection::connect(admin_url).await?;
    // Statements about a database take its name, never a parameter: the name was checked above.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name}"
    )))
    .execute(&mut conn)
    .await?;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await?;
    Ok(format!("{base}/{name}"))
}

impl Store {
    /// Connects (creating a SQLite file if needed) without migrating. `postgres://…` or `sqlite://path`
    /// (`sqlite::memory:` is refused: every pooled connection would see its own empty database).
    pub async fn connect(url: &str) -> anyhow::Result<Store> {
        Store::connect_with(url, DbOptions::default()).await
    }

    /// [`Store::connect`] with `options`' pool size and statement timeout (it never migrates).
    pub async fn connect_with(url: &str, options: DbOptions) -> anyhow::Result<Store> {
        sqlx::any::install_default_drivers();
        let backend = Backend::of_url(url).ok_or_else(|| {
            anyhow::anyhow!("unsupported database URL (expected postgres://… or sqlite://…)")
        })?;
        let url = match backend {
            Backend::Postgres => session_url(url),
            Backend::Sqlite if url.contains(":memory:") => {
                anyhow::bail!("an in-memory SQLite database cannot be shared; use a file")
            }
            Backend::Sqlite if !url.contains("mode=") => {
                let sep = if url.contains('?') { '&' } else { '?' };
                format!("{url}{sep}mode=rwc")
            }
            _ => url.to_string(),
        };
        let timeout = options.statement_timeout.filter(|t| !t.is_zero());
        let pool = AnyPoolOptions::new()
            .max_connections(options.max_connections.unwrap_or(match backend {
                Backend::Postgres => 10,
                Backend::Sqlite => 4,
            }))
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _| prepare(conn, timeout))
            .connect(&url)
            .await?;
        Ok(Store {
            reads: None,
            replica_up: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
            pool,
            backend,
            commits: std::sync::Arc::new(tokio::sync::watch::channel(Commits::default()).0),
            pruned: Default::default(),
            retention: std::sync::Arc::new(retention::Retention::candles_forever()),
            partitions: partitions::Partitions::default(),
            clock: Clock::wall(),
        })
    }

    /// Connects and brings the schema up to date.
    pub async fn open(url: &str) -> anyhow::Result<Store> {
        Store::open_with(url, DbOptions::default()).await
    }

    /// Connects with `options`, migrating when they say so.
    pub async fn open_with(url: &str, options: DbOptions) -> anyhow::Result<Store> {
        let store = Store::connect_with(url, options).await?;
        if options.migrate {
            store.migrate().await?;
        }
        Ok(store)
    }

    pub async fn migrate(&self) -> anyhow::Result<()> {
        match self.backend {
            Backend::Postgres => POSTGRES_MIGRATIONS.run(&self.pool).await?,
            Backend::Sqlite => SQLITE_MIGRATIONS.run(&self.pool).await?,
        }
        let mut conn = self.pool.acquire().await?;
        let mut tx = conn.begin().await?;
        listing::refresh_stale(&mut tx, self.now()).await?;
        tx.commit().await?;
        Ok(())
    }

    /// This store reading the time from `clock` instead of the wall clock.
    pub fn with_clock(self, clock: Clock) -> Store {
        Store { clock, ..self }
    }

    /// This store pruning by `retention` (without it: [`retention::Retention::candles_forever`]).
    pub fn with_retention(self, retention: retention::Retention) -> Store {
        Store {
            retention: std::sync::Arc::new(retention),
            ..self
        }
    }

    /// Unix seconds now, by the store's clock.
    pub fn now(&self) -> i64 {
        self.clock.now()
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The primary: every write, and reads that must see the latest commit.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Where reads that may lag the primary by a replica's delay go: the read replica while it answers,
    /// else (no replica, or it failed its last check) the primary.
    pub fn reads(&self) -> &AnyPool {
        match &self.reads {
            Some(replica) if self.replica_up.load(std::sync::atomic::Ordering::Relaxed) => replica,
            _ => &self.pool,
        }
    }

    /// This store with its reads served by a PostgreSQL read replica at `url` (a hot standby of the
    /// primary, streaming its changes): `options`' pool size and statement timeout apply to it; it is never
    /// migrated (a standby takes the primary's schema). SQLite has no replicas: refused.
    pub async fn with_read_replica(self, url: &str, options: DbOptions) -> anyhow::Result<Store> {
        anyhow::ensure!(
            self.backend == Backend::Postgres && Backend::of_url(url) == Some(Backend::Postgres),
            "a read replica needs a PostgreSQL primary and a postgres:// read URL"
        );
        let reads = Store::connect_with(
            url,
            DbOptions {
                migrate: false,
                ..options
            },
        )
        .await?
        .pool;
        let up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        watch_replica(reads.clone(), std::sync::Arc::downgrade(&up));
        Ok(Store {
            reads: Some(reads),
            replica_up: up,
            ..self
        })
    }

    pub async fn close(&self) {
        self.pool.close().await;
        if let Some(reads) = &self.reads {
            reads.close().await;
        }
    }

    /// The last slot whose updates are all committed, if the stream ever started.
    pub async fn cursor(&self, stream: &str) -> Result<Option<u64>, sqlx::Error> {
        let row: Option<AnyRow> = sqlx::query("SELECT slot FROM indexer_cursor WHERE stream = $1")
            .bind(stream)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.get::<i64, _>(0).max(0) as u64))
    }

    /// Writes `changes` and (when given) the cursor in one transaction: all or nothing.
    pub async fn apply(&self, changes: &[Change], cursor: Option<u64>) -> Result<(), sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        self.apply_on(&mut conn, changes, cursor).await
    }

    /// [`Store::apply`] as the holder of `lease`: on PostgreSQL through the lease's own session, so that a
    /// writer whose lease went with its connection cannot commit. A failed write whose session no longer
    /// answers marks the lease lost.
    pub async fn apply_leased(
        &self,
        lease: &mut lease::Lease,
        changes: &[Change],
        cursor: Option<u64>,
    ) -> Result<(), sqlx::Error> {
        if lease.is_lost() {
            return Err(sqlx::Error::Protocol("the writer's lease was lost".into()));
        }
        let result = match lease.connection() {
            Some(conn) => self.apply_on(conn, changes, cursor).await,
            None => self.apply(changes, cursor).await,
        };
        if result.is_err() {
            lease.check().await;
        }
        result
    }

    async fn apply_on(
        &self,
        conn: &mut AnyConnection,
        changes: &[Change],
        cursor: Option<u64>,
    ) -> Result<(), sqlx::Error> {
        let mut result = self.write_batch(conn, changes, cursor).await;
        if result.is_err() {
            // A partition it believed made may be gone (dropped by another writer's retention): ask again.
            self.partitions.forget();
        }
        if result.as_ref().is_err_and(partitions::is_missing) {
            result = self.write_batch(conn, changes, cursor).await;
        }
        result
    }

    async fn write_batch(
        &self,
        conn: &mut AnyConnection,
        changes: &[Change],
        cursor: Option<u64>,
    ) -> Result<(), sqlx::Error> {
        // The cadence and the feed's rows go by the wall clock (the feed stamps its rows with it); candles
        // and trades by the store's clock, the one their windows are read by.
        let wall = feed::now();
        let postgres = self.backend == Backend::Postgres;
        if postgres {
            self.partitions
                .ensure(conn, &slot_writes(changes), wall)
                .await?;
        }
        let mut tx = conn.begin().await?;
        let fed = write::changes(&mut tx, changes, self.now()).await?;
        if let Some(slot) = cursor {
            write::cursor(&mut tx, MAIN_STREAM, slot).await?;
        }
        let last = self.pruned.load(std::sync::atomic::Ordering::Relaxed);
        let prune = wall - last >= retention::PRUNE_EVERY_SECS;
        if prune {
            self.pruned
                .store(wall, std::sync::atomic::Ordering::Relaxed);
            let pruned = retention::prune(&mut tx, &self.retention, wall, self.now()).await?;
            if pruned != retention::Pruned::default() {
                tracing::debug!(?pruned, "retention");
            }
        }
        tx.commit().await?;
        if prune && postgres {
            // After the commit: dropping a partition locks its table for a moment, which must not wait
            // for (or hold up) the batch. A failure is retried at the next prune; the batch stands.
            let trades_before = self.retention.trades_secs.map(|keep| self.now() - keep);
            match partitions::expire(
                conn,
                &self.partitions,
                wall - self.retention.feed_secs,
                trades_before,
            )
            .await
            {
                Ok(expired) if expired != partitions::Expired::default() => {
                    tracing::debug!(?expired, "retention")
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "retention: dropping expired partitions failed")
                }
            }
        }
        self.commits.send_modify(|c| {
            c.batches += 1;
            c.feed_seq = c.feed_seq.max(fed.unwrap_or(0));
        });
        Ok(())
    }

    /// Prunes what the retention no longer keeps on its own, apart from any batch (the indexer's retention
    /// timer), when [`retention::PRUNE_EVERY_SECS`] have passed since the last prune here or inside a
    /// batch: a batch that cannot commit (a full disk, a refused write) does not hold up the pruning that
    /// frees space. `Ok(false)` when not due.
    pub async fn prune_due(&self) -> Result<bool, sqlx::Error> {
        let wall = feed::now();
        let last = self.pruned.load(std::sync::atomic::Ordering::Relaxed);
        if wall - last < retention::PRUNE_EVERY_SECS {
            return Ok(false);
        }
        self.pruned
            .store(wall, std::sync::atomic::Ordering::Relaxed);
        let mut conn = self.pool.acquire().await?;
        let mut tx = conn.begin().await?;
        let pruned = retention::prune(&mut tx, &self.retention, wall, self.now()).await?;
        tx.commit().await?;
        if pruned != retention::Pruned::default() {
            tracing::debug!(?pruned, "retention");
        }
        if self.backend == Backend::Postgres {
            let trades_before = self.retention.trades_secs.map(|keep| self.now() - keep);
            let expired = partitions::expire(
                &mut conn,
                &self.partitions,
                wall - self.retention.feed_secs,
                trades_before,
            )
            .await?;
            if expired != partitions::Expired::default() {
                tracing::debug!(?expired, "retention");
            }
        }
        Ok(true)
    }

    /// Whether the primary answers a trivial query within `within`: the readiness of whatever reads and
    /// writes it. A read replica that does not answer fails nothing (reads go to the primary meanwhile).
    pub async fn ping(&self, within: Duration) -> Result<(), String> {
        let ping = |pool: &AnyPool, what: &'static str| {
            let pool = pool.clone();
            async move {
                match tokio::time::timeout(within, sqlx::query("SELECT 1").execute(&pool)).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(e)) => Err(format!("{what}: {e}")),
                    Err(_) => Err(format!(
                        "{what}: no answer within {} ms",
                        within.as_millis()
                    )),
                }
            }
        };
        ping(&self.pool, "primary").await
    }

    /// Whether reads go to the read replica now (`false` without one, or while it fails its checks).
    pub fn reading_from_replica(&self) -> bool {
        self.reads.is_some() && self.replica_up.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Wakes whenever this process commits a batch ([`Store::apply`]).
    pub fn commits(&self) -> tokio::sync::watch::Receiver<Commits> {
        self.commits.subscribe()
    }

    /// Removes the feed's rows written before `before` (unix seconds) but the newest (on PostgreSQL, whole
    /// partitions, and the older rows of the newest row's). Returns how many rows went.
    pub async fn prune_feed(&self, before: i64) -> Result<u64, sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        if self.backend == Backend::Sqlite {
            return feed::prune(&mut conn, before).await;
        }
        const COUNT: &str = "SELECT COUNT(*) FROM feed_events";
        let was: i64 = sqlx::query(COUNT).fetch_one(&mut *conn).await?.get(0);
        partitions::expire(&mut conn, &self.partitions, before, None).await?;
        let now: i64 = sqlx::query(COUNT).fetch_one(&mut *conn).await?.get(0);
        Ok(was.saturating_sub(now).max(0) as u64)
    }

    /// The database URL this store connected with (the feed's `LISTEN` connection uses it).
    pub fn url(&self) -> String {
        self.pool.connect_options().database_url.to_string()
    }
}
