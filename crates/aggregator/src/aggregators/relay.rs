//! Relay (the cross-chain fallback, keyless): `POST /quote` returns `steps[].items[]` (the transactions
//! to sign, each with a status check) plus `fees` and `details`; `GET /intents/status/v2?requestId=`
//! follows the transfer.

use super::http::{int_field, malformed, Answer, Upstream};
use serde_json::{json, Value};
use swap_core::chains::ChainInfo;
use web::error::ApiError;

/// Relay's id of Solana.
const SOLANA_CHAIN_ID: u64 = 792_703_809;

/// How Relay names SOL.
pub const SOLANA_NATIVE: &str = "11111111111111111111111111111111";

/// How Relay names `chain`: an EVM chain by its chain id, Solana by Relay's own id.
pub fn chain_id(chain: &ChainInfo) -> u64 {
    super::numbered_chain_id(chain, SOLANA_CHAIN_ID)
}

/// The chain Relay names by `id`.
pub fn chain(id: u64) -> Option<&'static ChainInfo> {
    super::numbered_chain(id, SOLANA_CHAIN_ID)
}

#[derive(Clone)]
pub struct Relay {
    up: Upstream,
}

#[derive(Debug, Clone)]
pub struct RelayQuote {
    pub amount_out: u128,
    pub min_amount_out: u128,
    /// `details.currencyOut.currency`: chainId, address, symbol, name, decimals.
    pub currency_out: Value,
    pub time_estimate_secs: Option<u64>,
    /// The id status is polled by.
    pub request_id: Option<String>,
    pub raw: Value,
}

#[derive(Debug, Clone)]
pub struct RelayStatus {
    pub status: String,
    pub destination_tx_hash: Option<String>,
}

pub struct QuoteParams<'a> {
    pub user: &'a str,
    pub recipient: &'a str,
    pub origin_chain_id: u64,
    pub destination_chain_id: u64,
    pub origin_currency: &'a str,
    pub destination_currency: &'a str,
    pub amount: u128,
    pub slippage_bps: u16,
}

impl Relay {
    pub fn new(base: &str) -> Relay {
        Relay {
            up: Upstream::new("Relay", base, &[]),
        }
    }

    /// The quote, or `None` when Relay has no route (its 4xx `{ message, errorCode }` answers).
    pub async fn quote(&self, p: &QuoteParams<'_>) -> Result<Option<RelayQuote>, ApiError> {
        let body = json!({
            "user": p.user,
            "recipient": p.recipient,
            "originChainId": p.origin_chain_id,
            "destinationChainId": p.destination_chain_id,
            "originCurrency": p.origin_currency,
            "destinationCurrency": p.destination_currency,
            "amount": p.amount.to_string(),
            "tradeType": "EXACT_INPUT",
            "slippageTolerance": p.slippage_bps.to_string(),
        });
        let body = match self.up.post("/quote", &body).await? {
            Answer::Ok(body) => body,
            Answer::Refused { status, body } => {
                tracing::info!("Relay has no quote ({status}): {body}");
                return Ok(None);
            }
        };
        let out = &body["details"]["currencyOut"];
        let amount_out = int_field(&out["amount"], "amount")
            .ok_or_else(|| malformed("Relay", "details.currencyOut.amount"))?;
        let request_id = body["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|s| s["requestId"].as_str())
            .map(str::to_string);
        Ok(Some(RelayQuote {
            amount_out,
            min_amount_out: int_field(&out["minimumAmount"], "minimumAmount").unwrap_or(amount_out),
            currency_out: out["currency"].clone(),
            time_estimate_secs: body["details"]["timeEstimate"]
                .as_f64()
                .map(|t| t.ceil() as u64),
            request_id,
            raw: body,
        }))
    }

    pub async fn status(&self, request_id: &str) -> Result<RelayStatus, ApiError> {
        let query = [("requestId", request_id.to_string())];
        let body = match self.up.get("/intents/status/v2", &query).await? {
            Answer::Ok(body) => body,
            Answer::Refused { status, body } => {
                tracing::warn!("Relay refused the status query ({status}): {body}");
                return Err(malformed("Relay", "a transfer status"));
            }
        };
        Ok(RelayStatus {
            status: body["status"]
                .as_str()
                .ok_or_else(|| malformed("Relay", "status"))?
                .to_string(),
            destination_tx_hash: body["txHashes"]
                .as_array()
                .and_then(|h| h.last())
                .and_then(Value::as_str)
                .map(str::to_string),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chain_has_its_own_relay_id() {
        for c in swap_core::chains::CHAINS.iter() {
            assert_eq!(chain(chain_id(c)).map(|c| c.key), Some(c.key));
        }
        let id = |key| chain_id(swap_core::chains::chain(key).unwrap());
        assert_eq!(id("ethereum"), 1);
        assert_eq!(id("base"), 8453);
        assert_eq!(id("solana"), 792_703_809, "Relay's id of Solana");
    }
}
