//! Local HTTP servers answering in the documented shapes of KyberSwap's Aggregator API, 0x's Swap API
//! v2, LI.FI and Relay, including their no-route, error and rate-limit answers. Their calldata calls the
//! test router on the local node, so what they return really executes.

use super::harness::{swap_calldata, Contracts, CHAIN_ID};
use alloy::primitives::{Address, U256};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How a mock answers its next requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Ok,
    NoRoute,
    RateLimited,
    ServerError,
}

#[derive(Clone)]
pub struct Mock {
    pub router: Address,
    pub token_a: Address,
    pub token_b: Address,
    mode: Arc<Mutex<Mode>>,
    /// Status answers by transaction hash (LI.FI) or request id (Relay).
    statuses: Arc<Mutex<HashMap<String, Value>>>,
    /// How many requests it served, by path.
    pub hits: Arc<Mutex<HashMap<String, u32>>>,
}

impl Mock {
    pub fn new(c: &Contracts) -> Mock {
        Mock {
            router: c.router,
            token_a: c.token_a,
            token_b: c.token_b,
            mode: Arc::new(Mutex::new(Mode::Ok)),
            statuses: Arc::default(),
            hits: Arc::default(),
        }
    }

    pub fn set_mode(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    fn mode(&self) -> Mode {
        *self.mode.lock().unwrap()
    }

    pub fn set_status(&self, key: &str, answer: Value) {
        self.statuses
            .lock()
            .unwrap()
            .insert(key.to_lowercase(), answer);
    }

    fn status_of(&self, key: &str) -> Option<Value> {
        self.statuses
            .lock()
            .unwrap()
            .get(&key.to_lowercase())
            .cloned()
    }

    fn hit(&self, path: &str) {
        *self
            .hits
            .lock()
            .unwrap()
            .entry(path.to_string())
            .or_default() += 1;
    }

    pub fn hits(&self, path: &str) -> u32 {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }

    /// The router's rate for a pair, as the test contracts were set up.
    fn rate(&self, token_in: &str, token_out: &str) -> Option<(u128, u128)> {
        let (tin, tout): (Address, Address) = (token_in.parse().ok()?, token_out.parse().ok()?);
        if tout != self.token_b {
            return None;
        }
        if tin == self.token_a {
            Some((2, 1))
        } else if tin == api::chains::EVM_NATIVE {
            Some((3, 1))
        } else {
            None
        }
    }
}

fn too_many() -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        [("retry-after", "2")],
        Json(json!({"message": "Too Many Requests"})),
    )
        .into_response()
}

// --- KyberSwap: GET /{chain}/api/v1/routes, POST /{chain}/api/v1/route/build

async fn kyber_routes(
    State(m): State<Mock>,
    Path(chain): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    m.hit("kyber/routes");
    assert!(
        headers.contains_key("x-client-id"),
        "the adapter identifies itself"
    );
    match m.mode() {
        Mode::RateLimited => return too_many(),
        Mode::ServerError => {
            return (StatusCode::INTERNAL_SERVER_ERROR, "upstream down").into_response()
        }
        _ => {}
    }
    let (tin, tout, amount) = (&q["tokenIn"], &q["tokenOut"], &q["amountIn"]);
    let rate = m
        .rate(tin, tout)
        .filter(|_| chain == "base" && m.mode() == Mode::Ok);
    let Some((num, den)) = rate else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"code": 4008, "message": "route not found", "details": null, "requestId": "kq-0"})),
        )
            .into_response();
    };
    let amount_in: u128 = amount.parse().unwrap();
    let out = amount_in * num / den;
    Json(json!({
        "code": 0,
        "message": "successfully",
        "data": {
            "routeSummary": {
                "tokenIn": tin, "amountIn": amount, "amountInUsd": "1.0",
                "tokenOut": tout, "amountOut": out.to_string(), "amountOutUsd": "1.0",
                "gas": "125000", "gasPrice": "1000000000", "gasUsd": "0.04",
                "extraFee": {"feeAmount": "", "chargeFeeBy": "", "isInBps": false, "feeReceiver": ""},
                "route": [[{
                    "pool": m.router.to_string(), "tokenIn": tin, "tokenOut": tout,
                    "swapAmount": amount, "amountOut": out.to_string(),
                    "exchange": "test-router", "poolType": "test", "poolExtra": null, "extra": null
                }]],
                "routeID": "route-1", "checksum": "7", "timestamp": 1_700_000_000
            },
            "routerAddress": m.router.to_string()
        },
        "requestId": "kq-1"
    }))
    .into_response()
}

