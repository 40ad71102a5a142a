//! Decoding of `emit_cpi!` events from inner-instruction data: `EVENT_IX_TAG_LE ++ discriminator ++ borsh`.
//! Events are recognised by these bytes only, never by log text.

pub use amm::events as amm_events;
use anchor_lang::event::EVENT_IX_TAG_LE;
use anchor_lang::{AnchorDeserialize, Discriminator};
pub use launchpad::events::{
    EvtClaim, EvtCreateLaunch, EvtCreatorProposed, EvtCreatorTransferred, EvtCurveComplete,
    EvtFeeSharesSet, EvtMigrate, EvtSwap,
};

#[derive(Debug, Clone)]
pub enum LaunchpadEvent {
    CreateLaunch(EvtCreateLaunch),
    Swap(EvtSwap),
    CurveComplete(EvtCurveComplete),
    Claim(EvtClaim),
    Migrate(EvtMigrate),
    CreatorProposed(EvtCreatorProposed),
    CreatorTransferred(EvtCreatorTransferred),
    FeeSharesSet(EvtFeeSharesSet),
}

fn body<T: AnchorDeserialize>(mut data: &[u8]) -> Option<T> {
    T::deserialize(&mut data).ok()
}

/// Decodes the data of a self-CPI to the launchpad program; `None` when it is not a known event.
pub fn decode_event(data: &[u8]) -> Option<LaunchpadEvent> {
    let rest = data.strip_prefix(EVENT_IX_TAG_LE)?;
    let (disc, payload) = (rest.get(..8)?, rest.get(8..)?);
    if disc == EvtSwap::DISCRIMINATOR {
        body(payload).map(LaunchpadEvent::Swap)
    } else if disc == EvtCreateLaunch::DISCRIMINATOR {
        body(payload).map(LaunchpadEvent::CreateLaunch)
    } else if disc == EvtCurveComplete::DISCRIMINATOR {
        body(payload).map(LaunchpadEvent::CurveComplete)
    } else if disc == EvtClaim::DISCRIMINATOR {
        body(payload).map(LaunchpadEvent::Claim)
    } else if disc == EvtMigrate::DISCRIMINATOR {
        body(payload).map(LaunchpadEvent::Migrate)
    } else if disc == EvtCreatorProposed::DISCRIMINATOR {
        body(payload).map(LaunchpadEvent::CreatorProposed)
    } else if disc == EvtCreatorTransferred::DISCRIMINATOR {
        body(payload).map(LaunchpadEvent::CreatorTransferred)
    } else if disc == EvtFeeSharesSet::DISCRIMINATOR {
        body(payload).map(LaunchpadEvent::FeeSharesSet)
    } else {
        None
    }
}

/// An event of the AMM program.
#[derive(Debug, Clone)]
pub enum AmmEvent {
    CreatePool(amm_events::EvtCreatePool),
    CreatePosition(amm_events::EvtCreatePosition),
    AddLiquidity(amm_events::EvtAddLiquidity),
    RemoveLiquidity(amm_events::EvtRemoveLiquidity),
    LockPosition(amm_events::EvtLockPosition),
    Swap(amm_events::EvtSwap),
    ClaimPositionFee(amm_events::EvtClaimPositionFee),
}

/// Decodes the data of a self-CPI to the AMM program; `None` when it is not a known event.
pub fn decode_amm_event(data: &[u8]) -> Option<AmmEvent> {
    use amm_events::*;
    let rest = data.strip_prefix(EVENT_IX_TAG_LE)?;
    let (disc, payload) = (rest.get(..8)?, rest.get(8..)?);
    if disc == EvtSwap::DISCRIMINATOR {
        body(payload).map(AmmEvent::Swap)
    } else if disc == EvtCreatePool::DISCRIMINATOR {
        body(payload).map(AmmEvent::CreatePool)
    } else if disc == EvtCreatePosition::DISCRIMINATOR {
        body(payload).map(AmmEvent::CreatePosition)
    } else if disc == EvtAddLiquidity::DISCRIMINATOR {
        body(payload).map(AmmEvent::AddLiquidity)
    } else if disc == EvtRemoveLiquidity::DISCRIMINATOR {
        body(payload).map(AmmEvent::RemoveLiquidity)
    } else if disc == EvtLockPosition::DISCRIMINATOR {
        body(payload).map(AmmEvent::LockPosition)
    } else if disc == EvtClaimPositionFee::DISCRIMINATOR {
        body(payload).map(AmmEvent::ClaimPositionFee)
    } else {
        None
    }
}
