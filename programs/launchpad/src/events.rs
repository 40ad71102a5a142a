//! Events, emitted through `emit_cpi!` so that log truncation cannot lose them. Each carries the post-trade
//! state an indexer needs, so it never has to read an account again. Fields are append-only.

use anchor_lang::prelude::*;

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtCreateLaunch {
    pub pool: Pubkey,
    pub config: Pubkey,
    pub mint: Pubkey,
    pub creator: Pubkey,
    pub quote_mint: Pubkey,
    pub base_vault: Pubkey,
    pub quote_vault: Pubkey,
    pub preset: u8,
    pub quote: u8,
    pub name: String,
    pub symbol: String,
    pub uri: String,
    pub salt: u64,
    pub sqrt_price: u128,
    pub base_reserve: u64,
    pub quote_reserve: u64,
    pub launch_timestamp: i64,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtSwap {
    pub pool: Pubkey,
    pub mint: Pubkey,
    pub trader: Pubkey,
    /// 0 = buy (quote in), 1 = sell (tokens in).
    pub side: u8,
    /// What the trader offered.
    pub amount_offered: u64,
    /// What the trader paid (for a buy, fee included and refund excluded).
    pub amount_in: u64,
    /// What the trader received (for a sell, after the fee).
    pub amount_out: u64,
    /// Minimum out the trader asked for.
    pub min_amount_out: u64,
    pub fee: u64,
    pub creator_fee: u64,
    pub partner_fee: u64,
    /// Buy input returned because the curve completed.
    pub refund: u64,
    pub fee_bps: u16,
    pub sqrt_price: u128,
    pub base_reserve: u64,
    pub quote_reserve: u64,
    pub progress_bps: u16,
    pub creator_fee_unclaimed: u64,
    pub partner_fee_unclaimed: u64,
    pub complete: bool,
    pub timestamp: i64,
    /// `swap_exact_out` (then `amount_offered` is the most the trader would pay and `min_amount_out` the
    /// exact amount asked for) rather than `swap`.
    pub exact_out: bool,
    /// The owner of the referral account the swap named (default: none). `fee` is `creator_fee + partner_fee
    /// + referral_fee`.
    pub referrer: Pubkey,
    /// Paid to the referral account at trade time, out of the partner's part of the fee.
    pub referral_fee: u64,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtCurveComplete {
    pub pool: Pubkey,
    pub mint: Pubkey,
    /// The trader whose buy completed the curve.
    pub trader: Pubkey,
    pub sqrt_price: u128,
    pub base_reserve: u64,
    pub quote_reserve: u64,
    pub timestamp: i64,
}

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtClaim {
    pub pool: Pubkey,
    pub mint: Pubkey,
    pub claimer: Pubkey,
    /// [`CLAIM_KIND_TRADING`], [`CLAIM_KIND_SURPLUS`], [`CLAIM_KIND_LOCKED_LP`], [`CLAIM_KIND_FEE_SHARE`] or
    /// [`CLAIM_KIND_LOCKED_LP_SHARED`].
    pub kind: u8,
    pub amount: u64,
    pub creator_fee_unclaimed: u64,
    pub partner_fee_unclaimed: u64,
    pub timestamp: i64,
    /// Tokens paid (locked-LP claims; 0 otherwise). `amount` is always the quote paid.
    pub base_amount: u64,
}

/// `EvtClaim::kind` of a trading-fee claim.
pub const CLAIM_KIND_TRADING: u8 = 0;
/// `EvtClaim::kind` of a surplus claim.
pub const CLAIM_KIND_SURPLUS: u8 = 1;
/// `EvtClaim::kind` of a locked-LP fee claim.
pub const CLAIM_KIND_LOCKED_LP: u8 = 2;
/// `EvtClaim::kind` of a fee-share recipient's claim (`claimer` is the recipient; quote and tokens paid).
pub const CLAIM_KIND_FEE_SHARE: u8 = 3;
/// `EvtClaim::kind` of a shared locked creator position's fees collected into the pool's vaults and
/// credited to the recipients (`claimer` is whoever sent it; nothing is paid out yet).
pub const CLAIM_KIND_LOCKED_LP_SHARED: u8 = 4;

#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtMigrate {
    pub pool: Pubkey,
    pub mint: Pubkey,
    pub amm_pool: Pubkey,
    pub creator_position: Pubkey,
    pub partner_position: Pubkey,
    /// Tokens and quote deposited into the AMM.
    pub base_amount: u64,
    pub quote_amount: u64,
    /// Liquidity locked in each of the two positions.
    pub liquidity_per_position: u128,
    pub surplus: u64,
    pub creator_surplus: u64,
    pub partner_surplus: u64,
    pub burnt_base: u64,
    /// The curve's final square-root price, at which the AMM opened.
    pub sqrt_price: u128,
    pub migrator: Pubkey,
    pub timestamp: i64,
}

/// The creator proposed to hand the creator role to `pending_creator` (default: the proposal withdrawn).
#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtCreatorProposed {
    pub pool: Pubkey,
    pub mint: Pubkey,
    pub creator: Pubkey,
    pub pending_creator: Pubkey,
    pub timestamp: i64,
}

/// `creator` accepted the creator role from `previous_creator`: from now on it claims the creator's trading
/// fees (those not yet claimed included), surplus and locked-position fees.
#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtCreatorTransferred {
    pub pool: Pubkey,
    pub mint: Pubkey,
    pub previous_creator: Pubkey,
    pub creator: Pubkey,
    pub timestamp: i64,
}

/// The creator role set how the pool's creator fees are shared (the full list, in order; `locked`: final).
#[event]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvtFeeSharesSet {
    pub pool: Pubkey,
    pub mint: Pubkey,
    pub creator: Pubkey,
    pub recipients: Vec<crate::state::FeeRecipient>,
    pub locked: bool,
    pub timestamp: i64,
}
