//! No credential of ours leaves the process. Hosted RPC providers and aggregators take their key in the URL
//! (`?api-key=...`, a token as a path segment, `user:password@`), and an upstream client's error text
//! repeats the URL it called. Every error response (the API's `ApiError`) and every log line (the API's
//! and the indexer's) passes through [`redact`], which keeps a URL's scheme, host and port and replaces
//! whatever could carry a secret (user information, a query, a fragment, a token-like path) with `…`.

use std::borrow::Cow;

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

/// `text` with every URL in it redacted (unchanged, and not copied, when it holds none).
pub fn redact(text: &str) -> Cow<'_, str> {
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
    use super::redact;

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
