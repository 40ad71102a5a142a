//! LI.FI (the cross-chain source): `GET /v1/quote` returns one step (possibly swap, bridge, swap inside
//! `includedSteps`) with its `estimate` and the origin `transactionRequest`; `GET /v1/status` follows a
//! transfer by its origin transaction hash.

use super::http::{int_field, malformed, Answer, Upstream};
use serde_json::Value;
use swap_core::chains::ChainInfo;
use web::error::ApiError;

/// LI.FI's id of Solana (a large one of its own).
const SOLANA_CHAIN_ID: u64 = 1_151_111_081_099_710;

/// How LI.FI names `chain`: an EVM chain by its chain id, Solana by LI.FI's own id.
pub fn chain_id(chain: &ChainInfo) -> u64 {
    super::numbered_chain_id(chain, SOLANA_CHAIN_ID)
}

/// The chain LI.FI names by `id`.
pub fn chain(id: u64) -> Option<&'static ChainInfo> {
    super::numbered_chain(id, SOLANA_CHAIN_ID)
}

#[derive(Clone)]
pub struct Lifi {
    up: Upstream,
    integrator: String,
}

/// What LI.FI quoted.
#[derive(Debug, Clone)]
pub struct LifiQuote {
    pub to_amount: u128,
    pub to_amount_min: u128,
    /// `action.toToken`: the token that arrives (address, symbol, decimals, chainId).
    pub to_token: Value,
    pub approval_address: Option<String>,
    pub duration_secs: Option<u64>,
    /// The bridge or exchange LI.FI picked (`tool`), needed again for status.
    pub tool: String,
    /// The whole step, as LI.FI answered.
    pub raw: Value,
}

/// Where LI.FI says a transfer is.
#[derive(Debug, Clone)]
pub struct LifiStatus {
    pub status: String,
    pub substatus: Option<String>,
    pub message: Option<String>,
    pub destination_tx_hash: Option<String>,
    pub amount_received: Option<String>,
}

/// One quote request, in LI.FI's terms.
pub struct QuoteParams<'a> {
    pub from_chain: u64,
    pub to_chain: u64,
    pub from_token: &'a str,
    pub to_token: &'a str,
    pub from_amount: u128,
    pub from_address: &'a str,
    pub to_address: &'a str,
    pub slippage_bps: u16,
}

impl Lifi {
    pub fn new(base: &str, integrator: &str) -> Lifi {
        Lifi {
            up: Upstream::new("LI.FI", base, &[]),
            integrator: integrator.to_string(),
        }
    }

    /// The best route, or `None` when LI.FI has none (its 404 `NoQuoteError`, code 1002, or any other
    /// refusal: the fallback gets its turn).
    pub async fn quote(&self, p: &QuoteParams<'_>) -> Result<Option<LifiQuote>, ApiError> {
        let query = [
            ("fromChain", p.from_chain.to_string()),
            ("toChain", p.to_chain.to_string()),
            ("fromToken", p.from_token.to_string()),
            ("toToken", p.to_token.to_string()),
            ("fromAmount", p.from_amount.to_string()),
            ("fromAddress", p.from_address.to_string()),
            ("toAddress", p.to_address.to_string()),
            // A fraction: 0.005 is 0.5%.
            (
                "slippage",
                format!("{}", f64::from(p.slippage_bps) / 10_000.0),
            ),
            ("integrator", self.integrator.clone()),
        ];
        let body = match self.up.get("/v1/quote", &query).await? {
            Answer::Ok(body) => body,
            Answer::Refused { status, body } => {
                tracing::info!("LI.FI has no quote ({status}): {body}");
                return Ok(None);
            }
        };
        let estimate = &body["estimate"];
        Ok(Some(LifiQuote {
            to_amount: int_field(&estimate["toAmount"], "toAmount")
                .ok_or_else(|| malformed("LI.FI", "estimate.toAmount"))?,
            to_amount_min: int_field(&estimate["toAmountMin"], "toAmountMin")
                .ok_or_else(|| malformed("LI.FI", "estimate.toAmountMin"))?,
            to_token: body["action"]["toToken"].clone(),
            approval_address: estimate["approvalAddress"].as_str().map(str::to_string),
            duration_secs: estimate["executionDuration"]
                .as_f64()
                .map(|d| d.ceil() as u64),
            tool: body["tool"].as_str().unwrap_or_default().to_string(),
            raw: body,
        }))
    }

    /// The transfer whose origin transaction is `tx_hash`.
    pub async fn status(
        &self,
        tx_hash: &str,
        from_chain: u64,
        to_chain: u64,
        bridge: &str,
    ) -> Result<LifiStatus, ApiError> {
        let mut query = vec![
            ("txHash", tx_hash.to_string()),
            ("fromChain", from_chain.to_string()),
            ("toChain", to_chain.to_string()),
        ];
        if !bridge.is_empty() {
            query.push(("bridge", bridge.to_string()));
        }
        let body = match self.up.get("/v1/status", &query).await? {
            Answer::Ok(body) => body,
            // LI.FI answers an unknown hash with 404 and `status: NOT_FOUND` in some versions.
            Answer::Refused { status: 404, body } if body["status"].is_string() => body,
            Answer::Refused { status: 404, .. } => {
                return Ok(LifiStatus {
                    status: "NOT_FOUND".into(),
                    substatus: None,
                    message: None,
                    destination_tx_hash: None,
                    amount_received: None,
                })
            }
            Answer::Refused { status, body } => {
                tracing::warn!("LI.FI refused the status query ({status}): {body}");
                return Err(malformed("LI.FI", "a transfer status"));
            }
        };
        let text = |v: &Value| v.as_str().map(str::to_string);
        Ok(LifiStatus {
            status: text(&body["status"]).ok_or_else(|| malformed("LI.FI", "status"))?,
            substatus: text(&body["substatus"]),
            // Upstream text, stored and served in 200 answers: redacted like an error (it may repeat a URL).
            message: text(&body["substatusMessage"]).map(|m| ops::redact::redact(&m).into_owned()),
            destination_tx_hash: text(&body["receiving"]["txHash"]),
            amount_received: text(&body["receiving"]["amount"]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chain_has_its_own_lifi_id() {
        for c in swap_core::chains::CHAINS.iter() {
            assert_eq!(chain(chain_id(c)).map(|c| c.key), Some(c.key));
        }
        let id = |key| chain_id(swap_core::chains::chain(key).unwrap());
        assert_eq!(id("ethereum"), 1);
        assert_eq!(id("base"), 8453);
        assert_eq!(id("solana"), 1_151_111_081_099_710, "LI.FI's id of Solana");
    }
}
