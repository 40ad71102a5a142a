//! The HTTP plumbing every aggregator adapter shares: one client with a timeout, JSON both ways, and one
//! mapping of the upstream's failures (429 and 5xx are "retry later"; other 4xx are the upstream's
//! answer, for the adapter to read).

use serde_json::Value;
use std::time::Duration;
use web::error::{ApiError, ErrorCode};

#[derive(Clone)]
pub struct Upstream {
    /// For logs and messages: `KyberSwap`, `LI.FI`, ...
    pub name: &'static str,
    /// The `upstream` label of its calls' metrics: `kyberswap`, `lifi`, `0x`, `relay`.
    label: &'static str,
    http: reqwest::Client,
    base: String,
}

/// What the upstream said.
#[derive(Debug)]
pub enum Answer {
    Ok(Value),
    /// A 4xx other than 429, with its body (`Value::Null` when it was not JSON).
    Refused {
        status: u16,
        body: Value,
    },
}

impl Upstream {
    pub fn new(name: &'static str, base: &str, headers: &[(&'static str, &str)]) -> Upstream {
        let mut map = reqwest::header::HeaderMap::new();
        for (k, v) in headers {
            if let Ok(v) = reqwest::header::HeaderValue::from_str(v) {
                map.insert(*k, v);
            }
        }
        Upstream {
            name,
            label: label_of(name),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .default_headers(map)
                .build()
                .unwrap_or_default(),
            base: base.trim_end_matches('/').to_string(),
        }
    }

    pub fn enabled(base: &str) -> bool {
        !base.trim().is_empty()
    }

    /// An error found after the call was recorded (its body).
    fn error(&self, path: &str, kind: ops::upstream::ErrorKind) {
        ops::upstream::error_of(self.label, path, None, kind);
    }

    fn failed(&self, what: &str, e: impl std::fmt::Display) -> ApiError {
        tracing::warn!("{} {what}: {e}", self.name);
        ApiError::unavailable(format!(
            "{} is unavailable ({what}); retry shortly",
            self.name
        ))
    }

    pub async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Answer, ApiError> {
        let request = self.http.get(format!("{}{path}", self.base)).query(query);
        self.send(path, request).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Result<Answer, ApiError> {
        let request = self.http.post(format!("{}{path}", self.base)).json(body);
        self.send(path, request).await
    }

    /// Sends `request`, recorded as one call of `path` ([`ops::upstream`]): its duration to the answer's
    /// head, and an error by kind (a 4xx other than 401, 403 and 429 is the upstream's answer, not an error).
    async fn send(&self, path: &str, request: reqwest::RequestBuilder) -> Result<Answer, ApiError> {
        let call = ops::upstream::Call::start(self.label, path);
        let response = request.send().await;
        match &response {
            Ok(r) => call.status(r.status().as_u16()),
            Err(_) => call.reqwest(&response),
        }
        let response = response.map_err(|e| self.failed(path, e))?;
        let status = response.status();
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok())
                .unwrap_or(1);
            tracing::warn!("{} {path}: rate limited", self.name);
            return Err(ApiError {
                retry_after: Some(retry_after),
                ..ApiError::new(
                    ErrorCode::UpstreamRateLimited,
                    format!(
                        "{} is rate limiting this service; retry in {retry_after} s",
                        self.name
                    ),
                )
            });
        }
        let text = response.text().await.map_err(|e| {
            self.error(path, ops::upstream::ErrorKind::of_reqwest(&e));
            self.failed(path, e)
        })?;
        if status.is_server_error() {
            return Err(self.failed(path, format!("{status} {text}")));
        }
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        if status.is_client_error() {
            tracing::debug!("{} {path}: {status} {text}", self.name);
            return Ok(Answer::Refused {
                status: status.as_u16(),
                body,
            });
        }
        if body.is_null() {
            self.error(path, ops::upstream::ErrorKind::Decode);
            return Err(self.failed(path, "the answer is not JSON"));
        }
        Ok(Answer::Ok(body))
    }
}

/// The `upstream` label of an aggregator named `name`.
fn label_of(name: &str) -> &'static str {
    match name {
        "KyberSwap" => "kyberswap",
        "LI.FI" => "lifi",
        "0x" => "0x",
        "Relay" => "relay",
        _ => "aggregator",
    }
}

/// A string field of an upstream answer holding a decimal integer.
pub fn int_field(v: &Value, name: &str) -> Option<u128> {
    match v {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64().map(u128::from),
        _ => None,
    }
    .or_else(|| {
        tracing::debug!("upstream field {name} is not an integer: {v}");
        None
    })
}

/// An upstream answer missing what its documentation promises.
pub fn malformed(name: &str, what: &str) -> ApiError {
    tracing::warn!("{name}: malformed answer: {what}");
    ApiError::new(
        ErrorCode::InvalidUpstream,
        format!("{name} answered without {what}"),
    )
}
