//! Accounts owned by the AMM.

pub mod pool;
pub mod position;

pub use pool::*;
pub use position::*;
