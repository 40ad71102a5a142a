//! A real local EVM node (ganache from the npm registry, `tests/evm/`), test contracts compiled by the
//! `solc` npm package at test time, and an API whose EVM chain `base` is that node.

use alloy::network::{EthereumWallet, TransactionBuilder};
use alloy::primitives::{Address, Bytes, U256};
use alloy::providers::{DynProvider, Provider, ProviderBuilder};
use alloy::rpc::types::TransactionRequest;
use alloy::signers::local::PrivateKeySigner;
use alloy::sol;
use alloy::sol_types::{SolCall, SolConstructor};
use api::process::config::ApiConfig;
use api::AppState;
use index::Store;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::watch;

sol! {
    contract TestToken {
        constructor(string name_, string symbol_, uint8 decimals_, uint256 initialSupply);
        function transfer(address to, uint256 amount) external returns (bool);
        function approve(address spender, uint256 amount) external returns (bool);
        function balanceOf(address owner) external view returns (uint256);
    }

    contract TestRouter {
        constructor();
        function setRate(address tokenIn, address tokenOut, uint256 numerator, uint256 denominator) external;
        function swap(address tokenIn, address tokenOut, uint256 amountIn, uint256 minAmountOut, address recipient)
            external payable returns (uint256 amountOut);
    }
}

/// ganache's deterministic accounts 0 and 1 (public test keys printed by `ganache --wallet.deterministic`).
pub const DEPLOYER_KEY: &str = "0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d";
pub const TAKER_KEY: &str = "0x6cbed15c793ce57650b9877cf6fa156fbef513c4e6134f022a85b1ffdd59b2a1";
/// The chain the node stands in for.
pub const CHAIN_KEY: &str = "base";
pub const CHAIN_ID: u64 = 8453;

fn evm_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/evm")
}

/// The ganache process; killed on drop.
pub struct EvmNode {
    child: Child,
    pub url: String,
}

