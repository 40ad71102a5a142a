//! The development stack: a fresh localnet (JSON-RPC, PubSub, Yellowstone gRPC), the indexer into a fresh
//! SQLite file and the API, in one process ([`stack`]), and the [`walkthrough`] that plays a user against
//! it over HTTP. Its own crate so that the production `api` binary links no development chain.

pub mod stack;
pub mod walkthrough;
