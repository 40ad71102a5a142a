//! One writer per index. An indexer (or the keeper) takes a lease before it writes; a second one on the same
//! database waits as a hot standby and takes over when the first goes away, however it went.
//!
//! On PostgreSQL the lease is a session advisory lock held by a connection of its own, and the holder's
//! writes go through that same connection: if the connection drops (the process was killed, the network or
//! the database failed), the lock is released and the writes fail with it, so a writer that lost its lease
//! can never commit beside the next one. On SQLite (one machine, one writer) it is an exclusive lock on a
//! file beside the database; a second writer is refused.

use super::{Backend, Store};
use sqlx::{AnyConnection, Connection as _, Row as _};

/// How long [`Lease::check`] waits for the lease's session to answer before counting the lease lost.
pub const CHECK_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// What a lease is for: each kind has one holder per database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseKind {
    /// The indexer's writes.
    Indexer,
    /// The keeper's migrations.
    Keeper,
}

impl LeaseKind {
    /// The advisory lock's key on PostgreSQL.
    fn key(self) -> i64 {
        match self {
            // "lp-index" and "lp-keepr" as big-endian bytes.
            LeaseKind::Indexer => 0x6c70_2d69_6e64_6578,
            LeaseKind::Keeper => 0x6c70_2d6b_6565_7072,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LeaseKind::Indexer => "indexer",
            LeaseKind::Keeper => "keeper",
        }
    }
}

/// A held lease: dropped, it is released.
#[derive(Debug)]
pub struct Lease {
    kind: LeaseKind,
    holder: Holder,
    lost: bool,
}

#[derive(Debug)]
enum Holder {
    /// The session holding the advisory lock; the holder's writes go through it.
    Postgres(AnyConnection),
    /// The locked file (unlocked when closed).
    Sqlite(#[allow(dead_code)] std::fs::File),
}

impl Lease {
    pub fn kind(&self) -> LeaseKind {
        self.kind
    }

    /// Whether the lease may have been lost (its connection failed): the holder must stop writing and take
    /// the lease again.
    pub fn is_lost(&self) -> bool {
        self.lost
    }

    /// Checks that the lease still holds: on PostgreSQL, that its session answers (if it does not, the lock
    /// is gone with it).
    pub async fn check(&mut self) -> bool {
        if let Holder::Postgres(conn) = &mut self.holder {
            // Bounded here too: a ping on a cut network would otherwise wait for the kernel to give up.
            let answered = tokio::time::timeout(CHECK_WITHIN, conn.ping()).await;
            if self.lost || !matches!(answered, Ok(Ok(()))) {
                self.lost = true;
            }
        }
        !self.lost
    }

    /// Gives the lease up at once (a standby may take it on its next try): on PostgreSQL the lock is
    /// unlocked and its session closed; on SQLite the file is unlocked. A session that cannot be reached is
    /// dropped, which releases the lock as the server notices.
    pub async fn release(self) {
        match self.holder {
            Holder::Postgres(mut conn) => {
                let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
                    .bind(self.kind.key())
                    .execute(&mut conn)
                    .await;
                if unlocked.is_ok() {
                    conn.close().await.ok();
                }
            }
            Holder::Sqlite(file) => drop(file),
        }
    }

    /// The connection the holder writes through (`None` on SQLite, whose writes use the pool).
    pub(super) fn connection(&mut self) -> Option<&mut AnyConnection> {
        match &mut self.holder {
            Holder::Postgres(c) => Some(c),
            Holder::Sqlite(_) => None,
        }
    }
}

impl Store {
    /// Tries once to take the lease of `kind`: `Ok(None)` while another process holds it.
    pub async fn try_lease(&self, kind: LeaseKind) -> anyhow::Result<Option<Lease>> {
        let holder = match self.backend() {
            Backend::Postgres => {
                let mut conn = AnyConnection::connect(&self.url()).await?;
                let taken: bool = sqlx::query("SELECT pg_try_advisory_lock($1)")
                    .bind(kind.key())
                    .fetch_one(&mut conn)
                    .await?
                    .get(0);
                if !taken {
                    conn.close().await.ok();
                    return Ok(None);
                }
                Holder::Postgres(conn)
            }
            Backend::Sqlite => {
                let path = self.lock_file(kind);
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&path)
                    .map_err(|e| anyhow::anyhow!("the lock file {}: {e}", path.display()))?;
                match file.try_lock() {
                    Ok(()) => Holder::Sqlite(file),
                    Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                    Err(std::fs::TryLockError::Error(e)) => {
                        anyhow::bail!("locking {}: {e}", path.display())
                    }
                }
            }
        };
        Ok(Some(Lease {
            kind,
            holder,
            lost: false,
        }))
    }

    /// The file beside a SQLite database whose lock is the lease of `kind`.
    pub fn lock_file(&self, kind: LeaseKind) -> std::path::PathBuf {
        let url = self.url();
        let path = url
            .trim_start_matches("sqlite://")
            .trim_start_matches("sqlite:")
            .split('?')
            .next()
            .unwrap_or_default()
            .to_string();
        std::path::PathBuf::from(format!("{path}.{}.lock", kind.name()))
    }
}
