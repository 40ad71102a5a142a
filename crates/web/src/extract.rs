//! Query strings and path segments parsed with axum's extractors, their rejections (a repeated query key, a
//! segment that is not UTF-8, a number that is not one) answered in the spec's envelope like every other
//! error. Every handler takes these instead of `axum::extract::{Query, Path}`.

use crate::error::{ApiError, ErrorCode};
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{FromRequestParts, Path, Query};
use axum::http::request::Parts;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::{RefOr, Required, Schema};
use utoipa::IntoParams;

/// A query string of type `T`.
pub struct ApiQuery<T>(pub T);

/// Path parameters of type `T`.
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| ApiQuery(q))
            .map_err(ApiError::from)
    }
}

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(p)| ApiPath(p))
            .map_err(ApiError::from)
    }
}

/// A rejection as the envelope: 400 `INVALID_PARAMS` with axum's explanation for what the client sent, 500
/// `INTERNAL` for what would be this service's fault (a route without the parameter its handler reads).
fn rejection(status: StatusCode, text: String) -> ApiError {
    if status.is_client_error() {
        ApiError::invalid(text)
    } else {
        tracing::error!("extractor: {text}");
        ApiError::new(ErrorCode::Internal, "internal error")
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        rejection(r.status(), r.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        rejection(r.status(), r.body_text())
    }
}

/// The OpenAPI schema of a query value that must be one of `names`: the handler validates against the same
/// list, so the document cannot drift from it.
pub fn one_of_schema<'a>(names: impl IntoIterator<Item = &'a str>) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(names.into_iter().collect::<Vec<_>>()))
        .build()
}

/// The OpenAPI schema of an integer query value from `min` to `max`.
pub fn integer_schema(min: u64, max: u64) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::Integer)
        .minimum(Some(min as f64))
        .maximum(Some(max as f64))
        .build()
}

/// The OpenAPI schema of a string matching `pattern`.
pub fn pattern_schema(pattern: &str) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .pattern(Some(pattern))
        .build()
}

/// A Solana address as the handlers take it: base58 of 32 bytes.
pub fn address_schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    crate::schema::solana_address()
}

/// A parameter of the document. (utoipa's `#[param(schema_with = ...)]` drops `required` and the
/// description, so parameters that need both are written with this.)
pub fn param(
    location: ParameterIn,
    name: &str,
    required: bool,
    description: &str,
    schema: impl Into<RefOr<Schema>>,
) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(location)
        .required(if required {
            Required::True
        } else {
            Required::False
        })
        .description(Some(description))
        .schema(Some(schema))
        .build()
}

/// A path parameter (always required).
pub fn path_param(name: &str, description: &str, schema: impl Into<RefOr<Schema>>) -> Parameter {
    param(ParameterIn::Path, name, true, description, schema)
}

/// A token's mint in the path.
pub struct MintPath;

impl IntoParams for MintPath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![path_param(
            "mint",
            "The token's mint address",
            address_schema(),
        )]
    }
}

/// A launchpad pool in the path.
pub struct PoolPath;

impl IntoParams for PoolPath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![path_param(
            "pool",
            "The launchpad pool's address",
            address_schema(),
        )]
    }
}

/// A wallet in the path.
pub struct AddressPath;

impl IntoParams for AddressPath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![path_param(
            "address",
            "The wallet's address",
            address_schema(),
        )]
    }
}
