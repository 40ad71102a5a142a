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
    FeeShares(Box<sdk::accounts::FeeShares>),
}

impl AccountState {
    /// The table-independent name of the account type (kept with account versions for fork rollback).
    pub fn kind(&self) -> AccountKind {
        match self {
            AccountState::Config(_) => AccountKind::Config,
            AccountState::Pool(_) => AccountKind::Pool,
            AccountState::AmmPool(_) => AccountKind::AmmPool,
            AccountState::Position(_) => AccountKind::Position,
            AccountState::FeeShares(_) => AccountKind::FeeShares,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccountKind {
    Config,
    Pool,
    AmmPool,
    Position,
    FeeShares,
}

impl AccountKind {
    pub const ALL: [AccountKind; 5] = [
        AccountKind::Config,
        AccountKind::Pool,
        AccountKind::AmmPool,
        AccountKind::Position,
        AccountKind::FeeShares,
    ];

    pub fn table(self) -> &'static str {
        match self {
            AccountKind::Config => "configs",
            AccountKind::Pool => "pools",
            AccountKind::AmmPool => "amm_pools",
            AccountKind::Position => "amm_positions",
            AccountKind::FeeShares => "fee_shares",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AccountKind::Config => "config",
            AccountKind::Pool => "pool",
            AccountKind::AmmPool => "amm_pool",
            AccountKind::Position => "position",
            AccountKind::FeeShares => "fee_shares",
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

/// A write of an oracle's price account (Pyth's SOL/USD: [`sdk::oracle`]): `price * 10^exponent` dollars,
/// published at `publish_time` (unix seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OraclePrice {
    pub address: Pubkey,
    pub version: Version,
    pub price: i64,
    pub conf: u64,
    pub exponent: i32,
    pub publish_time: i64,
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
    /// The event's side byte, typed once when decoded.
    pub side: curve::Side,
    /// The trade in its launch's market series, priced once when decoded (`None` when the index does not
    /// know the pool's launch).
    pub market: Option<MarketTrade>,
}

#[derive(Debug, Clone)]
pub enum Event {
    Launch(Box<Launch>),
    Trade(Box<Trade>),
    CurveComplete(EventKey, sdk::events::EvtCurveComplete),
    Claim(EventKey, sdk::events::EvtClaim),
    Migrate(EventKey, Box<sdk::events::EvtMigrate>),
    /// An AMM event, and for a swap of a launch's pool that trade in the launch's market series.
    Amm(
        EventKey,
        Box<sdk::events::AmmEvent>,
        Option<Box<MarketTrade>>,
    ),
    /// A change of the creator role (a proposal, its withdrawal, an acceptance) or of the creator fees'
    /// shares. No table of their own (the pool's and the fee-shares account's writes carry the state): a
    /// feed row each, so clients follow them live.
    CreatorProposed(EventKey, sdk::events::EvtCreatorProposed),
    CreatorTransferred(EventKey, sdk::events::EvtCreatorTransferred),
    FeeSharesSet(EventKey, Box<sdk::events::EvtFeeSharesSet>),
}

impl Event {
    /// Whether the event is written only as a feed row (no table of its own).
    pub fn feed_only(&self) -> bool {
        matches!(
            self,
            Event::CreatorProposed(..) | Event::CreatorTransferred(..) | Event::FeeSharesSet(..)
        )
    }

    /// The trade this event adds to a launch's market series, if any.
    pub fn market_trade(&self) -> Option<&MarketTrade> {
        match self {
            Event::Trade(t) => t.market.as_ref(),
            Event::Amm(_, _, m) => m.as_deref(),
            _ => None,
        }
    }

    /// [`Event::market_trade`], to complete it.
    pub fn market_trade_mut(&mut self) -> Option<&mut MarketTrade> {
        match self {
            Event::Trade(t) => t.market.as_mut(),
            Event::Amm(_, _, m) => m.as_deref_mut(),
            _ => None,
        }
    }
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
    /// The oracle price account changed.
    Oracle(Box<OraclePrice>),
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
        launchpad::events::CLAIM_KIND_FEE_SHARE => "share",
        launchpad::events::CLAIM_KIND_LOCKED_LP_SHARED => "locked-lp-shared",
        _ => "unknown",
    }
}

/// Which pool a trade went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Venue {
    Curve,
    Amm,
}

impl Venue {
    pub fn name(self) -> &'static str {
        match self {
            Venue::Curve => "curve",
            Venue::Amm => "amm",
        }
    }
}

/// One trade of the series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarketTrade {
    pub signature: String,
    pub ix_index: u32,
    pub inner_index: u32,
    pub slot: u64,
    pub seq: String,
    pub time: i64,
    pub mint: String,
    pub venue: Venue,
    pub pool: String,
    pub wallet: String,
    /// `buy` (quote in, tokens out) or `sell`.
    pub side: &'static str,
    pub amount_in: u64,
    pub amount_out: u64,
    /// Tokens bought or sold, base units.
    pub base_amount: u64,
    /// Quote paid (fee included) or received (after the fee), base units.
    pub quote_amount: u64,
    pub fee: u64,
    /// `quote` or `base`: the token the fee was taken in (the curve always takes quote; the AMM takes the
    /// input token).
    pub fee_token: &'static str,
    /// Spot price after the trade, fixed-point.
    pub price: u128,
    /// The wallet's balance of the token just before the trade's transaction (its accounts the transaction
    /// held), base units: what PnL reconciles with before the trade ([`crate::pnl`]). `None` when unknown.
    pub wallet_before: Option<u64>,
}

impl MarketTrade {
    /// Sets the side and amounts of a trade: a buy pays quote in and takes tokens out, a sell the reverse.
    pub fn trade(&mut self, side: curve::Side, amount_in: u64, amount_out: u64, fee: u64) {
        self.side = side.name();
        self.amount_in = amount_in;
        self.amount_out = amount_out;
        (self.base_amount, self.quote_amount) = if side == curve::Side::Buy {
            (amount_out, amount_in)
        } else {
            (amount_in, amount_out)
        };
        self.fee = fee;
    }
}
