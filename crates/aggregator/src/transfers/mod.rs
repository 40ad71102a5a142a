//! The one state machine every cross-chain transfer is reported in, whichever bridge aggregator carries
//! it, and the mapping of LI.FI's and Relay's states onto it. Pure: the status route feeds it what the
//! provider said and the clock.
//!
//! ```text
//!            origin tx reported
//!  (built) ───────────────────▶ pending ──▶ done   (COMPLETED | PARTIAL | REFUNDED)
//!                                │   ▲  ──▶ failed (the provider says so, or the hash is not a transfer)
//!                                └───┘
//!           substatus: WAIT_SOURCE_CONFIRMATIONS, WAIT_DESTINATION_TRANSACTION, REFUND_IN_PROGRESS,
//!                      BRIDGE_NOT_AVAILABLE, CHAIN_NOT_AVAILABLE, UNKNOWN, and DELAYED once the
//!                      transfer is pending longer than the delay threshold (15 min by default)
//!           failed/EXPIRED: still unrecognized by the provider past the expiry time (1 h by default)
//! ```
//! `done` and `failed` are terminal: once reached, the provider is not asked again.

use serde::Serialize;

pub mod store;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pending,
    Done,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            // The index's one non-terminal status.
            Status::Pending => index::store::cross_chain::PENDING,
            Status::Done => "done",
            Status::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        match s {
            index::store::cross_chain::PENDING => Some(Status::Pending),
            "done" => Some(Status::Done),
            "failed" => Some(Status::Failed),
            _ => None,
        }
    }

    pub fn is_terminal(self) -> bool {
        self != Status::Pending
    }
}

/// A state in the machine: status plus sub-status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub status: Status,
    pub substatus: String,
}

impl State {
    fn new(status: Status, substatus: &str) -> State {
        State {
            status,
            substatus: substatus.to_string(),
        }
    }
}

/// The sub-status of a transfer pending longer than the delay threshold.
pub const DELAYED: &str = "DELAYED";

/// LI.FI's `/v1/status` `status` and `substatus`.
pub fn from_lifi(status: &str, substatus: Option<&str>) -> State {
    let sub = substatus.unwrap_or("");
    match status {
        "DONE" => match sub {
            "PARTIAL" => State::new(Status::Done, "PARTIAL"),
            "REFUNDED" => State::new(Status::Done, "REFUNDED"),
            _ => State::new(Status::Done, "COMPLETED"),
        },
        "FAILED" => State::new(Status::Failed, if sub.is_empty() { "FAILED" } else { sub }),
        // The hash is not a transfer LI.FI knows how to follow.
        "INVALID" => State::new(Status::Failed, "INVALID_TRANSACTION"),
        "PENDING" => match sub {
            "WAIT_SOURCE_CONFIRMATIONS"
            | "WAIT_DESTINATION_TRANSACTION"
            | "BRIDGE_NOT_AVAILABLE"
            | "CHAIN_NOT_AVAILABLE"
            | "REFUND_IN_PROGRESS" => State::new(Status::Pending, sub),
            _ => State::new(Status::Pending, "UNKNOWN"),
        },
        // NOT_FOUND: the origin transaction is not indexed yet (or not mined): still waiting on it.
        _ => State::new(Status::Pending, "WAIT_SOURCE_CONFIRMATIONS"),
    }
}

/// Relay's `/intents/status/v2` `status`.
pub fn from_relay(status: &str) -> State {
    match status {
        "success" => State::new(Status::Done, "COMPLETED"),
        "refund" | "refunded" => State::new(Status::Done, "REFUNDED"),
        "failure" => State::new(Status::Failed, "FAILED"),
        "delayed" => State::new(Status::Pending, DELAYED),
        "pending" | "submitted" => State::new(Status::Pending, "WAIT_DESTINATION_TRANSACTION"),
        // waiting, depositing, unknown: the deposit is not confirmed yet.
        _ => State::new(Status::Pending, "WAIT_SOURCE_CONFIRMATIONS"),
    }
}

/// The state to report: a transfer still pending `delay_secs` after its origin transaction was
/// reported is `pending`/`DELAYED`: late, not lost, and still in flight.
pub fn with_delay(state: State, started_at: i64, now: i64, delay_secs: i64) -> State {
    if state.status == Status::Pending && now.saturating_sub(started_at) >= delay_secs {
        State::new(Status::Pending, DELAYED)
    } else {
        state
    }
}

/// The sub-status of a transfer the provider never recognized within the expiry time: `failed`, and the
/// wallet is free again.
pub const EXPIRED: &str = "EXPIRED";

