//! Rows as `(column, value)` lists, and the SQL for them: slot-monotonic upserts for accounts and
//! insert-once for events. Both databases take the same statements.

use crate::model::{EventKey, Version};
use sqlx::any::AnyArguments;
use sqlx::query::Query;
use sqlx::Any;

/// A value bound to a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Text(String),
    OptText(Option<String>),
    Int(i64),
    Bytes(Vec<u8>),
    Null,
}

impl Val {
    pub fn num(v: impl ToString) -> Val {
        Val::Text(v.to_string())
    }

    pub fn key(k: &anchor_lang::prelude::Pubkey) -> Val {
        Val::Text(k.to_string())
    }

    pub fn int(v: impl TryInto<i64>) -> Val {
        Val::Int(v.try_into().unwrap_or(i64::MAX))
    }
}

pub type Row = Vec<(&'static str, Val)>;

/// The statement in the connection's dialect: statements are written with PostgreSQL's `$n`
/// placeholders, and SQLite gets [`sqlite_placeholders`].
pub fn dialect(conn: &sqlx::AnyConnection, sql: &str) -> String {
    if conn.backend_name().eq_ignore_ascii_case("sqlite") {
        sqlite_placeholders(sql)
    } else {
        sql.to_string()
    }
}

/// SQLite's placeholders for a statement written with `$n`: plain `?` when the statement takes `$1, $2, …`
/// each once and in order (every multi-row insert), else `?n`. Binding looks up each numbered parameter's
/// name in a list as long as the statement's parameters, so a 6,000-value insert with `?n` spent most of
/// its time there (a quarter of the indexer's ingest profile); plain `?` parameters have no name.
pub fn sqlite_placeholders(sql: &str) -> String {
    let numbers: Vec<&str> = sql
        .split('$')
        .skip(1)
        .map(|rest| {
            &rest[..rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len())]
        })
        .collect();
    let sequential = numbers
        .iter()
        .enumerate()
        .all(|(i, n)| n.parse::<usize>().ok() == Some(i + 1));
    if !sequential {
        return sql.replace('$', "?");
    }
    let mut out = String::with_capacity(sql.len());
    let mut parts = sql.split('$');
    out.push_str(parts.next().unwrap_or(""));
    for rest in parts {
        out.push('?');
        out.push_str(rest.trim_start_matches(|c: char| c.is_ascii_digit()));
    }
    out
}

pub fn bind<'q>(mut q: Query<'q, Any, AnyArguments>, vals: &[Val]) -> Query<'q, Any, AnyArguments> {
    for v in vals {
        q = match v {
            Val::Text(s) => q.bind(s.clone()),
            Val::OptText(s) => q.bind(s.clone()),
            Val::Int(i) => q.bind(*i),
            Val::Bytes(b) => q.bind(b.clone()),
            Val::Null => q.bind(Option::<i64>::None),
        };
    }
    q
}

/// `($1, …, $c), ($c+1, …), …` for `rows` rows of `cols` values.
pub fn values_clause(cols: usize, rows: usize) -> String {
    (0..rows)
        .map(|r| {
            let row = (1..=cols)
                .map(|c| format!("${}", r * cols + c))
                .collect::<Vec<_>>()
                .join(", ");
            format!("({row})")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Most rows per multi-row statement: stays under SQLite's and PostgreSQL's bound-parameter limits.
pub fn rows_per_statement(cols: usize) -> usize {
    (30_000 / cols.max(1)).clamp(1, 500)
}

pub fn columns(row: &Row) -> String {
    row.iter().map(|(c, _)| *c).collect::<Vec<_>>().join(", ")
}

pub fn values(row: Row) -> Vec<Val> {
    row.into_iter().map(|(_, v)| v).collect()
}

/// An account upsert of `n` rows (distinct addresses) that only moves forward in `(slot, write_version)`.
pub fn upsert_accounts_sql(table: &str, row: &Row, n: usize) -> String {
    let updates = row
        .iter()
        .filter(|(c, _)| *c != "address")
        .map(|(c, _)| format!("{c} = excluded.{c}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "INSERT INTO {table} ({}) VALUES {} ON CONFLICT (address) DO UPDATE SET {updates} \
         WHERE excluded.slot > {table}.slot \
            OR (excluded.slot = {table}.slot AND excluded.write_version >= {table}.write_version)",
        columns(row),
        values_clause(row.len(), n)
    )
}

/// An insert of `n` event rows; rows already stored are skipped.
pub fn insert_events_sql(table: &str, row: &Row, n: usize) -> String {
    format!(
        "INSERT INTO {table} ({}) VALUES {} ON CONFLICT (signature, ix_index, inner_index) DO NOTHING",
        columns(row),
        values_clause(row.len(), n)
    )
}

pub fn version_cols(v: Version) -> Row {
    vec![
        ("slot", Val::int(v.slot)),
        ("write_version", Val::int(v.write_version)),
    ]
}

pub fn key_cols(k: &EventKey) -> Row {
    vec![
        ("signature", Val::Text(k.signature.clone())),
        ("ix_index", Val::int(k.ix_index)),
        ("inner_index", Val::int(k.inner_index)),
        ("slot", Val::int(k.slot)),
    ]
}

#[cfg(test)]
mod placeholder_tests {
    use super::sqlite_placeholders;

    #[test]
    fn sequential_parameters_become_plain_and_others_keep_their_numbers() {
        assert_eq!(
            sqlite_placeholders("INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)"),
            "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)"
        );
        assert_eq!(
            sqlite_placeholders(&format!("SELECT {}", super::values_clause(3, 4))),
            format!(
                "SELECT {}",
                super::values_clause(3, 4)
                    .replace(|c: char| c.is_ascii_digit(), "")
                    .replace('$', "?")
            )
        );
        // Reused, out of order, or not starting at 1: numbered.
        assert_eq!(
            sqlite_placeholders("SELECT * FROM t WHERE a = $1 OR b = $1"),
            "SELECT * FROM t WHERE a = ?1 OR b = ?1"
        );
        assert_eq!(
            sqlite_placeholders("UPDATE t SET a = $2 WHERE b = $1"),
            "UPDATE t SET a = ?2 WHERE b = ?1"
        );
        assert_eq!(sqlite_placeholders("SELECT 1"), "SELECT 1");
        assert_eq!(
            sqlite_placeholders("SELECT $10 FROM t"),
            "SELECT ?10 FROM t"
        );
    }
}
