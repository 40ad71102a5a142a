//! What the pipeline stores: decoded accounts and events, each carrying where it came from. Amounts stay
//! integers of their on-chain width here; the store writes them as decimal text because u64 and u128
//! exceed SQL's BIGINT.

use anchor_lang::prelude::Pubkey;
use sdk::accounts::{AmmPool, Config, Pool, Position};

/// The version of an account write: later `(slot, write_version)` wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub slot: u64,
    pub write_version: u64,
}

/// A decoded account of one of the two programs.
#[derive(Debug, Clone)]
pub enum AccountState {
    Config(Box<Config>),
    Pool(Box<Pool>),
    AmmPool(Box<AmmPool>),
    Position(Box<Position>),
}

impl AccountState {
    /// The table-independent name of the account type (kept with account versions for fork rollback).
    pub fn kind(&self) -> AccountKind {
        match self {
            AccountState::Config(_) => AccountKind::Config,
            AccountState::Pool(_) => AccountKind::Pool,
            AccountState::AmmPool(_) => AccountKind::AmmPool,
            AccountState::Position(_) => AccountKind::Position,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccountKind {
    Config,
    Pool,
    AmmPool,
    Position,
}

impl AccountKind {
    pub const ALL: [AccountKind; 4] = [
        AccountKind::Config,
        AccountKind::Pool,
        AccountKind::AmmPool,
        AccountKind::Position,
    ];

    pub fn table(self) -> &'static str {
        match self {
            AccountKind::Config => "configs",
            AccountKind::Pool => "pools",
            AccountKind::AmmPool => "amm_pools",
            AccountKind::Position => "amm_positions",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AccountKind::Config => "config",
            AccountKind::Pool => "pool",
            AccountKind::AmmPool => "amm_pool",
            AccountKind::Position => "position",
        }
    }

    pub fn from_name(name: &str) -> Option<AccountKind> {
        AccountKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// An account write as seen on chain.
#[derive(Debug, Clone)]
pub struct AccountWrite {
    pub address: Pubkey,
    pub version: Version,
    pub state: AccountState,
    /// The raw account data (kept so that readers can decode the exact account the program sees).
    pub data: Vec<u8>,
    /// For a launchpad pool: progress to graduation, derived with its config when the config is known.
    pub progress_bps: Option<u16>,
}

/// A token account's balance, as the holders index keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenBalance {
    pub mint: Pubkey,
    pub owner: Pubkey,
    pub amount: u64,
    /// The launchpad's base vault or an AMM pool's vault (owned by the pool): not a holder.
    pub vault: bool,
}

/// A write of a Token-2022 token account of a launched mint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenAccountWrite {
    pub address: Pubkey,
    pub version: Version,
    /// `None`: the account was closed (the index keeps it at zero).
    pub balance: Option<TokenBalance>,
}

/// Where an event was emitted: `(signature, outer instruction index, position among that instruction's
/// inner instructions)` identifies it uniquely and makes event writes idempotent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventKey {
    pub signature: String,
    pub ix_index: u32,
    pub inner_index: u32,
    pub slot: u64,
    /// The transaction's position in its slot (orders events within a slot; not part of the key).
    pub tx_index: u64,
}

/// A launch, from its `EvtCreateLaunch` or, when backfilled, from the pool account and the mint's metadata.
#[derive(Debug, Clone)]
pub struct Launch {
    pub mint: Pubkey,
    pub pool: Pubkey,
    pub config: Pubkey,
    pub creator: Pubkey,
    pub quote_mint: Pubkey,
    pub name: String,
    pub symbol: String,
    pub uri: String,
    pub preset: String,
    pub quote: String,
    pub salt: u64,
    pub created_slot: u64,
    pub created_at: i64,
    /// The creating transaction; `None` when backfilled from account state.
    pub signature: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Trade {
    pub key: EventKey,
    pub event: sdk::events::EvtSwap,
    /// Average execution price in whole quote per whole token (fee excluded), when the quote's decimals are
    /// known.
    pub price: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Event {
    Launch(Box<Launch>),
    Trade(Box<Trade>),
    CurveComplete(EventKey, sdk::events::EvtCurveComplete),
    Claim(EventKey, sdk::events::EvtClaim),
    Migrate(EventKey, Box<sdk::events::EvtMigrate>),
    Amm(EventKey, Box<sdk::events::AmmEvent>),
}

/// One unit of work for the store. A batch of changes is written in one database transaction.
#[derive(Debug, Clone)]
pub enum Change {
    Account(Box<AccountWrite>),
    /// The account was closed (zero lamports) at this version.
    Closed {
        address: Pubkey,
        version: Version,
    },
    Event(Event),
    /// A token account of a launched mint (or, closed, possibly one: the store knows).
    TokenAccount(Box<TokenAccountWrite>),
    /// A backfill's complete list of a mint's token accounts as of `version`: any other the index holds
    /// (older than that) was closed meanwhile.
    TokenHolders {
        mint: Pubkey,
        version: Version,
        present: Vec<Pubkey>,
    },
}

pub fn claim_kind_name(kind: u8) -> &'static str {
    match kind {
        launchpad::events::CLAIM_KIND_TRADING => "trading",
        launchpad::events::CLAIM_KIND_SURPLUS => "surplus",
        launchpad::events::CLAIM_KIND_LOCKED_LP => "locked-lp",
        _ => "unknown",
    }
}
