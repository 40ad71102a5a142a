//! Cross-chain quotes, transfers and their transitions in the index database (PostgreSQL or SQLite,
//! the same statements).

use super::{State, Status};
use index::Store;
use sqlx::Row;

/// A persisted quote.
#[derive(Debug, Clone)]
pub struct QuoteRow {
    pub quote_id: String,
    pub provider: String,
    pub from_chain: String,
    pub to_chain: String,
    pub token_in: String,
    pub token_out: String,
    pub amount_in: String,
    pub taker: String,
    pub recipient: String,
    pub provider_ref: Option<String>,
    pub provider_quote: serde_json::Value,
    pub quote: serde_json::Value,
    pub expires_at: i64,
}

/// A persisted transfer: where a quote's origin transaction stands.
#[derive(Debug, Clone)]
pub struct TransferRow {
    #[expect(
        dead_code,
        reason = "read with the row; the status answer does not report it"
    )]
    pub wallet: String,
    pub origin_tx_hash: String,
    pub state: State,
    pub destination_tx_hash: Option<String>,
    pub amount_received: Option<String>,
    pub message: Option<String>,
    pub started_at: i64,
    pub updated_at: i64,
}

pub async fn insert_quote(store: &Store, q: &QuoteRow, now: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO cross_chain_quotes (quote_id, provider, from_chain, to_chain, token_in, token_out, \
         amount_in, amount_out, min_amount_out, taker, recipient, provider_ref, provider_quote, quote, \
         created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
    )
    .bind(q.quote_id.clone())
    .bind(q.provider.clone())
    .bind(q.from_chain.clone())
    .bind(q.to_chain.clone())
    .bind(q.token_in.clone())
    .bind(q.token_out.clone())
    .bind(q.amount_in.clone())
    .bind(q.quote["amountOut"].as_str().unwrap_or("0").to_string())
    .bind(q.quote["minAmountOut"].as_str().unwrap_or("0").to_string())
    .bind(q.taker.clone())
    .bind(q.recipient.clone())
    .bind(q.provider_ref.clone())
    .bind(q.provider_quote.to_string())
    .bind(q.quote.to_string())
    .bind(now)
    .bind(q.expires_at)
    .execute(store.pool())
    .await?;
    Ok(())
}

pub async fn quote(store: &Store, quote_id: &str) -> Result<Option<QuoteRow>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT quote_id, provider, from_chain, to_chain, token_in, token_out, amount_in, taker, recipient, \
         provider_ref, provider_quote, quote, expires_at FROM cross_chain_quotes WHERE quote_id = $1",
    )
    .bind(quote_id.to_string())
    .fetch_optional(store.pool())
    .await?;
    Ok(row.map(|r| {
        let json = |i: usize| serde_json::from_str(&r.get::<String, _>(i)).unwrap_or_default();
        QuoteRow {
            quote_id: r.get(0),
            provider: r.get(1),
            from_chain: r.get(2),
            to_chain: r.get(3),
            token_in: r.get(4),
            token_out: r.get(5),
            amount_in: r.get(6),
            taker: r.get(7),
            recipient: r.get(8),
            provider_ref: r.get(9),
            provider_quote: json(10),
            quote: json(11),
            expires_at: r.get(12),
        }
    }))
}

pub async fn mark_built(store: &Store, quote_id: &str, now: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE cross_chain_quotes SET built_at = $1 WHERE quote_id = $2")
        .bind(now)
        .bind(quote_id.to_string())
        .execute(store.pool())
        .await?;
    Ok(())
}

/// Another transfer of `wallet` that is still in flight, if any.
pub async fn in_flight(
    store: &Store,
    wallet: &str,
    except: &str,
) -> Result<Option<String>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT quote_id FROM cross_chain_transfers WHERE wallet = $1 AND status = $2 AND quote_id <> $3 \
         ORDER BY started_at LIMIT 1",
    )
    .bind(wallet.to_string())
    .bind(Status::Pending.as_str())
    .bind(except.to_string())
    .fetch_optional(store.pool())
    .await?;
    Ok(row.map(|r| r.get(0)))
}

