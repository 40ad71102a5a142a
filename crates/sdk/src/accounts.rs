//! Decoding of the launchpad's accounts from raw account data (discriminator checked).

pub use amm::state::{AmmPool, Position};
use anchor_lang::prelude::Pubkey;
use anchor_lang::{AccountDeserialize, Discriminator};
pub use launchpad::state::{Config, FeeShare, FeeShares, Global, Pool, PoolStatus};

/// Any account of the launchpad program.
#[derive(Debug, Clone)]
pub enum LaunchpadAccount {
    Global(Global),
    Config(Box<Config>),
    Pool(Box<Pool>),
    FeeShares(Box<FeeShares>),
}

fn decode<T: AccountDeserialize>(data: &[u8]) -> Option<T> {
    let mut slice = data;
    T::try_deserialize(&mut slice).ok()
}

/// Decodes a launchpad account by its discriminator; `None` for anything else or malformed data.
pub fn decode_account(data: &[u8]) -> Option<LaunchpadAccount> {
    let disc = data.get(..8)?;
    if disc == Pool::DISCRIMINATOR {
        decode::<Pool>(data).map(|p| LaunchpadAccount::Pool(Box::new(p)))
    } else if disc == Config::DISCRIMINATOR {
        decode::<Config>(data).map(|c| LaunchpadAccount::Config(Box::new(c)))
    } else if disc == Global::DISCRIMINATOR {
        decode::<Global>(data).map(LaunchpadAccount::Global)
    } else if disc == FeeShares::DISCRIMINATOR {
        decode::<FeeShares>(data).map(|s| LaunchpadAccount::FeeShares(Box::new(s)))
    } else {
        None
    }
}

pub fn decode_pool(data: &[u8]) -> Option<Pool> {
    decode(data)
}

pub fn decode_fee_shares(data: &[u8]) -> Option<FeeShares> {
    decode(data)
}

pub fn decode_config(data: &[u8]) -> Option<Config> {
    decode(data)
}

pub fn decode_amm_pool(data: &[u8]) -> Option<AmmPool> {
    decode(data)
}

pub fn decode_position(data: &[u8]) -> Option<Position> {
    decode(data)
}

/// A token account's base state: `(mint, owner, amount)`, for an initialized SPL Token or Token-2022 account
/// (extensions allowed); `None` for anything else.
pub fn decode_token_account(data: &[u8]) -> Option<(Pubkey, Pubkey, u64)> {
    use anchor_spl::token_2022::spl_token_2022::{
        extension::StateWithExtensions,
        state::{Account, AccountState},
    };
    let account = StateWithExtensions::<Account>::unpack(data).ok()?.base;
    (account.state != AccountState::Uninitialized).then_some((
        account.mint,
        account.owner,
        account.amount,
    ))
}

/// Name, symbol and URI of a Token-2022 mint's embedded metadata (`None` if the mint has none).
pub fn decode_token_metadata(mint_data: &[u8]) -> Option<(String, String, String)> {
    use anchor_spl::token_2022::spl_token_2022::{
        extension::{BaseStateWithExtensions, StateWithExtensions},
        state::Mint,
    };
    use anchor_spl::token_interface::spl_token_metadata_interface::state::TokenMetadata;
    let mint = StateWithExtensions::<Mint>::unpack(mint_data).ok()?;
    let meta = mint.get_variable_len_extension::<TokenMetadata>().ok()?;
    Some((meta.name, meta.symbol, meta.uri))
}
