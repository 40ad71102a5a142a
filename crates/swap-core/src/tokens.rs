//! The EVM chains' token catalog: what `GET /swap/tokens` lists for each EVM chain (the native token aside),
//! the tokens an EVM quote may give in whole tokens, and their decimals.

use crate::chains::{is_evm_native, ChainInfo};
use alloy::primitives::Address;
use std::str::FromStr;

/// The EVM token catalog: `(chainKey, address, symbol, name, decimals)`, checked against Uniswap's and
/// LI.FI's token lists, the Superchain token list and the issuers' pages. Binance-Peg stablecoins on
/// `bsc` have 18 decimals. Each chain's native token is listed separately (address
/// [`crate::chains::EVM_NATIVE`]).
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

/// One token of the catalog: `(chainKey, address, symbol, name, decimals)`, the address in EIP-55 form.
pub type CatalogToken = (&'static str, &'static str, &'static str, &'static str, u8);

/// The token catalog of the EVM chain `chain_key`, its native token aside (none for other chains).
pub fn catalog(chain_key: &str) -> impl Iterator<Item = &'static CatalogToken> + '_ {
    EVM_TOKENS.iter().filter(move |t| t.0 == chain_key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chains::{evm_address, evm_chain, ChainKind, CHAINS, EVM_NATIVE};

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
}
