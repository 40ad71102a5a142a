//! Jupiter's Swap API (v1): `GET /quote` and `POST /swap-instructions`. Routes come back as route entries
//! (`jupiter-solana`); builds assemble Jupiter's instructions into our own v0 transaction, with its address
//! lookup tables, so the build can be simulated like any other.

use crate::error::ApiError;
use anchor_lang::solana_program::instruction::{AccountMeta, Instruction};
use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Value};
use solana_pubkey::Pubkey;
use std::time::Duration;

#[derive(Clone)]
pub struct Jupiter {
    http: reqwest::Client,
    base: String,
}

/// A route Jupiter quoted: its response, kept whole (`/swap-instructions` wants it back unchanged).
#[derive(Debug, Clone)]
pub struct JupiterQuote {
    pub out_amount: u64,
    /// Least out at the requested slippage.
    pub min_out: u64,
    pub response: Value,
    pub labels: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Ix {
    program_id: String,
    accounts: Vec<Meta>,
    data: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    pubkey: String,
    is_signer: bool,
    is_writable: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SwapInstructions {
    #[serde(default)]
    compute_budget_instructions: Vec<Ix>,
    #[serde(default)]
    setup_instructions: Vec<Ix>,
    swap_instruction: Ix,
    #[serde(default)]
    cleanup_instruction: Option<Ix>,
    #[serde(default)]
    other_instructions: Vec<Ix>,
    #[serde(default)]
    address_lookup_table_addresses: Vec<String>,
}

fn upstream(what: &str, e: impl std::fmt::Display) -> ApiError {
    tracing::warn!("jupiter {what}: {e}");
    ApiError::unavailable(format!("the Solana aggregator failed ({what})"))
}

/// Sends a request to Jupiter, recorded as `upstream="jupiter"` by its path ([`ops::upstream`]).
async fn metered(
    path: &'static str,
    send: impl std::future::Future<Output = Result<reqwest::Response, reqwest::Error>>,
) -> Result<reqwest::Response, reqwest::Error> {
    let call = ops::upstream::Call::start(ops::upstream::JUPITER, path);
    let result = send.await;
    match &result {
        Ok(r) => call.status(r.status().as_u16()),
        Err(_) => call.reqwest(&result),
    }
    result
}

/// An answer of Jupiter's that could not be read.
fn decode_failed(path: &'static str) {
    ops::upstream::error_of(
        ops::upstream::JUPITER,
        path,
        None,
        ops::upstream::ErrorKind::Decode,
    );
}

fn instruction(ix: Ix) -> Result<Instruction, ApiError> {
    let key = |s: &str| {
        s.parse::<Pubkey>()
            .map_err(|e| upstream("instruction key", e))
    };
    Ok(Instruction {
        program_id: key(&ix.program_id)?,
        accounts: ix
            .accounts
            .iter()
            .map(|m| {
                Ok(AccountMeta {
                    pubkey: key(&m.pubkey)?,
                    is_signer: m.is_signer,
                    is_writable: m.is_writable,
                })
            })
            .collect::<Result<_, ApiError>>()?,
        data: base64::engine::general_purpose::STANDARD
            .decode(&ix.data)
            .map_err(|e| upstream("instruction data", e))?,
    })
}

/// Instructions Jupiter returns for a swap, with its lookup tables.
pub struct Built {
    /// Jupiter's own compute budget instructions come first; ours are not added.
    pub instructions: Vec<Instruction>,
    pub lookup_tables: Vec<Pubkey>,
}

impl Jupiter {
    /// The adapter at `base`, sending `api_key` as `x-api-key` on every request when given (marked
    /// sensitive: never printed by the HTTP client's debug output).
    pub fn new(base: &str, api_key: Option<&str>) -> Jupiter {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(key) = api_key.filter(|k| !k.is_empty()) {
            match reqwest::header::HeaderValue::from_str(key) {
                Ok(mut value) => {
                    value.set_sensitive(true);
                    headers.insert("x-api-key", value);
                }
                Err(_) => tracing::warn!("--jupiter-api-key is not a valid header value: not sent"),
            }
        }
        Jupiter {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(5))
                .default_headers(headers)
                .build()
                .unwrap_or_default(),
            base: base.trim_end_matches('/').to_string(),
        }
    }

    /// A quote, or `None` when Jupiter has no route (its 4xx answers); errors for anything else.
    pub async fn quote(
        &self,
        input: &Pubkey,
        output: &Pubkey,
        amount: u64,
        slippage_bps: u16,
    ) -> Result<Option<JupiterQuote>, ApiError> {
        let r = self
            .http
            .get(format!("{}/quote", self.base))
            .query(&[
                ("inputMint", input.to_string()),
                ("outputMint", output.to_string()),
                ("amount", amount.to_string()),
                ("slippageBps", slippage_bps.to_string()),
                ("swapMode", "ExactIn".to_string()),
            ])
            .send();
        let r = metered("/quote", r)
            .await
            .map_err(|e| upstream("quote", e))?;
        let status = r.status();
        let body: Value = r.json().await.map_err(|e| {
            decode_failed("/quote");
            upstream("quote body", e)
        })?;
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            return Err(upstream("quote", "rate limited (429)"));
        }
        if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
            // A missing or refused key is the operator's to fix, not "no route".
            return Err(upstream(
                "quote",
                format!("refused ({status}): check --jupiter-api-key"),
            ));
        }
        if status.is_client_error() {
            // e.g. {"error": "Could not find any route", "errorCode": "COULD_NOT_FIND_ANY_ROUTE"}
            tracing::debug!("jupiter: no route: {body}");
            return Ok(None);
        }
        if !status.is_success() {
            return Err(upstream("quote", status));
        }
        let num = |k: &str| {
            body[k]
                .as_str()
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(|| upstream("quote", format!("missing {k}")))
        };
        let labels = body["routePlan"]
            .as_array()
            .map(|plan| {
                plan.iter()
                    .filter_map(|s| s["swapInfo"]["label"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Some(JupiterQuote {
            out_amount: num("outAmount")?,
            min_out: num("otherAmountThreshold")?,
            labels,
            response: body,
        }))
    }

    /// The instructions of a quoted swap for `user`, SOL wrapped and unwrapped by Jupiter.
    pub async fn swap_instructions(&self, quote: &Value, user: &Pubkey) -> Result<Built, ApiError> {
        let r = self
            .http
            .post(format!("{}/swap-instructions", self.base))
            .json(&json!({
                "quoteResponse": quote,
                "userPublicKey": user.to_string(),
                "wrapAndUnwrapSol": true,
                "dynamicComputeUnitLimit": true,
            }))
            .send();
        let r = metered("/swap-instructions", r)
            .await
            .map_err(|e| upstream("swap-instructions", e))?;
        if !r.status().is_success() {
            let status = r.status();
            let body = r.text().await.unwrap_or_default();
            return Err(upstream("swap-instructions", format!("{status} {body}")));
        }
        let s: SwapInstructions = r.json().await.map_err(|e| {
            decode_failed("/swap-instructions");
            upstream("swap-instructions body", e)
        })?;
        let mut instructions = Vec::new();
        for ix in s
            .compute_budget_instructions
            .into_iter()
            .chain(s.other_instructions)
            .chain(s.setup_instructions)
            .chain(std::iter::once(s.swap_instruction))
            .chain(s.cleanup_instruction)
        {
            instructions.push(instruction(ix)?);
        }
        let lookup_tables = s
            .address_lookup_table_addresses
            .iter()
            .map(|a| a.parse().map_err(|e| upstream("lookup table", e)))
            .collect::<Result<_, _>>()?;
        Ok(Built {
            instructions,
            lookup_tables,
        })
    }
}
