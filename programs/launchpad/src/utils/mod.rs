//! Helpers the instructions share.

pub mod locked_position;
pub mod token;
