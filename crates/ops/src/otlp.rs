//! OpenTelemetry traces over OTLP/HTTP (protobuf), off unless an endpoint is given (`--otlp-endpoint` or
//! `OTEL_EXPORTER_OTLP_ENDPOINT`): every span the process's log filter lets through (`RUST_LOG`) is exported
//! to the collector, batched on a thread of its own, so no request waits on the collector. The API's request
//! span carries the route's template (`route`), and each call to an upstream is a span of its own
//! ([`crate::upstream`]), a child of the request that made it.
//!
//! The endpoint is the collector's base URL (`http://collector:4318`, where `/v1/traces` is appended, as the
//! OpenTelemetry specification reads `OTEL_EXPORTER_OTLP_ENDPOINT`), or the full URL of its traces path when
//! it has one. The batch's timings follow the standard `OTEL_BSP_*` variables.

use std::ffi::OsString;
use tracing_subscriber::Layer;

/// The flag naming the endpoint (it wins over [`OTLP_ENDPOINT_ENV`]).
pub const OTLP_ENDPOINT_FLAG: &str = "--otlp-endpoint";

/// The standard variable naming the collector's base URL.
pub const OTLP_ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The path of traces under a collector's base URL.
pub const TRACES_PATH: &str = "/v1/traces";

/// The endpoint `args` (the command line) name with [`OTLP_ENDPOINT_FLAG`], else [`OTLP_ENDPOINT_ENV`]'s;
/// `None` (no export) when neither is given or the value is empty.
pub fn endpoint_of(args: &[OsString]) -> Option<String> {
    let mut given = None;
    let mut args = args.iter().map(|a| a.to_string_lossy());
    while let Some(arg) = args.next() {
        if arg == OTLP_ENDPOINT_FLAG {
            given = args.next().map(|v| v.into_owned());
        } else if let Some(v) = arg.strip_prefix("--otlp-endpoint=") {
            given = Some(v.to_string());
        }
    }
    given
        .or_else(|| std::env::var(OTLP_ENDPOINT_ENV).ok())
        .filter(|e| !e.trim().is_empty())
}

/// The URL traces are posted to: `endpoint` with [`TRACES_PATH`] when it names no path, else as given.
/// Errors name the flag and say what is wrong, never more of the URL than the caller gave.
pub fn traces_url(endpoint: &str) -> anyhow::Result<String> {
    let mut url = url::Url::parse(endpoint.trim())
        .map_err(|e| anyhow::anyhow!("--otlp-endpoint ({OTLP_ENDPOINT_ENV}): {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        anyhow::bail!(
            "--otlp-endpoint ({OTLP_ENDPOINT_ENV}): OTLP/HTTP needs an http(s) URL, not {}:",
            url.scheme()
        );
    }
    if url.path().is_empty() || url.path() == "/" {
        url.set_path(TRACES_PATH);
    }
    Ok(url.to_string())
}

/// The exporter's pipeline: dropped (at the end of `main`), it exports what is still queued.
pub struct Traces(opentelemetry_sdk::trace::SdkTracerProvider);

impl Drop for Traces {
    fn drop(&mut self) {
        if let Err(e) = self.0.shutdown() {
            eprintln!(
                "OTLP traces: exporting the last spans: {}",
                crate::redact::redact(&e.to_string())
            );
        }
    }
}

/// A boxed layer over the registry.
pub type BoxedLayer = Box<dyn Layer<tracing_subscriber::Registry> + Send + Sync + 'static>;

/// The layer exporting spans to `endpoint` as `service` (the `service.name` resource, unless
/// `OTEL_SERVICE_NAME` names another), and its pipeline.
pub fn layer(endpoint: &str, service: &'static str) -> anyhow::Result<(BoxedLayer, Traces)> {
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_otlp::WithExportConfig as _;
    let url = traces_url(endpoint)?;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .with_endpoint(url)
        .with_timeout(std::time::Duration::from_secs(10))
        .build()
        .map_err(|e| {
            // The exporter's error may quote the URL, and a collector's URL may carry a token.
            let e = e.to_string();
            anyhow::anyhow!(
                "--otlp-endpoint ({OTLP_ENDPOINT_ENV}): {}",
                crate::redact::redact(&e)
            )
        })?;
    let name = std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| service.to_string());
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(name)
        .with_attribute(opentelemetry::KeyValue::new(
            "service.version",
            env!("CARGO_PKG_VERSION"),
        ))
        .build();
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build();
    let tracer = provider.tracer(service);
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_filter(crate::logging::filter())
        .boxed();
    crate::upstream::trace_calls();
    Ok((layer, Traces(provider)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_gets_the_traces_path_and_a_full_one_is_kept() {
        assert_eq!(
            traces_url("http://collector:4318").unwrap(),
            "http://collector:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://collector:4318/").unwrap(),
            "http://collector:4318/v1/traces"
        );
        assert_eq!(
            traces_url("https://otel.example.com/custom/traces").unwrap(),
            "https://otel.example.com/custom/traces"
        );
        let e = traces_url("grpc://collector:4317").unwrap_err().to_string();
        assert!(
            e.contains("--otlp-endpoint") && e.contains("http(s)"),
            "{e}"
        );
        let e = traces_url("not a url").unwrap_err().to_string();
        assert!(e.contains("--otlp-endpoint"), "{e}");
    }

    #[test]
    fn the_flag_wins_and_empty_means_off() {
        let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            endpoint_of(&args(&["api", "serve", "--otlp-endpoint", "http://c:4318"])),
            Some("http://c:4318".into())
        );
        assert_eq!(
            endpoint_of(&args(&["indexer", "--otlp-endpoint=http://d:4318"])),
            Some("http://d:4318".into())
        );
        assert_eq!(
            endpoint_of(&args(&["indexer", "--otlp-endpoint", ""])),
            None
        );
    }
}
