//! EVM chains over JSON-RPC (alloy): ERC-20 reads, and the simulation every EVM build passes before it
//! is returned (`eth_call` from the wallet, then `eth_estimateGas`). Reverts become clear errors.

use crate::Config;
use alloy::network::TransactionBuilder;
use alloy::primitives::{Address, Bytes, U256};
use alloy::providers::{DynProvider, Provider, ProviderBuilder};
use alloy::rpc::types::TransactionRequest;
use alloy::sol;
use alloy::sol_types::SolCall;
use alloy::transports::{RpcError, TransportErrorKind};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use swap_core::chains::{self, ChainInfo, ChainKind};
use web::error::{ApiError, ErrorCode};

sol! {
    /// The ERC-20 calls the API makes or builds.
    interface IERC20 {
        function allowance(address owner, address spender) external view returns (uint256);
        function balanceOf(address owner) external view returns (uint256);
        function approve(address spender, uint256 amount) external returns (bool);
    }
}

/// What a mined transaction shows of a swap ([`EvmChains::swap_seen`]).
#[derive(Debug, Clone, Copy)]
pub struct SwapSeen {
    pub succeeded: bool,
    pub from: Address,
    /// `tokenIn` that left the wallet.
    pub gave: U256,
    /// `tokenOut` that reached the wallet (`None`: native, not visible in logs).
    pub received: Option<U256>,
}

/// One JSON-RPC client per EVM chain.
#[derive(Clone)]
pub struct EvmChains {
    providers: Arc<HashMap<&'static str, DynProvider>>,
}

/// An EVM transaction for the wallet to sign and send with its own RPC.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvmTransaction {
    pub chain_id: u64,
    pub from: String,
    pub to: String,
    /// Calldata, 0x hex.
    pub data: String,
    /// Wei, decimal string.
    pub value: String,
    /// Gas limit to send with: the simulation's estimate plus 20%, decimal string. Null when the
    /// transaction could not be simulated yet (it depends on an earlier step).
    pub gas: Option<String>,
}

/// A quantity as aggregators write it (0x hex or decimal string, or a JSON number) as a decimal string;
/// "0" when absent or unreadable.
pub fn quantity(v: &serde_json::Value) -> String {
    use serde_json::Value;
    let parsed = match v {
        Value::String(s) => match s.strip_prefix("0x") {
            Some(hex) => U256::from_str_radix(hex, 16).ok(),
            None => s.parse().ok(),
        },
        Value::Number(n) => n.as_u64().map(U256::from),
        _ => None,
    };
    parsed.unwrap_or_default().to_string()
}

/// The gas a simulated transaction used (`eth_estimateGas`) and the limit to send it with.
#[derive(Debug, Clone, Copy)]
pub struct Simulated {
    pub estimate: u64,
    pub limit: u64,
}

fn rpc_unavailable(chain: &ChainInfo, e: impl std::fmt::Display) -> ApiError {
    tracing::warn!(chain = chain.key, "EVM RPC failed: {e}");
    ApiError::unavailable(format!(
        "the {} RPC node is unavailable; retry shortly",
        chain.name
    ))
}

/// What a reverted simulation means for the caller.
pub fn revert_error(reason: Option<&str>) -> ApiError {
    let r = reason.unwrap_or("").to_ascii_lowercase();
    let (code, what) = if r.contains("allowance") {
        (
            ErrorCode::InsufficientAllowance,
            "the wallet has not approved enough of tokenIn for the spender",
        )
    } else if r.contains("balance") || r.contains("insufficient funds") {
        (
            ErrorCode::InsufficientBalance,
            "the wallet does not hold enough",
        )
    } else {
        (ErrorCode::SimulationFailed, "the transaction reverts")
    };
    let detail = reason.map(|r| format!(": {r}")).unwrap_or_default();
    ApiError::new(code, format!("{what}{detail}"))
}

