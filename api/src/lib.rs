//! The launchpad's REST API: thin axum handlers per area (`routes/`) over the index (`index::read`), the
//! SDK and the chain. The EVM swap and cross-chain aggregator is its own crate (`aggregator`), mounted
//! as one router. Errors are [`error::ApiError`]; `/openapi.json` is generated from the handlers.
//!
//! ```text
//!  app        the service assembled: routes, layers, the OpenAPI document, the server
//!  state      AppState: what every handler reaches
//!  routes/    the endpoints, one module per area (launch/, swap/ are folders of their own)
//!  feed/      the live feed's fan-out (SSE and WebSocket)
//!  http/      HTTP plumbing: rate limits and CORS (layers), request records (access), counted
//!             admission, the response cache
//!  chain/     chain access: the chain's clock, the relay's confirmations, the keeper, a deploy read back
//!  prices/    what things cost: USD rates, Jupiter's routes
//!  process/   the process: settings (config), listeners, the metrics endpoint, the RPC client (serve)
//! ```
//!
//! The HTTP plumbing every endpoint shares (errors, extractors, JSON, schemas) is the `web` crate's and the
//! swap vocabulary (chains, shapes, Solana transactions) the `swap_core` crate's, re-exported here under
//! their names; both sit below this crate and the aggregator alike.

mod app;
pub mod chain;
pub mod feed;
pub mod http;
pub mod prices;
pub mod process;
pub mod routes;
mod state;

pub use app::{layered, layered_with, router, router_with, serve, ApiDoc};
pub use ops::redact;
pub use state::{AppState, Shared, CURSOR_CACHE_TTL, CURVE_CACHE_TTL, LISTING_TOTAL_TTL};
pub use swap_core::{chains, solana};
pub use web::{body, error, extract, json, schema};

/// mimalloc: the service allocates and frees a few small buffers per request on two threads, where glibc's
/// allocator cost a tenth of the time under load (docs/benchmarks.md). Whatever links this crate (the binary,
/// its tests and benches) runs on it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
