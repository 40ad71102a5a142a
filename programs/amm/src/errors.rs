//! The AMM's one error enum. Codes are ABI: append only.

use anchor_lang::error::Source;
use anchor_lang::prelude::*;
use curve::CurveError;

#[error_code]
pub enum AmmError {
    #[msg("Mints must be given in ascending address order and differ")]
    MintsNotSorted, // 6000
    #[msg("Swap fee above the maximum")]
    InvalidFee, // 6001
    #[msg("Amount must be greater than zero")]
    ZeroAmount, // 6002
    #[msg("Amount too small: the trade would return nothing")]
    AmountTooSmall, // 6003
    #[msg("Slippage exceeded")]
    SlippageExceeded, // 6004
    #[msg("Not enough liquidity")]
    InsufficientLiquidity, // 6005
    #[msg("This liquidity is permanently locked and can never be removed")]
    LiquidityLocked, // 6006
    #[msg("Math overflow")]
    MathOverflow, // 6007
    #[msg("Nothing to claim")]
    NothingToClaim, // 6008
    #[msg("The first deposit sets the price: pass liquidity 0 and the exact amounts")]
    FirstDepositLiquidity, // 6009
    #[msg("Pool state is inconsistent")]
    InconsistentState, // 6010
    #[msg("Mint has a Token-2022 extension the AMM refuses (transfer fee or hook, permanent delegate, non-transferable, default frozen, confidential transfers, pausable, or one it does not know)")]
    UnsupportedMintExtension, // 6011
    #[msg("Only the owner (or the pool's creator) may create a position for the owner")]
    Unauthorized, // 6012
    #[msg("Only the pool's creator makes the first deposit (it sets the price)")]
    FirstDepositNotCreator, // 6013
    #[msg("Only the position's owner (or the pool's creator) may add liquidity to it")]
    NotPositionOwner, // 6014
}

impl From<CurveError> for AmmError {
    fn from(e: CurveError) -> Self {
        match e {
            CurveError::ZeroAmount => AmmError::ZeroAmount,
            CurveError::AmountTooSmall => AmmError::AmountTooSmall,
            CurveError::InsufficientLiquidity => AmmError::InsufficientLiquidity,
            CurveError::InvalidFee => AmmError::InvalidFee,
            CurveError::MathOverflow => AmmError::MathOverflow,
            _ => AmmError::InconsistentState,
        }
    }
}

/// `?` on curve results inside handlers, [`curve::SafeMath`]'s included (`a.safe_add(b).or_amm()?`).
pub trait CurveResultExt<T> {
    /// The curve error as this program's, with the caller's file and line as its origin in the program log
    /// (what `error!` at the call site would log). `#[track_caller]`: the location is a constant, and the log
    /// line is written only when the error is.
    #[track_caller]
    fn or_amm(self) -> Result<T>;
}

impl<T> CurveResultExt<T> for core::result::Result<T, CurveError> {
    #[track_caller]
    fn or_amm(self) -> Result<T> {
        let caller = core::panic::Location::caller();
        self.map_err(|e| {
            Error::from(AmmError::from(e)).with_source(Source {
                filename: caller.file(),
                line: caller.line(),
            })
        })
    }
}
