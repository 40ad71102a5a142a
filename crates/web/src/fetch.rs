//! Reading what a launch's URI points to, as a stranger wrote it: `http` or `https` only; never a private,
//! loopback, link-local or otherwise non-public address (names resolved and checked before connecting,
//! literal addresses and every redirect too) unless `--metadata-fetch-private` (a local stack, tests); at
//! most [`MAX_REDIRECTS`] redirects and none back to a URL already visited; a cap on each body (checked
//! while reading, not only from `Content-Length`); one timeout for the whole request, body included; no
//! proxy from the environment (a proxy would resolve names past the checks).

use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

/// Largest metadata JSON, bytes.
pub const MAX_JSON_BYTES: usize = 64 * 1024;
/// Redirects followed at most.
pub const MAX_REDIRECTS: usize = 3;

/// Why a URI was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// Not `http` or `https` (e.g. `ipfs://`, `ar://`, a relative path).
    Scheme(String),
    /// A private, loopback, link-local or otherwise non-public address (or a name resolving only to such).
    Address(String),
    /// More than [`MAX_REDIRECTS`] redirects, or one back to a URL already visited.
    Redirects(String),
    /// The body is larger than the cap.
    TooLarge(usize),
    /// A status other than 2xx.
    Status(u16),
    /// The whole request took longer than the timeout.
    Timeout,
    /// The body is not a JSON object.
    NotJson(String),
    /// The image is not one the launch form would take.
    Image(String),
    /// Connecting, TLS, resolving, reading.
    Http(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Scheme(s) => write!(f, "{s}: not read (http or https URLs only)"),
            FetchError::Address(h) => write!(f, "{h} is not a public address"),
            FetchError::Redirects(why) => write!(f, "redirects: {why}"),
            FetchError::TooLarge(cap) => write!(f, "the body is larger than {cap} bytes"),
            FetchError::Status(s) => write!(f, "answered HTTP {s}"),
            FetchError::Timeout => write!(f, "timed out"),
            FetchError::NotJson(e) => write!(f, "not a JSON object: {e}"),
            FetchError::Image(e) => write!(f, "image: {e}"),
            FetchError::Http(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FetchError {}

impl FetchError {
    /// Whether trying again cannot help: the URI, its address or what it serves is refused as it is. A
    /// timeout, a status (a 404 may be a file not uploaded yet) or a connection failure may pass.
    pub fn permanent(&self) -> bool {
        !matches!(
            self,
            FetchError::Timeout | FetchError::Status(_) | FetchError::Http(_)
        )
    }
}

/// The networks that are not the public internet (RFC 6890 and its successors): never connected to.
static NON_PUBLIC: LazyLock<Vec<IpNet>> = LazyLock::new(|| {
    [
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128",
        "::1/128",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "fc00::/7",
        "fe80::/10",
        "ff00::/8",
    ]
    .iter()
    .map(|n| n.parse().expect("a network"))
    .collect()
});

/// Whether `ip` is on the public internet (an IPv4-mapped or NAT64 IPv6 address by the IPv4 address in it).
pub fn is_public(ip: IpAddr) -> bool {
    let ip = match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None if v6.segments()[..6] == [0x64, 0xff9b, 0, 0, 0, 0] => {
                let [.., a, b] = v6.segments();
                IpAddr::V4(std::net::Ipv4Addr::from(
                    (u32::from(a) << 16) | u32::from(b),
                ))
            }
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    };
    !NON_PUBLIC.iter().any(|n| n.contains(&ip))
}

/// Whether `url` may be requested: `http` or `https`, no credentials, and a literal address only if public
/// (names are checked when resolved).
pub fn check_url(url: &reqwest::Url, allow_private: bool) -> Result<(), FetchError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(FetchError::Scheme(url.scheme().to_string()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(FetchError::Scheme("a URL with credentials".into()));
    }
    let Some(host) = url.host_str() else {
        return Err(FetchError::Scheme("a URL without a host".into()));
    };
    // An IPv6 literal is written in brackets.
    let literal = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .ok();
    match literal {
        Some(ip) if !allow_private && !is_public(ip) => Err(FetchError::Address(ip.to_string())),
        _ => Ok(()),
    }
}

/// Resolves names to their public addresses only (all of them, with `allow_private`).
struct PublicResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for PublicResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            type BoxError = Box<dyn std::error::Error + Send + Sync>;
            let host = name.as_str().to_string();
            let found: Vec<SocketAddr> = match tokio::net::lookup_host((host.as_str(), 0)).await {
                Ok(addrs) => addrs
                    .filter(|a| allow_private || is_public(a.ip()))
                    .collect(),
                Err(e) => return Err(Box::new(e) as BoxError),
            };
            if found.is_empty() {
                return Err(Box::new(FetchError::Address(host)) as BoxError);
            }
            let addrs: reqwest::dns::Addrs = Box::new(found.into_iter());
            Ok(addrs)
        })
    }
}

