//! Accounts owned by the program.

pub mod config;
pub mod global;
pub mod pool;
pub mod shares;

pub use config::*;
pub use global::*;
pub use pool::*;
pub use shares::*;
