//! The aggregator's settings, from flags or the environment (flattened into the API's own).

/// The EVM chains' RPC endpoints, the aggregators' endpoints and keys, and the cross-chain timers.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// An EVM chain's JSON-RPC URL, `chainKey=url`, repeatable (or comma-separated in the environment).
    /// Chains not given use their public RPC endpoint (see `GET /swap/chains`).
    #[arg(long = "evm-rpc", env = "EVM_RPC_URLS", value_delimiter = ',', value_parser = parse_chain_url, hide_env_values = true)]
    pub evm_rpc: Vec<(String, String)>,
    /// KyberSwap Aggregator API base URL (keyless; the default EVM source); empty disables it.
    #[arg(
        long,
        env = "KYBERSWAP_BASE_URL",
        default_value = "https://aggregator-api.kyberswap.com"
    )]
    pub kyberswap_base_url: String,
    /// Sent to KyberSwap as `x-client-id` (raises its keyless rate limit).
    #[arg(long, env = "KYBERSWAP_CLIENT_ID", default_value = "launchpad-api")]
    pub kyberswap_client_id: String,
    /// 0x Swap API (v2) base URL; used only when `ZEROX_API_KEY` is set.
    #[arg(long, env = "ZEROX_BASE_URL", default_value = "https://api.0x.org")]
    pub zerox_base_url: String,
    /// 0x API key: enables the 0x adapter. Never logged.
    #[arg(long, env = "ZEROX_API_KEY", hide_env_values = true)]
    pub zerox_api_key: Option<String>,
    /// Wallet that receives the platform fee on EVM swaps; without it EVM routes carry no platform fee.
    #[arg(long, env = "EVM_FEE_RECIPIENT")]
    pub evm_fee_recipient: Option<String>,
    /// LI.FI API base URL (the cross-chain source); empty disables it.
    #[arg(long, env = "LIFI_BASE_URL", default_value = "https://li.quest")]
    pub lifi_base_url: String,
    /// Sent to LI.FI as `integrator`.
    #[arg(long, env = "LIFI_INTEGRATOR", default_value = "launchpad-api")]
    pub lifi_integrator: String,
    /// Relay API base URL (the cross-chain fallback); empty disables it.
    #[arg(long, env = "RELAY_BASE_URL", default_value = "https://api.relay.link")]
    pub relay_base_url: String,
    /// A cross-chain transfer still pending this long after its origin transaction is reported `delayed`.
    #[arg(long, env = "CROSS_CHAIN_DELAY_SECS", default_value_t = 900)]
    pub cross_chain_delay_secs: i64,
    /// A cross-chain transfer its bridge never recognized (still waiting on the origin transaction) this long
    /// after it was reported becomes `failed` (`EXPIRED`), and its wallet may bridge again.
    #[arg(long, env = "CROSS_CHAIN_EXPIRY_SECS", default_value_t = 3_600)]
    pub cross_chain_expiry_secs: i64,
}

impl Config {
    /// A local stack's: no outside aggregator (it cannot reach them), public EVM endpoints.
    pub fn local() -> Config {
        Config {
            evm_rpc: vec![],
            kyberswap_base_url: String::new(),
            kyberswap_client_id: "launchpad-api".into(),
            zerox_base_url: String::new(),
            zerox_api_key: None,
            evm_fee_recipient: None,
            lifi_base_url: String::new(),
            lifi_integrator: "launchpad-api".into(),
            relay_base_url: String::new(),
            cross_chain_delay_secs: 900,
            cross_chain_expiry_secs: 3_600,
        }
    }

    /// The JSON-RPC URL of EVM chain `chain`: configured, else the chain's public endpoint.
    pub fn evm_rpc_url(&self, chain: &swap_core::chains::ChainInfo) -> String {
        self.evm_rpc
            .iter()
            .rev()
            .find(|(k, _)| k == chain.key)
            .map_or_else(|| chain.public_rpc.to_string(), |(_, url)| url.clone())
    }
}

fn parse_chain_url(s: &str) -> Result<(String, String), String> {
    let (chain, url) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected chainKey=url"))?;
    if swap_core::chains::evm_chain(chain).is_none() {
        return Err(format!("`{chain}` is not an EVM chain key"));
    }
    reqwest::Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
    Ok((chain.to_string(), url.to_string()))
}