/// A client for strangers' URIs (cheap to clone).
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    allow_private: bool,
}

impl Fetcher {
    /// `timeout`: the longest one request may take, body included. `allow_private`: connect to any address
    /// (a local stack and tests only).
    pub fn new(timeout: Duration, allow_private: bool) -> Result<Self, FetchError> {
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().contains(attempt.url()) {
                let why = format!("a loop back to {}", attempt.url());
                return attempt.error(FetchError::Redirects(why));
            }
            if attempt.previous().len() > MAX_REDIRECTS {
                let why = format!("more than {MAX_REDIRECTS}");
                return attempt.error(FetchError::Redirects(why));
            }
            match check_url(attempt.url(), allow_private) {
                Ok(()) => attempt.follow(),
                Err(e) => attempt.error(e),
            }
        });
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(policy)
            .no_proxy()
            .dns_resolver(Arc::new(PublicResolver { allow_private }))
            .user_agent(concat!("launchpad-metadata/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| FetchError::Http(e.to_string()))?;
        Ok(Fetcher {
            client,
            allow_private,
        })
    }

    /// The body at `url`, at most `cap` bytes.
    pub async fn get(&self, url: &str, cap: usize) -> Result<Vec<u8>, FetchError> {
        let url = reqwest::Url::parse(url)
            .map_err(|_| FetchError::Scheme("not an absolute URL".into()))?;
        check_url(&url, self.allow_private)?;
        let mut response = self.client.get(url).send().await.map_err(of_reqwest)?;
        // A redirect left unfollowed: its location is no http or https URL (`file:`, `javascript:`, none).
        if response.status().is_redirection() {
            return Err(FetchError::Redirects(
                "to a location that is no http or https URL".into(),
            ));
        }
        if !response.status().is_success() {
            return Err(FetchError::Status(response.status().as_u16()));
        }
        if response.content_length().is_some_and(|n| n > cap as u64) {
            return Err(FetchError::TooLarge(cap));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(of_reqwest)? {
            if body.len() + chunk.len() > cap {
                return Err(FetchError::TooLarge(cap));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

/// A reqwest error as a [`FetchError`]: ours when a redirect check or the resolver raised it.
fn of_reqwest(e: reqwest::Error) -> FetchError {
    if e.is_timeout() {
        return FetchError::Timeout;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(s) = source {
        if let Some(ours) = s.downcast_ref::<FetchError>() {
            return ours.clone();
        }
        source = s.source();
    }
    // reqwest's own words name the URL; the cause after them says what failed.
    let mut words = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        words = format!("{words}: {s}");
        source = s.source();
    }
    FetchError::Http(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn urls_http_or_https_to_public_literals() {
        let check = |u: &str, private| check_url(&reqwest::Url::parse(u).unwrap(), private);
        assert_eq!(check("https://example.org/a.json", false), Ok(()));
        assert_eq!(check("http://8.8.8.8/a.json", false), Ok(()));
        assert_eq!(
            check("ipfs://bafy/a.json", false),
            Err(FetchError::Scheme("ipfs".into()))
        );
        assert_eq!(
            check("file:///etc/passwd", false),
            Err(FetchError::Scheme("file".into()))
        );
        assert_eq!(
            check("http://127.0.0.1:8080/a", false),
            Err(FetchError::Address("127.0.0.1".into()))
        );
        assert_eq!(
            check("http://[::1]/a", false),
            Err(FetchError::Address("::1".into()))
        );
        assert_eq!(
            check("http://169.254.169.254/latest/meta-data", false),
            Err(FetchError::Address("169.254.169.254".into()))
        );
        assert_eq!(check("http://127.0.0.1:8080/a", true), Ok(()));
        assert!(check("https://user:pw@example.org/a", false).is_err());
    }
}
