//! Route keys shared through the index: every replica seals with the same key and verifies with all of
//! them, so a route quoted by one replica builds on any other. `--route-keys` overrides the table.
//!
//! Rotation (`admin route-keys rotate`) adds a key; a replica reads the table when it starts. The newest key
//! verifies at once, but signs only once it is [`ROTATION_GRACE`] old, so that replicas restarted one by
//! one within the grace all verify it before any signs with it.

use index::store::route_keys::RouteKey;
use index::Store;

/// How long a rotated key only verifies before it signs: restart every replica within it.
pub const ROTATION_GRACE_SECS: i64 = 600;

/// The keys in `--route-keys` order (the first signs, every one verifies): the newest key at least
/// [`ROTATION_GRACE_SECS`] old first (the oldest, when none is), then the others newest first.
/// `keys` come newest first, as [`Store::route_keys`] returns them.
pub fn signing_order(keys: &[RouteKey], now: i64) -> Vec<String> {
    let signer = keys
        .iter()
        .position(|k| now.saturating_sub(k.created_at) >= ROTATION_GRACE_SECS)
        .unwrap_or(keys.len().saturating_sub(1));
    keys.get(signer)
        .into_iter()
        .chain(
            keys.iter()
                .enumerate()
                .filter(|(i, _)| *i != signer)
                .map(|(_, k)| k),
        )
        .map(|k| k.secret.clone())
        .collect()
}

/// A new secret: 32 random bytes, hex.
pub fn new_secret() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// The shared keys in signing order, made on first start.
pub async fn shared(store: &Store, now: i64) -> Result<Vec<String>, sqlx::Error> {
    let keys = store.route_keys_or_init(&new_secret(), now).await?;
    Ok(signing_order(&keys, now))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: i64, created_at: i64) -> RouteKey {
        RouteKey {
            id,
            secret: format!("k{id}"),
            created_at,
        }
    }

    #[test]
    fn a_rotated_key_verifies_at_once_and_signs_after_the_grace() {
        assert_eq!(signing_order(&[key(1, 0)], 5), ["k1"]);
        let rotated = [key(2, 1_000), key(1, 0)];
        assert_eq!(signing_order(&rotated, 1_000), ["k1", "k2"]);
        assert_eq!(
            signing_order(&rotated, 1_000 + ROTATION_GRACE_SECS - 1),
            ["k1", "k2"]
        );
        assert_eq!(
            signing_order(&rotated, 1_000 + ROTATION_GRACE_SECS),
            ["k2", "k1"]
        );
        // Both young (a fresh table rotated at once): the oldest signs.
        assert_eq!(signing_order(&[key(2, 10), key(1, 5)], 20), ["k1", "k2"]);
        assert!(signing_order(&[], 0).is_empty());
        assert!(new_secret().len() >= crate::routes::swap::seal::MIN_KEY_LEN);
    }
}
