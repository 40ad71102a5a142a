//! The API's cross-chain tables: the quotes it gave (`cross_chain_quotes`), the transfers it follows
//! (`cross_chain_transfers`) and each transfer's transitions (`cross_chain_events`). A transfer's status is
//! [`PENDING`] until it reaches a terminal one, which it never leaves; what the statuses mean and how a
//! bridge's answers map onto them is the API's (`crates/aggregator/src/transfers`).

use super::Store;
use sqlx::Row as _;

type Result<T> = std::result::Result<T, sqlx::Error>;

/// The one status that is not terminal.
pub const PENDING: &str = "pending";

/// A quote as given to the caller (amounts in base units, as text; the JSON documents as sent and received).
#[derive(Debug, Clone)]
pub struct CrossChainQuote {
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
    /// The composite quote the caller received (its `amountOut` and `minAmountOut` are also stored as
    /// columns).
    pub quote: serde_json::Value,
    pub expires_at: i64,
}

/// Where a transfer stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferState {
    pub status: String,
    pub substatus: String,
}

/// A followed transfer: where a quote's origin transaction stands.
#[derive(Debug, Clone)]
pub struct Transfer {
    pub wallet: String,
    pub origin_tx_hash: String,
    pub state: TransferState,
    pub destination_tx_hash: Option<String>,
    pub amount_received: Option<String>,
    pub message: Option<String>,
    pub started_at: i64,
    pub updated_at: i64,
}

/// What the bridge said about a transfer at one poll.
#[derive(Debug, Clone)]
pub struct Observation {
    pub state: TransferState,
    pub destination_tx_hash: Option<String>,
    pub amount_received: Option<String>,
    pub message: Option<String>,
}

/// One transition of a transfer: status, sub-status, unix seconds.
pub type Transition = (String, String, i64);

