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
    // The recorder first: what the hooks set before it exists would be lost.
    let handle = prometheus();
    if let Some(m) = indexer {
        m.export();
    }
    process_gauges();
    for hook in HOOKS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        hook();
    }
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

/// What runs at every scrape, before the text is rendered: gauges read from their source then (the
/// database pool's connections).
type Hook = Box<dyn Fn() + Send + Sync>;
static HOOKS: std::sync::Mutex<Vec<Hook>> = std::sync::Mutex::new(Vec::new());

/// Runs `hook` at every scrape of this process (it sets gauges read from their source).
pub fn on_scrape(hook: impl Fn() + Send + Sync + 'static) {
    HOOKS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Box::new(hook));
}

/// `launchpad_build_info{version, commit, binary} 1`: which build each replica runs.
pub fn build_info(binary: &'static str, version: &'static str, commit: &'static str) {
    metrics::gauge!(
        "launchpad_build_info",
        "binary" => binary,
        "version" => version,
        "commit" => commit
    )
    .set(1.0);
}

/// A database pool's connections as a scrape sees them: `db_pool_connections{pool, state="in_use"|"idle"}`
/// and `db_pool_max_connections{pool}` (`pool`: `primary` or `replica`). Waits for a connection are counted
/// as they happen ([`crate::logging`]: `db_pool_waits_total`, the acquisitions sqlx reports slower than its
/// slow-acquire threshold, 2 s by default).
pub fn pool_gauges(pool: &'static str, size: u32, idle: usize, max: u32) {
    let idle = idle as f64;
    let in_use = (f64::from(size) - idle).max(0.0);
    metrics::gauge!("db_pool_connections", "pool" => pool, "state" => "in_use").set(in_use);
    metrics::gauge!("db_pool_connections", "pool" => pool, "state" => "idle").set(idle);
    metrics::gauge!("db_pool_max_connections", "pool" => pool).set(f64::from(max));
    // Counted as waits happen; present from the first scrape on.
    metrics::counter!("db_pool_waits_total").increment(0);
}

/// `process_resident_memory_bytes` and `process_open_fds`, as Prometheus's client libraries name them, read
/// from `/proc/self` (Linux; elsewhere they are absent).
fn process_gauges() {
    if let Some(rss) = resident_bytes() {
        metrics::gauge!("process_resident_memory_bytes").set(rss as f64);
    }
    if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
        // The directory handle read here is one of them.
        let open = fds.count().saturating_sub(1);
        metrics::gauge!("process_open_fds").set(open as f64);
    }
}

/// The resident set from `/proc/self/status` (`VmRSS:  1234 kB`).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_rss(&status)
}

fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn resident_memory_is_read_in_bytes() {
        let status = "Name:\tapi\nVmPeak:\t  9000 kB\nVmRSS:\t   1234 kB\nThreads:\t4\n";
        assert_eq!(super::parse_vm_rss(status), Some(1234 * 1024));
        assert_eq!(super::parse_vm_rss("Name:\tapi\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_scrape_carries_the_process_series() {
        let text = super::prometheus_text(None);
        assert!(text.contains("process_resident_memory_bytes"), "{text}");
        assert!(text.contains("process_open_fds"), "{text}");
    }
}
