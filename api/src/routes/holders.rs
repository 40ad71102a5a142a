//! `GET /launchpad/tokens/{mint}/holders`: a launch's holder count, largest holders with their share of
//! supply, the top 10's and the creator's share, and its snipers, from the indexed token accounts.

use super::trades::limit_param;
use crate::error::{address, ApiError};
use crate::extract::{ApiPath, ApiQuery};
use crate::http::cache;
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use index::read::HolderSummary;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HoldersQuery {
    /// Holders to list, 1 to 100; default 20.
    #[param(schema_with = super::trades::page_limit_schema)]
    pub limit: Option<String>,
}

#[utoipa::path(
    get,
    path = "/launchpad/tokens/{mint}/holders",
    params(crate::extract::MintPath, HoldersQuery),
    responses(
        (status = 200, body = HolderSummary),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS or INVALID_PARAMS (limit)"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: no launch with this mint"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn holders(
    State(state): State<AppState>,
    ApiPath(mint): ApiPath<String>,
    ApiQuery(q): ApiQuery<HoldersQuery>,
) -> Result<Json<HolderSummary>, ApiError> {
    let mint = address("mint", Some(&mint))?;
    let limit = limit_param(q.limit.as_deref(), 20, super::trades::MAX_PAGE)?;
    state
        .store
        .holder_summary(&mint, limit)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("no launch with mint {mint}")))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(holders).layer(cache::layer(state, cache::policy::MARKET)))
}