async fn kyber_build(
    State(m): State<Mock>,
    Path(_chain): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    m.hit("kyber/build");
    if m.mode() == Mode::RateLimited {
        return too_many();
    }
    let s = &body["routeSummary"];
    let amount_in: u128 = s["amountIn"].as_str().unwrap().parse().unwrap();
    let amount_out: u128 = s["amountOut"].as_str().unwrap().parse().unwrap();
    let slippage = body["slippageTolerance"]
        .as_u64()
        .expect("slippageTolerance in bps") as u128;
    let min_out = amount_out * (10_000 - slippage) / 10_000;
    let tin: Address = s["tokenIn"].as_str().unwrap().parse().unwrap();
    let tout: Address = s["tokenOut"].as_str().unwrap().parse().unwrap();
    let recipient: Address = body["recipient"].as_str().unwrap().parse().unwrap();
    let native = tin == api::chains::EVM_NATIVE;
    Json(json!({
        "code": 0,
        "message": "successfully",
        "data": {
            "amountIn": amount_in.to_string(), "amountInUsd": "1.0",
            "amountOut": amount_out.to_string(), "amountOutUsd": "1.0",
            "gas": "125000", "gasUsd": "0.04",
            "outputChange": {"amount": "0", "percent": 0, "level": 0},
            "data": swap_calldata(tin, tout, U256::from(amount_in), U256::from(min_out), recipient),
            "routerAddress": m.router.to_string(),
            "transactionValue": if native { amount_in.to_string() } else { "0".into() }
        },
        "requestId": "kb-1"
    }))
    .into_response()
}

pub fn kyberswap(m: Mock) -> Router {
    Router::new()
        .route("/{chain}/api/v1/routes", get(kyber_routes))
        .route("/{chain}/api/v1/route/build", post(kyber_build))
        .with_state(m)
}

// --- 0x Swap API v2: GET /swap/allowance-holder/price and /quote

async fn zerox(
    State(m): State<Mock>,
    Path(kind): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    m.hit(&format!("0x/{kind}"));
    if headers.get("0x-api-key").is_none()
        || headers.get("0x-version").map(|v| v.as_bytes()) != Some(b"v2")
    {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"name": "UNAUTHORIZED", "message": "missing API key", "data": {"zid": "0x0"}})),
        )
            .into_response();
    }
    if m.mode() == Mode::RateLimited {
        return too_many();
    }
    assert_eq!(q["chainId"], CHAIN_ID.to_string());
    let (tin, tout) = (&q["sellToken"], &q["buyToken"]);
    let Some((num, den)) = m.rate(tin, tout) else {
        return Json(json!({"liquidityAvailable": false, "zid": "0x1"})).into_response();
    };
    let sell: u128 = q["sellAmount"].parse().unwrap();
    // 0x prices this test pair 1% worse than KyberSwap: the ranking must put KyberSwap first.
    let buy = sell * num / den * 99 / 100;
    let slippage: u128 = q.get("slippageBps").map_or(100, |s| s.parse().unwrap());
    let min_buy = buy * (10_000 - slippage) / 10_000;
    let mut body = json!({
        "blockNumber": "1",
        "buyAmount": buy.to_string(),
        "buyToken": tout,
        "fees": {"integratorFee": null, "zeroExFee": null, "gasFee": null},
        "gas": "150000",
        "gasPrice": "1000000000",
        "issues": {
            "allowance": {"actual": "0", "spender": m.router.to_string()},
            "balance": null,
            "simulationIncomplete": false,
            "invalidSourcesPassed": []
        },
        "liquidityAvailable": true,
        "minBuyAmount": min_buy.to_string(),
        "route": {"fills": [], "tokens": []},
        "sellAmount": sell.to_string(),
        "sellToken": tin,
        "totalNetworkFee": "150000000000000",
        "zid": "0x2"
    });
    if kind == "quote" {
        let taker: Address = q["taker"].parse().unwrap();
        let (tin, tout): (Address, Address) = (tin.parse().unwrap(), tout.parse().unwrap());
        body["transaction"] = json!({
            "to": m.router.to_string(),
            "data": swap_calldata(tin, tout, U256::from(sell), U256::from(min_buy), taker),
            "gas": "150000",
            "gasPrice": "1000000000",
            "value": "0"
        });
    }
    Json(body).into_response()
}

