//! The page in Chromium over WebDriver against a running stack.
//!
//! Apart from `suite` so that Chromium's journeys do not share two cores with the HTTP tests.

#[path = "../common/mod.rs"]
mod common;

mod community;
mod harness;
mod journey;
mod phone;
mod pnl;
mod roles;
