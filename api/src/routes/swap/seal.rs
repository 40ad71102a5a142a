//! Routes the server can trust. Every route a quote hands out carries `tag`: an HMAC-SHA256 over the route's
//! content (its JSON with keys sorted, without `tag`), keyed by the service's route keys. A build verifies the
//! tag before it reads anything of the route, so a route whose expiry, amounts, pool or venue was edited (or
//! that no quote of this service made) is refused with `INVALID_ROUTE`.
//!
//! Keys (`--route-keys`): the first signs, every one verifies. Rotation without downtime: add the new key
//! second on every replica, then first, then (after the quote lifetime) drop the old one. Without keys a
//! process signs with a random key of its own: fine for one process, but then a route quoted by another
//! replica, or before a restart, is refused.

use crate::error::ApiError;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;
use swap_core::shapes::invalid_route;

/// The route field that carries the tag.
pub const TAG: &str = "tag";

/// The shortest route key accepted (bytes of the secret as given).
pub const MIN_KEY_LEN: usize = 32;

/// The keys routes are signed (the first) and verified (any) with.
#[derive(Clone)]
pub struct RouteKeys(Vec<Vec<u8>>);

impl std::fmt::Debug for RouteKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RouteKeys({} keys)", self.0.len())
    }
}

impl RouteKeys {
    /// The configured keys, each at least [`MIN_KEY_LEN`] bytes; `None` when none are given.
    pub fn new(keys: &[String]) -> Result<Option<RouteKeys>, String> {
        if let Some(short) = keys.iter().position(|k| k.len() < MIN_KEY_LEN) {
            return Err(format!(
                "--route-keys (ROUTE_KEYS): key {} is shorter than {MIN_KEY_LEN} bytes (e.g. `openssl rand -hex 32`)",
                short + 1
            ));
        }
        Ok((!keys.is_empty())
            .then(|| RouteKeys(keys.iter().map(|k| k.as_bytes().to_vec()).collect())))
    }

    /// One random key, for a process that was given none.
    pub fn random() -> RouteKeys {
        RouteKeys(vec![rand::random::<[u8; 32]>().to_vec()])
    }

    /// The MAC of `content`'s canonical text ([`canonical`]) under `key`, written straight into the MAC:
    /// no text is built.
    fn mac(key: &[u8], content: &Value) -> Hmac<Sha256> {
        // HMAC takes a key of any length: this cannot fail.
        let mut mac =
            <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
        write_canonical(content, &mut MacWriter(&mut mac)).expect("a MAC takes any bytes");
        mac
    }

    /// The tag of `content` (an object without `tag`), as a route carries it.
    fn tag(&self, content: &Value) -> String {
        let tag = Self::mac(&self.0[0], content).finalize().into_bytes();
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(tag)
    }

    /// `route` with its tag (an object; anything else is returned as it is).
    pub fn seal(&self, mut route: Value) -> Value {
        if let Value::Object(map) = &mut route {
            map.remove(TAG);
        }
        let tag = route.is_object().then(|| self.tag(&route));
        if let (Value::Object(map), Some(tag)) = (&mut route, tag) {
            map.insert(TAG.into(), Value::String(tag));
        }
        route
    }

    /// The content of a route this service sealed (without its tag), or `INVALID_ROUTE`.
    pub fn open(&self, route: &Value) -> Result<Value, ApiError> {
        let refused = || {
            invalid_route(
                "`route` is not a route returned by /swap/quote, or was changed: pass it back unchanged",
            )
        };
        let Value::Object(map) = route else {
            return Err(refused());
        };
        let tag = map
            .get(TAG)
            .and_then(Value::as_str)
            .and_then(|t| {
                base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(t)
                    .ok()
            })
            .ok_or_else(refused)?;
        let mut content = map.clone();
        content.remove(TAG);
        let content = Value::Object(content);
        // `verify_slice` compares in constant time.
        self.0
            .iter()
            .any(|key| Self::mac(key, &content).verify_slice(&tag).is_ok())
            .then_some(content)
            .ok_or_else(refused)
    }
}

/// `value` as JSON with every object's keys sorted and no whitespace: the same text for the same content,
/// whatever order a client's JSON library writes the keys in.
pub fn canonical(value: &Value) -> String {
    let mut out = Vec::new();
    write_canonical(value, &mut out).expect("a Vec takes any bytes");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// Writes [`canonical`]'s text of `value` into `out`, keys and scalars as serde_json writes them (no
/// intermediate strings: sealing a quote's routes wrote every key and scalar into a `String` of its own).
fn write_canonical(value: &Value, out: &mut impl std::io::Write) -> std::io::Result<()> {
    match value {
        Value::Object(map) => {
            // serde_json's map is sorted already unless its `preserve_order` feature is on somewhere in
            // the build; sorting what is sorted costs one pass.
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.write_all(b"{")?;
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, k)?;
                out.write_all(b":")?;
                write_canonical(v, out)?;
            }
            out.write_all(b"}")
        }
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_canonical(item, out)?;
            }
            out.write_all(b"]")
        }
        scalar => Ok(serde_json::to_writer(out, scalar)?),
    }
}