pub fn zerox_router(m: Mock) -> Router {
    Router::new()
        .route("/swap/allowance-holder/{kind}", get(zerox))
        .with_state(m)
}

// --- LI.FI: GET /v1/quote, GET /v1/status

fn lifi_token(chain_id: u64, address: &str, symbol: &str, decimals: u8) -> Value {
    json!({"address": address, "chainId": chain_id, "symbol": symbol, "decimals": decimals,
           "name": symbol, "priceUSD": "1.00"})
}

async fn lifi_quote(State(m): State<Mock>, Query(q): Query<HashMap<String, String>>) -> Response {
    m.hit("lifi/quote");
    match m.mode() {
        Mode::RateLimited => return too_many(),
        Mode::ServerError => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(json!({"message": "Internal server error", "code": 1006})),
            )
                .into_response()
        }
        Mode::NoRoute => {
            return (
                StatusCode::NOT_FOUND,
                Json(json!({
                    "message": "No available quotes for the requested transfer",
                    "code": 1002,
                    "errors": {"filteredOut": [], "failed": []}
                })),
            )
                .into_response()
        }
        Mode::Ok => {}
    }
    let from_chain: u64 = q["fromChain"].parse().unwrap();
    let to_chain: u64 = q["toChain"].parse().unwrap();
    let amount: u128 = q["fromAmount"].parse().unwrap();
    let slippage: f64 = q["slippage"].parse().unwrap();
    assert!(slippage > 0.0 && slippage < 0.5, "slippage is a fraction");
    // The bridged token has 6 decimals where tokenIn has 18: 1e18 in arrives as 2e6 less a fee.
    let to_amount = amount / 1_000_000_000_000 * 2 - 1_000;
    let to_min = to_amount * 995 / 1000;
    let transaction = if from_chain == 1_151_111_081_099_710 {
        // A Solana origin: LI.FI sends a serialized transaction.
        json!({"data": "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="})
    } else {
        let taker: Address = q["fromAddress"].parse().unwrap();
        // The "deposit" is a swap on the local router, so the transaction really executes.
        json!({
            "from": taker.to_string(),
            "to": m.router.to_string(),
            "data": swap_calldata(m.token_a, m.token_b, U256::from(amount), U256::ZERO, taker),
            "value": "0x0",
            "gasLimit": "0x30d40",
            "gasPrice": "0x3b9aca00",
            "chainId": from_chain
        })
    };
    Json(json!({
        "type": "lifi",
        "id": "lifi-step-1",
        "tool": "testbridge",
        "toolDetails": {"key": "testbridge", "name": "Test Bridge", "logoURI": ""},
        "action": {
            "fromChainId": from_chain,
            "toChainId": to_chain,
            "fromToken": lifi_token(from_chain, &q["fromToken"], "TKA", 18),
            "toToken": lifi_token(to_chain, &q["toToken"], "USDC.e", 6),
            "fromAmount": amount.to_string(),
            "slippage": slippage,
            "fromAddress": q["fromAddress"],
            "toAddress": q["toAddress"]
        },
        "estimate": {
            "tool": "testbridge",
            "approvalAddress": m.router.to_string(),
            "fromAmount": amount.to_string(),
            "toAmount": to_amount.to_string(),
            "toAmountMin": to_min.to_string(),
            "executionDuration": 180,
            "feeCosts": [{
                "name": "Bridge fee", "description": "", "percentage": "0.0005",
                "token": lifi_token(to_chain, &q["toToken"], "USDC.e", 6),
                "amount": "1000", "amountUSD": "0.001", "included": true
            }],
            "gasCosts": [{
                "type": "SEND", "price": "1000000000", "estimate": "150000", "limit": "200000",
                "amount": "150000000000000", "amountUSD": "0.45",
                "token": lifi_token(from_chain, "0x0000000000000000000000000000000000000000", "ETH", 18)
            }]
        },
        "includedSteps": [
            {"id": "s1", "type": "swap", "tool": "testdex",
             "action": {"fromChainId": from_chain, "toChainId": from_chain}},
            {"id": "s2", "type": "cross", "tool": "testbridge",
             "action": {"fromChainId": from_chain, "toChainId": to_chain}}
        ],
        "transactionRequest": transaction
    }))
    .into_response()
}

