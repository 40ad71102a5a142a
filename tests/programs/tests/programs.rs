//! The launchpad and AMM programs run natively under solana-program-test, with the real SPL Token,
//! Token-2022 and Associated Token Account programs as BPF. One binary, one module per feature.

#[path = "launchpad/harness.rs"]
mod harness;

#[path = "launchpad/admin.rs"]
mod admin;
#[path = "launchpad/adversarial.rs"]
mod adversarial;
#[path = "amm/liquidity.rs"]
mod amm_liquidity;
#[path = "amm/mints_and_positions.rs"]
mod amm_mints_and_positions;
#[path = "launchpad/claims.rs"]
mod claims;
#[path = "launchpad/configs.rs"]
mod configs;
#[path = "launchpad/creator.rs"]
mod creator;
#[path = "launchpad/exact_out.rs"]
mod exact_out;
#[path = "launchpad/fee_share_changes.rs"]
mod fee_share_changes;
#[path = "launchpad/fee_shares.rs"]
mod fee_shares;
#[path = "launchpad/launch.rs"]
mod launch;
#[path = "launchpad/migration.rs"]
mod migration;
#[path = "launchpad/referral.rs"]
mod referral;
#[path = "launchpad/security.rs"]
mod security;
#[path = "launchpad/shield.rs"]
mod shield;
#[path = "launchpad/swaps.rs"]
mod swaps;
