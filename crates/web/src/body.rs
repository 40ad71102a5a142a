//! JSON request bodies: parsed into the endpoint's type with errors in the spec's format, after refusing
//! anything that carries private-key or seed-phrase material (bodies are never logged). Responses are
//! [`crate::json::Json`].

use crate::error::{ApiError, ErrorCode};
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// A JSON body of type `T`.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(ErrorCode::PayloadTooLarge, "the request body is too large")
            } else {
                ApiError::new(ErrorCode::InvalidJson, "the request body could not be read")
            }
        })?;
        // The secret scan reads the text once without building a `Value`; the type is then read from the
        // same text (building, scanning and converting a `Value` was about 6% of the quote bench's samples).
        let found = secret_material(&bytes).map_err(|e| {
            ApiError::new(
                ErrorCode::InvalidJson,
                format!("the body is not valid JSON: {e}"),
            )
        })?;
        if let Some(path) = found {
            return Err(secret_refused(&format!("`{path}`")));
        }
        serde_json::from_slice(&bytes).map(ApiJson).map_err(|e| {
            let message = e.to_string();
            if let Some(field) = message
                .strip_prefix("missing field `")
                .and_then(|r| r.split('`').next())
            {
                ApiError::missing(field)
            } else {
                ApiError::invalid(format!("invalid body: {message}"))
            }
        })
    }
}

/// An optional `u16` field that also takes a JSON number written with a zero fraction (`50.0`): JSON Schema
/// counts those as integers, so a client validating with the OpenAPI document may send them.
pub fn opt_u16<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    use serde::Deserialize;
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    let integral = n.as_u64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= f64::from(u16::MAX))
            .map(|f| f as u64)
    });
    integral
        .and_then(|v| u16::try_from(v).ok())
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("{n} is not an integer from 0 to 65535")))
}

/// A `u16` field that also takes a JSON number written with a zero fraction (see [`opt_u16`]).
pub fn u16_integral<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u16, D::Error> {
    opt_u16(d)?.ok_or_else(|| serde::de::Error::custom("null is not an integer from 0 to 65535"))
}

const SECRET_NAMES: [&str; 7] = [
    "privatekey",
    "private_key",
    "secretkey",
    "secret_key",
    "seedphrase",
    "mnemonic",
    "keypair",
];

/// Whether a field named `name` (lower case, `_` for `-`) is one for a key or seed.
fn secret_name(name: &str) -> bool {
    SECRET_NAMES.iter().any(|s| name.contains(s)) || name == "seed" || name == "secret"
}

/// Whether a field named `name` legitimately holds 64-byte base58 or 32-byte hex values: signatures,
/// hashes, transactions, and a quote's `route` (which this service produced).
fn opaque_name(name: &str) -> bool {
    name == "route"
        || ["hash", "signature", "transaction"]
            .iter()
            .any(|s| name.contains(s))
}

/// Headers whose values are not the caller's free text (cache validators, cookies a browser attaches for the
/// site, WebSocket handshakes, trace context): never scanned. A header *named* like a key is refused anyway.
const UNSCANNED_HEADERS: [&str; 8] = [
    "if-none-match",
    "if-match",
    "cookie",
    "authorization",
    "sec-websocket-key",
    "sec-websocket-protocol",
    "traceparent",
    "tracestate",
];

/// Where a request carries a secret outside its body, by the body's rules: a path segment, a query
/// parameter or a header named like a key or seed, or whose value carries one (a seed phrase, a keypair
/// list, a 64-byte base58 or 32-byte hex key; opaque names such as `originTxHash`, and an image's content
/// hash in its path, excepted). The answer names the place, never the value.
pub fn secret_outside_body(
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
) -> Option<String> {
    let mut previous = "";
    for segment in uri.path().split('/').filter(|s| !s.is_empty()) {
        let text = percent_encoding::percent_decode_str(segment).decode_utf8_lossy();
        // `/launchpad/images/{hash}` and `/launchpad/avatars/{hash}`: a SHA-256 in hex.
        if previous != "images" && previous != "avatars" && carries_secret(&text, false) {
            return Some("the request path".into());
        }
        previous = segment;
    }
    if let Some(query) = uri.query() {
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            let mut buf = [0u8; 64];
            let key = scan_name(&name, &mut buf);
            if secret_name(&key) || carries_secret(&value, opaque_name(&key)) {
                return Some(format!(
                    "query parameter `{}`",
                    name.chars().take(64).collect::<String>()
                ));
            }
        }
    }
    for (name, value) in headers {
        let mut buf = [0u8; 64];
        let key = scan_name(name.as_str(), &mut buf);
        let value = String::from_utf8_lossy(value.as_bytes());
        let scanned = !UNSCANNED_HEADERS.contains(&name.as_str());
        if secret_name(&key) || (scanned && carries_secret(&value, opaque_name(&key))) {
            return Some(format!("header `{name}`"));
        }
    }
    None
}

