//! Clients of outside aggregators' documented HTTP APIs (base URLs from config), one file each, sharing
//! the HTTP plumbing in `http`.

pub mod http;
pub mod jupiter;
pub mod kyberswap;
pub mod lifi;
pub mod relay;
pub mod zerox;
