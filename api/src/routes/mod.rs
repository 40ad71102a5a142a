//! One module per area of the spec.

pub mod health;
pub mod launchpad;
