//! The schema of a quote request (`POST /swap/quote`, and the cross-chain quote's legs): one shape per
//! chain family, with the tokens whose decimals the service knows on its own.

use crate::chains::{self, ChainKind};
use crate::shapes::{self, max_amount, QuoteRequest, HUMAN, MAX_SLIPPAGE_BPS};
use utoipa::openapi::{OneOfBuilder, RefOr, Schema};
use utoipa::ToSchema;

/// [`QuoteRequest`]'s schema: it names every chain family's keys and tokens.
impl utoipa::PartialSchema for QuoteRequest {
    fn schema() -> RefOr<Schema> {
        quote_request_schema()
    }
}

impl ToSchema for QuoteRequest {}

/// [`QuoteRequest`]'s schema: one shape per chain family (its chain keys, address format and largest
/// amount), with the amount in base units (`amountIn`), or in whole tokens (`amount`, `amountUnit`
/// `human`) of a token whose decimals the service knows on its own (each EVM chain's catalog and native
/// token, SOL; the USDC and launches it indexes are accepted too).
pub fn quote_request_schema() -> RefOr<Schema> {
    use crate::chains::{address_of, chain_keys};
    use web::schema::{self, nullable, object, one_of, with_example};
    let mut variants = OneOfBuilder::new();
    for kind in [ChainKind::Solana, ChainKind::Evm] {
        let max = max_amount(kind);
        // Examples of two different tokens: SOL or the native token, and USDC.
        let (native, usdc) = match kind {
            ChainKind::Solana => (
                sdk::ids::NATIVE_MINT.to_string(),
                "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v".to_string(),
            ),
            ChainKind::Evm => (
                chains::EVM_NATIVE.to_string().to_lowercase(),
                "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48".to_string(),
            ),
        };
        let common = |keys: Vec<&str>, token_in: RefOr<Schema>| {
            vec![
                ("chainKey", one_of(keys).into(), true),
                ("tokenIn", token_in, true),
                ("tokenOut", with_example(address_of(kind), &usdc), true),
                (
                    "slippageBps",
                    nullable(
                        schema::integer(0, u64::from(MAX_SLIPPAGE_BPS))
                            .default(Some(shapes::DEFAULT_SLIPPAGE_BPS.into()))
                            .description(Some("Tolerance in basis points; default 50 (0.5%)")),
                    ),
                    false,
                ),
                ("taker", nullable(address_of(kind)), false),
            ]
        };
        let exact_in = || {
            (
                "swapMode",
                nullable(
                    one_of([shapes::SwapMode::EXACT_IN])
                        .description(Some("Default `ExactIn`: spend exactly the amount given")),
                ),
                false,
            )
        };
        let mut base_units = common(
            chain_keys(kind).collect(),
            with_example(address_of(kind), &native),
        );
        base_units.push(("amountIn", schema::amount(1, max).into(), true));
        base_units.push(exact_in());
        variants = variants.item(object(base_units));
        if kind == ChainKind::Solana {
            // Exactly `amountOut` of `tokenOut`, for at most the route's `maxAmountIn`.
            let mut exact_out = common(
                chain_keys(kind).collect(),
                with_example(address_of(kind), &native),
            );
            exact_out.push((
                "swapMode",
                one_of([shapes::SwapMode::EXACT_OUT]).into(),
                true,
            ));
            exact_out.push(("amountOut", schema::amount(1, max).into(), true));
            variants = variants.item(object(exact_out));
        }
        for (chain, tokens) in human_tokens(kind) {
            let decimals = tokens.iter().map(|(_, d)| *d).min().unwrap_or(0);
            let addresses: Vec<&str> = tokens.iter().map(|(a, _)| a.as_str()).collect();
            let mut human = common(vec![chain], one_of(addresses).into());
            human.push(("amount", schema::human_amount(decimals, max).into(), true));
            human.push(("amountUnit", one_of([HUMAN]).into(), true));
            human.push(exact_in());
            variants = variants.item(object(human));
        }
    }
    variants.into()
}

/// Per chain of `kind`, the tokens whose decimals the service knows without the index: (address, decimals).
fn human_tokens(kind: ChainKind) -> Vec<(&'static str, Vec<(String, u8)>)> {
    chains::CHAINS
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| {
            let tokens = match kind {
                ChainKind::Solana => vec![(sdk::ids::NATIVE_MINT.to_string(), c.native_decimals)],
                ChainKind::Evm => [chains::EVM_NATIVE, chains::EVM_NATIVE_ZERO]
                    .iter()
                    .map(|a| (a.to_checksum(None), c.native_decimals))
                    .chain(crate::tokens::catalog(c.key).map(|t| (t.1.to_string(), t.4)))
                    .collect(),
            };
            (c.key, tokens)
        })
        .collect()
}
