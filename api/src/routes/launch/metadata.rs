//! `GET /launchpad/metadata/{mint}.json` (the token metadata JSON a launch's URI points to) and
//! `GET /launchpad/images/{hash}` (an uploaded image, by its SHA-256).

use crate::error::{address, ApiError};
use crate::extract::ApiPath;
use crate::json::Json;
use crate::schema;
use crate::state::AppState;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

/// The token metadata JSON a launch's URI points to, in the Metaplex token-metadata JSON conventions.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenMetadata {
    pub name: String,
    pub symbol: String,
    pub description: String,
    /// The image's URL (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The website (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_url: Option<String>,
    /// The links: `website`, `twitter`, `telegram` (absent without any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<MetadataLinks>,
    /// The image as a file (`files[0]`), with `category` `image` (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<MetadataProperties>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MetadataLinks {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twitter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telegram: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MetadataProperties {
    pub files: Vec<MetadataFile>,
    pub category: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MetadataFile {
    pub uri: String,
    /// The content type.
    #[serde(rename = "type")]
    pub kind: String,
}

#[utoipa::path(
    get,
    path = "/launchpad/metadata/{file}",
    params(MetadataPath),
    responses(
        (status = 200, body = TokenMetadata),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND"),
    ),
    tag = "launchpad"
)]
pub async fn metadata(
    State(state): State<AppState>,
    ApiPath(file): ApiPath<String>,
) -> Result<Json<TokenMetadata>, ApiError> {
    let mint = address("mint", Some(file.strip_suffix(".json").unwrap_or(&file)))?;
    let m = state
        .store
        .launch_extras(&mint)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no metadata for {mint}")))?;
    let image = match &m.image_hash {
        Some(hash) => state
            .store
            .image_type(hash)
            .await?
            .map(|content_type| (crate::routes::tokens::image_url(&state, hash), content_type)),
        None => None,
    };
    let any_link = m.website.is_some() || m.twitter.is_some() || m.telegram.is_some();
    Ok(Json(TokenMetadata {
        name: m.name,
        symbol: m.symbol,
        description: m.description,
        properties: image.as_ref().map(|(uri, kind)| MetadataProperties {
            files: vec![MetadataFile {
                uri: uri.clone(),
                kind: kind.clone(),
            }],
            category: "image".into(),
        }),
        image: image.map(|(uri, _)| uri),
        external_url: m.website.clone(),
        extensions: any_link.then_some(MetadataLinks {
            website: m.website,
            twitter: m.twitter,
            telegram: m.telegram,
        }),
    }))
}

pub struct MetadataPath;

impl utoipa::IntoParams for MetadataPath {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![crate::extract::path_param(
            "file",
            "`<mint>.json` (or the mint alone)",
            crate::extract::pattern_schema(&schema::solana_address_then("(?:\\.json)?")),
        )]
    }
}

pub struct ImagePath;

impl utoipa::IntoParams for ImagePath {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![crate::extract::path_param(
            "hash",
            "SHA-256 of the image, 64 lowercase hex digits",
            crate::extract::pattern_schema("^[0-9a-f]{64}$"),
        )]
    }
}

/// `GET /launchpad/images/{hash}`: an uploaded image, by the SHA-256 of its bytes (so a URL never changes
/// content: cached for a year, immutable).
#[utoipa::path(
    get,
    path = "/launchpad/images/{hash}",
    params(ImagePath),
    responses(
        (status = 200, description = "The image, with its content type", content_type = "image/png"),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_PARAMS: not a SHA-256"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE: the image store"),
    ),
    tag = "launchpad"
)]
pub async fn image(
    State(state): State<AppState>,
    ApiPath(hash): ApiPath<String>,
) -> Result<axum::response::Response, ApiError> {
    use axum::http::header;
    use axum::response::IntoResponse;
    if !image_store::is_hash(&hash) {
        return Err(ApiError::invalid(
            "the image is named by its SHA-256 in lowercase hex",
        ));
    }
    let bytes = super::images::store(&state)
        .get(&hash)
        .await
        .map_err(super::images::unavailable)?
        .ok_or_else(|| ApiError::not_found(format!("no image {hash}")))?;
    // Only images that decoded were stored: their signature names their type.
    let content_type = super::images::sniff(&bytes).unwrap_or("application/octet-stream");
    Ok((
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (
                header::CACHE_CONTROL,
                "public, max-age=31536000, immutable".to_string(),
            ),
            (header::ETAG, format!("\"{hash}\"")),
        ],
        bytes,
    )
        .into_response())
}
