//! 0x's Swap API v2 (AllowanceHolder flow), an optional EVM source: every call needs an API key
//! (`0x-api-key`) and `0x-version: v2`. `GET /swap/allowance-holder/price` quotes without a taker;
//! `GET /swap/allowance-holder/quote` returns the transaction for a taker.

use super::http::{int_field, malformed, Answer, Upstream};
use super::PlatformFee;
use serde_json::Value;
use swap_core::chains::ChainInfo;
use web::error::ApiError;

#[derive(Clone)]
pub struct ZeroX {
    up: Upstream,
}

/// What 0x quoted (a price, or a firm quote with its transaction).
#[derive(Debug, Clone)]
pub struct ZeroXQuote {
    pub buy_amount: u128,
    pub min_buy_amount: Option<u128>,
    /// The address the wallet approves (AllowanceHolder).
    pub spender: Option<String>,
    pub gas: Option<String>,
    /// The fees 0x reports (`fees`), as it gave them.
    #[expect(dead_code, reason = "kept as 0x gave it; no answer reports it")]
    pub fees: Value,
    /// Firm quotes only: `to`, `data`, `value`, `gas`.
    pub transaction: Option<Value>,
}

impl ZeroX {
    pub fn new(base: &str, api_key: &str) -> ZeroX {
        ZeroX {
            up: Upstream::new("0x", base, &[("0x-api-key", api_key), ("0x-version", "v2")]),
        }
    }

    /// A price (`taker` None) or a firm quote (`taker` given); `None` when 0x has no liquidity.
    #[allow(clippy::too_many_arguments)]
    pub async fn quote(
        &self,
        chain: &ChainInfo,
        sell_token: &str,
        buy_token: &str,
        sell_amount: u128,
        taker: Option<&str>,
        slippage_bps: u16,
        fee: Option<PlatformFee<'_>>,
    ) -> Result<Option<ZeroXQuote>, ApiError> {
        let chain_id = chain
            .chain_id
            .ok_or_else(|| swap_core::chains::unsupported_chain(chain.key))?;
        let mut query = vec![
            ("chainId", chain_id.to_string()),
            ("sellToken", sell_token.to_string()),
            ("buyToken", buy_token.to_string()),
            ("sellAmount", sell_amount.to_string()),
            ("slippageBps", slippage_bps.to_string()),
        ];
        if let Some(t) = taker {
            query.push(("taker", t.to_string()));
        }
        if let Some(fee) = fee {
            query.extend([
                ("swapFeeRecipient", fee.recipient.to_string()),
                ("swapFeeBps", fee.bps.to_string()),
                ("swapFeeToken", buy_token.to_string()),
            ]);
        }
        let path = if taker.is_some() {
            "/swap/allowance-holder/quote"
        } else {
            "/swap/allowance-holder/price"
        };
        let body = match self.up.get(path, &query).await? {
            Answer::Ok(body) => body,
            // {"name": "TOKEN_NOT_SUPPORTED" | "INPUT_INVALID" | ..., "message": ..., "data": ...}
            Answer::Refused { body, .. } => {
                tracing::info!("0x refused the quote: {body}");
                return Ok(None);
            }
        };
        if body["liquidityAvailable"] == Value::Bool(false) {
            return Ok(None);
        }
        let buy_amount = int_field(&body["buyAmount"], "buyAmount")
            .ok_or_else(|| malformed("0x", "buyAmount"))?;
        let spender = body["issues"]["allowance"]["spender"]
            .as_str()
            .or(body["allowanceTarget"].as_str())
            .map(str::to_string);
        let transaction = body.get("transaction").filter(|t| t.is_object()).cloned();
        let gas = body["gas"]
            .as_str()
            .or(transaction.as_ref().and_then(|t| t["gas"].as_str()))
            .map(str::to_string);
        Ok(Some(ZeroXQuote {
            buy_amount,
            min_buy_amount: int_field(&body["minBuyAmount"], "minBuyAmount"),
            spender,
            gas,
            fees: body["fees"].clone(),
            transaction,
        }))
    }
}
