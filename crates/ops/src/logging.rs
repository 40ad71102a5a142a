//! The process's log: one line per event (human-readable, or JSON with `LOG_FORMAT=json`), written by a background thread so that no request waits on
//! the terminal, a pipe or a log collector, each line with any URL's credentials removed ([`crate::redact`]). The writer applies back-pressure when its queue is full rather
//! than dropping lines.

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};

/// The filter when `RUST_LOG` is not set.
pub const DEFAULT_FILTER: &str = "info,sqlx=warn,solana=warn,agave=warn";

/// `LOG_FORMAT`: `json` writes one JSON object per line (for a log collector: level, target, message, fields
/// and the enclosing spans, a request's `request_id` among them); anything else, the human format.
pub const LOG_FORMAT_ENV: &str = "LOG_FORMAT";

/// Installs the global subscriber writing to `out` from a background thread, with colours when `ansi` (a
/// terminal; never in files and pipes, never in JSON). Keep the guard until the process ends: dropping it
/// flushes what is queued.
pub fn init(out: impl std::io::Write + Send + 'static, ansi: bool) -> WorkerGuard {
    // Every line passes through the redaction: no URL's key reaches a log.
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .finish(crate::redact::Redacting(out));
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| DEFAULT_FILTER.into());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    if std::env::var(LOG_FORMAT_ENV).is_ok_and(|f| f.eq_ignore_ascii_case("json")) {
        builder
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .init();
    } else {
        builder.with_ansi(ansi).init();
    }
    guard
}
