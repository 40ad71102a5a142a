//! Writes the token accounts of launched mints and the per-mint holder counts inside the batch's
//! transaction.
//!
//! Token accounts only move forward in `(slot, write_version)`, like the program accounts. A closed account
//! stays at zero (`closed = 1`), so that a replayed older write cannot bring its balance back. The holder
//! count of a mint (distinct non-vault owners with a positive balance) changes only by the owners whose
//! holding the batch turned on or off: those are counted just before and just after the writes, so a replay
//! that changes nothing changes no count.

use super::rows::{upsert_accounts, Row, Val};
use super::{sql, Backend, Store};
use crate::model::{TokenAccountWrite, TokenBalance, Version};
use anchor_lang::prelude::Pubkey;
use sea_query::{Asterisk, Expr, OnConflict, Query};
use sqlx::{AnyConnection, Row as _};
use std::collections::{BTreeMap, BTreeSet};

type Result<T> = std::result::Result<T, sqlx::Error>;

/// A token account as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stored {
    balance: TokenBalance,
    closed: bool,
    version: Version,
}

impl Stored {
    /// The `(mint, owner)` this account makes a holder, if it does.
    fn holds(&self) -> Option<(Pubkey, Pubkey)> {
        let b = &self.balance;
        (b.amount > 0 && !b.vault).then_some((b.mint, b.owner))
    }
}

fn key(s: &str) -> Pubkey {
    s.parse().unwrap_or_default()
}

fn row(address: &Pubkey, s: &Stored) -> Row {
    vec![
        ("address", Val::key(address)),
        ("mint", Val::key(&s.balance.mint)),
        ("owner", Val::key(&s.balance.owner)),
        ("amount", Val::int(s.balance.amount)),
        ("vault", Val::int(s.balance.vault)),
        ("closed", Val::int(s.closed)),
        ("slot", Val::int(s.version.slot)),
        ("write_version", Val::int(s.version.write_version)),
    ]
}

/// The table and row of a token-account write (a closing has none: it needs the stored row).
pub fn token_account_row(w: &TokenAccountWrite) -> Option<(&'static str, Row)> {
    let balance = w.balance?;
    let stored = Stored {
        balance,
        closed: false,
        version: w.version,
    };
    Some(("token_accounts", row(&w.address, &stored)))
}

async fn stored(
    conn: &mut AnyConnection,
    addresses: &[Pubkey],
) -> Result<BTreeMap<Pubkey, Stored>> {
    let mut out = BTreeMap::new();
    for chunk in addresses.chunks(500) {
        let stmt = {
            use sea_query::ExprTrait;
            Query::select()
                .columns([
                    "address",
                    "mint",
                    "owner",
                    "amount",
                    "vault",
                    "closed",
                    "slot",
                    "write_version",
                ])
                .from("token_accounts")
                .and_where(Expr::col("address").is_in(chunk.iter().map(|a| a.to_string())))
                .to_owned()
        };
        for r in sql::query(Backend::of(conn), &stmt)
            .fetch_all(&mut *conn)
            .await?
        {
            out.insert(
                key(&r.get::<String, _>(0)),
                Stored {
                    balance: TokenBalance {
                        mint: key(&r.get::<String, _>(1)),
                        owner: key(&r.get::<String, _>(2)),
                        amount: r.get::<i64, _>(3).max(0) as u64,
                        vault: r.get::<i64, _>(4) != 0,
                    },
                    closed: r.get::<i64, _>(5) != 0,
                    version: Version {
                        slot: r.get::<i64, _>(6).max(0) as u64,
                        write_version: r.get::<i64, _>(7).max(0) as u64,
                    },
                },
            );
        }
    }
    Ok(out)
}

/// Which of `pairs` hold the mint now (any non-vault account of the owner with a positive balance).
async fn holding(
    conn: &mut AnyConnection,
    pairs: &BTreeSet<(Pubkey, Pubkey)>,
) -> Result<BTreeSet<(Pubkey, Pubkey)>> {
    use sea_query::ExprTrait;
    let pairs: Vec<&(Pubkey, Pubkey)> = pairs.iter().collect();
    let mut out = BTreeSet::new();
    for chunk in pairs.chunks(sql::rows_per_statement(2)) {
        let wanted = Query::select()
            .column(Asterisk)
            .from_values(
                chunk
                    .iter()
                    .map(|(mint, owner)| (mint.to_string(), owner.to_string())),
                "w",
            )
            .to_owned();
        let stmt = Query::select()
            .distinct()
            .columns(["mint", "owner"])
            .from("token_accounts")
            .and_where(Expr::col("amount").gt(sql::lit(0)))
            .and_where(Expr::col("vault").eq(sql::lit(0)))
            .and_where(Expr::tuple([Expr::col("mint"), Expr::col("owner")]).in_subquery(wanted))
            .to_owned();
        for r in sql::query(Backend::of(conn), &stmt)
            .fetch_all(&mut *conn)
            .await?
        {
            out.insert((key(&r.get::<String, _>(0)), key(&r.get::<String, _>(1))));
        }
    }
    Ok(out)
}

