//! The service's state, for people and for machines: `GET /health` (JSON detail), and the probes a load
//! balancer or an orchestrator uses, `GET /livez` (the process answers) and `GET /readyz` (it can serve:
//! the database answers). The probes sit outside the rate limit, so frequent probing never gets a 429.
//!
//! A stale index does not make the service unready: serving the index as it stands (every response says
//! how current it is through `/health`'s `indexedSlot` and the indexer's metrics) beats serving nothing
//! while the indexer catches up.

use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use std::time::Duration;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// How long the readiness probe (and `/health`) waits for the database.
pub const DATABASE_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// `ok`; `database_unreachable` when the database does not answer within 2 s; else, with the indexer in
    /// this process, its state (`lagging`, `stalled`, `disconnected`).
    pub status: String,
    /// `ok` or `unreachable`.
    pub database: String,
    /// The indexer's last committed slot (its own count when it runs in this process, else the cursor it
    /// stored; absent while the database does not answer).
    pub indexed_slot: Option<u64>,
    /// Slots between the chain's tip as the stream announced it and the committed cursor, when the indexer
    /// runs in this process.
    pub slot_lag: Option<u64>,
}

#[utoipa::path(get, path = "/health", responses((status = 200, body = Health)), tag = "service")]
pub async fn health(State(state): State<AppState>) -> Json<Health> {
    let snap = state.indexer.as_ref().map(|m| m.snapshot());
    let database = state.store.ping(DATABASE_TIMEOUT).await;
    let indexed_slot = match (&snap, &database) {
        (None, Err(_)) => None,
        _ => state.indexed_slot().await,
    };
    let status = match (&database, &snap) {
        (Err(_), _) => "database_unreachable",
        (Ok(()), Some(s)) => s.status,
        (Ok(()), None) => "ok",
    };
    Json(Health {
        status: status.to_string(),
        database: if database.is_ok() {
            "ok"
        } else {
            "unreachable"
        }
        .to_string(),
        indexed_slot,
        slot_lag: snap.as_ref().map(|s| s.slot_lag),
    })
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Probe {
    /// `ok` (`/livez`), `ready`, or `unavailable` (`/readyz`).
    pub status: String,
    /// Why the service is unavailable (`database unreachable`, `shutting down`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The process answers (nothing else is checked: a failing dependency must not get a live process
/// restarted). Outside the rate limit (never 429).
#[utoipa::path(get, path = "/livez", responses((status = 200, body = Probe, description = "the process answers")), tag = "service")]
pub async fn livez() -> Json<Probe> {
    Json(Probe {
        status: "ok".into(),
        reason: None,
    })
}

/// The service can serve: 200 when the database answered its last check within 2 s, else 503 (a load
/// balancer stops sending traffic here until it answers again); 503 `shutting down` from the stop signal
/// on, for `--shutdown-drain-secs`, while the replica still serves. The database is checked at most once
/// a second per process, whatever the request rate; the probes are outside the rate limit (never 429).
#[utoipa::path(
    get,
    path = "/readyz",
    responses(
        (status = 200, body = Probe, description = "ready: the database answered its last check (at most 1 s old)"),
        (status = 503, body = Probe, description = "unavailable: `database unreachable`, or `shutting down` (draining after SIGTERM)")
    ),
    tag = "service"
)]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Probe>) {
    let store = &state.store;
    let ready = state
        .readiness
        .state(|| async {
            store
                .ping(DATABASE_TIMEOUT)
                .await
                // The error's text stays in the debug log: probes come every few seconds.
                .inspect_err(|e| tracing::debug!("readyz: database: {e}"))
                .is_ok()
        })
        .await;
    match ready {
        Ok(()) => (
            StatusCode::OK,
            Json(Probe {
                status: "ready".into(),
                reason: None,
            }),
        ),
        Err(why) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Probe {
                status: "unavailable".into(),
                reason: Some(why.reason().into()),
            }),
        ),
    }
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(health))
}

/// The probes, with their OpenAPI paths: served outside the rate limit and the response cache.
pub fn probes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(livez))
        .routes(routes!(readyz))
}
