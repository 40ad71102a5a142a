//! Clients of outside aggregators' documented HTTP APIs (base URLs from config).

pub mod jupiter;
