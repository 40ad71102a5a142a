//! The walkthrough: a user's whole journey against a running API, over HTTP only, signing locally. Used
//! by `cargo run -p dev --example walkthrough` (against the `dev` stack) and by the tests.

use anyhow::{bail, ensure, Context};
use base64::Engine;
use serde_json::{json, Value};
use solana_keypair::Keypair;
use solana_signer::Signer;
use solana_transaction::versioned::VersionedTransaction;
use std::time::{Duration, Instant};

/// What happened, step by step.
#[derive(Debug, Default)]
pub struct Report {
    pub mint: String,
    pub pool: String,
    pub launch_signature: String,
    pub buys: Vec<String>,
    pub migrated: bool,
    /// (kind, signature, quote amount, token amount)
    pub claims: Vec<(String, String, String, String)>,
    pub lines: Vec<String>,
}

struct Client {
    http: reqwest::Client,
    base: String,
    wallet: Keypair,
}

impl Client {
    async fn call(&self, method: &str, path: &str, body: Option<Value>) -> anyhow::Result<Value> {
        let url = format!("{}{path}", self.base);
        let req = match method {
            "GET" => self.http.get(&url),
            _ => self.http.post(&url).json(&body.unwrap_or(Value::Null)),
        };
        let r = req
            .header("X-Client-Id", "walkthrough")
            .header("X-Client-Source", "agent")
            .send()
            .await
            .with_context(|| format!("{method} {url}"))?;
        let status = r.status();
        let body: Value = r.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            bail!("{method} {path}: {status} {body}");
        }
        Ok(body)
    }

    /// Signs an unsigned transaction from the API and relays it; returns the signature.
    async fn sign_and_submit(&self, unsigned: &Value) -> anyhow::Result<String> {
        let b64 = base64::engine::general_purpose::STANDARD;
        let bytes = b64.decode(unsigned.as_str().context("a base64 transaction")?)?;
        let tx: VersionedTransaction = bincode::deserialize(&bytes)?;
        let signed = VersionedTransaction::try_new(tx.message, &[&self.wallet])?;
        let sent = self
            .call(
                "POST",
                "/swap/submit-solana",
                Some(json!({ "signedTransaction": b64.encode(bincode::serialize(&signed)?) })),
            )
            .await?;
        ensure!(sent["confirmed"] == true, "not confirmed: {sent}");
        Ok(sent["signature"].as_str().unwrap_or_default().to_string())
    }

    async fn swap(
        &self,
        token_in: &str,
        token_out: &str,
        amount: &str,
    ) -> anyhow::Result<(Value, String)> {
        let request = json!({
            "chainKey": "solana", "tokenIn": token_in, "tokenOut": token_out, "amount": amount,
            "amountUnit": "human", "slippageBps": 100, "taker": self.wallet.pubkey().to_string(),
        });
        let quote = self
            .call("POST", "/swap/quote", Some(request.clone()))
            .await?;
        let built = self
            .call(
                "POST",
                "/swap/build",
                Some(json!({
                    "request": request, "route": quote["best"]["route"],
                    "minAmountOut": quote["best"]["minAmountOut"],
                })),
            )
            .await?;
        let sig = self.sign_and_submit(&built["solanaTransaction"]).await?;
        Ok((json!({ "quote": quote, "build": built }), sig))
    }
}