/// A MAC written to as a byte sink.
struct MacWriter<'m>(&'m mut Hmac<Sha256>);

impl std::io::Write for MacWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn keys(k: &[&str]) -> RouteKeys {
        RouteKeys::new(&k.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap()
            .unwrap()
    }

    const A: &str = "an-operator-secret-of-at-least-32-bytes";
    const B: &str = "the-next-operator-secret-32-bytes-long";

    #[test]
    fn a_sealed_route_opens_and_every_edit_is_refused() {
        let route = json!({"venue": "bonding-curve", "pool": "P", "amountIn": "100", "amountOut": "90",
                           "expiresAt": 1_800_000_060, "nested": {"b": 1, "a": [1, 2]}});
        let k = keys(&[A]);
        let sealed = k.seal(route.clone());
        assert_eq!(k.open(&sealed).unwrap(), route);
        for (field, value) in [
            ("expiresAt", json!(1_900_000_000)),
            ("amountOut", json!("270")),
            ("pool", json!("Q")),
            ("venue", json!("amm")),
            ("extra", json!(true)),
        ] {
            let mut edited = sealed.clone();
            edited[field] = value;
            let e = k.open(&edited).unwrap_err();
            assert_eq!(e.code, "INVALID_ROUTE", "{field}");
        }
        let mut untagged = sealed.clone();
        untagged.as_object_mut().unwrap().remove(TAG);
        assert!(k.open(&untagged).is_err());
        assert!(k.open(&json!("a string")).is_err());
        // Another service's key does not open it.
        assert!(keys(&[B]).open(&sealed).is_err());
    }

    #[test]
    fn rotation_verifies_with_every_key_and_signs_with_the_first() {
        let old = keys(&[A]);
        let both = keys(&[B, A]);
        let new = keys(&[B]);
        let route = json!({"venue": "amm", "expiresAt": 1});
        // Routes signed before the rotation still build during it.
        assert!(both.open(&old.seal(route.clone())).is_ok());
        // Routes signed during it build after the old key is gone.
        assert!(new.open(&both.seal(route.clone())).is_ok());
    }

    #[test]
    fn short_keys_are_refused_and_none_means_none() {
        assert!(RouteKeys::new(&["short".into()])
            .unwrap_err()
            .contains("32 bytes"));
        assert!(RouteKeys::new(&[]).unwrap().is_none());
    }

    /// The canonical text as it was first written (a `String` per key and scalar): the streaming writer must
    /// produce exactly this, or every route sealed before the change would be refused.
    fn canonical_by_strings(value: &Value) -> String {
        fn write(value: &Value, out: &mut String) {
            match value {
                Value::Object(map) => {
                    let mut keys: Vec<&String> = map.keys().collect();
                    keys.sort();
                    out.push('{');
                    for (i, k) in keys.into_iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push_str(&Value::String(k.clone()).to_string());
                        out.push(':');
                        write(&map[k], out);
                    }
                    out.push('}');
                }
                Value::Array(items) => {
                    out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write(item, out);
                    }
                    out.push(']');
                }
                scalar => out.push_str(&scalar.to_string()),
            }
        }
        let mut out = String::new();
        write(value, &mut out);
        out
    }

    /// JSON values with any keys and strings (escapes, quotes, non-ASCII), numbers of every kind, nested.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "\\PC{0,12}|[\"\\\\\\u{0}-\\u{1f}]{0,3}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
                proptest::collection::btree_map("\\PC{0,6}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn a_quote_route_keeps_its_canonical_text() {
        let route = json!({"venue": "bonding-curve", "pool": "P\"q\\", "amountIn": "100", "maxAmountIn": null,
                           "expiresAt": 1_800_000_060, "exactOut": false, "n": -1.5, "nested": {"b": 1, "a": [1, "\u{7}"]}});
        assert_eq!(
            canonical(&route),
            r#"{"amountIn":"100","exactOut":false,"expiresAt":1800000060,"maxAmountIn":null,"n":-1.5,"nested":{"a":[1,"\u0007"],"b":1},"pool":"P\"q\\","venue":"bonding-curve"}"#
        );
    }

    proptest! {
        /// The streaming writer writes the text the string-building one did, for any JSON.
        #[test]
        fn canonical_text_is_unchanged(value in any_json()) {
            prop_assert_eq!(canonical(&value), canonical_by_strings(&value));
        }

        /// Key order never changes the tag; the canonical text is valid JSON of the same value.
        #[test]
        fn key_order_does_not_matter(entries in proptest::collection::btree_map("[a-z]{1,6}", any::<i64>(), 0..8)) {
            let forward: serde_json::Map<String, Value> =
                entries.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            let backward: serde_json::Map<String, Value> =
                entries.iter().rev().map(|(k, v)| (k.clone(), json!(v))).collect();
            let (f, b) = (Value::Object(forward), Value::Object(backward));
            prop_assert_eq!(canonical(&f), canonical(&b));
            prop_assert_eq!(serde_json::from_str::<Value>(&canonical(&f)).unwrap(), f.clone());
            let k = keys(&[A]);
            prop_assert!(k.open(&k.seal(b)).is_ok());
        }
    }
}
