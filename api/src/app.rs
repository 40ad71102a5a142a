//! The service assembled: every area's routes with their OpenAPI paths, what wraps them, the OpenAPI
//! document as served, and the server.

use crate::error::ErrorCode;
use crate::state::AppState;
use crate::{error, http, routes, schema};
use axum::routing::{get, post};
use axum::Router;
use std::net::SocketAddr;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Launchpad API",
        description = "Public, keyless, non-custodial: quotes and unsigned transactions; the wallet signs. \
                       Errors are `{ \"error\": { \"message\", \"code\" } }`."
    ),
    components(schemas(schema::SolanaAddress, schema::SolanaSignature)),
    tags(
        (name = "launchpad", description = "Bonding-curve launches"),
        (name = "community", description = "Signed comments and replies, profiles"),
        (name = "swap", description = "Swaps and transaction relay"),
        (name = "cross-chain", description = "Cross-chain swaps (LI.FI, Relay as fallback)"),
        (name = "service", description = "Health and documentation"),
    )
)]
pub struct ApiDoc;

/// The OpenAPI document as served: [`ApiDoc`] with every area's paths. utoipa 5.5 writes a response link's
/// fields in snake case (`operation_id`, `operation_ref`, `request_body`); OpenAPI spells them in camel case,
/// so they are renamed here.
fn openapi_document(api: utoipa::openapi::OpenApi) -> serde_json::Value {
    let mut doc = serde_json::to_value(api).unwrap_or_default();
    // The rate limit answers every operation behind it (all but the probes) with 429: said once, here.
    if let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) {
        for (path, item) in paths.iter_mut() {
            if path == "/livez" || path == "/readyz" {
                continue;
            }
            let operations = item
                .as_object_mut()
                .into_iter()
                .flat_map(|item| item.values_mut())
                .filter_map(|op| op.get_mut("responses").and_then(|r| r.as_object_mut()));
            for responses in operations {
                responses.entry("429").or_insert_with(|| {
                    serde_json::json!({
                        "description": "RATE_LIMITED: this client (its X-Client-Id, else its address) is over its \
                                        quota; retry after Retry-After seconds",
                        "headers": { "Retry-After": {
                            "description": "seconds until a request is admitted again",
                            "schema": { "type": "integer", "minimum": 1 }
                        } },
                        "content": { "application/json": {
                            "schema": { "$ref": "#/components/schemas/ErrorBody" }
                        } }
                    })
                });
            }
        }
    }
    if let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) {
        let links = paths
            .values_mut()
            .filter_map(|item| item.as_object_mut())
            .flat_map(|item| item.values_mut())
            .filter_map(|op| op.get_mut("responses").and_then(|r| r.as_object_mut()))
            .flat_map(|responses| responses.values_mut())
            .filter_map(|r| r.get_mut("links").and_then(|l| l.as_object_mut()))
            .flat_map(|links| links.values_mut())
            .filter_map(|l| l.as_object_mut());
        for link in links {
            for (from, to) in [
                ("operation_id", "operationId"),
                ("operation_ref", "operationRef"),
                ("request_body", "requestBody"),
            ] {
                if let Some(v) = link.remove(from) {
                    link.insert(to.into(), v);
                }
            }
        }
    }
    doc
}

async fn not_found() -> error::ApiError {
    error::ApiError::not_found("no such endpoint")
}

async fn method_not_allowed() -> error::ApiError {
    error::ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this endpoint does not take that method",
    )
}

/// Every area's routes with their OpenAPI paths, each named once: in its handler's `#[utoipa::path]`,
/// mounted by its module's `router`.
fn areas(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(routes::health::router())
        .merge(routes::launchpad::router(state))
        .merge(routes::tokens::router(state))
        .merge(routes::trades::router(state))
        .merge(routes::candles::router(state))
        .merge(routes::feed::router())
        .merge(routes::holders::router(state))
        .merge(routes::community::router(state))
        .merge(routes::wallets::router(state))
        .merge(routes::pnl::router(state))
        .merge(routes::launch::router(state))
        .merge(routes::claim::router())
        .merge(routes::creator::router())
        .merge(routes::fee_shares::router())
        .merge(routes::referrals::router())
        .merge(routes::submit::router())
        .merge(routes::catalog::router())
        .merge(routes::swap::router())
        .merge(aggregator::router())
}