impl EvmChains {
    /// A client per EVM chain. URLs are checked when the configuration is parsed; one that still does not
    /// parse (a configuration built in code) leaves its chain without a client.
    pub fn new(config: &Config) -> EvmChains {
        let mut providers = HashMap::new();
        for chain in chains::CHAINS.iter().filter(|c| c.kind == ChainKind::Evm) {
            let url = config.evm_rpc_url(chain);
            match url.parse() {
                Ok(url) => {
                    let provider = ProviderBuilder::new()
                        .disable_recommended_fillers()
                        .connect_http(url)
                        .erased();
                    providers.insert(chain.key, provider);
                }
                Err(_) => tracing::error!(chain = chain.key, "the RPC URL is not a URL: {url}"),
            }
        }
        EvmChains {
            providers: Arc::new(providers),
        }
    }

    fn provider(&self, chain: &ChainInfo) -> Result<&DynProvider, ApiError> {
        self.providers.get(chain.key).ok_or_else(|| {
            ApiError::unavailable(format!("no valid RPC URL is configured for {}", chain.name))
        })
    }

    /// One ERC-20 view call on `token`: a revert or an undecodable answer means it is not an ERC-20.
    async fn erc20<C: SolCall>(
        &self,
        chain: &ChainInfo,
        token: Address,
        call: C,
    ) -> Result<C::Return, ApiError> {
        let not_erc20 = || {
            ApiError::invalid(format!(
                "`{token}` is not an ERC-20 token on {}",
                chain.name
            ))
        };
        let tx = TransactionRequest::default()
            .with_to(token)
            .with_input(call.abi_encode());
        let provider = self.provider(chain)?;
        let out = metered(chain, "eth_call", async { provider.call(tx).await })
            .await
            .map_err(|e| match revert_reason(&e) {
                Some(_) => not_erc20(),
                None => rpc_unavailable(chain, e),
            })?;
        C::abi_decode_returns(&out).map_err(|_| not_erc20())
    }

    pub async fn allowance(
        &self,
        chain: &ChainInfo,
        token: Address,
        owner: Address,
        spender: Address,
    ) -> Result<U256, ApiError> {
        self.erc20(chain, token, IERC20::allowanceCall { owner, spender })
            .await
    }

    /// The wallet's balance of `token` (the native token when `token` is the native placeholder).
    pub async fn balance(
        &self,
        chain: &ChainInfo,
        token: Address,
        owner: Address,
    ) -> Result<U256, ApiError> {
        if chains::is_evm_native(&token) {
            let provider = self.provider(chain)?;
            return metered(chain, "eth_getBalance", async {
                provider.get_balance(owner).await
            })
            .await
            .map_err(|e| rpc_unavailable(chain, e));
        }
        self.erc20(chain, token, IERC20::balanceOfCall { owner })
            .await
    }