/// A query parameter's or header's name as the scan compares it: lower case, `_` for `-`, without an `x_`
/// prefix; written into `buf` when it fits (names nearly always do: no allocation per header).
fn scan_name<'b>(name: &str, buf: &'b mut [u8; 64]) -> std::borrow::Cow<'b, str> {
    use std::borrow::Cow;
    match normalized_name(name, buf) {
        Some(n) => Cow::Borrowed(n.strip_prefix("x_").unwrap_or(n)),
        None => {
            let n = name.to_ascii_lowercase().replace('-', "_");
            Cow::Owned(n.strip_prefix("x_").map(str::to_string).unwrap_or(n))
        }
    }
}

/// `SECRET_MATERIAL`: something at `place` looks like a private key or seed phrase.
pub fn secret_refused(place: &str) -> ApiError {
    ApiError::new(
        ErrorCode::SecretMaterial,
        format!(
            "{place} looks like a private key or seed phrase; this service never accepts them. \
             Sign locally and send only signed transactions"
        ),
    )
}

/// Where in the JSON `body` something secret sits: a field named like a key or seed, a 64-number array (a
/// Solana keypair file), or a string that carries a secret anywhere in its text (see [`carries_secret`]).
/// Read straight from the text, in document order, without building a `serde_json::Value` (strings and keys
/// are borrowed from the body unless escaped); `Err` when the body is not one JSON value.
fn secret_material(body: &[u8]) -> Result<Option<String>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let found = Scan {
        path: &String::new,
        opaque: false,
        image: false,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(match found {
        Scanned::Secret(path) => Some(path),
        Scanned::Byte | Scanned::Clean => None,
    })
}

/// A scan of one JSON value. `path` spells where it sits, and is only called on a find. `opaque`: inside a
/// field that legitimately holds 64-byte base58 and 32-byte hex values (signatures, hashes, transactions,
/// and a quote's `route`, which this service produced). `image`: the value of an `image` field, whose base64
/// image bytes are binary (any run of letters may read as a key) and pass.
struct Scan<'p> {
    path: &'p dyn Fn() -> String,
    opaque: bool,
    image: bool,
}