/// The whole service. Serve it with `into_make_service_with_connect_info::<SocketAddr>()` so that
/// clients without `X-Client-Id` are rate-limited by address.
pub fn router(state: AppState) -> Router {
    router_with(state, http::layers::Layers::ALL)
}

/// [`router`] with only `layers` of the global layers (the layer-cost bench, `api/benches/layers.rs`).
pub fn router_with(state: AppState, layers: http::layers::Layers) -> Router {
    let (endpoints, mut api) = areas(&state).split_for_parts();
    let (probes, probes_api) = routes::health::probes().split_for_parts();
    api.merge(probes_api);
    // Serialized once: the document only changes with the binary.
    let document =
        axum::body::Bytes::from(serde_json::to_vec(&openapi_document(api)).unwrap_or_default());
    let endpoints = endpoints
        .route("/", get(routes::ui::index))
        .route("/ui/config.json", get(routes::ui::config))
        .route("/ui/airdrop", post(routes::ui::airdrop))
        .route("/ui/{version}/{*file}", get(routes::ui::asset))
        .route(
            "/openapi.json",
            get(move || {
                let json = [(
                    axum::http::header::CONTENT_TYPE,
                    axum::http::HeaderValue::from_static("application/json"),
                )];
                std::future::ready((json, document.clone()))
            }),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);
    // The probes answer outside the rate limit: a load balancer's frequent probing never gets a 429.
    let probes = probes.with_state(state.clone());
    layered_with(endpoints, state, layers).merge(probes)
}

/// `endpoints` with what wraps every endpoint ([`http::layers::wrap`]). Tests wrap routes of their own (a handler
/// made to panic) with it.
pub fn layered(endpoints: Router<AppState>, state: AppState) -> Router {
    layered_with(endpoints, state, http::layers::Layers::ALL)
}

/// [`layered`] with only `layers` of the global layers.
pub fn layered_with(
    endpoints: Router<AppState>,
    state: AppState,
    layers: http::layers::Layers,
) -> Router {
    let (wrapped, limiters) = http::layers::wrap_with(endpoints, &state.config, layers);
    let _ = state.limiters.set(limiters);
    wrapped.with_state(state)
}

/// Serves `router` on `listener` until `shutdown` resolves.
pub async fn serve(
    state: AppState,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    use axum::serve::ListenerExt;
    // On shutdown readiness turns 503 for --shutdown-drain-secs while every route still answers (a load
    // balancer takes the replica out first); then the live streams end (each with its last word), so that
    // draining does not wait for subscribers that would never leave, and the listener closes.
    let closing = state.closing.clone();
    // Images the database still holds (stored before the image store) move into it, once, at start.
    let (store, images) = (state.store.clone(), state.images.clone());
    tokio::spawn(async move {
        match crate::routes::launch::images::move_to_store(&store, &images).await {
            Ok(0) => {}
            Ok(moved) => tracing::info!(
                moved,
                "images moved from the database into {}",
                images.location()
            ),
            Err(e) => tracing::error!(
                "moving images from the database into {}: {e:#}",
                images.location()
            ),
        }
    });
    // Prepared launches that never landed are swept on their own timer, until the listener closes.
    tokio::spawn(crate::routes::launch::sweeper(
        state.clone(),
        state.closing.subscribe(),
    ));
    // Launches built elsewhere: their metadata read from the URI on chain, off the ingest path.
    tokio::spawn(crate::chain::offchain::worker(
        state.clone(),
        state.closing.subscribe(),
    ));
    let readiness = state.readiness.clone();
    let drain = std::time::Duration::from_secs(state.config.shutdown_drain_secs);
    let shutdown = async move {
        shutdown.await;
        readiness.drain();
        if !drain.is_zero() {
            tracing::info!(
                "readiness answers 503 for {} s (--shutdown-drain-secs) before the listener closes",
                drain.as_secs()
            );
            tokio::time::sleep(drain).await;
        }
        let _ = closing.send(true);
    };
    // No Nagle delay: a small write (a feed event, a response's last bytes) goes out at once instead of
    // waiting for the peer's (possibly delayed) acknowledgement of the previous one.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
    });
    axum::serve(
        listener,
        router(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    Ok(())
}
