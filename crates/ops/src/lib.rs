//! Process plumbing every binary (`api`, `indexer`, `dev`) uses, and none of their domain:
//!
//! - [`redact`]: every URL's credentials and every registered secret out of logs and answers
//! - [`secret_files`]: secrets given as files, read before the runtime starts
//! - [`signal`]: SIGTERM/SIGINT and the stop channel a graceful shutdown watches
//! - [`logging`]: the process's log (human or JSON, redacted, written off the request path)
//! - [`metrics`]: the Prometheus registry and `GET /metrics`
//! - [`upstream`]: each call to a service the process depends on, counted and timed by upstream and method
//! - [`otlp`] (feature `otlp`): OpenTelemetry traces over OTLP/HTTP, off unless an endpoint is given
//! - [`health`]: the indexer's counters and health snapshot, read by whichever process serves `/health`

pub mod health;
pub mod logging;
pub mod metrics;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod redact;
pub mod secret_files;
pub mod signal;
pub mod upstream;
