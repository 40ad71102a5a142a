//! HTTP plumbing of this service's own (the shared kind, errors and extractors, is the `web` crate's):
//! what wraps every route (rate limits, CORS, the panic guard), what is recorded of each request, counted
//! admission of long-lived requests, and the browse responses' cache.

pub mod access;
pub mod admission;
pub mod cache;
pub mod client;
pub mod layers;
