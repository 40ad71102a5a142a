//! The seven supported chains and the addresses each one speaks: which chain a key names, how its
//! addresses are written, and how each aggregator names the chain and its native token.

use crate::error::{address, required, ApiError};
use alloy::primitives::Address;
use axum::http::StatusCode;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainKind {
    Evm,
    Solana,
}

impl ChainKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChainKind::Evm => "evm",
            ChainKind::Solana => "solana",
        }
    }
}

/// One supported chain.
#[derive(Debug, Clone, Copy)]
pub struct ChainInfo {
    pub key: &'static str,
    pub name: &'static str,
    pub kind: ChainKind,
    /// EVM chain id.
    pub chain_id: Option<u64>,
    pub native_symbol: &'static str,
    pub native_decimals: u8,
    pub explorer: &'static str,
    /// Used when no RPC URL is configured for the chain.
    pub public_rpc: &'static str,
    /// KyberSwap's path segment for the chain.
    pub kyberswap_slug: Option<&'static str>,
    /// LI.FI's chain id (Solana has its own large id there).
    pub lifi_chain_id: u64,
    /// Relay's chain id.
    pub relay_chain_id: u64,
}

/// How requests name an EVM chain's native token (KyberSwap's and 0x's convention).
pub const EVM_NATIVE: Address = Address::new([0xee; 20]);
/// The other common convention for the native token (LI.FI's and Relay's).
pub const EVM_NATIVE_ZERO: Address = Address::ZERO;
/// How Relay names SOL.
pub const RELAY_SOLANA_NATIVE: &str = "11111111111111111111111111111111";

pub const CHAINS: [ChainInfo; 7] = [
    evm(
        "ethereum",
        "Ethereum",
        1,
        "ETH",
        "https://etherscan.io",
        "https://ethereum-rpc.publicnode.com",
    ),
    evm(
        "bsc",
        "BNB Smart Chain",
        56,
        "BNB",
        "https://bscscan.com",
        "https://bsc-dataseed.bnbchain.org",
    ),
    evm(
        "base",
        "Base",
        8453,
        "ETH",
        "https://basescan.org",
        "https://mainnet.base.org",
    ),
    evm(
        "arbitrum",
        "Arbitrum One",
        42161,
        "ETH",
        "https://arbiscan.io",
        "https://arb1.arbitrum.io/rpc",
    ),
    evm(
        "optimism",
        "OP Mainnet",
        10,
        "ETH",
        "https://optimistic.etherscan.io",
        "https://mainnet.optimism.io",
    ),
    evm(
        "polygon",
        "Polygon PoS",
        137,
        "POL",
        "https://polygonscan.com",
        "https://polygon-rpc.com",
    ),
    ChainInfo {
        key: "solana",
        name: "Solana",
        kind: ChainKind::Solana,
        chain_id: None,
        native_symbol: "SOL",
        native_decimals: 9,
        explorer: "https://explorer.solana.com",
        public_rpc: "https://api.mainnet-beta.solana.com",
        kyberswap_slug: None,
        lifi_chain_id: 1_151_111_081_099_710,
        relay_chain_id: 792_703_809,
    },
];

const fn evm(
    key: &'static str,
    name: &'static str,
    chain_id: u64,
    native_symbol: &'static str,
    explorer: &'static str,
    public_rpc: &'static str,
) -> ChainInfo {
    ChainInfo {
        key,
        name,
        kind: ChainKind::Evm,
        chain_id: Some(chain_id),
        native_symbol,
        native_decimals: 18,
        explorer,
        public_rpc,
        // KyberSwap names these six chains by their keys here.
        kyberswap_slug: Some(key),
        lifi_chain_id: chain_id,
        relay_chain_id: chain_id,
    }
}

