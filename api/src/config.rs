//! The API's settings, from flags or the environment.

use std::net::SocketAddr;

#[derive(Debug, Clone, clap::Args)]
pub struct ApiConfig {
    /// Address to listen on.
    #[arg(long = "listen", env = "API_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The URL clients reach this API at (used in metadata URIs); defaults to `http://<listen>`.
    #[arg(long, env = "PUBLIC_BASE_URL")]
    pub public_base_url: Option<String>,
    /// Platform fee on swaps, basis points.
    #[arg(long, env = "PLATFORM_FEE_BPS", default_value_t = 0)]
    pub platform_fee_bps: u16,
    /// Sustained requests per second per client (by `X-Client-Id`, else by IP address).
    #[arg(long, env = "RATE_LIMIT_PER_SECOND", default_value_t = 20)]
    pub rate_limit_per_second: u32,
    /// Requests a client may send at once before the sustained rate applies.
    #[arg(long, env = "RATE_LIMIT_BURST", default_value_t = 40)]
    pub rate_limit_burst: u32,
    /// Jupiter's Swap API (v1) base URL; empty disables the Jupiter adapter.
    #[arg(
        long,
        env = "JUPITER_BASE_URL",
        default_value = "https://lite-api.jup.ag/swap/v1"
    )]
    pub jupiter_base_url: String,
    /// Largest request body, bytes.
    #[arg(long, env = "MAX_BODY_BYTES", default_value_t = 65_536)]
    pub max_body_bytes: usize,
}

impl ApiConfig {
    pub fn local(addr: SocketAddr) -> Self {
        ApiConfig {
            addr,
            public_base_url: None,
            platform_fee_bps: 0,
            rate_limit_per_second: 20,
            rate_limit_burst: 40,
            // A local stack cannot reach Jupiter; its own pools route everything launched on it.
            jupiter_base_url: String::new(),
            max_body_bytes: 65_536,
        }
    }

    pub fn base_url(&self) -> String {
        self.public_base_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.addr))
    }
}
