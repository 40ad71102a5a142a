//! The localnet's JSON-RPC and Yellowstone gRPC surfaces, and third-party clients against them.
//!
//! One test binary for the crate's integration tests: each file below was its own binary, and every binary
//! compiled the shared helpers and linked the whole stack again (about a minute and 180 MB each).

#[path = "../common/mod.rs"]
mod common;

mod grpc;
mod grpc_server;
mod rpc;
mod third_party;
