//! Store: the index in PostgreSQL (production) or SQLite (embedded default) through sqlx's `Any` driver, so
//! both run the same statements. Each batch of changes is written in one transaction, with the cursor.
//!
//! This file is the face: the handle and its backend are [`db`], each table's statements a sibling module.

pub mod comments;
pub mod cross_chain;
mod db;
mod enrich;
pub mod feed;
mod holders;
pub mod lease;
mod listing;
mod market;
pub mod offchain;
pub mod partitions;
mod prepared;
pub mod profiles;
pub mod quarantine;
pub mod retention;
pub mod route_keys;
mod rows;
pub mod sql;
mod swap_records;
mod write;

pub use listing::{padded, MARKET_CAP_WIDTH};
pub use market::{candle_row, CANDLE_COLS};
pub use prepared::{PreparedLaunch, PreparedRecord};
pub use swap_records::{Recorded, SwapRecord};

use crate::model::Change;

pub use db::{
    create_postgres_database, Backend, Clock, Commits, DbOptions, Store, FEED_RETENTION_SECS,
    MAIN_STREAM,
};

pub use rows::{Row, Val};

/// The table and row a change writes (accounts and events; `None` for launches and fork bookkeeping).
/// The benchmark uses it to time raw inserts of exactly the rows the pipeline writes.
pub fn row_of(change: &Change) -> Option<(&'static str, Row)> {
    match change {
        Change::Account(w) => Some(write::account_row(w)),
        Change::Event(e) => write::event_row(e),
        Change::TokenAccount(w) => holders::token_account_row(w),
        _ => None,
    }
}

/// The tables the events among `changes` write into, each with the event's slot (what decides the
/// partition on PostgreSQL).
pub fn slot_writes(changes: &[Change]) -> Vec<(&'static str, u64)> {
    let mut out = Vec::new();
    for c in changes {
        let Change::Event(e) = c else { continue };
        if let Some((table, slot)) = write::event_target(e) {
            out.push((table, slot));
            if e.market_trade().is_some() {
                out.push(("market_trades", slot));
            }
        }
    }
    out
}
