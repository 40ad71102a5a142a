//! Decoding of `emit_cpi!` events from inner-instruction data: `EVENT_IX_TAG_LE ++ discriminator ++ borsh`.
//! Events are recognised by these bytes only, never by log text.

use anchor_lang::event::EVENT_IX_TAG_LE;
use anchor_lang::{AnchorDeserialize, Discriminator};
pub use launchpad::events::{EvtClaim, EvtCreateLaunch, EvtCurveComplete, EvtSwap};

#[derive(Debug, Clone)]
pub enum LaunchpadEvent {
    CreateLaunch(EvtCreateLaunch),
    Swap(EvtSwap),
    CurveComplete(EvtCurveComplete),
    Claim(EvtClaim),
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
    } else {
        None
    }
}
