//! The swap vocabulary the API's Solana routes and the aggregator (EVM swaps, cross-chain) both speak, below
//! both: the supported chains and their addresses ([`chains`]), the EVM chains' token catalog ([`tokens`]),
//! the quote and build request and response shapes ([`shapes`], the quote request's schema in
//! [`quote_schema`]), slippage bounds with their rounding ([`slippage`]), what a chain says about a recorded swap ([`verdict`]), and Solana transactions built
//! for a wallet, simulated, relayed and read back over RPC ([`solana`]).

pub mod chains;
pub mod quote_schema;
pub mod shapes;
pub mod slippage;
pub mod solana;
pub mod tokens;
pub mod verdict;
