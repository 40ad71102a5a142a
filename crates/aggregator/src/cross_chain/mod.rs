//! Cross-chain swaps: `POST /swap/cross-chain/quote`, `POST /swap/cross-chain/build` and
//! `GET /swap/cross-chain/status/{quoteId}`. LI.FI is the source, Relay the fallback; every transfer is
//! reported in the one state machine of [`crate::transfers`].

pub mod build;
pub mod quote;
pub mod status;

use crate::aggregators::relay;
use crate::Aggregator;
use serde::{Deserialize, Serialize};
use swap_core::chains::{self, ChainInfo, ChainKind};
use swap_core::shapes;
use utoipa::openapi::{OneOfBuilder, RefOr, Schema};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};
use web::error::{ApiError, ErrorCode};

/// A cross-chain quote request. Its schema: one shape per origin and destination family, every origin
/// paired with each other chain.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossChainRequest {
    pub from_chain_key: Option<String>,
    /// Must differ from `fromChainKey`.
    pub to_chain_key: Option<String>,
    /// Token address on the origin chain (the native token: see `GET /swap/chains`).
    pub token_in: Option<String>,
    /// Token address on the destination chain.
    pub token_out: Option<String>,
    /// Base units of `tokenIn`.
    pub amount_in: Option<String>,
    /// The wallet that signs on the origin chain.
    pub taker: Option<String>,
    /// The wallet that receives on the destination chain, in that chain's format. Required when the
    /// transfer crosses between Solana and an EVM chain; defaults to `taker` otherwise.
    pub recipient: Option<String>,
    /// Default 50 (0.5%); at most 5000.
    #[serde(default, deserialize_with = "web::body::opt_u16")]
    pub slippage_bps: Option<u16>,
}

impl utoipa::PartialSchema for CrossChainRequest {
    fn schema() -> RefOr<Schema> {
        use swap_core::chains::address_of;
        use web::schema::{self, nullable, object, one_of};
        let mut variants = OneOfBuilder::new();
        // An origin family to a destination family; from EVM to EVM, each origin to the other chains.
        let mut pairs: Vec<(Vec<&str>, ChainKind, Vec<&str>, ChainKind)> = vec![];
        for from in [ChainKind::Solana, ChainKind::Evm] {
            for to in [ChainKind::Solana, ChainKind::Evm] {
                let keys = |k| swap_core::chains::chain_keys(k).collect::<Vec<_>>();
                if from != to {
                    pairs.push((keys(from), from, keys(to), to));
                } else {
                    for origin in keys(from) {
                        let others: Vec<&str> =
                            keys(to).into_iter().filter(|k| *k != origin).collect();
                        if !others.is_empty() {
                            pairs.push((vec![origin], from, others, to));
                        }
                    }
                }
            }
        }
        for (from_keys, from, to_keys, to) in pairs {
            variants = variants.item(object(vec![
                ("fromChainKey", one_of(from_keys).into(), true),
                ("toChainKey", one_of(to_keys).into(), true),
                ("tokenIn", address_of(from), true),
                ("tokenOut", address_of(to), true),
                ("amountIn", schema::amount(1, u128::MAX).into(), true),
                ("taker", address_of(from), true),
                // Required across families: the taker cannot receive there.
                (
                    "recipient",
                    if from == to {
                        nullable(address_of(to))
                    } else {
                        address_of(to)
                    },
                    from != to,
                ),
                (
                    "slippageBps",
                    nullable(schema::integer(0, u64::from(shapes::MAX_SLIPPAGE_BPS))),
                    false,
                ),
            ]));
        }
        variants.into()
    }
}

impl ToSchema for CrossChainRequest {}

/// A checked request, addresses in their chains' canonical spelling.
pub struct Validated {
    pub from: &'static ChainInfo,
    pub to: &'static ChainInfo,
    pub token_in: String,
    pub token_out: String,
    pub amount_in: u128,
    pub taker: String,
    pub recipient: String,
    pub slippage_bps: u16,
}

impl Validated {
    /// The origin is an EVM chain and `tokenIn` an ERC-20 (it needs an approval).
    pub fn origin_erc20(&self) -> bool {
        self.from.kind == ChainKind::Evm
            && self
                .token_in
                .parse()
                .is_ok_and(|a| !chains::is_evm_native(&a))
    }
}

pub fn validate(req: &CrossChainRequest) -> Result<Validated, ApiError> {
    let from = chains::required_chain("fromChainKey", req.from_chain_key.as_deref())?;
    let to = chains::required_chain("toChainKey", req.to_chain_key.as_deref())?;
    if from.key == to.key {
        return Err(ApiError::new(
            ErrorCode::SameChain,
            "`fromChainKey` equals `toChainKey`: use POST /swap/quote for a same-chain swap",
        ));
    }
    let token_in = chains::chain_address("tokenIn", from, req.token_in.as_deref())?;
    let token_out = chains::chain_address("tokenOut", to, req.token_out.as_deref())?;
    let amount_in = req
        .amount_in
        .as_deref()
        .ok_or_else(|| ApiError::missing("amountIn"))?
        .trim()
        .parse::<u128>()
        .ok()
        .filter(|a| *a > 0)
        .ok_or_else(|| ApiError::invalid("`amountIn` must be a positive integer in base units"))?;
    let taker = chains::chain_address("taker", from, req.taker.as_deref())?;
    let recipient = match (req.recipient.as_deref(), from.kind == to.kind) {
        (Some(r), _) => chains::chain_address("recipient", to, Some(r))?,
        (None, true) => taker.clone(),
        (None, false) => {
            return Err(ApiError::new(ErrorCode::MissingParams,
                format!(
                    "`recipient` is required: the transfer crosses from {} to {}, and `taker` cannot receive \
                     there (give a {} address)",
                    from.name, to.name, to.name
                ),
            ))
        }
    };
    let slippage_bps = shapes::slippage(req.slippage_bps)?;
    Ok(Validated {
        from,
        to,
        token_in,
        token_out,
        amount_in,
        taker,
        recipient,
        slippage_bps,
    })
}

/// How LI.FI and Relay name a token: the zero address for an EVM native token, the system program's
/// address for SOL.
pub fn provider_token(chain: &ChainInfo, token: &str) -> String {
    match chain.kind {
        ChainKind::Evm if token.parse().is_ok_and(|a| chains::is_evm_native(&a)) => {
            chains::EVM_NATIVE_ZERO.to_checksum(None)
        }
        ChainKind::Solana if token == sdk::ids::NATIVE_MINT.to_string() => {
            relay::SOLANA_NATIVE.to_string()
        }
        _ => token.to_string(),
    }
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Aggregator: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(quote::quote))
        .routes(routes!(build::build))
        .routes(routes!(status::status))
}
