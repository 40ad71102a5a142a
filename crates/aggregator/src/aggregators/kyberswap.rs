//! KyberSwap's Aggregator API (keyless, the default EVM source): `GET /{chain}/api/v1/routes` for the
//! route summary, `POST /{chain}/api/v1/route/build` for the router calldata. Its answers are
//! `{ code, message, data, requestId }`; `code` 0 is success, 4008 "route not found".

use super::http::{int_field, malformed, Answer, Upstream};
use super::PlatformFee;
use serde_json::{json, Value};
use swap_core::chains::{ChainInfo, ChainKind};
use web::error::ApiError;

#[derive(Clone)]
pub struct KyberSwap {
    up: Upstream,
    client_id: String,
}

/// A route KyberSwap quoted.
#[derive(Debug, Clone)]
pub struct KyberRoute {
    pub amount_out: u128,
    /// The router the wallet approves and calls.
    pub router: String,
    /// Gas units KyberSwap estimates, and their USD value, as it gave them.
    pub gas: Option<String>,
    pub gas_usd: Option<String>,
    /// `routeSummary`, sent back unchanged to build.
    pub summary: Value,
}

/// A built KyberSwap swap.
#[derive(Debug, Clone)]
pub struct KyberBuild {
    pub router: String,
    pub data: String,
    /// Wei to send with the call (non-zero when selling the native token).
    pub value: String,
    /// What the built call should give (a build without it is malformed).
    #[expect(
        dead_code,
        reason = "parsed to check the answer is whole; the build reports the caller's `minAmountOut`"
    )]
    pub amount_out: u128,
}

impl KyberSwap {
    pub fn new(base: &str, client_id: &str) -> KyberSwap {
        KyberSwap {
            up: Upstream::new("KyberSwap", base, &[("x-client-id", client_id)]),
            client_id: client_id.to_string(),
        }
    }

    /// KyberSwap's path segment for `chain`: it names the six EVM chains by their keys here.
    fn slug(chain: &ChainInfo) -> Result<&'static str, ApiError> {
        match chain.kind {
            ChainKind::Evm => Ok(chain.key),
            ChainKind::Solana => Err(swap_core::chains::unsupported_chain(chain.key)),
        }
    }

    /// The best route, or `None` when KyberSwap has none for the pair and amount.
    pub async fn quote(
        &self,
        chain: &ChainInfo,
        token_in: &str,
        token_out: &str,
        amount_in: u128,
        fee: Option<PlatformFee<'_>>,
    ) -> Result<Option<KyberRoute>, ApiError> {
        let mut query = vec![
            ("tokenIn", token_in.to_string()),
            ("tokenOut", token_out.to_string()),
            ("amountIn", amount_in.to_string()),
            ("gasInclude", "true".to_string()),
            ("source", self.client_id.clone()),
        ];
        if let Some(fee) = fee {
            query.extend([
                ("feeAmount", fee.bps.to_string()),
                ("chargeFeeBy", "currency_out".to_string()),
                ("isInBps", "true".to_string()),
                ("feeReceiver", fee.recipient.to_string()),
            ]);
        }
        let path = format!("/{}/api/v1/routes", Self::slug(chain)?);
        let body = match self.up.get(&path, &query).await? {
            Answer::Ok(body) if body["code"].as_i64().unwrap_or(0) == 0 => body,
            Answer::Ok(body) | Answer::Refused { body, .. } => {
                tracing::info!("KyberSwap refused the quote: {body}");
                return Ok(None);
            }
        };
        let data = &body["data"];
        let summary = data["routeSummary"].clone();
        let amount_out = int_field(&summary["amountOut"], "amountOut")
            .ok_or_else(|| malformed("KyberSwap", "routeSummary.amountOut"))?;
        let router = data["routerAddress"]
            .as_str()
            .ok_or_else(|| malformed("KyberSwap", "routerAddress"))?
            .to_string();
        let text = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        Ok(Some(KyberRoute {
            amount_out,
            router,
            gas: text(&summary["gas"]),
            gas_usd: text(&summary["gasUsd"]),
            summary,
        }))
    }

    /// Router calldata for a quoted route, swapping for `sender` and paying `sender`, with the
    /// tolerance that makes KyberSwap's own minimum at least `min_amount_out`.
    pub async fn build(
        &self,
        chain: &ChainInfo,
        summary: &Value,
        sender: &str,
        slippage_bps: u16,
        deadline: i64,
    ) -> Result<Option<KyberBuild>, ApiError> {
        let path = format!("/{}/api/v1/route/build", Self::slug(chain)?);
        let body = json!({
            "routeSummary": summary,
            "sender": sender,
            "recipient": sender,
            "slippageTolerance": slippage_bps,
            "deadline": deadline,
            "source": self.client_id,
        });
        let body = match self.up.post(&path, &body).await? {
            Answer::Ok(body) if body["code"].as_i64().unwrap_or(0) == 0 => body,
            Answer::Ok(body) | Answer::Refused { body, .. } => {
                tracing::info!("KyberSwap refused the build: {body}");
                return Ok(None);
            }
        };
        let data = &body["data"];
        let field = |k: &str| {
            data[k]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| malformed("KyberSwap", k))
        };
        Ok(Some(KyberBuild {
            router: field("routerAddress")?,
            data: field("data")?,
            value: data["transactionValue"].as_str().unwrap_or("0").to_string(),
            amount_out: int_field(&data["amountOut"], "amountOut")
                .ok_or_else(|| malformed("KyberSwap", "data.amountOut"))?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kyberswap_names_the_evm_chains_by_their_keys() {
        for c in swap_core::chains::CHAINS.iter() {
            match c.kind {
                ChainKind::Evm => assert_eq!(KyberSwap::slug(c).unwrap(), c.key),
                ChainKind::Solana => assert!(KyberSwap::slug(c).is_err()),
            }
        }
    }
}
