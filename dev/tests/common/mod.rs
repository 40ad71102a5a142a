//! What the `dev` package's end-to-end tests share.

use std::time::{Duration, Instant};

/// Polls `f` every 100 ms until it holds, failing the test with `what` after `within`.
pub async fn wait_for<F, Fut>(what: &str, within: Duration, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !f().await {
        assert!(start.elapsed() < within, "{what}: not within {within:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
