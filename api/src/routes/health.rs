//! `GET /health`: the service and its indexer.

use crate::json::Json;
use crate::AppState;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// `ok`, or the indexer's state (`lagging`, `disconnected`) when it runs in this process.
    pub status: String,
    /// The indexer's last committed slot, when it runs in this process.
    pub indexed_slot: Option<u64>,
    pub slot_lag: Option<u64>,
}

#[utoipa::path(get, path = "/health", responses((status = 200, body = Health)), tag = "service")]
pub async fn health(State(state): State<AppState>) -> Json<Health> {
    let snap = state.indexer.as_ref().map(|m| m.snapshot());
    Json(Health {
        status: snap.as_ref().map_or("ok", |s| s.status).to_string(),
        indexed_slot: snap.as_ref().map(|s| s.cursor_slot),
        slot_lag: snap.as_ref().map(|s| s.slot_lag),
    })
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(health))
}
