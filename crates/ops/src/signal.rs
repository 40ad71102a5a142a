//! Shutdown on SIGTERM (systemd, container runtimes) or SIGINT (Ctrl-C), and the stop channel a graceful
//! shutdown watches.

/// Resolves on the first SIGTERM or SIGINT and names it.
pub async fn shutdown_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = tokio::signal::ctrl_c() => "SIGINT",
            },
            Err(e) => {
                tracing::warn!("cannot listen for SIGTERM ({e}); only Ctrl-C stops this process");
                let _ = tokio::signal::ctrl_c().await;
                "SIGINT"
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
    }
}

/// Raises `tx` on the first SIGTERM or SIGINT (logging which, and `then`: what the process does next). Every
/// server and loop of the process watches the channel and finishes its work in flight.
pub fn raise_on_signal(tx: tokio::sync::watch::Sender<bool>, then: &'static str) {
    tokio::spawn(async move {
        let signal = shutdown_signal().await;
        tracing::info!("{signal}: {then}");
        let _ = tx.send(true);
    });
}

/// Resolves once the stop signal is raised (an axum server's graceful shutdown).
pub async fn stopped(mut rx: tokio::sync::watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}
