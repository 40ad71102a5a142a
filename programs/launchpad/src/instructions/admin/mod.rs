//! Instructions only the admin signs.

pub mod create_config;
pub mod initialize;
