//! Who sent a request: the client's address behind trusted proxies, as the rate limits, the access line and
//! the feed's connection caps count it. Its own module so that the layers and the access record both read it
//! without importing each other.

use axum::extract::ConnectInfo;
use axum::http::{header, HeaderMap};
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

pub use crate::process::config::ForwardedHeader;

/// Who sent a request: the connection's peer address, unless that peer is a trusted proxy; then the
/// rightmost hop of the configured [`ForwardedHeader`] that is not itself a trusted proxy. Hops left of that
/// one were written by the client and are never read. A hop that cannot be parsed ends the walk at the
/// trusted hop before it (so garbage keys by the proxy, never by a name the client chose).
#[derive(Clone, Debug)]
pub struct ClientAddress {
    trusted: Arc<[IpNet]>,
    header: ForwardedHeader,
}

impl ClientAddress {
    pub fn new(trusted: &[IpNet], header: ForwardedHeader) -> Self {
        ClientAddress {
            trusted: trusted.into(),
            header,
        }
    }

    /// The rules of `config` (`--trusted-proxies`, `--forwarded-header`).
    pub fn of_config(config: &crate::process::config::ApiConfig) -> Self {
        Self::new(&config.trusted_proxies, config.forwarded_header)
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.trusted.iter().any(|net| net.contains(&ip))
    }

    /// The client's address; `None` without connection info (a server not started with
    /// `into_make_service_with_connect_info`).
    pub fn of(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Option<IpAddr> {
        let peer = peer?;
        if !self.trusts(peer) {
            return Some(peer);
        }
        let mut client = peer;
        for hop in forwarded_hops(headers, self.header).into_iter().rev() {
            match hop {
                Some(ip) => {
                    client = ip;
                    if !self.trusts(ip) {
                        break;
                    }
                }
                None => break,
            }
        }
        Some(client)
    }

    pub(crate) fn key<T>(&self, req: &axum::http::Request<T>) -> LimitKey {
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        LimitKey::Address(
            self.of(req.headers(), peer)
                .map(|ip| limit_address(ip.to_canonical())),
        )
    }
}

/// The client's address under the trusted-proxy rules of the rate limits (`None` when unknown), as a limit
/// counts it ([`limit_address`]): the one identity the rate limits, the relay's per-client cap and the
/// feed's connection caps all key on.
pub fn client_of(
    config: &crate::process::config::ApiConfig,
    headers: &HeaderMap,
    extensions: &axum::http::Extensions,
) -> Option<IpAddr> {
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    ClientAddress::of_config(config)
        .of(headers, peer)
        .map(|ip| limit_address(ip.to_canonical()))
}

/// The address a limit counts: an IPv6 client by its /64 (one host commonly holds a whole /64, and could
/// otherwise take 2^64 fresh keys), an IPv4 client by its address.
pub fn limit_address(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => IpAddr::V6(std::net::Ipv6Addr::from(
            u128::from(v6) & !(u128::from(u64::MAX)),
        )),
        v4 => v4,
    }
}

/// Whom a rate limit counts: a client by its `X-Client-Id`, or an address (`None`: a server without
/// connection info).
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub enum LimitKey {
    Id(String),
    Address(Option<IpAddr>),
}

/// The hops of the one configured header (`Forwarded`'s `for` parameters, or `X-Forwarded-For`), left to
/// right, every instance of the header in order; `None` for a hop that names no address (`unknown`, an
/// obfuscated node, garbage). A header value that is not text yields no hops at all.
fn forwarded_hops(headers: &HeaderMap, which: ForwardedHeader) -> Vec<Option<IpAddr>> {
    let values = |name| -> Option<Vec<&str>> {
        headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().ok())
            .collect()
    };
    let split = |values: Vec<&str>| -> Vec<String> {
        values
            .iter()
            .flat_map(|v| v.split(','))
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .collect()
    };
    match which {
        ForwardedHeader::Forwarded => split(values(header::FORWARDED).unwrap_or_default())
            .iter()
            .map(|stanza| {
                stanza
                    .parse::<forwarded_header_value::ForwardedStanza>()
                    .ok()
                    .and_then(|s| s.forwarded_for_ip())
            })
            .collect(),
        ForwardedHeader::XForwardedFor => {
            split(values(header::HeaderName::from_static("x-forwarded-for")).unwrap_or_default())
                .iter()
                .map(|hop| {
                    let hop = hop.trim_matches('"');
                    hop.parse::<IpAddr>()
                        .ok()
                        .or_else(|| hop.parse::<SocketAddr>().ok().map(|a| a.ip()))
                })
                .collect()
        }
    }
}
