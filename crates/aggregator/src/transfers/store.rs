//! Cross-chain quotes, transfers and their transitions, kept by the index crate
//! (`index::store::cross_chain`, which holds the SQL); here they are read and written in the state
//! machine's types.

use super::{State, Status};
use index::store::cross_chain::{self as rows, TransferState};
use index::Store;

/// A persisted quote.
pub type QuoteRow = rows::CrossChainQuote;

/// A persisted transfer: where a quote's origin transaction stands.
#[derive(Debug, Clone)]
pub struct TransferRow {
    pub origin_tx_hash: String,
    pub state: State,
    pub destination_tx_hash: Option<String>,
    pub amount_received: Option<String>,
    pub message: Option<String>,
    pub started_at: i64,
    pub updated_at: i64,
}

/// What the provider said about a transfer at one poll.
pub struct Observation {
    pub state: State,
    pub destination_tx_hash: Option<String>,
    pub amount_received: Option<String>,
    pub message: Option<String>,
}

fn stored(state: &State) -> TransferState {
    TransferState {
        status: state.status.as_str().to_string(),
        substatus: state.substatus.clone(),
    }
}

fn read(state: TransferState) -> State {
    State {
        status: Status::parse(&state.status).unwrap_or(Status::Pending),
        substatus: state.substatus,
    }
}

pub async fn insert_quote(store: &Store, q: &QuoteRow, now: i64) -> Result<(), sqlx::Error> {
    store.insert_cross_chain_quote(q, now).await
}

pub async fn quote(store: &Store, quote_id: &str) -> Result<Option<QuoteRow>, sqlx::Error> {
    store.cross_chain_quote(quote_id).await
}

pub async fn mark_built(store: &Store, quote_id: &str, now: i64) -> Result<(), sqlx::Error> {
    store.mark_cross_chain_built(quote_id, now).await
}

/// Another transfer of `wallet` that is still in flight, if any.
pub async fn in_flight(
    store: &Store,
    wallet: &str,
    except: &str,
) -> Result<Option<String>, sqlx::Error> {
    store.transfer_in_flight(wallet, except).await
}

pub async fn transfer(store: &Store, quote_id: &str) -> Result<Option<TransferRow>, sqlx::Error> {
    Ok(store.transfer(quote_id).await?.map(|t| TransferRow {
        origin_tx_hash: t.origin_tx_hash,
        state: read(t.state),
        destination_tx_hash: t.destination_tx_hash,
        amount_received: t.amount_received,
        message: t.message,
        started_at: t.started_at,
        updated_at: t.updated_at,
    }))
}

/// Starts following a transfer (its first state is transition 0). Idempotent: a transfer already
/// started keeps its first origin hash.
pub async fn start_transfer(
    store: &Store,
    q: &QuoteRow,
    origin_tx_hash: &str,
    state: &State,
    now: i64,
) -> Result<(), sqlx::Error> {
    store
        .start_transfer(q, origin_tx_hash, &stored(state), now)
        .await
}

/// Records a poll: the transfer's current state, and a transition when the state changed. A terminal
/// state is never left.
pub async fn record_poll(
    store: &Store,
    quote_id: &str,
    seen: &Observation,
    now: i64,
) -> Result<(), sqlx::Error> {
    let seen = rows::Observation {
        state: stored(&seen.state),
        destination_tx_hash: seen.destination_tx_hash.clone(),
        amount_received: seen.amount_received.clone(),
        message: seen.message.clone(),
    };
    store.record_transfer_poll(quote_id, &seen, now).await
}

/// A transfer's transitions, oldest first.
pub async fn history(store: &Store, quote_id: &str) -> Result<Vec<rows::Transition>, sqlx::Error> {
    store.transfer_history(quote_id).await
}

/// Whether the provider ever recognized the transfer: a transition past waiting on the source.
pub async fn recognized(store: &Store, quote_id: &str) -> Result<bool, sqlx::Error> {
    Ok(history(store, quote_id)
        .await?
        .iter()
        .any(|(_, substatus, _)| !super::unrecognized(substatus)))
}

/// Fails, as `EXPIRED`, the transfers of `wallet` pending since `cutoff` or earlier that the provider never
/// recognized, so that nobody needs to poll them for the wallet to be free again.
pub async fn expire_unrecognized(
    store: &Store,
    wallet: &str,
    cutoff: i64,
    now: i64,
) -> Result<(), sqlx::Error> {
    for id in store.transfers_pending_since(wallet, cutoff).await? {
        if !recognized(store, &id).await? {
            record_poll(store, &id, &Observation::expired(), now).await?;
        }
    }
    Ok(())
}

impl Observation {
    /// A transfer given up on: `failed`/`EXPIRED`.
    pub fn expired() -> Observation {
        Observation {
            state: State {
                status: Status::Failed,
                substatus: super::EXPIRED.into(),
            },
            destination_tx_hash: None,
            amount_received: None,
            message: Some(
                "the bridge never recognized the origin transaction within the expiry time; the wallet may \
                 bridge again"
                    .into(),
            ),
        }
    }
}