async fn lifi_status(State(m): State<Mock>, Query(q): Query<HashMap<String, String>>) -> Response {
    m.hit("lifi/status");
    if m.mode() == Mode::RateLimited {
        return too_many();
    }
    assert!(q.contains_key("fromChain") && q.contains_key("toChain"));
    let answer = m
        .status_of(&q["txHash"])
        .unwrap_or_else(|| json!({"status": "NOT_FOUND"}));
    Json(answer).into_response()
}

pub fn lifi(m: Mock) -> Router {
    Router::new()
        .route("/v1/quote", get(lifi_quote))
        .route("/v1/status", get(lifi_status))
        .with_state(m)
}

// --- Relay: POST /quote, GET /intents/status/v2

pub const RELAY_REQUEST_ID: &str =
    "0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e";

async fn relay_quote(State(m): State<Mock>, Json(body): Json<Value>) -> Response {
    m.hit("relay/quote");
    match m.mode() {
        Mode::RateLimited => return too_many(),
        Mode::NoRoute | Mode::ServerError => {
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"message": "No routes found", "errorCode": "NO_SWAP_ROUTES_FOUND"})),
            )
                .into_response()
        }
        Mode::Ok => {}
    }
    assert_eq!(body["tradeType"], "EXACT_INPUT");
    let amount: u128 = body["amount"].as_str().unwrap().parse().unwrap();
    if body["originChainId"] == 792_703_809 {
        return relay_solana_quote(&body, amount);
    }
    let user: Address = body["user"].as_str().unwrap().parse().unwrap();
    let out = amount / 1_000_000_000_000 * 2 - 2_000;
    let currency = |chain: &Value, address: &Value, symbol: &str, decimals: u8| json!({"chainId": chain, "address": address, "symbol": symbol, "name": symbol, "decimals": decimals});
    let dest = currency(
        &body["destinationChainId"],
        &body["destinationCurrency"],
        "USDC",
        6,
    );
    Json(json!({
        "steps": [
            {
                "id": "approve", "action": "Confirm transaction in your wallet",
                "description": "Sign an approval for TKA", "kind": "transaction",
                "items": [{"status": "incomplete", "data": {
                    "from": user.to_string(), "to": body["originCurrency"], "data": "0x095ea7b3",
                    "value": "0", "chainId": body["originChainId"]}}]
            },
            {
                "id": "deposit", "action": "Confirm transaction in your wallet",
                "description": "Depositing funds to the relayer", "kind": "transaction",
                "requestId": RELAY_REQUEST_ID,
                "items": [{
                    "status": "incomplete",
                    "data": {
                        "from": user.to_string(),
                        "to": m.router.to_string(),
                        "data": swap_calldata(m.token_a, m.token_b, U256::from(amount), U256::ZERO, user),
                        "value": "0",
                        "chainId": body["originChainId"],
                        "gas": 200000
                    },
                    "check": {"endpoint": format!("/intents/status?requestId={RELAY_REQUEST_ID}"), "method": "GET"}
                }]
            }
        ],
        "fees": {
            "gas": {"currency": currency(&body["originChainId"], &json!("0x0000000000000000000000000000000000000000"), "ETH", 18),
                    "amount": "60000000000000", "amountFormatted": "0.00006", "amountUsd": "0.18"},
            "relayer": {"currency": dest.clone(), "amount": "2000", "amountFormatted": "0.002", "amountUsd": "0.002"},
            "relayerGas": {"currency": dest.clone(), "amount": "1500", "amountFormatted": "0.0015", "amountUsd": "0.0015"},
            "relayerService": {"currency": dest.clone(), "amount": "500", "amountFormatted": "0.0005", "amountUsd": "0.0005"},
            "app": {"currency": dest.clone(), "amount": "0", "amountFormatted": "0", "amountUsd": "0"}
        },
        "details": {
            "operation": "bridge",
            "sender": user.to_string(),
            "recipient": body["recipient"],
            "currencyIn": {"currency": currency(&body["originChainId"], &body["originCurrency"], "TKA", 18),
                           "amount": amount.to_string(), "amountFormatted": "1", "amountUsd": "1", "minimumAmount": amount.to_string()},
            "currencyOut": {"currency": dest, "amount": out.to_string(), "amountFormatted": "2", "amountUsd": "2",
                            "minimumAmount": (out * 99 / 100).to_string()},
            "totalImpact": {"usd": "-0.01", "percent": "-0.5"},
            "rate": "2",
            "slippageTolerance": {"origin": {"usd": "0", "value": "0", "percent": "0"},
                                  "destination": {"usd": "0.01", "value": "20", "percent": "1"}},
            "timeEstimate": 30
        }
    }))
    .into_response()
}

