//! What a chain says about a recorded swap (`POST /swap/record`), whichever side asked it: the Solana
//! routes or the aggregator.

use web::error::ApiError;

/// What the chain says about a recorded transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It landed and shows the swap: the amounts to store (`amountIn`, `amountOut`), at most what moved.
    Verified(u128, u128),
    /// It landed and failed: stored as `failed`.
    Failed,
    /// The node does not know it (yet), or the chain cannot be asked: stored unverified.
    Unverified,
}

/// The chain contradicts the record: `INVALID_PARAMS`, nothing stored.
pub fn contradicts(what: &str) -> ApiError {
    ApiError::invalid(format!(
        "the transaction on chain does not match the record: {what}"
    ))
}