    /// Refuses, with a clear code, a swap the wallet cannot pay for: not enough `token_in`
    /// (`INSUFFICIENT_BALANCE`) or not enough approved to `spender` (`INSUFFICIENT_ALLOWANCE`).
    pub async fn check_funds(
        &self,
        chain: &ChainInfo,
        token_in: Address,
        owner: Address,
        spender: Option<Address>,
        amount: U256,
    ) -> Result<(), ApiError> {
        let balance = self.balance(chain, token_in, owner).await?;
        if balance < amount {
            return Err(ApiError::new(
                ErrorCode::InsufficientBalance,
                format!(
                    "the wallet holds {balance} base units of tokenIn; the swap needs {amount}"
                ),
            ));
        }
        if let (false, Some(spender)) = (chains::is_evm_native(&token_in), spender) {
            let allowance = self.allowance(chain, token_in, owner, spender).await?;
            if allowance < amount {
                return Err(ApiError::new(ErrorCode::InsufficientAllowance,
                    format!(
                        "the wallet approved {allowance} base units of tokenIn to {spender}; approve exactly {amount} \
                         (ERC-20 approve) and build again"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Runs the transaction from `tx.from` with `eth_call`, then estimates its gas. A revert is an error
    /// with the decoded reason; the transaction is never sent.
    pub async fn simulate(
        &self,
        chain: &ChainInfo,
        tx: &EvmTransaction,
    ) -> Result<Simulated, ApiError> {
        fn field<T: std::str::FromStr>(what: &str, v: &str) -> Result<T, ApiError> {
            v.parse().map_err(|_| {
                ApiError::new(
                    ErrorCode::InvalidUpstream,
                    format!("the route's transaction has an invalid `{what}`: {v}"),
                )
            })
        }
        let to: Address = field("to", &tx.to)?;
        let from: Address = field("from", &tx.from)?;
        let data: Bytes = field("data", &tx.data)?;
        let value: U256 = field("value", &tx.value)?;
        let request = TransactionRequest::default()
            .with_from(from)
            .with_to(to)
            .with_input(data)
            .with_value(value);
        let provider = self.provider(chain)?;
        let fail = |e: RpcError<TransportErrorKind>| match revert_reason(&e) {
            Some(reason) => revert_error(reason.as_deref()),
            None => rpc_unavailable(chain, e),
        };
        metered(chain, "eth_call", async {
            provider.call(request.clone()).await
        })
        .await
        .map_err(fail)?;
        let estimate = metered(chain, "eth_estimateGas", async {
            provider.estimate_gas(request).await
        })
        .await
        .map_err(fail)?;
        Ok(Simulated {
            estimate,
            limit: estimate.saturating_add(estimate / 5),
        })
    }

    /// The sender and recipient of transaction `hash` as the node knows it (pending or mined); `None` when
    /// the node has never seen it.
    pub async fn transaction(
        &self,
        chain: &ChainInfo,
        hash: alloy::primitives::B256,
    ) -> Result<Option<(Address, Option<Address>)>, ApiError> {
        use alloy::consensus::Transaction as _;
        use alloy::network::TransactionResponse as _;
        let provider = self.provider(chain)?;
        let tx = metered(chain, "eth_getTransactionByHash", async {
            provider.get_transaction_by_hash(hash).await
        })
        .await
        .map_err(|e| rpc_unavailable(chain, e))?;
        Ok(tx.map(|t| (t.from(), t.to())))
    }

    /// What a mined transaction shows of a swap by `wallet`: `None` when the node has no receipt for it.
    /// ERC-20 legs are summed from the receipt's `Transfer` logs (out of and into `wallet`); a native `tokenIn`
    /// is the transaction's value; a native `tokenOut` is not visible in logs (`received: None`).
    pub async fn swap_seen(
        &self,
        chain: &ChainInfo,
        hash: alloy::primitives::B256,
        wallet: Address,
        token_in: Address,
        token_out: Address,
    ) -> Result<Option<SwapSeen>, ApiError> {
        use alloy::consensus::Transaction as _;
        use alloy::network::ReceiptResponse as _;
        sol! {
            event Transfer(address indexed from, address indexed to, uint256 value);
        }
        use alloy::sol_types::SolEvent;
        let provider = self.provider(chain)?;
        let Some(receipt) = metered(chain, "eth_getTransactionReceipt", async {
            provider.get_transaction_receipt(hash).await
        })
        .await
        .map_err(|e| rpc_unavailable(chain, e))?
        else {
            return Ok(None);
        };
        let value = match chains::is_evm_native(&token_in) {
            true => metered(chain, "eth_getTransactionByHash", async {
                provider.get_transaction_by_hash(hash).await
            })
            .await
            .map_err(|e| rpc_unavailable(chain, e))?
            .map(|t| t.value()),
            false => None,
        };
        let (mut gave, mut got) = (U256::ZERO, U256::ZERO);
        for log in receipt.inner.logs() {
            let Ok(t) = Transfer::decode_log(&log.inner) else {
                continue;
            };
            if log.address() == token_in && t.from == wallet {
                gave += t.value;
            }
            if log.address() == token_out && t.to == wallet {
                got += t.value;
            }
        }
        Ok(Some(SwapSeen {
            succeeded: receipt.status(),
            from: receipt.from(),
            gave: value.unwrap_or(gave),
            received: (!chains::is_evm_native(&token_out)).then_some(got),
        }))
    }

    /// The exact ERC-20 `approve(spender, amount)` the wallet sends before a swap or bridge.
    pub fn approve_calldata(spender: Address, amount: U256) -> String {
        Bytes::from(IERC20::approveCall { spender, amount }.abi_encode()).to_string()
    }
}

/// `Some(reason)` when the node says the call reverted (`None` inside when it gave no reason), `None`
/// for transport failures.
/// Runs one JSON-RPC call of `method` on `chain`'s node, recorded as `upstream="evm-rpc"` with its `chain`
/// ([`ops::upstream`]); a revert is the node's answer, not its error.
async fn metered<T>(
    chain: &ChainInfo,
    method: &'static str,
    call: impl std::future::Future<Output = Result<T, RpcError<TransportErrorKind>>>,
) -> Result<T, RpcError<TransportErrorKind>> {
    let recorded = ops::upstream::Call::start(ops::upstream::EVM_RPC, method).on_chain(chain.key);
    let result = call.await;
    recorded.finish(result.as_ref().err().and_then(error_kind));
    result
}

/// What kind of failure an EVM RPC error is (`None`: a revert, which the node answered on purpose).
fn error_kind(e: &RpcError<TransportErrorKind>) -> Option<ops::upstream::ErrorKind> {
    use ops::upstream::ErrorKind;
    if revert_reason(e).is_some() {
        return None;
    }
    Some(match e {
        RpcError::ErrorResp(_) => ErrorKind::Rpc,
        RpcError::DeserError { .. } => ErrorKind::Decode,
        RpcError::Transport(TransportErrorKind::HttpError(h))
        | RpcError::Transport(TransportErrorKind::HttpErrorWithRetryAfter { error: h, .. }) => {
            ErrorKind::of_status(h.status).unwrap_or(ErrorKind::Other)
        }
        RpcError::Transport(TransportErrorKind::Custom(inner)) => {
            match inner.downcast_ref::<reqwest::Error>() {
                Some(e) => ErrorKind::of_reqwest(e),
                None if inner.to_string().contains("timed out") => ErrorKind::Timeout,
                None => ErrorKind::Connect,
            }
        }
        _ => ErrorKind::Other,
    })
}

fn revert_reason(e: &RpcError<TransportErrorKind>) -> Option<Option<String>> {
    let payload = e.as_error_resp()?;
    if let Some(data) = payload.as_revert_data() {
        if let Some(reason) = alloy::sol_types::decode_revert_reason(&data) {
            return Some(Some(reason));
        }
    }
    let message = payload.message.to_string();
    let lower = message.to_ascii_lowercase();
    if lower.contains("revert") || lower.contains("insufficient funds") || payload.code == 3 {
        let reason = message
            .split_once("revert")
            .map(|(_, r)| {
                r.trim_start_matches(['e', 'd', ':', ' '])
                    .trim()
                    .to_string()
            })
            .filter(|r| !r.is_empty())
            .unwrap_or(message);
        return Some(Some(reason));
    }
    // Other JSON-RPC errors (bad params, unknown method) are the node refusing, not a revert.
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverts_map_to_clear_codes() {
        assert_eq!(
            revert_error(Some("ERC20: insufficient allowance")).code,
            "INSUFFICIENT_ALLOWANCE"
        );
        assert_eq!(
            revert_error(Some("ERC20: transfer amount exceeds balance")).code,
            "INSUFFICIENT_BALANCE"
        );
        assert_eq!(
            revert_error(Some("Router: insufficient output")).code,
            "SIMULATION_FAILED"
        );
        assert_eq!(
            revert_error(None).status,
            axum::http::StatusCode::UNPROCESSABLE_ENTITY
        );
    }

    #[test]
    fn approve_is_the_standard_selector() {
        let data = EvmChains::approve_calldata(Address::ZERO, U256::from(5));
        assert!(data.starts_with("0x095ea7b3"), "{data}");
        assert_eq!(data.len(), 2 + 8 + 64 * 2);
    }
}