/// A JSON value as plain text (strings without their quotes).
fn t(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

fn say(report: &mut Report, line: String) {
    println!("{line}");
    report.lines.push(line);
}

/// Launches a token, buys it to graduation (which migrates it), trades on the AMM, and claims every fee
/// kind the creator can, printing each step.
pub async fn run(base: &str, wallet: Keypair) -> anyhow::Result<Report> {
    let c = Client {
        http: reqwest::Client::new(),
        base: base.trim_end_matches('/').to_string(),
        wallet,
    };
    let me = c.wallet.pubkey().to_string();
    let sol = sdk::ids::NATIVE_MINT.to_string();
    let mut report = Report::default();
    say(&mut report, format!("wallet {me}, API {}", c.base));

    let launch = json!({
        "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "fair", "quote": "sol",
        "name": "Walkthrough Token", "symbol": "WALK", "description": "launched by the walkthrough",
        "totalSupply": "1000000000", "creator": me, "firstBuyAmount": "0.1",
    });
    let prepared = c
        .call("POST", "/launchpad/prepare", Some(launch.clone()))
        .await?;
    report.mint = prepared["mint"].as_str().unwrap_or_default().into();
    report.pool = prepared["pool"].as_str().unwrap_or_default().into();
    report.launch_signature = c.sign_and_submit(&prepared["solanaTransaction"]).await?;
    let mut record = launch.clone();
    record["tokenAddress"] = prepared["mint"].clone();
    record["deployTxHash"] = json!(report.launch_signature);
    record["metadataURI"] = prepared["metadataURI"].clone();
    c.call("POST", "/launchpad/record", Some(record)).await?;
    let line = format!(
        "1. launched {} (pool {}) with a 0.1 SOL first buy: {}",
        report.mint, report.pool, report.launch_signature
    );
    say(&mut report, line);

    let curve_path = format!("/launchpad/curve/{}", report.mint);
    let start = Instant::now();
    loop {
        match c.call("GET", &curve_path, None).await {
            Ok(curve) if curve["migrated"] == true => break,
            Ok(curve) if curve["status"] == "bonding" => {
                say(
                    &mut report,
                    format!(
                        "2. curve at {}% ({} of {} lamports raised), fee {} bps: buying 3 SOL",
                        t(&curve["progress"]),
                        t(&curve["quoteRaised"]),
                        t(&curve["graduationThreshold"]),
                        t(&curve["currentFeeBps"])
                    ),
                );
                let (out, sig) = c.swap(&sol, &report.mint, "3").await?;
                if out["build"]["migrates"] == true {
                    say(
                        &mut report,
                        format!("   this buy graduates the curve and migrates it: {sig}"),
                    );
                }
                report.buys.push(sig);
                // Quote the next buy on the state after this one: wait for the index to show it.
                let raised = curve["quoteRaised"].clone();
                let wait = Instant::now();
                while wait.elapsed() < Duration::from_secs(30) {
                    let now = c.call("GET", &curve_path, None).await?;
                    if now["quoteRaised"] != raised || now["status"] != "bonding" {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
            // Not indexed yet, or graduated and migrating.
            _ => tokio::time::sleep(Duration::from_millis(200)).await,
        }
        ensure!(
            start.elapsed() < Duration::from_secs(120),
            "the curve never migrated"
        );
    }
    report.migrated = true;
    let curve = c.call("GET", &curve_path, None).await?;
    say(
        &mut report,
        format!(
            "3. migrated into AMM pool {} at price {} SOL per token",
            t(&curve["ammPool"]),
            t(&curve["price"])
        ),
    );

    let (out, sig) = c.swap(&sol, &report.mint, "0.5").await?;
    say(
        &mut report,
        format!(
            "4. bought on the AMM via {}: {} tokens ({sig})",
            t(&out["quote"]["best"]["dexId"]),
            t(&out["quote"]["best"]["amountOut"])
        ),
    );

    for kind in ["trading", "surplus", "locked-lp"] {
        let start = Instant::now();
        let entry = loop {
            let fees = c
                .call("GET", &format!("/launchpad/fees?creator={me}"), None)
                .await?;
            let found = fees["fees"]
                .as_array()
                .and_then(|f| {
                    f.iter()
                        .find(|e| e["pool"] == report.pool.as_str() && e["kind"] == kind)
                })
                .cloned();
            if let Some(e) = found {
                break e;
            }
            ensure!(
                start.elapsed() < Duration::from_secs(30),
                "no {kind} fees to claim"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let claim = c
            .call(
                "POST",
                "/launchpad/claim",
                Some(json!({ "creator": me, "pool": report.pool, "kind": kind })),
            )
            .await?;
        let sig = c.sign_and_submit(&claim["solanaTransaction"]).await?;
        say(
            &mut report,
            format!(
                "5. claimed {kind}: {} lamports and {} token units ({sig})",
                t(&entry["quoteAmount"]),
                t(&entry["baseAmount"])
            ),
        );
        report.claims.push((
            kind.into(),
            sig,
            entry["quoteAmount"].as_str().unwrap_or_default().into(),
            entry["baseAmount"].as_str().unwrap_or_default().into(),
        ));
    }
    say(
        &mut report,
        "done: launched, graduated, migrated, fees claimed".into(),
    );
    Ok(report)
}