/// The EVM token catalog: `(chainKey, address, symbol, name, decimals)`, checked against Uniswap's and
/// LI.FI's token lists, the Superchain token list and the issuers' pages. Binance-Peg stablecoins on
/// `bsc` have 18 decimals. Each chain's native token is listed separately (address [`EVM_NATIVE`]).
pub const EVM_TOKENS: &[(&str, &str, &str, &str, u8)] = &[
    // ethereum (1)
    (
        "ethereum",
        "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
        "WETH",
        "Wrapped Ether",
        18,
    ),
    (
        "ethereum",
        "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        "USDC",
        "USD Coin",
        6,
    ),
    (
        "ethereum",
        "0xdAC17F958D2ee523a2206206994597C13D831ec7",
        "USDT",
        "Tether USD",
        6,
    ),
    (
        "ethereum",
        "0x6B175474E89094C44Da98b954EedeAC495271d0F",
        "DAI",
        "Dai Stablecoin",
        18,
    ),
    (
        "ethereum",
        "0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599",
        "WBTC",
        "Wrapped BTC",
        8,
    ),
    // bsc (56) — Binance-Peg stables are 18 decimals
    (
        "bsc",
        "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c",
        "WBNB",
        "Wrapped BNB",
        18,
    ),
    (
        "bsc",
        "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d",
        "USDC",
        "USD Coin",
        18,
    ),
    (
        "bsc",
        "0x55d398326f99059fF775485246999027B3197955",
        "USDT",
        "Tether USD",
        18,
    ),
    (
        "bsc",
        "0x1AF3F329e8BE154074D8769D1FFa4eE058B1DBc3",
        "DAI",
        "Dai Token",
        18,
    ),
    (
        "bsc",
        "0x7130d2A12B9BCbFAe4f2634d864A1Ee1Ce3Ead9c",
        "BTCB",
        "Binance BTC",
        18,
    ),
    // base (8453)
    (
        "base",
        "0x4200000000000000000000000000000000000006",
        "WETH",
        "Wrapped Ether",
        18,
    ),
    (
        "base",
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "USDC",
        "USD Coin",
        6,
    ),
    (
        "base",
        "0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2",
        "USDT",
        "Tether USD",
        6,
    ),
    (
        "base",
        "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb",
        "DAI",
        "Dai Stablecoin",
        18,
    ),
    // arbitrum (42161)
    (
        "arbitrum",
        "0x82aF49447D8a07e3bd95BD0d56f35241523fBab1",
        "WETH",
        "Wrapped Ether",
        18,
    ),
    (
        "arbitrum",
        "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
        "USDC",
        "USD Coin",
        6,
    ),
    (
        "arbitrum",
        "0xFF970A61A04b1cA14834A43f5dE4533eBDDB5CC8",
        "USDC.e",
        "Bridged USDC",
        6,
    ),
    (
        "arbitrum",
        "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9",
        "USDT",
        "Tether USD",
        6,
    ),
    (
        "arbitrum",
        "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1",
        "DAI",
        "Dai Stablecoin",
        18,
    ),
    (
        "arbitrum",
        "0x2f2a2543B76A4166549F7aaB2e75Bef0aefC5B0f",
        "WBTC",
        "Wrapped BTC",
        8,
    ),
    // optimism (10)
    (
        "optimism",
        "0x4200000000000000000000000000000000000006",
        "WETH",
        "Wrapped Ether",
        18,
    ),
    (
        "optimism",
        "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85",
        "USDC",
        "USD Coin",
        6,
    ),
    (
        "optimism",
        "0x7F5c764cBc14f9669B88837ca1490cCa17c31607",
        "USDC.e",
        "USD Coin (Bridged from Ethereum)",
        6,
    ),
    (
        "optimism",
        "0x94b008aA00579c1307B0EF2c499aD98a8ce58e58",
        "USDT",
        "Tether USD",
        6,
    ),
    (
        "optimism",
        "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1",
        "DAI",
        "Dai Stablecoin",
        18,
    ),
    (
        "optimism",
        "0x68f180fcCe6836688e9084f035309E29Bf0A2095",
        "WBTC",
        "Wrapped BTC",
        8,
    ),
    // polygon (137) — native is POL; wrapped contract is the old WMATIC one
    (
        "polygon",
        "0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270",
        "WPOL",
        "Wrapped POL",
        18,
    ),
    (
        "polygon",
        "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
        "USDC",
        "USD Coin",
        6,
    ),
    (
        "polygon",
        "0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174",
        "USDC.e",
        "Bridged USDC",
        6,
    ),
    (
        "polygon",
        "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
        "USDT",
        "Tether USD",
        6,
    ),
    (
        "polygon",
        "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063",
        "DAI",
        "Dai Stablecoin",
        18,
    ),
    (
        "polygon",
        "0x1BFD67037B42Cf73acF2047067bd4F2C47D9BfD6",
        "WBTC",
        "Wrapped BTC",
        8,
    ),
];

pub fn chain(key: &str) -> Option<&'static ChainInfo> {
    CHAINS.iter().find(|c| c.key == key)
}

/// The chain LI.FI names by `id`.
pub fn by_lifi_id(id: u64) -> Option<&'static ChainInfo> {
    CHAINS.iter().find(|c| c.lifi_chain_id == id)
}

/// The chain Relay names by `id`.
pub fn by_relay_id(id: u64) -> Option<&'static ChainInfo> {
    CHAINS.iter().find(|c| c.relay_chain_id == id)
}

pub fn evm_chain(key: &str) -> Option<&'static ChainInfo> {
    chain(key).filter(|c| c.kind == ChainKind::Evm)
}

pub fn unsupported_chain(key: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "UNSUPPORTED_CHAIN",
        format!("`{key}` is not a supported chain (see GET /swap/chains)"),
    )
}

/// The chain a required request field names.
pub fn required_chain(field: &str, key: Option<&str>) -> Result<&'static ChainInfo, ApiError> {
    let key = required(field, key)?;
    chain(key).ok_or_else(|| unsupported_chain(key))
}

fn invalid_address(field: &str, chain: &ChainInfo, why: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "INVALID_ADDRESS",
        format!("`{field}` is not a valid {} address{why}", chain.name),
    )
}