/// Whether `substatus` says only that the provider has not (yet) recognized the origin transaction as a
/// transfer (LI.FI's NOT_FOUND, Relay's waiting, both read as waiting on the source; or late).
pub fn unrecognized(substatus: &str) -> bool {
    matches!(substatus, "WAIT_SOURCE_CONFIRMATIONS" | "UNKNOWN" | DELAYED)
}

/// The state to report: a transfer pending `expiry_secs` after its origin transaction was reported that
/// the provider never `recognized` is `failed`/`EXPIRED` (its origin transaction was dropped, or is not a
/// transfer the provider follows). A recognized one is only ever late ([`with_delay`]).
pub fn with_expiry(
    state: State,
    recognized: bool,
    started_at: i64,
    now: i64,
    expiry_secs: i64,
) -> State {
    if state.status == Status::Pending
        && !recognized
        && now.saturating_sub(started_at) >= expiry_secs
    {
        State::new(Status::Failed, EXPIRED)
    } else {
        state
    }
}

/// Whether a transfer in `status` stops its wallet from building another bridge.
pub fn in_flight(status: Status) -> bool {
    status == Status::Pending
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifi_states_map_onto_the_machine() {
        assert_eq!(
            from_lifi("NOT_FOUND", None),
            State::new(Status::Pending, "WAIT_SOURCE_CONFIRMATIONS")
        );
        assert_eq!(
            from_lifi("PENDING", Some("WAIT_DESTINATION_TRANSACTION")),
            State::new(Status::Pending, "WAIT_DESTINATION_TRANSACTION")
        );
        assert_eq!(
            from_lifi("PENDING", Some("SOMETHING_NEW")).substatus,
            "UNKNOWN"
        );
        assert_eq!(
            from_lifi("DONE", Some("COMPLETED")),
            State::new(Status::Done, "COMPLETED")
        );
        assert_eq!(from_lifi("DONE", Some("PARTIAL")).substatus, "PARTIAL");
        assert_eq!(from_lifi("DONE", Some("REFUNDED")).substatus, "REFUNDED");
        assert_eq!(
            from_lifi("FAILED", Some("SLIPPAGE_EXCEEDED")),
            State::new(Status::Failed, "SLIPPAGE_EXCEEDED")
        );
        assert_eq!(from_lifi("INVALID", None).status, Status::Failed);
    }

    #[test]
    fn relay_states_map_onto_the_machine() {
        for (relay, status, sub) in [
            ("waiting", Status::Pending, "WAIT_SOURCE_CONFIRMATIONS"),
            ("depositing", Status::Pending, "WAIT_SOURCE_CONFIRMATIONS"),
            ("pending", Status::Pending, "WAIT_DESTINATION_TRANSACTION"),
            ("submitted", Status::Pending, "WAIT_DESTINATION_TRANSACTION"),
            ("delayed", Status::Pending, DELAYED),
            ("success", Status::Done, "COMPLETED"),
            ("refund", Status::Done, "REFUNDED"),
            ("failure", Status::Failed, "FAILED"),
        ] {
            assert_eq!(from_relay(relay), State::new(status, sub), "{relay}");
        }
    }

    #[test]
    fn only_a_transfer_the_provider_never_recognized_expires() {
        let waiting = from_lifi("NOT_FOUND", None);
        assert_eq!(
            with_expiry(waiting.clone(), false, 0, 3_599, 3_600),
            waiting
        );
        let expired = with_expiry(waiting.clone(), false, 0, 3_600, 3_600);
        assert_eq!(
            (expired.status, expired.substatus.as_str()),
            (Status::Failed, EXPIRED)
        );
        assert!(!in_flight(expired.status));
        let late = with_delay(waiting.clone(), 0, 3_600, 900);
        assert!(unrecognized(&late.substatus));
        assert_eq!(with_expiry(late.clone(), true, 0, 86_400, 3_600), late);
        let done = from_lifi("DONE", None);
        assert_eq!(with_expiry(done.clone(), false, 0, 86_400, 3_600), done);
        assert!(!unrecognized("WAIT_DESTINATION_TRANSACTION"));
    }

    #[test]
    fn pending_past_the_threshold_is_delayed_never_failed() {
        let pending = State::new(Status::Pending, "WAIT_DESTINATION_TRANSACTION");
        assert_eq!(
            with_delay(pending.clone(), 1_000, 1_000 + 899, 900),
            pending
        );
        let late = with_delay(pending, 1_000, 1_000 + 900, 900);
        assert_eq!(late, State::new(Status::Pending, DELAYED));
        assert!(in_flight(late.status));
        let done = State::new(Status::Done, "COMPLETED");
        assert_eq!(with_delay(done.clone(), 0, 10_000, 900), done);
        assert!(!in_flight(Status::Failed) && !in_flight(Status::Done));
    }
}
