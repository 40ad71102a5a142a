//! The process's log: one line per event (human-readable, or JSON with `--log-format json` or `LOG_FORMAT=json`),
//! written by a background thread so that no request waits on the terminal, a pipe or a log collector, each line
//! with any URL's credentials removed ([`crate::redact`]). The writer applies back-pressure when its queue is full
//! rather than dropping lines.
//!
//! Beside the log, the subscriber counts the database pool's waits (`db_pool_waits_total`): sqlx reports an
//! acquisition slower than the pool's wait threshold as an event of target [`POOL_ACQUIRE_TARGET`], which a
//! layer of its own counts whatever the log's filter shows.

use std::ffi::OsString;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// The filter when `RUST_LOG` is not set.
pub const DEFAULT_FILTER: &str = "info,sqlx=warn,solana=warn,agave=warn";

/// `LOG_FORMAT`: `json` writes one JSON object per line (for a log collector: level, target, message, fields
/// and the enclosing spans, a request's `request_id` among them); anything else, the human format.
pub const LOG_FORMAT_ENV: &str = "LOG_FORMAT";

/// The flag naming the format (it wins over [`LOG_FORMAT_ENV`]): `--log-format json` or `--log-format text`.
pub const LOG_FORMAT_FLAG: &str = "--log-format";

/// Where sqlx reports a slow acquisition of a pooled connection (a wait).
pub const POOL_ACQUIRE_TARGET: &str = "sqlx::pool::acquire";

/// How a line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

impl Format {
    /// The format `args` (the command line) name with [`LOG_FORMAT_FLAG`], else [`LOG_FORMAT_ENV`]'s, else text.
    pub fn of(args: &[OsString]) -> Format {
        let mut given = None;
        let mut args = args.iter().map(|a| a.to_string_lossy());
        while let Some(arg) = args.next() {
            if arg == LOG_FORMAT_FLAG {
                given = args.next().map(|v| v.into_owned());
            } else if let Some(v) = arg.strip_prefix("--log-format=") {
                given = Some(v.to_string());
            }
        }
        let given = given.or_else(|| std::env::var(LOG_FORMAT_ENV).ok());
        match given {
            Some(f) if f.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Text,
        }
    }
}

/// Installs the global subscriber writing to `out` from a background thread, in the format the environment
/// names ([`LOG_FORMAT_ENV`]). See [`init_as`].
pub fn init(out: impl std::io::Write + Send + 'static, ansi: bool) -> WorkerGuard {
    init_as(Format::of(&[]), out, ansi)
}

/// Installs the global subscriber writing to `out` from a background thread in `format`, with colours when
/// `ansi` (a terminal; never in files and pipes, never in JSON). Keep the guard until the process ends:
/// dropping it flushes what is queued.
pub fn init_as(
    format: Format,
    out: impl std::io::Write + Send + 'static,
    ansi: bool,
) -> WorkerGuard {
    install(format, out, ansi, None)
}

/// The filter of what is logged (and traced): `RUST_LOG`, else [`DEFAULT_FILTER`].
pub fn filter() -> tracing_subscriber::EnvFilter {
    tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| DEFAULT_FILTER.into())
}

/// What keeps the log (and the traces' export) going: keep it until the process ends; dropped, it writes
/// what is queued and exports the last spans.
pub struct Guard {
    #[cfg(feature = "otlp")]
    _traces: Option<crate::otlp::Traces>,
    _log: WorkerGuard,
}

/// The process's log as [`init_as`] installs it, in the format `args` name ([`Format::of`]), and, when
/// `args` or the environment name an OTLP endpoint ([`crate::otlp::endpoint_of`]), its spans exported
/// there as `service`. Errors name the flag at fault.
#[cfg(feature = "otlp")]
pub fn init_for(
    args: &[OsString],
    service: &'static str,
    out: impl std::io::Write + Send + 'static,
    ansi: bool,
) -> anyhow::Result<Guard> {
    let (traces, exporting) = match crate::otlp::endpoint_of(args) {
        Some(endpoint) => {
            let (layer, traces) = crate::otlp::layer(&endpoint, service)?;
            (Some(traces), Some((layer, endpoint)))
        }
        None => (None, None),
    };
    let (layer, endpoint) = exporting.unzip();
    let log = install(Format::of(args), out, ansi, layer);
    if let Some(endpoint) = endpoint {
        tracing::info!(
            "exporting traces over OTLP/HTTP to {}",
            crate::otlp::traces_url(&endpoint).unwrap_or(endpoint)
        );
    }
    Ok(Guard {
        _traces: traces,
        _log: log,
    })
}

/// A layer under the log (the traces' exporter).
type Extra = Box<dyn Layer<tracing_subscriber::Registry> + Send + Sync + 'static>;

fn install(
    format: Format,
    out: impl std::io::Write + Send + 'static,
    ansi: bool,
    extra: Option<Extra>,
) -> WorkerGuard {
    // Every line passes through the redaction: no URL's key reaches a log.
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .finish(crate::redact::Redacting(out));
    let filter = filter();
    let log = match format {
        Format::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .with_writer(writer)
            .boxed(),
        Format::Text => tracing_subscriber::fmt::layer()
            .with_ansi(ansi)
            .with_writer(writer)
            .boxed(),
    };
    let waits = tracing_subscriber::filter::Targets::new()
        .with_target(POOL_ACQUIRE_TARGET, tracing::Level::TRACE);
    tracing_subscriber::registry()
        .with(extra)
        .with(log.with_filter(filter))
        .with(PoolWaits.with_filter(waits))
        .init();
    guard
}

/// Counts sqlx's slow acquisitions as `db_pool_waits_total`.
struct PoolWaits;

impl<S: tracing::Subscriber> Layer<S> for PoolWaits {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let meta = event.metadata();
        if meta.target() == POOL_ACQUIRE_TARGET
            && meta.fields().field("slow_acquire_threshold_secs").is_some()
        {
            metrics::counter!("db_pool_waits_total").increment(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_names_the_format() {
        let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            Format::of(&args(&["api", "serve", "--log-format", "json"])),
            Format::Json
        );
        assert_eq!(
            Format::of(&args(&["indexer", "--log-format=JSON"])),
            Format::Json
        );
        assert_eq!(
            Format::of(&args(&["indexer", "--log-format", "text"])),
            Format::Text
        );
    }
}
