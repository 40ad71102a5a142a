//! Launching: `POST /launchpad/prepare`, `GET /launchpad/metadata/{mint}.json`, `POST /launchpad/record`.
//!
//! The mint is the program's PDA `["mint", creator, salt]` with a salt the service picks, so the creator's
//! signature is the only one the launch needs: the service holds no keys.
//!
//! ```text
//!  request    the launch a creator asks for: its fields, their checks, their schemas
//!  prepare    POST /launchpad/prepare: the unsigned launch transaction, kept as prepared; the sweeper
//!  record     POST /launchpad/record: the landed launch, checked against the prepared one and the chain
//!  metadata   GET /launchpad/metadata/{mint}.json and GET /launchpad/images/{hash}
//!  images     a launch's image: checked (format, size), content-addressed in the image store
//! ```

pub mod images;
mod metadata;
mod prepare;
mod record;
mod request;

pub use metadata::{MetadataFile, MetadataLinks, MetadataProperties, TokenMetadata};
pub use prepare::{expire_prepared, prepare_launch, sweeper, PrepareResponse, SWEEP_CHUNK};
pub use record::{record_launch, LaunchRecordRequest, LaunchRecordResponse};
pub use request::{
    link, Launch, LaunchRequest, FIRST_BUY_SLIPPAGE_BPS, LAUNCH_CHAIN, LAUNCH_TYPE,
    MAX_DESCRIPTION_CHARS, MAX_LINK_CHARS, MAX_NAME_CHARS, MAX_SYMBOL_CHARS, TELEGRAM_HOSTS,
    TOTAL_SUPPLY, TWITTER_HOSTS,
};

use crate::http::cache;
use crate::state::AppState;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    // Prepare and record can carry an image.
    let image_body = axum::extract::DefaultBodyLimit::max(
        crate::routes::launch::images::PREPARE_BODY_LIMIT.max(state.config.max_body_bytes),
    );
    OpenApiRouter::new()
        .routes(routes!(prepare::prepare).layer(image_body))
        .routes(routes!(metadata::image).layer(cache::layer(state, cache::policy::METADATA)))
        .routes(routes!(metadata::metadata).layer(cache::layer(state, cache::policy::METADATA)))
        .routes(routes!(record::record).layer(image_body))
}
