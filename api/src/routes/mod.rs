//! One module per area of the spec.

pub mod candles;
pub mod catalog;
pub mod claim;
pub mod community;
pub mod creator;
pub mod fee_shares;
pub mod feed;
pub mod health;
pub mod holders;
pub mod launch;
pub mod launchpad;
pub mod pnl;
pub mod referrals;
pub mod submit;
pub mod swap;
pub mod tokens;
pub mod trades;
pub mod ui;
pub mod wallets;
