//! The HTTP plumbing every endpoint shares, whichever crate serves it (the API, the aggregator): one error
//! type with its codes ([`error`]), the extractors that turn a bad body, path or query into that error
//! ([`body`], [`extract`]), the JSON response ([`json`]), the OpenAPI schema helpers ([`schema`]), the
//! image formats a request may carry ([`image`]) and the guarded client that reads a URL a stranger wrote
//! ([`fetch`]). Nothing here knows a route, a chain or the index.

pub mod body;
pub mod error;
pub mod extract;
pub mod fetch;
pub mod image;
pub mod json;
pub mod schema;
