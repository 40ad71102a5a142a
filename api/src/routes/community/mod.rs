//! The community layer (issue 43): signed comments and replies per token, and profiles (a signed display name
//! and avatar). A wallet signs a message the server rebuilds from the request ([`message`]); nothing secret is
//! ever sent. Posts are limited per wallet and per client address ([`Limits`]), stored through the index
//! (`index::store::comments`, `index::store::profiles`) and announced on the live feed (`kind: comment`).
//!
//! ```text
//!  comments   GET and POST /launchpad/tokens/{mint}/comments
//!  profiles   GET and PUT /launchpad/profiles/{wallet}, GET /launchpad/profiles?wallets=, GET /launchpad/avatars/{hash}
//!  message    the signed messages, built and verified
//!  text       what a comment's text and a display name may be
//! ```

pub mod comments;
pub mod message;
pub mod profiles;
pub mod text;

use crate::error::ApiError;
use crate::http::layers::{client_of, quota};
use crate::state::AppState;
use axum::http::{header, HeaderMap};
use governor::{DefaultKeyedRateLimiter, RateLimiter};
use index::feed::FeedComment;
use serde_json::{json, Value};
use std::net::IpAddr;
use std::sync::Arc;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Signed writes (comments, profile changes) one wallet may make: this many at once, then one every
/// [`WALLET_EVERY_SECS`].
pub const WALLET_BURST: u32 = 5;
pub const WALLET_EVERY_SECS: u64 = 12;
/// Signed writes from one client address (however many wallets it signs with): this many at once, then one
/// every [`ADDRESS_EVERY_SECS`].
pub const ADDRESS_BURST: u32 = 40;
pub const ADDRESS_EVERY_SECS: u64 = 2;

/// The limits of signed writes, per wallet and per client address (the identity every limit of the service
/// keys on: [`client_of`]). One per router: replicas each hold their own, as the request limits do.
pub struct Limits {
    wallets: DefaultKeyedRateLimiter<String>,
    addresses: DefaultKeyedRateLimiter<IpAddr>,
}

impl Default for Limits {
    fn default() -> Self {
        let every = |secs: u64, burst: u32| {
            governor::Quota::with_period(std::time::Duration::from_secs(secs))
                .map(|q| q.allow_burst(std::num::NonZeroU32::new(burst).expect("burst > 0")))
                .unwrap_or_else(|| quota(1, burst))
        };
        Limits {
            wallets: RateLimiter::keyed(every(WALLET_EVERY_SECS, WALLET_BURST)),
            addresses: RateLimiter::keyed(every(ADDRESS_EVERY_SECS, ADDRESS_BURST)),
        }
    }
}

fn refused(not_until: governor::NotUntil<governor::clock::QuantaInstant>) -> ApiError {
    use governor::clock::Clock as _;
    let wait = not_until.wait_time_from(governor::clock::DefaultClock::default().now());
    ApiError::rate_limited(wait.as_secs().max(1))
}

impl Limits {
    /// Counts a signed write from the client's address; 429 `RATE_LIMITED` when it is over.
    pub fn address(&self, ip: Option<IpAddr>) -> Result<(), ApiError> {
        let Some(ip) = ip else { return Ok(()) };
        self.addresses.check_key(&ip).map_err(refused)
    }

    /// Counts a signed write of `wallet` (after its signature verified, so that nobody spends another
    /// wallet's quota); 429 `RATE_LIMITED` when it is over.
    pub fn wallet(&self, wallet: &str) -> Result<(), ApiError> {
        self.wallets.check_key(&wallet.to_string()).map_err(refused)
    }

    /// Forgets the keys whose quota is whole again.
    pub fn prune(&self) {
        self.wallets.retain_recent();
        self.addresses.retain_recent();
    }
}

/// The request's client address as the limits count it.
pub fn client(
    state: &AppState,
    headers: &HeaderMap,
    ext: &axum::http::Extensions,
) -> Option<IpAddr> {
    client_of(&state.config, headers, ext)
}

/// The domain a signed message names: the request's `Host` header, as sent.
pub fn domain(headers: &HeaderMap) -> Result<String, ApiError> {
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .filter(|h| !h.is_empty())
        .ok_or_else(|| {
            ApiError::invalid(
                "the request names no host (`Host`), which the signed message must name",
            )
        })
}

/// A comment's fields on the live feed.
pub fn feed_fields(c: &FeedComment) -> Value {
    json!({
        "id": c.id,
        "wallet": c.wallet,
        "name": c.name,
        "replyTo": c.reply_to,
        "text": c.text,
        "holding": c.holding.to_string(),
    })
}

/// This area's routes; the limits live as long as the router.
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    use utoipa_axum::router::UtoipaMethodRouterExt;
    // A profile can carry an avatar, as a launch its image.
    let image_body = axum::extract::DefaultBodyLimit::max(
        crate::routes::launch::images::PREPARE_BODY_LIMIT.max(state.config.max_body_bytes),
    );
    let limits = Arc::new(Limits::default());
    let pruned = Arc::downgrade(&limits);
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        handle.spawn(async move {
            loop {
                tokio::time::sleep(crate::http::layers::LIMITER_PRUNE_EVERY).await;
                let Some(limits) = pruned.upgrade() else {
                    return;
                };
                limits.prune();
            }
        });
    }
    OpenApiRouter::new()
        .routes(routes!(comments::list, comments::post))
        .routes(routes!(profiles::get, profiles::put).layer(image_body))
        .routes(routes!(profiles::many))
        .routes(routes!(profiles::avatar))
        .layer(axum::Extension(limits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_limited_per_wallet_and_per_address() {
        let limits = Limits::default();
        for _ in 0..WALLET_BURST {
            assert_eq!(limits.wallet("W"), Ok(()));
        }
        let refused = limits.wallet("W").unwrap_err();
        assert_eq!(refused.code, crate::error::ErrorCode::RateLimited);
        assert!((1..=WALLET_EVERY_SECS).contains(&refused.retry_after.unwrap()));
        assert_eq!(
            limits.wallet("V"),
            Ok(()),
            "another wallet has its own quota"
        );
        let ip: IpAddr = "203.0.113.9".parse().unwrap();
        for _ in 0..ADDRESS_BURST {
            assert_eq!(limits.address(Some(ip)), Ok(()));
        }
        assert_eq!(
            limits.address(Some(ip)).unwrap_err().code,
            crate::error::ErrorCode::RateLimited
        );
        assert_eq!(
            limits.address(Some("203.0.113.10".parse().unwrap())),
            Ok(())
        );
    }
}
