//! The program's one error enum. Codes are ABI: append new variants at the end, never reorder or remove.

use anchor_lang::error::Source;
use anchor_lang::prelude::*;
use curve::CurveError;

#[error_code]
pub enum LaunchpadError {
    #[msg("Signer is not the admin")]
    Unauthorized, // 6000
    #[msg("Unknown curve preset")]
    InvalidPreset, // 6001
    #[msg("Unknown quote asset")]
    InvalidQuote, // 6002
    #[msg("Quote mint does not match the quote asset")]
    InvalidQuoteMint, // 6003
    #[msg("Curve definition is invalid (segments, prices or liquidity)")]
    InvalidCurve, // 6004
    #[msg("Curve does not sell the sale supply for the threshold at the migration price")]
    CurveMismatch, // 6005
    #[msg("Fee schedule is invalid")]
    InvalidFee, // 6006
    #[msg("Share above 100%")]
    InvalidShare, // 6007
    #[msg("Graduation threshold does not match the quote asset")]
    InvalidThreshold, // 6008
    #[msg("Name must be 1 to 32 characters with no control characters")]
    InvalidName, // 6009
    #[msg("Symbol must be 1 to 10 uppercase ASCII letters or digits")]
    InvalidSymbol, // 6010
    #[msg("URI must be 1 to 200 bytes")]
    InvalidUri, // 6011
    #[msg("Amount must be greater than zero")]
    ZeroAmount, // 6012
    #[msg("Amount too small: the trade would return nothing")]
    AmountTooSmall, // 6013
    #[msg("Slippage exceeded: output below the minimum")]
    SlippageExceeded, // 6014
    #[msg("The curve is complete; it trades no more")]
    CurveComplete, // 6015
    #[msg("The pool has migrated; it trades on the AMM now")]
    PoolMigrated, // 6016
    #[msg("Not enough liquidity on the curve")]
    InsufficientLiquidity, // 6017
    #[msg("Math overflow")]
    MathOverflow, // 6018
    #[msg("Pool state is inconsistent with its curve")]
    InconsistentState, // 6019
    #[msg("Signer is not entitled to this claim")]
    NotEntitled, // 6020
    #[msg("Nothing to claim")]
    NothingToClaim, // 6021
    #[msg("Unknown swap side")]
    InvalidSide, // 6022
    #[msg("Too many curve segments")]
    TooManySegments, // 6023
    #[msg("The curve is not complete yet; it migrates once it reaches the threshold")]
    CurveNotComplete, // 6024
    #[msg("The pool has already migrated")]
    AlreadyMigrated, // 6025
    #[msg("The pool has not migrated yet")]
    NotMigrated, // 6026
    #[msg("Surplus already claimed")]
    SurplusAlreadyClaimed, // 6027
    #[msg("Not the signer's locked position of this pool")]
    InvalidPosition, // 6028
    #[msg("AMM account does not match the migration")]
    InvalidAmmAccount, // 6029
    #[msg("Only the program's upgrade authority (or the build-time initialize authority) may initialize it")]
    NotUpgradeAuthority, // 6030
    #[msg("Program-data account missing or not this program's")]
    InvalidProgramData, // 6031
    #[msg("Quote mints must be classic SPL Token mints")]
    QuoteMintNotClassic, // 6032
    #[msg("Config differs from the preset's economics")]
    PresetMismatch, // 6033
    #[msg("This config is disabled for new launches")]
    ConfigDisabled, // 6034
    #[msg("Signer is not the proposed admin or partner")]
    NotProposed, // 6035
    #[msg("Signer is not the proposed creator of this pool")]
    NotProposedCreator, // 6036
    #[msg("This pool's creator fees are shared: its recipients claim them with claim_fee_share")]
    FeesShared, // 6037
    #[msg("The fee shares are locked; they can no longer change")]
    FeeSharesLocked, // 6038
    #[msg("Fee shares must name 1 to 10 distinct wallets with shares above zero summing to 10,000 bps")]
    InvalidFeeShares, // 6039
    #[msg("Too many former recipients still have fees to claim: pay them out with the change (name their token accounts) or let them claim first")]
    FeeSharesFull, // 6040
    #[msg("A trader cannot be its own referral")]
    SelfReferral, // 6041
    #[msg("A creator handover is pending: the creator role's shares and claims are frozen until it is accepted or withdrawn")]
    HandoverPending, // 6042
    #[msg("After migration the fee shares change only with the pool's vaults and AMM accounts: the creator position's fees are credited by the old shares first")]
    SettlementAccountsMissing, // 6043
    #[msg("The referral account must be its owner's associated token account of the quote mint (vaults are refused)")]
    ReferralNotAssociated, // 6044
}

impl From<CurveError> for LaunchpadError {
    fn from(e: CurveError) -> Self {
        match e {
            CurveError::MathOverflow => LaunchpadError::MathOverflow,
            CurveError::ZeroAmount => LaunchpadError::ZeroAmount,
            CurveError::AmountTooSmall => LaunchpadError::AmountTooSmall,
            CurveError::CurveComplete => LaunchpadError::CurveComplete,
            CurveError::InsufficientLiquidity => LaunchpadError::InsufficientLiquidity,
            CurveError::InvalidCurve => LaunchpadError::InvalidCurve,
            CurveError::InvalidFee => LaunchpadError::InvalidFee,
            CurveError::InvalidShare => LaunchpadError::InvalidShare,
            CurveError::CurveMismatch => LaunchpadError::CurveMismatch,
            CurveError::InconsistentState => LaunchpadError::InconsistentState,
        }
    }
}

/// `?` on curve results inside handlers, [`curve::SafeMath`]'s included (`a.safe_add(b).or_launchpad()?`).
pub trait CurveResultExt<T> {
    /// The curve error as this program's, with the caller's file and line as its origin in the program log
    /// (what `error!` at the call site would log). `#[track_caller]`: the location is a constant, and the log
    /// line is written only when the error is.
    #[track_caller]
    fn or_launchpad(self) -> Result<T>;
}

impl<T> CurveResultExt<T> for core::result::Result<T, CurveError> {
    #[track_caller]
    fn or_launchpad(self) -> Result<T> {
        let caller = core::panic::Location::caller();
        self.map_err(|e| {
            Error::from(LaunchpadError::from(e)).with_source(Source {
                filename: caller.file(),
                line: caller.line(),
            })
        })
    }
}
