//! The seven supported chains and the addresses each one speaks: which chain a key names and how its
//! addresses are written. The EVM chains' token catalog and how each aggregator names a chain are the
//! aggregator's (the `aggregator` crate).

use alloy::primitives::Address;
use std::str::FromStr;
use web::error::{address, required, ApiError, ErrorCode};

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
}

/// How requests name an EVM chain's native token (KyberSwap's and 0x's convention).
pub const EVM_NATIVE: Address = Address::new([0xee; 20]);
/// The other common convention for the native token (LI.FI's and Relay's).
pub const EVM_NATIVE_ZERO: Address = Address::ZERO;

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
    }
}

pub fn chain(key: &str) -> Option<&'static ChainInfo> {
    CHAINS.iter().find(|c| c.key == key)
}

pub fn evm_chain(key: &str) -> Option<&'static ChainInfo> {
    chain(key).filter(|c| c.kind == ChainKind::Evm)
}

pub fn unsupported_chain(key: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnsupportedChain,
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
        ErrorCode::InvalidAddress,
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

/// Whether an EVM token address stands for the chain's native token.
pub fn is_evm_native(token: &Address) -> bool {
    *token == EVM_NATIVE || *token == EVM_NATIVE_ZERO
}

/// An address on a chain of `kind`.
pub fn address_of(kind: ChainKind) -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    match kind {
        ChainKind::Solana => web::schema::solana_address(),
        ChainKind::Evm => web::schema::evm_address(),
    }
}

/// A transaction hash on a chain of `kind` (a signature on Solana).
pub fn hash_of(kind: ChainKind) -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    match kind {
        ChainKind::Solana => web::schema::solana_signature(),
        ChainKind::Evm => web::schema::evm_hash(),
    }
}

/// The chain keys of `kind`.
pub fn chain_keys(kind: ChainKind) -> impl Iterator<Item = &'static str> {
    CHAINS.iter().filter(move |c| c.kind == kind).map(|c| c.key)
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
