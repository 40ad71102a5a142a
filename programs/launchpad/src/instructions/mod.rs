//! One file per instruction: the accounts struct and its handler. Admin instructions live in `admin/`.
#![allow(ambiguous_glob_reexports)] // every instruction module exports a `handler`; lib.rs calls them by path

pub mod admin;
pub mod claim_locked_lp_fee;
pub mod claim_surplus;
pub mod claim_trading_fee;
pub mod create_launch;
pub mod creator;
pub mod fee_shares;
pub mod migrate;
pub mod swap;
pub mod swap_exact_out;

pub use admin::accept_admin::*;
pub use admin::accept_partner::*;
pub use admin::create_config::*;
pub use admin::initialize::*;
pub use admin::propose_admin::*;
pub use admin::propose_partner::*;
pub use admin::set_config_disabled::*;
pub use admin::sync_config_partner::*;
pub use claim_locked_lp_fee::*;
pub use claim_surplus::*;
pub use claim_trading_fee::*;
pub use create_launch::*;
pub use creator::accept_creator::*;
pub use creator::propose_creator::*;
pub use fee_shares::claim_fee_share::*;
pub use fee_shares::set_fee_shares::*;
pub use fee_shares::share_locked_lp_fee::*;
pub use migrate::*;
pub use swap::*;
pub use swap_exact_out::*;