impl Store {
    pub async fn insert_cross_chain_quote(&self, q: &CrossChainQuote, now: i64) -> Result<()> {
        let text = |field: &str| q.quote[field].as_str().unwrap_or("0").to_string();
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
        .bind(text("amountOut"))
        .bind(text("minAmountOut"))
        .bind(q.taker.clone())
        .bind(q.recipient.clone())
        .bind(q.provider_ref.clone())
        .bind(q.provider_quote.to_string())
        .bind(q.quote.to_string())
        .bind(now)
        .bind(q.expires_at)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    pub async fn cross_chain_quote(&self, quote_id: &str) -> Result<Option<CrossChainQuote>> {
        let row = sqlx::query(
            "SELECT quote_id, provider, from_chain, to_chain, token_in, token_out, amount_in, taker, recipient, \
             provider_ref, provider_quote, quote, expires_at FROM cross_chain_quotes WHERE quote_id = $1",
        )
        .bind(quote_id.to_string())
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| {
            let json = |i: usize| serde_json::from_str(&r.get::<String, _>(i)).unwrap_or_default();
            CrossChainQuote {
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

    /// Notes that the quote's origin transaction was built.
    pub async fn mark_cross_chain_built(&self, quote_id: &str, now: i64) -> Result<()> {
        sqlx::query("UPDATE cross_chain_quotes SET built_at = $1 WHERE quote_id = $2")
            .bind(now)
            .bind(quote_id.to_string())
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The oldest other transfer of `wallet` still pending, if any.
    pub async fn transfer_in_flight(&self, wallet: &str, except: &str) -> Result<Option<String>> {
        let row = sqlx::query(
            "SELECT quote_id FROM cross_chain_transfers WHERE wallet = $1 AND status = $2 AND quote_id <> $3 \
             ORDER BY started_at LIMIT 1",
        )
        .bind(wallet.to_string())
        .bind(PENDING)
        .bind(except.to_string())
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| r.get(0)))
    }

    /// The quotes of `wallet`'s transfers pending since `cutoff` or earlier.
    pub async fn transfers_pending_since(&self, wallet: &str, cutoff: i64) -> Result<Vec<String>> {
        sqlx::query_scalar(
            "SELECT quote_id FROM cross_chain_transfers WHERE wallet = $1 AND status = $2 AND started_at <= $3",
        )
        .bind(wallet.to_string())
        .bind(PENDING)
        .bind(cutoff)
        .fetch_all(self.pool())
        .await
    }

    pub async fn transfer(&self, quote_id: &str) -> Result<Option<Transfer>> {
        let row = sqlx::query(
            "SELECT wallet, origin_tx_hash, status, substatus, destination_tx_hash, amount_received, message, \
             started_at, updated_at FROM cross_chain_transfers WHERE quote_id = $1",
        )
        .bind(quote_id.to_string())
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| Transfer {
            wallet: r.get(0),
            origin_tx_hash: r.get(1),
            state: TransferState {
                status: r.get(2),
                substatus: r.get(3),
            },
            destination_tx_hash: r.get(4),
            amount_received: r.get(5),
            message: r.get(6),
            started_at: r.get(7),
            updated_at: r.get(8),
        }))
    }

    /// Starts following the transfer of quote `q` (its first state is transition 0). Idempotent: a transfer
    /// already started keeps its first origin hash.
    pub async fn start_transfer(
        &self,
        q: &CrossChainQuote,
        origin_tx_hash: &str,
        state: &TransferState,
        now: i64,
    ) -> Result<()> {
        let mut tx = self.pool().begin().await?;
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
        .bind(state.status.clone())
        .bind(state.substatus.clone())
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if inserted == 1 {
            insert_transition(&mut tx, &q.quote_id, 0, state, now).await?;
        }
        tx.commit().await
    }

    /// Records a poll: the transfer's current state, and a transition when the state changed. A transfer in
    /// a terminal state (any but [`PENDING`]) is left as it is.
    pub async fn record_transfer_poll(
        &self,
        quote_id: &str,
        seen: &Observation,
        now: i64,
    ) -> Result<()> {
        let mut tx = self.pool().begin().await?;
        let row =
            sqlx::query("SELECT status, substatus FROM cross_chain_transfers WHERE quote_id = $1")
                .bind(quote_id.to_string())
                .fetch_optional(&mut *tx)
                .await?;
        let Some(row) = row else {
            return tx.commit().await;
        };
        let (status, substatus): (String, String) = (row.get(0), row.get(1));
        if status != PENDING {
            return tx.commit().await;
        }
        let changed = status != seen.state.status || substatus != seen.state.substatus;
        sqlx::query(
            "UPDATE cross_chain_transfers SET status = $1, substatus = $2, \
             destination_tx_hash = COALESCE($3, destination_tx_hash), amount_received = COALESCE($4, amount_received), \
             message = $5, updated_at = $6 WHERE quote_id = $7",
        )
        .bind(seen.state.status.clone())
        .bind(seen.state.substatus.clone())
        .bind(seen.destination_tx_hash.clone())
        .bind(seen.amount_received.clone())
        .bind(seen.message.clone())
        .bind(now)
        .bind(quote_id.to_string())
        .execute(&mut *tx)
        .await?;
        if changed {
            let seq: i64 =
                sqlx::query("SELECT COUNT(*) FROM cross_chain_events WHERE quote_id = $1")
                    .bind(quote_id.to_string())
                    .fetch_one(&mut *tx)
                    .await?
                    .get(0);
            insert_transition(&mut tx, quote_id, seq, &seen.state, now).await?;
        }
        tx.commit().await
    }

    /// A transfer's transitions, oldest first.
    pub async fn transfer_history(&self, quote_id: &str) -> Result<Vec<Transition>> {
        let rows = sqlx::query(
            "SELECT status, substatus, at FROM cross_chain_events WHERE quote_id = $1 ORDER BY seq",
        )
        .bind(quote_id.to_string())
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }
}

async fn insert_transition(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    quote_id: &str,
    seq: i64,
    state: &TransferState,
    now: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO cross_chain_events (quote_id, seq, status, substatus, at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (quote_id, seq) DO NOTHING",
    )
    .bind(quote_id.to_string())
    .bind(seq)
    .bind(state.status.clone())
    .bind(state.substatus.clone())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