/// What a scanned value was.
enum Scanned {
    /// A secret, at this path.
    Secret(String),
    /// An integer below 256 (an array of 64 of them is a keypair).
    Byte,
    Clean,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = Scanned;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scanned, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = Scanned;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Scanned, E> {
        Ok(Scanned::Clean)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Scanned, E> {
        Ok(Scanned::Clean)
    }

    fn visit_u64<E>(self, n: u64) -> Result<Scanned, E> {
        Ok(if n < 256 {
            Scanned::Byte
        } else {
            Scanned::Clean
        })
    }

    fn visit_f64<E>(self, _: f64) -> Result<Scanned, E> {
        Ok(Scanned::Clean)
    }

    fn visit_unit<E>(self) -> Result<Scanned, E> {
        Ok(Scanned::Clean)
    }

    fn visit_str<E>(self, s: &str) -> Result<Scanned, E> {
        let image = self.image && is_image_text(s);
        Ok(if !image && carries_secret(s, self.opaque) {
            Scanned::Secret((self.path)())
        } else {
            Scanned::Clean
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scanned, A::Error> {
        let (mut found, mut len, mut bytes) = (None, 0usize, true);
        loop {
            let here = || format!("{}[{len}]", (self.path)());
            let item = Scan {
                path: &here,
                opaque: self.opaque,
                image: false,
            };
            match seq.next_element_seed(item)? {
                None => break,
                Some(Scanned::Byte) => {}
                Some(Scanned::Clean) => bytes = false,
                Some(Scanned::Secret(path)) => {
                    bytes = false;
                    found.get_or_insert(path);
                }
            }
            len += 1;
        }
        Ok(match found {
            _ if len == 64 && bytes => Scanned::Secret((self.path)()),
            Some(path) => Scanned::Secret(path),
            None => Scanned::Clean,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scanned, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if found.is_some() {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            let k = key.as_str();
            let here = || {
                let path = (self.path)();
                if path.is_empty() {
                    k.to_string()
                } else {
                    format!("{path}.{k}")
                }
            };
            let mut buf = [0u8; 32];
            let owned;
            let name = match normalized_name(k, &mut buf) {
                Some(name) => name,
                None => {
                    owned = k.to_ascii_lowercase().replace('-', "_");
                    owned.as_str()
                }
            };
            if secret_name(name) {
                found = Some(here());
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            let value = Scan {
                path: &here,
                opaque: self.opaque || opaque_name(name),
                image: name == "image",
            };
            if let Scanned::Secret(path) = map.next_value_seed(value)? {
                found = Some(path);
            }
        }
        Ok(found.map_or(Scanned::Clean, Scanned::Secret))
    }
}

/// An object's key: borrowed from the body unless it has escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(s))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(s.to_string()))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// `key` lower-cased with `-` as `_`, written into `buf` (no allocation for the keys bodies have); `None`
/// when it does not fit.
fn normalized_name<'b, const N: usize>(key: &str, buf: &'b mut [u8; N]) -> Option<&'b str> {
    let out = buf.get_mut(..key.len())?;
    for (o, b) in out.iter_mut().zip(key.bytes()) {
        *o = if b == b'-' {
            b'_'
        } else {
            b.to_ascii_lowercase()
        };
    }
    std::str::from_utf8(out).ok()
}

/// Whether the text of an `image` field is base64 of an image (binary whose runs of letters and digits look
/// like anything, keys included): skipped. Anything else under `image` is scanned as text.
fn is_image_text(s: &str) -> bool {
    crate::image::base64_bytes(s).is_some_and(|b| crate::image::sniff(&b).is_some())
}

/// Whether text carries a secret anywhere in it, in any case or wrapping: a run of 12 or more BIP-39
/// words (a seed phrase), a bracketed list of 64 numbers below 256 (a keypair file pasted as text), and,
/// outside opaque fields, a base58 value of 64 bytes (a Solana secret key) or 64 hex digits (an EVM
/// private key). A value that is wholly a decimal integer is an amount (`amountIn` may be written with leading
/// zeros), not a key: 64 decimal digits are a hex key's one chance in 10^13.
fn carries_secret(s: &str, opaque: bool) -> bool {
    let amount = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    seed_phrase(s)
        || keypair_list(s)
        || (!opaque
            && !amount
            && tokens(s).any(|t| {
                let hex = t.strip_prefix("0x").unwrap_or(t);
                let hex_key = hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit());
                let base58_key = (86..=90).contains(&t.len())
                    && bs58::decode(t).into_vec().is_ok_and(|b| b.len() == 64);
                hex_key || base58_key
            }))
}

/// The alphanumeric runs of `s` (what is left between punctuation and spaces).
fn tokens(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
}

fn seed_phrase(s: &str) -> bool {
    let english = bip39::Language::English;
    // Twelve words of at least 3 letters and a separator between each.
    if s.len() < 12 * 4 - 1 {
        return false;
    }
    let mut run = 0;
    for word in s
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
    {
        // English BIP-39 words have 3 to 8 letters (none is found otherwise; this only saves the lookup).
        if (3..=8).contains(&word.chars().count())
            && english.find_word(&word.to_lowercase()).is_some()
        {
            run += 1;
            if run >= 12 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

fn keypair_list(s: &str) -> bool {
    s.split('[').skip(1).any(|rest| {
        let inside = rest.split(']').next().unwrap_or("");
        let numbers: Vec<&str> = inside.split(',').map(str::trim).collect();
        numbers.len() == 64 && numbers.iter().all(|n| n.parse::<u8>().is_ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// The scan of `v` sent as a body.
    fn found(v: Value) -> Option<String> {
        secret_material(v.to_string().as_bytes()).expect("JSON")
    }

    proptest::proptest! {
        #[test]
        fn key_names_normalize_as_the_allocating_form(key in "\\PC{0,40}") {
            let mut buf = [0u8; 32];
            let expected = key.to_ascii_lowercase().replace('-', "_");
            match normalized_name(&key, &mut buf) {
                Some(name) => proptest::prop_assert_eq!(name, expected),
                None => proptest::prop_assert!(key.len() > 32),
            }
        }

        #[test]
        fn scanned_names_normalize_as_the_allocating_form(key in "(x-|X_)?\\PC{0,70}") {
            let expected = {
                let name = key.to_ascii_lowercase().replace('-', "_");
                name.strip_prefix("x_").map(str::to_string).unwrap_or(name)
            };
            let mut buf = [0u8; 64];
            proptest::prop_assert_eq!(scan_name(&key, &mut buf), expected);
        }
    }

    #[test]
    fn the_scan_reads_the_text_as_written() {
        let scan = |body: &str| secret_material(body.as_bytes());
        // Escaped key names are read unescaped.
        assert_eq!(
            scan(r#"{"private\u004bey": "x"}"#).unwrap(),
            Some("privateKey".into())
        );
        // The first secret in document order is named; a repeated key is scanned every time it appears.
        assert_eq!(
            scan(r#"{"b": {"mnemonic": 1}, "a": {"privateKey": 1}}"#).unwrap(),
            Some("b.mnemonic".into())
        );
        assert_eq!(
            scan(r#"{"note": "[1,2]", "note": "abandon ability able about above absent absorb abstract absurd abuse access accident"}"#)
                .unwrap(),
            Some("note".into())
        );
        // Arrays: 64 integers below 256 are a keypair wherever they sit; anything else in them is not.
        let bytes = |last: &str| {
            let mut items: Vec<String> = (0..63).map(|i| i.to_string()).collect();
            items.push(last.into());
            format!("[{}]", items.join(","))
        };
        assert_eq!(
            scan(&format!(r#"{{"a": [[], {}]}}"#, bytes("255"))).unwrap(),
            Some("a[1]".into())
        );
        for last in ["256", "1.0", "-1", "\"7\"", "null"] {
            assert_eq!(
                scan(&format!(r#"{{"a": {}}}"#, bytes(last))).unwrap(),
                None,
                "{last}"
            );
        }
        assert_eq!(
            scan(&format!(r#"{{"a": [1, {{"b": {}}}]}}"#, bytes("0"))).unwrap(),
            Some("a[1].b".into())
        );
        // Not one JSON value: refused before anything is read into a type.
        for bad in ["", "{", "{} {}", "{\"a\": }", "[1,]"] {
            assert!(scan(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn secrets_are_found_wherever_they_hide() {
        let kp: Vec<u8> = (0..64).collect();
        assert_eq!(found(json!({"privateKey": "x"})), Some("privateKey".into()));
        assert_eq!(found(json!({"a": {"wallet": kp}})), Some("a.wallet".into()));
        let phrase =
            "abandon ability able about above absent absorb abstract absurd abuse access accident";
        assert_eq!(found(json!({"note": phrase})), Some("note".into()));
        let b58 = bs58::encode([7u8; 64]).into_string();
        assert_eq!(found(json!({"creator": b58})), Some("creator".into()));
        // A signature is 64 bytes too, and legitimate where a signature belongs.
        assert_eq!(found(json!({"deployTxHash": b58})), None);
        // Secrets inside text, in any case or wrapping.
        let list = format!("{:?}", (0..64).collect::<Vec<u8>>());
        let evm_key = format!("0x{}", "ab".repeat(32));
        for text in [
            format!("my wallet: {list}"),
            format!("key={b58}"),
            phrase.to_uppercase(),
            format!("backup -> {} <- keep it", phrase.replace(' ', ", ")),
            evm_key.clone(),
            format!("pk {}", "CD".repeat(32)),
        ] {
            assert_eq!(
                found(json!({"description": text})),
                Some("description".into()),
                "{text}"
            );
        }
        // 32-byte hex is a transaction hash where hashes belong, and opaque data in a quote's route.
        assert_eq!(found(json!({"txHash": evm_key})), None);
        assert_eq!(found(json!({"route": {"pools": [{"id": evm_key}]}})), None);
        // Ordinary prose and addresses pass.
        assert_eq!(
            found(json!({
                "description": "The community token for builders: fair launch, no team allocation, \
                 fees shared with the creator and burned liquidity after graduation.",
                "tokenIn": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
                "creator": "9eHC6gHSiyx5W77J7LSnEibuWCQSSh53KqG9V38ghTRS",
                "amountIn": "1000000000000000000000",
            })),
            None
        );
        // An amount with leading zeros to 64 digits is a number, not a hex key; within text, or after `0x`,
        // 64 digits still read as one.
        let padded = format!("{:0>64}", "135645910887526542648031212317796453143");
        assert_eq!(found(json!({"amountIn": padded})), None);
        for text in [format!("0x{padded}"), format!("key {padded}")] {
            assert_eq!(found(json!({"note": text})), Some("note".into()), "{text}");
        }
        assert_eq!(
            found(json!({"name": "My Token", "description": "a fair launch for everyone"})),
            None
        );
        // Image bytes are binary: a GIF whose base64 holds a run that reads as a 64-byte base58 key passes
        // under `image`; the same text in a text field, or a key posing as an image, is caught.
        let run = bs58::encode([9u8; 64]).into_string();
        let mut image = format!("R0lGODlh+{run}+");
        while image.len() % 4 != 0 {
            image.push('A');
        }
        assert!(
            carries_secret(&image, false),
            "the text scan alone would refuse it"
        );
        assert_eq!(found(json!({"image": image})), None);
        assert_eq!(found(json!({"image": b58.clone()})), Some("image".into()));
        assert_eq!(
            found(json!({"description": format!("{b58} / {image}")})),
            Some("description".into())
        );
    }

    /// Random-input fuzzing of the request scan (`scripts/fuzz` runs these with many more cases).
    mod fuzz {
        use super::*;
        use proptest::collection::vec;
        use proptest::prelude::*;

        /// Text a request's fields carry: words, base58 and hex runs, separators and any character.
        fn field_text() -> impl Strategy<Value = String> {
            prop::string::string_regex(
                "([a-z]{1,8}|[1-9A-HJ-NP-Za-km-z]{20,90}|[0-9a-f]{60,66}|[ ,\\[\\]\"]|.){0,8}",
            )
            .expect("a valid pattern")
        }

        /// JSON values built from those texts, nested.
        fn json_value() -> impl Strategy<Value = serde_json::Value> {
            let leaf = prop_oneof![
                Just(serde_json::Value::Null),
                any::<bool>().prop_map(serde_json::Value::from),
                any::<i64>().prop_map(serde_json::Value::from),
                any::<u8>().prop_map(serde_json::Value::from),
                field_text().prop_map(serde_json::Value::from),
            ];
            leaf.prop_recursive(3, 32, 8, |inner| {
                prop_oneof![
                    vec(inner.clone(), 0..70).prop_map(serde_json::Value::from),
                    prop::collection::btree_map(field_text(), inner, 0..6)
                        .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
                ]
            })
        }

        proptest! {
            /// Any bytes: the scan never panics, and it reads a body as JSON exactly when serde_json does.
            #[test]
            fn fuzz_the_body_scan_agrees_with_json_on_any_bytes(body in vec(any::<u8>(), 0..600)) {
                let scanned = secret_material(&body);
                let parsed = serde_json::from_slice::<serde_json::Value>(&body);
                prop_assert_eq!(scanned.is_ok(), parsed.is_ok());
            }

            /// Any JSON document: the scan never panics, and a 64-byte base58 key placed anywhere in it is found.
            #[test]
            fn fuzz_a_key_anywhere_in_a_document_is_found(doc in json_value(), key in prop::array::uniform32(any::<u8>())) {
                let body = serde_json::to_vec(&doc).unwrap();
                prop_assert!(secret_material(&body).is_ok());
                let mut keypair = key.to_vec();
                keypair.extend(key);
                let planted = serde_json::json!({ "request": doc, "note": bs58::encode(keypair).into_string() });
                let found = secret_material(&serde_json::to_vec(&planted).unwrap()).unwrap();
                prop_assert!(found.is_some(), "missed in {}", planted);
            }

            /// Any path, query and header text: the scan outside the body never panics.
            #[test]
            fn fuzz_the_scan_outside_the_body_never_panics(path in field_text(), query in field_text(), header in field_text()) {
                let encoded = |t: &str| percent_encoding::utf8_percent_encode(t, percent_encoding::NON_ALPHANUMERIC).to_string();
                let uri: axum::http::Uri = format!("/swap/{}?q={}&{}", encoded(&path), encoded(&query), encoded(&header))
                    .parse()
                    .expect("percent-encoded text makes a URI");
                let mut headers = axum::http::HeaderMap::new();
                if let Ok(value) = axum::http::HeaderValue::from_str(&header) {
                    headers.insert("x-note", value);
                }
                let _ = secret_outside_body(&uri, &headers);
            }
        }
    }
}