impl Drop for EvmNode {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl EvmNode {
    pub fn start() -> EvmNode {
        let dir = evm_dir();
        assert!(
            dir.join("node_modules/ganache").exists(),
            "tests/evm/node_modules is missing: run `npm ci` in tests/evm (scripts/test does)"
        );
        let mut child = Command::new("node")
            .arg("node.mjs")
            .args([
                "--port",
                "0",
                "--chain-id",
                &CHAIN_ID.to_string(),
                "--watch-stdin",
            ])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Not the test's own stderr: node puts the pipes it inherits into non-blocking mode, and the
            // pipe is shared with the test harness and cargo, whose next write into a full pipe then fails
            // ("failed printing to stderr") and ends the whole test process.
            .stderr(Stdio::from(
                std::fs::File::create(std::env::temp_dir().join(format!(
                    "evm-node-{}-{}.log",
                    std::process::id(),
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap()
                        .as_nanos()
                )))
                .unwrap(),
            ))
            .spawn()
            .expect("node runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let ready: Value =
            serde_json::from_str(&line).unwrap_or_else(|_| panic!("ganache said {line}"));
        EvmNode {
            child,
            url: ready["rpcUrl"].as_str().unwrap().to_string(),
        }
    }
}

/// `{ "TestToken": { abi, bytecode }, "TestRouter": ... }` from solc-js.
fn compile() -> Value {
    let out = Command::new("node")
        .arg("compile.mjs")
        .current_dir(evm_dir())
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "solc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

pub fn wallet(url: &str, key: &str) -> DynProvider {
    let signer: PrivateKeySigner = key.parse().unwrap();
    // ganache's pending transaction count can lag a mined block: count nonces locally. Use one provider
    // per account for a whole test.
    ProviderBuilder::new()
        .with_cached_nonce_management()
        .wallet(EthereumWallet::from(signer))
        .connect_http(url.parse().unwrap())
        .erased()
}

pub fn address_of(key: &str) -> Address {
    key.parse::<PrivateKeySigner>().unwrap().address()
}

/// Sends a transaction and waits for its receipt; panics unless it succeeded.
pub async fn send(
    p: &DynProvider,
    tx: TransactionRequest,
) -> alloy::rpc::types::TransactionReceipt {
    let receipt = p
        .send_transaction(tx)
        .await
        .unwrap()
        .get_receipt()
        .await
        .unwrap();
    assert!(receipt.status(), "transaction reverted: {receipt:?}");
    receipt
}

pub async fn call(p: &DynProvider, to: Address, data: Vec<u8>) -> Bytes {
    p.call(TransactionRequest::default().with_to(to).with_input(data))
        .await
        .unwrap()
}

pub async fn balance_of(p: &DynProvider, token: Address, owner: Address) -> U256 {
    let out = call(p, token, TestToken::balanceOfCall { owner }.abi_encode()).await;
    TestToken::balanceOfCall::abi_decode_returns(&out).unwrap()
}

/// Two tokens, a router paying 2 B per A (and 3 B per ETH) with a stock of B, the taker holding A.
pub struct Contracts {
    pub token_a: Address,
    pub token_b: Address,
    pub router: Address,
    /// The deployer's wallet (it owns the router).
    pub deployer: DynProvider,
}

pub const A_TO_B: (u64, u64) = (2, 1);

pub async fn deploy(url: &str) -> Contracts {
    let artifacts = compile();
    let deployer = wallet(url, DEPLOYER_KEY);
    let code = |name: &str| -> Vec<u8> {
        alloy::primitives::hex::decode(artifacts[name]["bytecode"].as_str().unwrap()).unwrap()
    };
    let create = |mut bytecode: Vec<u8>, args: Vec<u8>| {
        bytecode.extend(args);
        TransactionRequest::default().with_deploy_code(bytecode)
    };
    let supply = U256::from(10u128.pow(30));
    let mut addresses = Vec::new();
    for (name, symbol, decimals) in [("Token A", "TKA", 18u8), ("Token B", "TKB", 6u8)] {
        let args = TestToken::constructorCall {
            name_: name.into(),
            symbol_: symbol.into(),
            decimals_: decimals,
            initialSupply: supply,
        }
        .abi_encode();
        let r = send(&deployer, create(code("TestToken"), args)).await;
        addresses.push(r.contract_address.unwrap());
    }
    let r = send(&deployer, create(code("TestRouter"), vec![])).await;
    let router = r.contract_address.unwrap();
    let (token_a, token_b) = (addresses[0], addresses[1]);
    let native = api::chains::EVM_NATIVE;
    for (tin, tout, num, den) in [
        (token_a, token_b, A_TO_B.0, A_TO_B.1),
        (native, token_b, 3, 1),
    ] {
        let data = TestRouter::setRateCall {
            tokenIn: tin,
            tokenOut: tout,
            numerator: U256::from(num),
            denominator: U256::from(den),
        }
        .abi_encode();
        send(
            &deployer,
            TransactionRequest::default()
                .with_to(router)
                .with_input(data),
        )
        .await;
    }
    let transfer = |token: Address, to: Address, amount: U256| {
        TransactionRequest::default()
            .with_to(token)
            .with_input(TestToken::transferCall { to, amount }.abi_encode())
    };
    send(&deployer, transfer(token_b, router, supply / U256::from(2))).await;
    let taker = address_of(TAKER_KEY);
    send(
        &deployer,
        transfer(token_a, taker, U256::from(10u128.pow(24))),
    )
    .await;
    Contracts {
        token_a,
        token_b,
        router,
        deployer,
    }
}

/// The API, with `base` served by the node and the aggregators at the given local servers.
pub struct Api {
    pub base: String,
    pub state: AppState,
    _stop: watch::Sender<bool>,
}

impl Api {
    pub async fn start(
        postgres: bool,
        node_url: &str,
        configure: impl FnOnce(&mut ApiConfig),
    ) -> Api {
        // No Solana RPC is needed by EVM flows.
        Api::start_with_rpc(postgres, node_url, "http://127.0.0.1:9", configure).await
    }

    /// With a Solana RPC node too (Solana-origin transfers).
    pub async fn start_with_rpc(
        postgres: bool,
        node_url: &str,
        solana_rpc: &str,
        configure: impl FnOnce(&mut ApiConfig),
    ) -> Api {
        let db = crate::common::database(postgres).await;
        let store = Store::open(&db).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut config = ApiConfig {
            rate_limit_burst: 10_000,
            rate_limit_per_second: 10_000,
            ..ApiConfig::local(addr)
        };
        config.aggregator.evm_rpc = vec![(CHAIN_KEY.to_string(), node_url.to_string())];
        configure(&mut config);
        let rpc = Arc::new(
            solana_rpc_client::nonblocking::rpc_client::RpcClient::new_with_commitment(
                solana_rpc.to_string(),
                solana_commitment_config::CommitmentConfig::confirmed(),
            ),
        );
        let state = AppState::new(store, config, rpc, None);
        let (stop, mut rx) = watch::channel(false);
        tokio::spawn(api::serve(state.clone(), listener, async move {
            let _ = rx.wait_for(|s| *s).await;
        }));
        Api {
            base: format!("http://{addr}"),
            state,
            _stop: stop,
        }
    }

    /// Moves the API's clock forward.
    pub fn advance(&self, secs: i64) {
        self.state.clock_offset.fetch_add(secs, Ordering::Relaxed);
    }
}

/// Serves `router` on a free local port; returns its base URL.
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}")
}

pub fn swap_calldata(
    token_in: Address,
    token_out: Address,
    amount_in: U256,
    min_out: U256,
    recipient: Address,
) -> String {
    Bytes::from(
        TestRouter::swapCall {
            tokenIn: token_in,
            tokenOut: token_out,
            amountIn: amount_in,
            minAmountOut: min_out,
            recipient,
        }
        .abi_encode(),
    )
    .to_string()
}

pub fn approve_tx(token: Address, spender: Address, amount: U256) -> TransactionRequest {
    TransactionRequest::default()
        .with_to(token)
        .with_input(TestToken::approveCall { spender, amount }.abi_encode())
}