/// Where Relay's Solana deposits go in these tests.
pub const RELAY_SOLANA_DEPOSIT: &str = "8opHzTAnfzRpPEx21XtnrVTX28YQuCpAjcn1PczScKh";

/// A Solana origin: Relay answers with instructions (data in hex) to assemble; here a SOL transfer of the
/// amount to the deposit address.
fn relay_solana_quote(body: &Value, lamports: u128) -> Response {
    let mut data = 2u32.to_le_bytes().to_vec();
    data.extend((lamports as u64).to_le_bytes());
    let out = lamports / 1_000;
    Json(json!({
        "steps": [{
            "id": "deposit", "action": "Confirm transaction in your wallet",
            "description": "Depositing funds to the relayer", "kind": "transaction",
            "requestId": RELAY_REQUEST_ID,
            "items": [{
                "status": "incomplete",
                "data": {
                    "instructions": [{
                        "keys": [
                            {"pubkey": body["user"], "isSigner": true, "isWritable": true},
                            {"pubkey": RELAY_SOLANA_DEPOSIT, "isSigner": false, "isWritable": true}
                        ],
                        "programId": "11111111111111111111111111111111",
                        "data": alloy::primitives::hex::encode(data)
                    }],
                    "addressLookupTableAddresses": []
                },
                "check": {"endpoint": format!("/intents/status?requestId={RELAY_REQUEST_ID}"), "method": "GET"}
            }]
        }],
        "fees": {},
        "details": {
            "operation": "bridge", "sender": body["user"], "recipient": body["recipient"],
            "currencyOut": {"currency": {"chainId": body["destinationChainId"], "address": body["destinationCurrency"],
                                         "symbol": "TKB", "name": "TKB", "decimals": 6},
                            "amount": out.to_string(), "amountFormatted": "1", "amountUsd": "1",
                            "minimumAmount": (out * 99 / 100).to_string()},
            "timeEstimate": 12
        }
    }))
    .into_response()
}

async fn relay_status(State(m): State<Mock>, Query(q): Query<HashMap<String, String>>) -> Response {
    m.hit("relay/status");
    let answer = m
        .status_of(&q["requestId"])
        .unwrap_or_else(|| json!({"status": "waiting", "inTxHashes": [], "txHashes": []}));
    Json(answer).into_response()
}

pub fn relay(m: Mock) -> Router {
    Router::new()
        .route("/quote", post(relay_quote))
        .route("/intents/status/v2", get(relay_status))
        .with_state(m)
}
