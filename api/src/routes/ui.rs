//! The launchpad in a browser: a page at `/` and its static assets (plain JavaScript modules, CSS and the
//! vendored charting library), embedded in the binary, so running it needs no Node.js, build step or
//! network. Assets are served under `/ui/<version>/`, the version being a content hash of every asset,
//! cached immutable; the page itself is revalidated on every load and carries a strict Content-Security-Policy
//! (scripts and styles from this origin only, no inline script).

use crate::body::ApiJson;
use crate::error::{address, ApiError, ErrorCode};
use crate::extract::ApiPath;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::LazyLock;

/// One embedded file.
struct Asset {
    name: &'static str,
    mime: &'static str,
    body: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $mime:expr) => {
        Asset {
            name: $name,
            mime: $mime,
            body: include_bytes!(concat!("../../ui/", $name)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

static ASSETS: &[Asset] = &[
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("app.js", JS),
    asset!("errors.js", JS),
    asset!("api.js", JS),
    asset!("format.js", JS),
    asset!("explain.js", JS),
    asset!("wallet.js", JS),
    asset!("feed.js", JS),
    asset!("chart.js", JS),
    asset!("candles.js", JS),
    asset!("costs.js", JS),
    asset!("rules.js", JS),
    asset!("pnl.js", JS),
    asset!("watchlist.js", JS),
    asset!("pages/discover.js", JS),
    asset!("pages/token.js", JS),
    asset!("pages/launch.js", JS),
    asset!("pages/wallet.js", JS),
    asset!("pages/creator.js", JS),
    asset!("pages/comments.js", JS),
    asset!("vendor/lightweight-charts-4.2.3.mjs", JS),
    asset!(
        "vendor/LICENSE-lightweight-charts",
        "text/plain; charset=utf-8"
    ),
    asset!("favicon.svg", "image/svg+xml"),
];

const INDEX: &str = include_str!("../../ui/index.html");

/// The first 16 hex digits of the SHA-256 over every asset's name and bytes: a new build with changed assets
/// gets new URLs, so assets can be cached forever.
pub static VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut h = Sha256::new();
    for a in ASSETS {
        h.update(a.name.as_bytes());
        h.update([0]);
        h.update(a.body);
    }
    hex::encode(&h.finalize()[..8])
});

static PAGE: LazyLock<String> = LazyLock::new(|| INDEX.replace("{{VERSION}}", &VERSION));

/// Scripts, styles and connections from this origin only; images also from anywhere over http(s) (a token's
/// image URL is whatever its metadata names) and data URLs (the launch form's preview).
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https: http:; \
     connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'; object-src 'none'";

fn secured(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// `GET /`: the page (revalidated on every load: it names the current assets' version).
pub async fn index() -> Response {
    secured(
        (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            PAGE.as_str(),
        )
            .into_response(),
    )
}

/// `GET /ui/{version}/{*file}`: an embedded asset. The current version is cached immutable; another version
/// (a page loaded before an upgrade) gets today's file, never cached.
pub async fn asset(ApiPath((version, file)): ApiPath<(String, String)>) -> Response {
    let Some(a) = ASSETS.iter().find(|a| a.name == file) else {
        return ApiError::not_found("no such asset").into_response();
    };
    let cache = if version == *VERSION {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    secured(
        (
            [
                (header::CONTENT_TYPE, a.mime),
                (header::CACHE_CONTROL, cache),
            ],
            a.body,
        )
            .into_response(),
    )
}

/// What the page needs to know about this server.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UiConfig {
    /// The API runs against a localnet: the page offers its local development wallet.
    pub localnet: bool,
    /// The assets' version.
    pub version: String,
    /// Lamports one `POST /ui/airdrop` sends (0 when not on a localnet).
    pub airdrop_lamports: u64,
    /// Local USDC (base units, 6 decimals) one `POST /ui/airdrop` mints too (0 when not on a localnet).
    pub airdrop_usdc: u64,
    /// `--explorer-url`: the template the page links mints, wallets (`{kind}` = `address`) and transactions
    /// (`tx`) with, `{id}` the address or signature; null: no explorer links.
    pub explorer_url: Option<String>,
    /// The URL this API is reached at (`--public-base-url`): launches' metadata URIs start with it, so the
    /// launch form can size (and price the rent of) the mint it makes.
    pub public_base_url: String,
}

/// Lamports one airdrop sends the local development wallet: 100 SOL.
pub const AIRDROP_LAMPORTS: u64 = 100_000_000_000;

/// Local USDC one airdrop mints to the development wallet, base units: 2,000 USDC (a USDC launch graduates at
/// 750 raised, so one airdrop can try one end to end).
pub const AIRDROP_USDC: u64 = 2_000_000_000;

/// `GET /ui/config.json`.
pub async fn config(State(state): State<AppState>) -> Response {
    let localnet = state.config.localnet;
    (
        [(header::CACHE_CONTROL, "no-cache")],
        Json(UiConfig {
            localnet,
            version: VERSION.clone(),
            airdrop_lamports: if localnet { AIRDROP_LAMPORTS } else { 0 },
            airdrop_usdc: if localnet { AIRDROP_USDC } else { 0 },
            explorer_url: state.config.explorer_url.clone(),
            public_base_url: state.config.base_url().trim_end_matches('/').to_string(),
        }),
    )
        .into_response()
}

#[derive(Debug, Deserialize)]
pub struct AirdropRequest {
    pub address: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Airdrop {
    pub signature: String,
    pub lamports: u64,
    /// Local USDC minted to the wallet's USDC account, base units.
    pub usdc: u64,
    /// The transaction that minted it.
    pub usdc_signature: String,
}

/// `POST /ui/airdrop {address}`: on a localnet only, funds the page's development wallet (100 SOL and 2,000
/// local USDC) from the localnet's
/// faucet (`requestAirdrop`); the wallet's key never leaves the browser. 404 elsewhere.
pub async fn airdrop(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<AirdropRequest>,
) -> Result<Json<Airdrop>, ApiError> {
    if !state.config.localnet {
        return Err(ApiError::not_found(
            "airdrops exist on a localnet only (`dev`)",
        ));
    }
    let to = address("address", req.address.as_deref())?;
    let to = solana_pubkey::Pubkey::new_from_array(to.to_bytes());
    let signature = state
        .rpc
        .request_airdrop(&to, AIRDROP_LAMPORTS)
        .await
        .map_err(|e| {
            ApiError::new(
                ErrorCode::Unavailable,
                format!("the localnet's faucet: {e}"),
            )
        })?;
    // And local USDC, from the localnet's own mint (`localnet_mintUsdc`), so that USDC launches can be tried.
    let minted: serde_json::Value = state
        .rpc
        .send(
            solana_rpc_client_api::request::RpcRequest::Custom {
                method: "localnet_mintUsdc",
            },
            serde_json::json!([to.to_string(), AIRDROP_USDC]),
        )
        .await
        .map_err(|e| {
            ApiError::new(
                ErrorCode::Unavailable,
                format!("the localnet's USDC faucet: {e}"),
            )
        })?;
    Ok(Json(Airdrop {
        signature: signature.to_string(),
        lamports: AIRDROP_LAMPORTS,
        usdc: AIRDROP_USDC,
        usdc_signature: minted["signature"].as_str().unwrap_or_default().to_string(),
    }))
}
