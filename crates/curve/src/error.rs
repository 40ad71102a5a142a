//! The one error type of the curve math. The program maps each variant onto its own append-only error code.

/// Why a curve computation was refused. Every fallible function in this crate returns this instead of panicking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurveError {
    /// An intermediate or a result left its integer type.
    MathOverflow,
    /// The amount given is zero.
    ZeroAmount,
    /// The trade is so small that, after fees and rounding, the trader would receive nothing.
    AmountTooSmall,
    /// The curve has been filled to the graduation threshold; it trades no more.
    CurveComplete,
    /// The trade asks for more than the curve holds (selling below the start price, or buying past the end).
    InsufficientLiquidity,
    /// The curve definition breaks a rule (see [`crate::curve::Curve::validate`]).
    InvalidCurve,
    /// The fee schedule breaks a rule (see [`crate::fee::FeeSchedule::validate`]).
    InvalidFee,
    /// A share in basis points is above 100%.
    InvalidShare,
    /// The curve does not sell the sale supply for the threshold within the stated tolerances.
    CurveMismatch,
    /// The pool state is inconsistent with the curve (never expected; a guard, not a path).
    InconsistentState,
}

impl core::fmt::Display for CurveError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = match self {
            CurveError::MathOverflow => "math overflow",
            CurveError::ZeroAmount => "amount is zero",
            CurveError::AmountTooSmall => "amount too small: the trade would return nothing",
            CurveError::CurveComplete => "the curve is complete",
            CurveError::InsufficientLiquidity => "not enough liquidity on the curve",
            CurveError::InvalidCurve => "invalid curve definition",
            CurveError::InvalidFee => "invalid fee schedule",
            CurveError::InvalidShare => "share above 100%",
            CurveError::CurveMismatch => "curve does not sell the sale supply for the threshold",
            CurveError::InconsistentState => "pool state inconsistent with the curve",
        };
        f.write_str(s)
    }
}

pub type Result<T> = core::result::Result<T, CurveError>;
