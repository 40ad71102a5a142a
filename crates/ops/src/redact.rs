//! No credential of ours leaves the process. Hosted RPC providers and aggregators take their key in the URL
//! (`?api-key=...`, a token as a path segment, `user:password@`), and an upstream client's error text
//! repeats the URL it called. Every error response (the API's `ApiError`) and every log line (the API's
//! and the indexer's) passes through [`redact`], which keeps a URL's scheme, host and port and replaces
//! whatever could carry a secret (user information, a query, a fragment, a token-like path) with `…`.
//!
//! An upstream may also repeat what it was sent without the URL's scheme (a path with its query, a header
//! with the key): the secrets the process was configured with are [`register`]ed at start (the values of its
//! secret and URL flags, and the parts of each URL that can carry one), and [`redact`] replaces each wherever
//! it appears.

use std::borrow::Cow;
use std::sync::RwLock;

/// The shortest value taken as a secret when registered (shorter ones would redact ordinary words).
pub const MIN_SECRET: usize = 6;

/// The configured secrets, longest first (so that a secret containing another is replaced whole).
static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Registers what `value` holds that is secret: `value` is a flag's value, a key, a URL, or a
/// comma-separated list of them (`chain=url` pairs included). Of a URL: its password (or a user name
/// without one, as some providers put the key there), the Basic authorization that user information
/// becomes, its query values, fragment and token-like path segments; anything else whole.
pub fn register(value: &str) {
    let mut found = Vec::new();
    for part in value.split(',').map(str::trim) {
        match part.find("://") {
            Some(i) => {
                // `chain=https://...`: the URL starts after the last `=` before its scheme.
                let start = part[..i].rfind('=').map_or(0, |j| j + 1);
                found.extend(secrets_of_url(&part[start..]));
            }
            None => found.push(part.to_string()),
        }
    }
    let mut secrets = SECRETS.write().unwrap_or_else(|e| e.into_inner());
    for f in found {
        if f.len() >= MIN_SECRET && !secrets.contains(&f) {
            secrets.push(f);
        }
    }
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

fn secrets_of_url(text: &str) -> Vec<String> {
    use base64::Engine as _;
    let Ok(url) = url::Url::parse(text) else {
        return vec![text.to_string()];
    };
    let mut out = Vec::new();
    let (user, password) = (url.username(), url.password());
    if !user.is_empty() || password.is_some() {
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        };
        let (user, password) = (decode(user), password.map(decode));
        let basic = format!("{user}:{}", password.clone().unwrap_or_default());
        out.push(base64::engine::general_purpose::STANDARD.encode(basic));
        match password {
            Some(p) => out.push(p),
            // `https://KEY@host`; a plain user name (`postgres://postgres@db`) is not one.
            None if key_like(&user) => out.push(user),
            None => {}
        }
    }
    // Query values and a fragment that read as keys (`?api-key=...`; not `?commitment=confirmed`).
    let mut values: Vec<String> = url.query_pairs().map(|(_, v)| v.into_owned()).collect();
    if let Some(q) = url.query() {
        values.extend(
            q.split('&')
                .filter_map(|kv| kv.split_once('=').map(|(_, v)| v.to_string())),
        );
    }
    values.extend(url.fragment().map(str::to_string));
    out.extend(values.into_iter().filter(|v| key_like(v)));
    out.extend(
        url.path_segments()
            .into_iter()
            .flatten()
            .filter(|s| token_like(s))
            .map(str::to_string),
    );
    out
}

/// `text` with every registered secret replaced by `…` (`None` when it holds none).
fn without_secrets(text: &str) -> Option<String> {
    let secrets = SECRETS.read().unwrap_or_else(|e| e.into_inner());
    let mut out: Option<String> = None;
    for secret in secrets.iter() {
        let current = out.as_deref().unwrap_or(text);
        if current.contains(secret.as_str()) {
            out = Some(current.replace(secret.as_str(), "…"));
        }
    }
    out
}

/// Characters that end a URL inside a sentence.
fn ends_url(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | '`' | '<' | '>' | '(' | ')' | '[' | ']' | '{' | '}' | ',' | ';'
        )
}

/// A path segment that may be a credential: long and made of token characters (QuickNode-style
/// `https://name.quiknode.pro/<token>/`).
fn token_like(segment: &str) -> bool {
    segment.len() >= 24
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A value that reads as a key rather than a word: letters and digits mixed, or long and made of token
/// characters.
fn key_like(value: &str) -> bool {
    let mixed = value.len() >= 8
        && value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic());
    mixed || token_like(value)
}

