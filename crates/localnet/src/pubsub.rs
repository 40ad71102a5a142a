//! Solana PubSub (JSON-RPC over WebSocket), as wallets and `@solana/web3.js` use it to confirm transactions:
//! `signatureSubscribe`, `slotSubscribe`, `accountSubscribe` and their unsubscribes. Served on the RPC port
//! (as an upgrade of `GET /`) and on the RPC port + 1, where clients look for it by default.

use crate::chain::{ChainEvent, SharedChain, SlotStatus};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use serde_json::{json, Value};
use solana_account_decoder::{encode_ui_account, UiAccountEncoding};
use solana_pubkey::Pubkey;
use solana_signature::Signature;
use std::collections::HashMap;
use std::str::FromStr;
use tokio::sync::{broadcast::error::RecvError, mpsc};

pub async fn upgrade(State(chain): State<SharedChain>, ws: WebSocketUpgrade) -> Response {
    ws.on_upgrade(move |socket| session(chain, socket))
}

/// Serves PubSub alone on `listener` until `shutdown` resolves.
pub async fn serve_with_listener(
    chain: SharedChain,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let app = axum::Router::new()
        .route("/", axum::routing::get(upgrade))
        .with_state(chain);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}

enum Sub {
    Signature(Signature),
    Slot,
    Account(Pubkey, UiAccountEncoding),
}

fn reply(id: &Value, result: Value) -> String {
    json!({ "jsonrpc": "2.0", "result": result, "id": id }).to_string()
}

fn error(id: &Value, code: i64, message: &str) -> String {
    json!({ "jsonrpc": "2.0", "error": { "code": code, "message": message }, "id": id }).to_string()
}

fn notification(method: &str, subscription: u64, result: Value) -> String {
    json!({ "jsonrpc": "2.0", "method": method, "params": { "result": result, "subscription": subscription } }).to_string()
}

async fn session(chain: SharedChain, mut socket: WebSocket) {
    let mut events = match chain.lock() {
        Ok(c) => c.subscribe(),
        Err(_) => return,
    };
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let mut subs: HashMap<u64, Sub> = HashMap::new();
    let mut next_id: u64 = 0;
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let Some(Ok(msg)) = incoming else { break };
                let text = match msg {
                    Message::Text(t) => t.to_string(),
                    Message::Close(_) => break,
                    _ => continue,
                };
                handle_request(&chain, &text, &mut subs, &mut next_id, &out_tx);
            }
            event = events.recv() => {
                match event {
                    Ok(stamped) => notify(&chain, &stamped.event, &mut subs, &out_tx),
                    Err(RecvError::Lagged(_)) => {
                        let _ = socket.send(Message::Close(None)).await;
                        break;
                    }
                    Err(RecvError::Closed) => break,
                }
            }
            out = out_rx.recv() => {
                let Some(text) = out else { break };
                if socket.send(Message::Text(text.into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

fn handle_request(
    chain: &SharedChain,
    text: &str,
    subs: &mut HashMap<u64, Sub>,
    next_id: &mut u64,
    out: &mpsc::UnboundedSender<String>,
) {
    let Ok(req) = serde_json::from_str::<Value>(text) else {
        let _ = out.send(error(&Value::Null, -32700, "Parse error"));
        return;
    };
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let method = req
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = req
        .get("params")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let first = params.first().and_then(Value::as_str).unwrap_or_default();
    let mut subscribe = |sub: Sub| {
        *next_id += 1;
        subs.insert(*next_id, sub);
        let _ = out.send(reply(&id, json!(*next_id)));
        *next_id
    };
    match method {
        "signatureSubscribe" => {
            let Ok(sig) = Signature::from_str(first) else {
                let _ = out.send(error(&id, -32602, "Invalid param: signature"));
                return;
            };
            let sub_id = subscribe(Sub::Signature(sig));
            // Already landed: notify at once.
            let landed = chain.lock().ok().and_then(|c| c.signature_status(&sig));
            if let Some((slot, status)) = landed {
                let err = status.err().map(|e| json!(e)).unwrap_or(Value::Null);
                let _ = out.send(notification(
                    "signatureNotification",
                    sub_id,
                    json!({ "context": { "slot": slot }, "value": { "err": err } }),
                ));
                subs.remove(&sub_id);
            }
        }
        "slotSubscribe" => {
            subscribe(Sub::Slot);
        }
        "accountSubscribe" => {
            let Ok(key) = Pubkey::from_str(first) else {
                let _ = out.send(error(&id, -32602, "Invalid param: pubkey"));
                return;
            };
            let encoding = params
                .get(1)
                .and_then(|c| c.get("encoding"))
                .and_then(|e| serde_json::from_value(e.clone()).ok())
                .unwrap_or(UiAccountEncoding::Base64);
            subscribe(Sub::Account(key, encoding));
        }
        "signatureUnsubscribe" | "slotUnsubscribe" | "accountUnsubscribe" => {
            let removed = params
                .first()
                .and_then(Value::as_u64)
                .and_then(|s| subs.remove(&s))
                .is_some();
            let _ = out.send(reply(&id, json!(removed)));
        }
        _ => {
            let _ = out.send(error(&id, -32601, &format!("Method not found: {method}")));
        }
    }
}

fn notify(
    chain: &SharedChain,
    event: &ChainEvent,
    subs: &mut HashMap<u64, Sub>,
    out: &mpsc::UnboundedSender<String>,
) {
    let mut done = Vec::new();
    for (id, sub) in subs.iter() {
        match (sub, event) {
            (Sub::Signature(sig), ChainEvent::Transaction(tx)) if tx.signature == *sig => {
                let err = tx
                    .meta
                    .status
                    .clone()
                    .err()
                    .map(|e| json!(e))
                    .unwrap_or(Value::Null);
                let _ = out.send(notification(
                    "signatureNotification",
                    *id,
                    json!({ "context": { "slot": tx.slot }, "value": { "err": err } }),
                ));
                done.push(*id);
            }
            (
                Sub::Slot,
                ChainEvent::Slot {
                    slot,
                    parent,
                    status: SlotStatus::Processed,
                },
            ) => {
                let root = chain
                    .lock()
                    .map(|c| c.slot().saturating_sub(1))
                    .unwrap_or(0);
                let _ = out.send(notification(
                    "slotNotification",
                    *id,
                    json!({ "slot": slot, "parent": parent.unwrap_or(0), "root": root }),
                ));
            }
            (
                Sub::Account(key, encoding),
                ChainEvent::Account {
                    slot,
                    pubkey,
                    account,
                    ..
                },
            ) if pubkey == key => {
                let ui = encode_ui_account(pubkey, account, *encoding, None, None);
                let _ = out.send(notification(
                    "accountNotification",
                    *id,
                    json!({ "context": { "slot": slot }, "value": ui }),
                ));
            }
            _ => {}
        }
    }
    for id in done {
        subs.remove(&id);
    }
}
