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

fn placeholders(n: usize) -> String {
    (1..=n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn columns(row: &Row) -> String {
    row.iter().map(|(c, _)| *c).collect::<Vec<_>>().join(", ")
}

pub fn values(row: Row) -> Vec<Val> {
    row.into_iter().map(|(_, v)| v).collect()
}

/// An account upsert that only moves forward in `(slot, write_version)`.
pub fn upsert_account_sql(table: &str, row: &Row) -> String {
    let updates = row
        .iter()
        .filter(|(c, _)| *c != "address")
        .map(|(c, _)| format!("{c} = excluded.{c}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT (address) DO UPDATE SET {updates} \
         WHERE excluded.slot > {table}.slot \
            OR (excluded.slot = {table}.slot AND excluded.write_version >= {table}.write_version)",
        columns(row),
        placeholders(row.len())
    )
}

/// A plain insert (after the caller removed the row): used to restore an account after a fork rollback.
pub fn insert_sql(table: &str, row: &Row) -> String {
    format!(
        "INSERT INTO {table} ({}) VALUES ({})",
        columns(row),
        placeholders(row.len())
    )
}

/// An event insert that is a no-op when the event is already stored.
pub fn insert_event_sql(table: &str, row: &Row) -> String {
    format!(
        "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT (signature, ix_index, inner_index) DO NOTHING",
        columns(row),
        placeholders(row.len())
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