/// One URL, with what could carry a secret replaced by `…`.
fn redact_url(token: &str) -> String {
    match url::Url::parse(token) {
        Ok(url) => {
            let mut out = format!("{}://", url.scheme());
            if let Some(host) = url.host_str() {
                out.push_str(host);
            }
            if let Some(port) = url.port() {
                out.push_str(&format!(":{port}"));
            }
            let secret_path = url.path_segments().is_some_and(|mut s| s.any(token_like));
            let hidden = !url.username().is_empty()
                || url.password().is_some()
                || url.query().is_some()
                || url.fragment().is_some()
                || secret_path;
            if hidden {
                out.push_str("/…");
            } else {
                out.push_str(url.path().trim_end_matches('/'));
            }
            out
        }
        Err(_) => {
            let scheme = token.split("://").next().unwrap_or_default();
            format!("{scheme}://…")
        }
    }
}

/// `text` with every registered secret and every URL in it redacted (unchanged, and not copied, when it
/// holds neither).
pub fn redact(text: &str) -> Cow<'_, str> {
    match without_secrets(text) {
        Some(clean) => Cow::Owned(redact_urls(&clean).into_owned()),
        None => redact_urls(text),
    }
}

/// `text` with every URL in it redacted.
fn redact_urls(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        // The scheme: the letters, digits, `+`, `-` and `.` just before `://`.
        let scheme_start = rest[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .last()
            .map_or(at, |(i, _)| i);
        let end = rest[at + 3..]
            .find(ends_url)
            .map_or(rest.len(), |i| at + 3 + i);
        out.push_str(&rest[..scheme_start]);
        if scheme_start == at {
            // `://` with no scheme: not a URL.
            out.push_str(&rest[at..at + 3]);
            rest = &rest[at + 3..];
            continue;
        }
        out.push_str(&redact_url(&rest[scheme_start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// A writer that redacts what it writes (one log line per write, as the log's writer thread hands them).
pub struct Redacting<W>(pub W);

impl<W: std::io::Write> std::io::Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0.write_all(redact(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::{redact, register};

    #[test]
    fn registered_secrets_never_survive_wherever_they_appear() {
        register("http://user:Pa55word-x@127.0.0.1:9/kv/QuickNodeToken0123456789abcdef?api-key=K3yK3yK3y&commitment=confirmed");
        register("Z3roXkey99");
        register(
            "ethereum=https://eth.example/v2/AlchemyKey0123456789abcdef,base=http://127.0.0.1:1",
        );
        register("postgres://postgres@db/launchpad");
        // An upstream repeating what it was sent, without the URL's scheme.
        let echoed = "cannot serve GET /kv/QuickNodeToken0123456789abcdef?api-key=K3yK3yK3y; headers: \
                      0x-api-key: Z3roXkey99, authorization: Basic dXNlcjpQYTU1d29yZC14, pass Pa55word-x, \
                      /v2/AlchemyKey0123456789abcdef";
        let clean = redact(echoed);
        for secret in [
            "QuickNodeToken0123456789abcdef",
            "K3yK3yK3y",
            "Z3roXkey99",
            "dXNlcjpQYTU1d29yZC14",
            "Pa55word-x",
            "AlchemyKey0123456789abcdef",
        ] {
            assert!(!clean.contains(secret), "{secret} in {clean}");
        }
        // Words that only sat in a URL's query or user name are not secrets.
        assert_eq!(redact("confirmed by postgres"), "confirmed by postgres");
    }

    #[test]
    fn keys_in_urls_never_survive() {
        let cases = [
            (
                "error sending request for url (http://127.0.0.1:9/?api-key=SECRET)",
                "error sending request for url (http://127.0.0.1:9/…)",
            ),
            (
                "connecting to https://user:SECRET@db.internal:5432/launchpad failed",
                "connecting to https://db.internal:5432/… failed",
            ),
            (
                "https://name.quiknode.pro/0123456789abcdefSECRETabcdef0123/ refused",
                "https://name.quiknode.pro/… refused",
            ),
            (
                "postgres://launchpad:SECRET@10.0.0.5/launchpad",
                "postgres://10.0.0.5/…",
            ),
            (
                "API on http://127.0.0.1:8080",
                "API on http://127.0.0.1:8080",
            ),
            (
                "GET https://lite-api.jup.ag/swap/v1/quote#x",
                "GET https://lite-api.jup.ag/…",
            ),
            ("no url here", "no url here"),
            ("odd :// text", "odd :// text"),
        ];
        for (text, want) in cases {
            assert_eq!(redact(text), want, "{text}");
            assert!(!redact(text).contains("SECRET"));
        }
    }
}
