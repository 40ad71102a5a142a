//! The creator role's two-step handover: the creator proposes a wallet, the wallet accepts.

pub mod accept_creator;
pub mod propose_creator;
