//! Accounts owned by the program.

pub mod config;
pub mod global;
pub mod pool;

pub use config::*;
pub use global::*;
pub use pool::*;
