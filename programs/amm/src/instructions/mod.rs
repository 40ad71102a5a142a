//! One file per instruction: the accounts struct and its handler.
#![allow(ambiguous_glob_reexports)] // every instruction module exports a `handler`; lib.rs calls them by path

pub mod add_liquidity;
pub mod claim_position_fee;
pub mod create_pool;
pub mod create_position;
pub mod permanent_lock;
pub mod remove_liquidity;
pub mod swap;
pub mod swap_exact_out;

pub use add_liquidity::*;
pub use claim_position_fee::*;
pub use create_pool::*;
pub use create_position::*;
pub use permanent_lock::*;
pub use remove_liquidity::*;
pub use swap::*;
pub use swap_exact_out::*;
