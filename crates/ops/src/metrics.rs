//! The process's Prometheus registry, through the `metrics` facade (durations are histograms in seconds), and
//! `GET /metrics` serving it.

use crate::health::Metrics;
use std::sync::{Arc, OnceLock};

/// How often recorded histogram samples are folded into their buckets.
pub const UPKEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The process's Prometheus recorder, installed as the `metrics` facade's global recorder on first use
/// (call it at start, before anything records). Durations are histograms in seconds.
pub fn prometheus() -> &'static metrics_exporter_prometheus::PrometheusHandle {
    static HANDLE: OnceLock<metrics_exporter_prometheus::PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = metrics_exporter_prometheus::PrometheusBuilder::new()
            .set_buckets(&[
                0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                10.0,
            ])
            .expect("the bucket list is not empty")
            .build_recorder();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("another metrics recorder is installed: /metrics will be empty");
        }
        // Histograms keep every sample until upkeep folds them into their buckets: without a scraper, a
        // busy API would grow by every request's duration. Fold them on a timer, scraped or not.
        let upkeep = handle.clone();
        let spawned = std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || loop {
                std::thread::sleep(UPKEEP_EVERY);
                upkeep.run_upkeep();
            });
        if let Err(e) = spawned {
            tracing::warn!("metrics upkeep thread: {e}: histograms are folded only when scraped");
        }
        handle
    })
}

/// The Prometheus text of this process: the indexer's series when it runs here, and whatever else was
/// recorded (the API's requests, the indexer's batch latencies).
pub fn prometheus_text(indexer: Option<&Metrics>) -> String {
    if let Some(m) = indexer {
        m.export();
    }
    let handle = prometheus();
    handle.run_upkeep();
    handle.render()
}

/// `GET /metrics` (Prometheus text format) for an operator's scraper.
pub fn metrics_router(indexer: Option<Arc<Metrics>>) -> axum::Router {
    axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let indexer = indexer.clone();
            async move {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    prometheus_text(indexer.as_deref()),
                )
            }
        }),
    )
}
