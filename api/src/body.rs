//! JSON bodies: parsed into the endpoint's type with errors in the spec's format, after refusing anything
//! that carries private-key or seed-phrase material. Bodies are never logged.

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A JSON body of type `T`.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "PAYLOAD_TOO_LARGE",
                    "the request body is too large",
                )
            } else {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "INVALID_JSON",
                    "the request body could not be read",
                )
            }
        })?;
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "INVALID_JSON",
                format!("the body is not valid JSON: {e}"),
            )
        })?;
        if let Some(path) = secret_material(&value, "") {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "SECRET_MATERIAL",
                format!(
                    "`{path}` looks like a private key or seed phrase; this service never accepts them. \
                     Sign locally and send only signed transactions"
                ),
            ));
        }
        serde_json::from_value(value).map(ApiJson).map_err(|e| {
            let message = e.to_string();
            if let Some(field) = message
                .strip_prefix("missing field `")
                .and_then(|r| r.split('`').next())
            {
                ApiError::missing(field)
            } else {
                ApiError::invalid(format!("invalid body: {message}"))
            }
        })
    }
}

const SECRET_NAMES: [&str; 7] = [
    "privatekey",
    "private_key",
    "secretkey",
    "secret_key",
    "seedphrase",
    "mnemonic",
    "keypair",
];

/// Where in `v` something secret sits: a field named like a key or seed, a 64-number array (a Solana
/// keypair file), a string of 12 to 24 lowercase words (a seed phrase), or a base58 string of 64 bytes in a
/// field that is not a signature.
fn secret_material(v: &Value, path: &str) -> Option<String> {
    match v {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let here = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            let name = k.to_ascii_lowercase().replace('-', "_");
            if SECRET_NAMES.iter().any(|s| name.contains(s)) || name == "seed" || name == "secret" {
                return Some(here);
            }
            let is_signature =
                name.contains("hash") || name.contains("signature") || name.contains("transaction");
            match v {
                Value::String(s) => (!is_signature && looks_like_secret_string(s)).then_some(here),
                _ => secret_material(v, &here),
            }
        }),
        Value::Array(items) => {
            if items.len() == 64 && items.iter().all(|i| i.as_u64().is_some_and(|n| n < 256)) {
                return Some(path.to_string());
            }
            items
                .iter()
                .enumerate()
                .find_map(|(i, v)| secret_material(v, &format!("{path}[{i}]")))
        }
        Value::String(s) if looks_like_secret_string(s) => Some(path.to_string()),
        _ => None,
    }
}

fn looks_like_secret_string(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    let phrase = [12, 15, 18, 21, 24].contains(&words.len())
        && words
            .iter()
            .all(|w| w.len() >= 3 && w.len() <= 8 && w.chars().all(|c| c.is_ascii_lowercase()));
    let keypair =
        (86..=90).contains(&s.len()) && bs58::decode(s).into_vec().is_ok_and(|b| b.len() == 64);
    phrase || keypair
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_found_wherever_they_hide() {
        let kp: Vec<u8> = (0..64).collect();
        assert_eq!(
            secret_material(&json!({"privateKey": "x"}), ""),
            Some("privateKey".into())
        );
        assert_eq!(
            secret_material(&json!({"a": {"wallet": kp}}), ""),
            Some("a.wallet".into())
        );
        let phrase =
            "abandon ability able about above absent absorb abstract absurd abuse access accident";
        assert_eq!(
            secret_material(&json!({"note": phrase}), ""),
            Some("note".into())
        );
        let b58 = bs58::encode([7u8; 64]).into_string();
        assert_eq!(
            secret_material(&json!({"creator": b58}), ""),
            Some("creator".into())
        );
        // A signature is 64 bytes too, and legitimate where a signature belongs.
        assert_eq!(secret_material(&json!({"deployTxHash": b58}), ""), None);
        assert_eq!(
            secret_material(
                &json!({"name": "My Token", "description": "a fair launch for everyone"}),
                ""
            ),
            None
        );
    }
}
