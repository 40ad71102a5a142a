//! Program-derived addresses of the launchpad.

use anchor_lang::prelude::Pubkey;
use launchpad::constants::*;
use launchpad::ID;

fn find(seeds: &[&[u8]]) -> Pubkey {
    Pubkey::find_program_address(seeds, &ID).0
}

pub fn global() -> Pubkey {
    find(&[GLOBAL_SEED])
}

pub fn config(preset: u8, quote_mint: &Pubkey) -> Pubkey {
    find(&[CONFIG_SEED, &[preset], quote_mint.as_ref()])
}

/// The mint a creator launches with `salt`.
pub fn mint(creator: &Pubkey, salt: u64) -> Pubkey {
    find(&[MINT_SEED, creator.as_ref(), &salt.to_le_bytes()])
}

pub fn mint_authority() -> Pubkey {
    find(&[MINT_AUTHORITY_SEED])
}

pub fn pool(mint: &Pubkey) -> Pubkey {
    find(&[POOL_SEED, mint.as_ref()])
}

pub fn base_vault(pool: &Pubkey) -> Pubkey {
    find(&[BASE_VAULT_SEED, pool.as_ref()])
}

pub fn quote_vault(pool: &Pubkey) -> Pubkey {
    find(&[QUOTE_VAULT_SEED, pool.as_ref()])
}

/// How a launch's creator fees are shared (exists once its creator role set shares).
pub fn fee_shares(pool: &Pubkey) -> Pubkey {
    find(&[FEE_SHARES_SEED, pool.as_ref()])
}

/// The signer of `emit_cpi!` self-invocations.
pub fn event_authority() -> Pubkey {
    launchpad::EVENT_AUTHORITY_AND_BUMP.0
}