/// Writes token-account writes (the newest per address; closings of accounts the index does not hold are
/// ignored) and moves the holder counts by what they changed.
pub async fn write(conn: &mut AnyConnection, writes: &[&TokenAccountWrite]) -> Result<()> {
    if writes.is_empty() {
        return Ok(());
    }
    let mut newest: BTreeMap<Pubkey, &TokenAccountWrite> = BTreeMap::new();
    for w in writes {
        match newest.get(&w.address) {
            Some(old) if old.version > w.version => {}
            _ => {
                newest.insert(w.address, w);
            }
        }
    }
    let addresses: Vec<Pubkey> = newest.keys().copied().collect();
    let before = stored(conn, &addresses).await?;
    let mut rows: Vec<Row> = Vec::new();
    let mut pairs = BTreeSet::new();
    for (address, w) in &newest {
        let old = before.get(address);
        if old.is_some_and(|o| o.version > w.version) {
            continue;
        }
        let new = match (w.balance, old) {
            (Some(balance), _) => Stored {
                balance,
                closed: false,
                version: w.version,
            },
            (None, Some(old)) => Stored {
                balance: TokenBalance {
                    amount: 0,
                    ..old.balance
                },
                closed: true,
                version: w.version,
            },
            // A closed account that was never a launched mint's.
            (None, None) => continue,
        };
        let was = old.and_then(Stored::holds);
        if was != new.holds() {
            pairs.extend(was);
            pairs.extend(new.holds());
        }
        rows.push(row(address, &new));
    }
    if rows.is_empty() {
        return Ok(());
    }
    let held_before = holding(conn, &pairs).await?;
    let n = sql::rows_per_statement(rows[0].len());
    for chunk in sql::chunks(rows, n) {
        sql::query(Backend::of(conn), &upsert_accounts("token_accounts", chunk))
            .execute(&mut *conn)
            .await?;
    }
    let held_after = holding(conn, &pairs).await?;
    let mut deltas: BTreeMap<Pubkey, i64> = BTreeMap::new();
    for (mint, _) in held_after.difference(&held_before) {
        *deltas.entry(*mint).or_default() += 1;
    }
    for (mint, _) in held_before.difference(&held_after) {
        *deltas.entry(*mint).or_default() -= 1;
    }
    let deltas: Vec<(Pubkey, i64)> = deltas.into_iter().filter(|(_, d)| *d != 0).collect();
    for chunk in deltas.chunks(sql::rows_per_statement(2)) {
        use sea_query::ExprTrait;
        let rows = chunk
            .iter()
            .map(|(mint, delta)| vec![("mint", Val::key(mint)), ("holders", Val::Int(*delta))])
            .collect();
        let stmt = sql::insert("holder_counts", rows)
            .on_conflict(
                OnConflict::column("mint")
                    .value(
                        "holders",
                        Expr::col(("holder_counts", "holders"))
                            .add(Expr::col(("excluded", "holders"))),
                    )
                    .to_owned(),
            )
            .to_owned();
        sql::query(Backend::of(conn), &stmt)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Closes the open token accounts of `mint` that a backfill at `version` did not find (closed while the
/// indexer was away); newer writes stay.
pub async fn reconcile(
    conn: &mut AnyConnection,
    mint: &Pubkey,
    version: Version,
    present: &[Pubkey],
) -> Result<()> {
    let present: BTreeSet<&Pubkey> = present.iter().collect();
    let open = sqlx::query("SELECT address FROM token_accounts WHERE mint = $1 AND closed = 0")
        .bind(mint.to_string())
        .fetch_all(&mut *conn)
        .await?;
    let gone: Vec<TokenAccountWrite> = open
        .iter()
        .map(|r| key(&r.get::<String, _>(0)))
        .filter(|a| !present.contains(a))
        .map(|address| TokenAccountWrite {
            address,
            version,
            balance: None,
        })
        .collect();
    write(conn, &gone.iter().collect::<Vec<_>>()).await
}

impl Store {
    /// Every launched mint the index knows, with its launchpad pool (from launches and pool accounts).
    pub async fn launch_pools(&self) -> Result<Vec<(Pubkey, Pubkey)>> {
        let rows =
            sqlx::query("SELECT mint, pool FROM launches UNION SELECT mint, address FROM pools")
                .fetch_all(self.pool())
                .await?;
        Ok(rows
            .iter()
            .map(|r| (key(&r.get::<String, _>(0)), key(&r.get::<String, _>(1))))
            .collect())
    }
}
