//! Helpers the instructions share.

pub mod token;