pub async fn transfer(store: &Store, quote_id: &str) -> Result<Option<TransferRow>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT wallet, origin_tx_hash, status, substatus, destination_tx_hash, amount_received, message, \
         started_at, updated_at FROM cross_chain_transfers WHERE quote_id = $1",
    )
    .bind(quote_id.to_string())
    .fetch_optional(store.pool())
    .await?;
    Ok(row.map(|r| TransferRow {
        wallet: r.get(0),
        origin_tx_hash: r.get(1),
        state: State {
            status: Status::parse(&r.get::<String, _>(2)).unwrap_or(Status::Pending),
            substatus: r.get(3),
        },
        destination_tx_hash: r.get(4),
        amount_received: r.get(5),
        message: r.get(6),
        started_at: r.get(7),
        updated_at: r.get(8),
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
    let mut tx = store.pool().begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO cross_chain_transfers (quote_id, wallet, origin_chain, origin_tx_hash, to_chain, status, \
         substatus, started_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
         ON CONFLICT (quote_id) DO NOTHING",
    )
    .bind(q.quote_id.clone())
    .bind(q.taker.clone())
    .bind(q.from_chain.clone())
    .bind(origin_tx_hash.to_string())
    .bind(q.to_chain.clone())
    .bind(state.status.as_str())
    .bind(state.substatus.clone())
    .bind(now)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 1 {
        insert_event(&mut tx, &q.quote_id, 0, state, now).await?;
    }
    tx.commit().await
}

async fn insert_event(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    quote_id: &str,
    seq: i64,
    state: &State,
    now: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO cross_chain_events (quote_id, seq, status, substatus, at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (quote_id, seq) DO NOTHING",
    )
    .bind(quote_id.to_string())
    .bind(seq)
    .bind(state.status.as_str())
    .bind(state.substatus.clone())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// What the provider said about a transfer at one poll.
pub struct Observation {
    pub state: State,
    pub destination_tx_hash: Option<String>,
    pub amount_received: Option<String>,
    pub message: Option<String>,
}

/// Records a poll: the transfer's current state, and a transition when the state changed. A terminal
/// state is never left.
pub async fn record_poll(
    store: &Store,
    quote_id: &str,
    seen: &Observation,
    now: i64,
) -> Result<(), sqlx::Error> {
    let mut tx = store.pool().begin().await?;
    let row =
        sqlx::query("SELECT status, substatus FROM cross_chain_transfers WHERE quote_id = $1")
            .bind(quote_id.to_string())
            .fetch_optional(&mut *tx)
            .await?;
    let Some(row) = row else {
        return tx.commit().await;
    };
    let (status, substatus): (String, String) = (row.get(0), row.get(1));
    if Status::parse(&status).is_some_and(Status::is_terminal) {
        return tx.commit().await;
    }
    let changed = status != seen.state.status.as_str() || substatus != seen.state.substatus;
    sqlx::query(
        "UPDATE cross_chain_transfers SET status = $1, substatus = $2, \
         destination_tx_hash = COALESCE($3, destination_tx_hash), amount_received = COALESCE($4, amount_received), \
         message = $5, updated_at = $6 WHERE quote_id = $7",
    )
    .bind(seen.state.status.as_str())
    .bind(seen.state.substatus.clone())
    .bind(seen.destination_tx_hash.clone())
    .bind(seen.amount_received.clone())
    .bind(seen.message.clone())
    .bind(now)
    .bind(quote_id.to_string())
    .execute(&mut *tx)
    .await?;
    if changed {
        let seq: i64 = sqlx::query("SELECT COUNT(*) FROM cross_chain_events WHERE quote_id = $1")
            .bind(quote_id.to_string())
            .fetch_one(&mut *tx)
            .await?
            .get(0);
        insert_event(&mut tx, quote_id, seq, &seen.state, now).await?;
    }
    tx.commit().await
}

/// A transfer's transitions, oldest first.
pub async fn history(
    store: &Store,
    quote_id: &str,
) -> Result<Vec<(String, String, i64)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT status, substatus, at FROM cross_chain_events WHERE quote_id = $1 ORDER BY seq",
    )
    .bind(quote_id.to_string())
    .fetch_all(store.pool())
    .await?;
    Ok(rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect())
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
    let ids: Vec<String> = sqlx::query_scalar(
        "SELECT quote_id FROM cross_chain_transfers WHERE wallet = $1 AND status = $2 AND started_at <= $3",
    )
    .bind(wallet.to_string())
    .bind(Status::Pending.as_str())
    .bind(cutoff)
    .fetch_all(store.pool())
    .await?;
    for id in ids {
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