/// An EVM address from a request field: `0x` and 40 hex digits; a mixed-case one must carry a valid
/// EIP-55 checksum (all-lowercase and all-uppercase are accepted as written).
pub fn evm_address(
    field: &str,
    chain: &ChainInfo,
    value: Option<&str>,
) -> Result<Address, ApiError> {
    let value = required(field, value)?;
    let hex = value
        .strip_prefix("0x")
        .filter(|h| h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| invalid_address(field, chain, " (0x and 40 hex digits)"))?;
    let mixed =
        hex.bytes().any(|b| b.is_ascii_lowercase()) && hex.bytes().any(|b| b.is_ascii_uppercase());
    if mixed {
        return Address::parse_checksummed(value, None)
            .map_err(|_| invalid_address(field, chain, " (its EIP-55 checksum is wrong)"));
    }
    Address::from_str(value).map_err(|_| invalid_address(field, chain, ""))
}

/// An address on `chain`, checked in that chain's format and returned in its canonical spelling
/// (EIP-55 on EVM chains).
pub fn chain_address(
    field: &str,
    chain: &ChainInfo,
    value: Option<&str>,
) -> Result<String, ApiError> {
    Ok(match chain.kind {
        ChainKind::Evm => evm_address(field, chain, value)?.to_checksum(None),
        ChainKind::Solana => address(field, value)?.to_string(),
    })
}

/// The decimals of an EVM catalog token (the native token included); `None` for tokens not in the
/// catalog, whose amounts must be given in base units.
pub fn evm_catalog_decimals(chain: &ChainInfo, token: &Address) -> Option<u8> {
    if is_evm_native(token) {
        return Some(chain.native_decimals);
    }
    EVM_TOKENS
        .iter()
        .find(|(c, a, ..)| *c == chain.key && Address::from_str(a).ok().as_ref() == Some(token))
        .map(|(.., decimals)| *decimals)
}

/// Whether an EVM token address stands for the chain's native token.
pub fn is_evm_native(token: &Address) -> bool {
    *token == EVM_NATIVE || *token == EVM_NATIVE_ZERO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_chains_with_distinct_keys_and_ids() {
        let mut keys: Vec<_> = CHAINS.iter().map(|c| c.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 7);
        for key in [
            "ethereum", "bsc", "base", "solana", "arbitrum", "optimism", "polygon",
        ] {
            assert!(chain(key).is_some(), "{key}");
        }
        assert_eq!(evm_chain("base").unwrap().chain_id, Some(8453));
        assert!(evm_chain("solana").is_none());
    }

    #[test]
    fn the_token_catalog_is_checksummed_and_unique_per_chain() {
        let mut seen = std::collections::HashSet::new();
        for (chain_key, address, symbol, _, decimals) in EVM_TOKENS {
            let c = evm_chain(chain_key).unwrap_or_else(|| panic!("{chain_key}"));
            let a = evm_address("address", c, Some(address))
                .unwrap_or_else(|e| panic!("{address}: {e:?}"));
            assert_eq!(
                a.to_checksum(None),
                *address,
                "{symbol} is written in EIP-55 form"
            );
            assert!(seen.insert((chain_key, a)), "{symbol} on {chain_key} twice");
            assert_eq!(evm_catalog_decimals(c, &a), Some(*decimals));
        }
        for c in CHAINS.iter().filter(|c| c.kind == ChainKind::Evm) {
            assert!(
                EVM_TOKENS.iter().any(|t| t.0 == c.key),
                "{} has tokens",
                c.key
            );
            assert_eq!(evm_catalog_decimals(c, &EVM_NATIVE), Some(18));
        }
        let bsc = evm_chain("bsc").unwrap();
        let usdc = Address::from_str("0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d").unwrap();
        assert_eq!(
            evm_catalog_decimals(bsc, &usdc),
            Some(18),
            "Binance-Peg USDC"
        );
    }

    #[test]
    fn evm_addresses_checksum_when_mixed_case() {
        let c = evm_chain("ethereum").unwrap();
        let good = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
        assert!(evm_address("a", c, Some(good)).is_ok());
        assert!(evm_address("a", c, Some(&good.to_lowercase())).is_ok());
        let bad = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD";
        assert_eq!(
            evm_address("a", c, Some(bad)).unwrap_err().code,
            "INVALID_ADDRESS"
        );
        assert_eq!(
            evm_address("a", c, Some("0x12")).unwrap_err().code,
            "INVALID_ADDRESS"
        );
        assert_eq!(
            evm_address("a", c, None).unwrap_err().code,
            "MISSING_PARAMS"
        );
        let sol = chain("solana").unwrap();
        assert_eq!(
            chain_address("a", sol, Some(good)).unwrap_err().code,
            "INVALID_ADDRESS"
        );
        assert!(is_evm_native(&EVM_NATIVE) && is_evm_native(&Address::ZERO));
    }
}
