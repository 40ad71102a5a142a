//! Client side of the launchpad: PDAs, instruction builders, account and event decoding, and quotes computed
//! with the same `crates/curve` math the program runs. Used by the API, the indexer, the localnet and tests,
//! so that no client hand-rolls an account list.

pub mod accounts;
pub mod amm_ix;
pub mod events;
pub mod launchpad_ix;
pub mod oracle;
pub mod pda;
pub mod quote;
pub mod shares;

pub use amm::ID as AMM_PROGRAM_ID;
pub use anchor_lang::prelude::Pubkey;
pub use anchor_lang::solana_program::instruction::{AccountMeta, Instruction};
pub use launchpad::ID as LAUNCHPAD_PROGRAM_ID;

/// Program ids the launchpad works with.
pub mod ids {
    use anchor_lang::prelude::Pubkey;
    pub const TOKEN_PROGRAM: Pubkey = anchor_spl::token::ID;
    pub const TOKEN_2022_PROGRAM: Pubkey = anchor_spl::token_2022::ID;
    pub const ASSOCIATED_TOKEN_PROGRAM: Pubkey = anchor_spl::associated_token::ID;
    pub const SYSTEM_PROGRAM: Pubkey = anchor_lang::solana_program::system_program::ID;
    pub const NATIVE_MINT: Pubkey = launchpad::NATIVE_MINT;
}

/// The associated token account of `owner` for `mint` under `token_program`.
pub fn associated_token_address(owner: &Pubkey, mint: &Pubkey, token_program: &Pubkey) -> Pubkey {
    anchor_spl::associated_token::get_associated_token_address_with_program_id(
        owner,
        mint,
        token_program,
    )
}
