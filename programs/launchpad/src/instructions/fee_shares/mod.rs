//! Shared creator fees: the creator role names up to 10 recipients and their shares (changeable until it locks
//! them), each recipient claims its own credit, and the locked creator position's AMM fees are collected and
//! credited by the same shares.

pub mod claim_fee_share;
pub mod set_fee_shares;
pub mod share_locked_lp_fee;
