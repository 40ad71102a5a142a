//! Rows as `(column, value)` lists, and the statements that write them: slot-monotonic upserts for accounts
//! and insert-once for events.

use super::sql;
use crate::model::{EventKey, Version};
use sea_query::{Expr, InsertStatement, OnConflict, Value};

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

impl From<Val> for Value {
    fn from(v: Val) -> Value {
        match v {
            Val::Text(s) => Value::String(Some(s)),
            Val::OptText(s) => Value::String(s),
            Val::Int(i) => Value::BigInt(Some(i)),
            Val::Bytes(b) => Value::Bytes(Some(b)),
            // A missing number (a NULL of the integer columns' type).
            Val::Null => Value::BigInt(None),
        }
    }
}

pub type Row = Vec<(&'static str, Val)>;

/// An upsert of account rows (distinct addresses) into `table` that only moves forward in
/// `(slot, write_version)`.
pub fn upsert_accounts(table: &'static str, rows: Vec<Row>) -> InsertStatement {
    use sea_query::ExprTrait;
    let updates: Vec<&'static str> = rows
        .first()
        .map(|r| {
            r.iter()
                .map(|(c, _)| *c)
                .filter(|c| *c != "address")
                .collect()
        })
        .unwrap_or_default();
    let (new, old) = ("excluded", table);
    let newer = Expr::col((new, "slot"))
        .gt(Expr::col((old, "slot")))
        .or(Expr::col((new, "slot"))
            .eq(Expr::col((old, "slot")))
            .and(Expr::col((new, "write_version")).gte(Expr::col((old, "write_version")))));
    let mut stmt = sql::insert(table, rows);
    stmt.on_conflict(
        OnConflict::column("address")
            .update_columns(updates)
            .action_and_where(newer)
            .to_owned(),
    );
    stmt
}

/// An insert of event rows into `table`; rows already stored are skipped.
pub fn insert_events(table: &'static str, rows: Vec<Row>) -> InsertStatement {
    let mut stmt = sql::insert(table, rows);
    stmt.on_conflict(
        OnConflict::columns(super::partitions::event_key_columns(table).iter().copied())
            .do_nothing()
            .to_owned(),
    );
    stmt
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
mod tests {
    use super::*;
    use crate::store::Backend;

    #[test]
    fn account_upserts_only_move_forward() {
        let row = |a: &str| -> Row {
            vec![
                ("address", Val::Text(a.into())),
                ("data", Val::Bytes(vec![1])),
                ("slot", Val::Int(1)),
                ("write_version", Val::Int(2)),
            ]
        };
        let (sql, _) = Backend::Sqlite.render(&upsert_accounts("pools", vec![row("a"), row("b")]));
        assert_eq!(
            sql,
            r#"INSERT INTO "pools" ("address", "data", "slot", "write_version") VALUES (?, ?, ?, ?), (?, ?, ?, ?) ON CONFLICT ("address") DO UPDATE SET "data" = "excluded"."data", "slot" = "excluded"."slot", "write_version" = "excluded"."write_version" WHERE "excluded"."slot" > "pools"."slot" OR ("excluded"."slot" = "pools"."slot" AND "excluded"."write_version" >= "pools"."write_version")"#
        );
    }
}
