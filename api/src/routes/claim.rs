//! `POST /launchpad/claim`: an unsigned transaction that pays a creator's, the partner's or a fee-share
//! recipient's fees, to the claiming wallet or to another (`recipient`).

use crate::body::ApiJson;
use crate::error::{address, ApiError, ErrorCode};
use crate::json::Json;
use crate::state::AppState;
use anchor_lang::prelude::Pubkey;
use anchor_lang::solana_program::instruction::Instruction;
use axum::extract::State;
use sdk::launchpad_ix::{self as lix, LaunchKeys};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimRequest {
    /// The claiming wallet (it signs): the launch's creator, the partner, or (kind `share`) a recipient of
    /// the launch's shared creator fees.
    #[schema(schema_with = crate::schema::solana_address)]
    pub creator: String,
    /// The launchpad pool.
    #[schema(schema_with = crate::schema::solana_address)]
    pub pool: String,
    /// `trading`, `surplus`, `locked-lp` or `share`.
    #[schema(schema_with = kind_schema)]
    pub kind: String,
    /// Optional: the wallet paid (its associated token accounts, created if needed at the claimer's
    /// expense); default the claiming wallet. A claim in SOL to another wallet arrives as wrapped SOL.
    #[schema(schema_with = crate::schema::solana_address)]
    pub recipient: Option<String>,
}

/// What a claim can take.
pub const CLAIM_KINDS: [&str; 4] = ["trading", "surplus", "locked-lp", "share"];

fn kind_schema() -> utoipa::openapi::Object {
    crate::schema::one_of(CLAIM_KINDS).build()
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimResponse {
    /// Base64 of an unsigned v0 transaction for the wallet to sign and post to `/swap/submit-solana`.
    pub solana_transaction: String,
    pub kind: String,
    /// `creator`, `partner` or `recipient` (a fee-share recipient).
    pub role: String,
    pub pool: String,
    /// The wallet paid.
    #[schema(schema_with = crate::schema::solana_address)]
    pub paid_to: String,
    /// What the claim pays as of the index's latest state, base units.
    pub quote_amount: String,
    pub base_amount: String,
    #[serde(flatten)]
    pub lifetime: crate::solana::Lifetime,
}

#[utoipa::path(
    post,
    path = "/launchpad/claim",
    request_body = ClaimRequest,
    responses(
        (status = 200, body = ClaimResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS, INVALID_KIND"),
        (status = 403, body = crate::error::ErrorBody, description = "NOT_ENTITLED: the wallet is neither the creator nor the partner (nor, for `share`, a recipient); FEES_SHARED: the creator's fees of this pool are shared, its recipients claim them with `share`"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: unknown pool"),
        (status = 409, body = crate::error::ErrorBody, description = "NOTHING_TO_CLAIM"),
        (status = 422, body = crate::error::ErrorBody, description = "SIMULATION_FAILED: the claim would fail"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn claim(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<ClaimRequest>,
) -> Result<Json<ClaimResponse>, ApiError> {
    Ok(Json(build_claim(&state, &req).await?))
}

/// The claim `req` asks for: who the wallet is to the pool, what it is owed, and the transaction paying it.
pub async fn build_claim(state: &AppState, req: &ClaimRequest) -> Result<ClaimResponse, ApiError> {
    let wallet = address("creator", Some(&req.creator))?;
    let pool = address("pool", Some(&req.pool))?;
    let Some(kind) = CLAIM_KINDS.into_iter().find(|k| *k == req.kind) else {
        return Err(ApiError::new(
            ErrorCode::InvalidKind,
            "`kind` must be `trading`, `surplus`, `locked-lp` or `share`",
        ));
    };
    let paid_to = match req.recipient.as_deref() {
        Some(r) => address("recipient", Some(r))?,
        None => wallet,
    };
    let curve = state
        .store
        .curve_by_pool(&pool)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no launchpad pool {pool}")))?;
    let owed = owed(state, &curve, &pool, &wallet, kind).await?;
    let keys = LaunchKeys::new(
        curve.pool.creator,
        curve.pool.config,
        curve.pool.quote_mint,
        curve.pool.base_mint,
    );
    // The creator position's uncollected AMM fees are collected into the pool before a share is paid.
    let collect_lp_first = kind == "share"
        && state
            .store
            .unclaimed_lp_of_shared(&curve.pool, &pool)
            .await?;
    let payee = Payee { wallet, paid_to };
    let ixs = instructions(&keys, kind, owed.role, payee, collect_lp_first);
    let built =
        crate::solana::unsigned_transaction(&state.rpc, &wallet, &ixs, state.fee_policy(None))
            .await?;
    Ok(ClaimResponse {
        solana_transaction: built.transaction,
        lifetime: built.lifetime,
        kind: kind.into(),
        role: owed.role.into(),
        pool: pool.to_string(),
        paid_to: paid_to.to_string(),
        quote_amount: owed.quote_amount.to_string(),
        base_amount: owed.base_amount.to_string(),
    })
}

/// What `wallet` is owed of `kind` from the pool: `NOT_ENTITLED` when it holds no role that may claim it,
/// `FEES_SHARED` for the creator's own claim of shared fees, `NOTHING_TO_CLAIM` when nothing is owed.
async fn owed(
    state: &AppState,
    curve: &index::read::CurveState,
    pool: &Pubkey,
    wallet: &Pubkey,
    kind: &str,
) -> Result<index::read::Unclaimed, ApiError> {
    let partner = curve.config.partner;
    if kind != "share" && *wallet != curve.pool.creator && *wallet != partner {
        return Err(ApiError::new(
            ErrorCode::NotEntitled,
            "only the launch's creator or the partner can claim from this pool",
        ));
    }
    let unclaimed = state.store.unclaimed(wallet).await?;
    if let Some(o) = unclaimed
        .into_iter()
        .find(|u| u.pool == pool.to_string() && u.kind == kind)
    {
        return Ok(o);
    }
    let recipient = kind == "share"
        && state
            .store
            .fee_shares(pool)
            .await?
            .is_some_and(|s| s.slots.iter().any(|r| r.wallet == *wallet));
    Err(if kind == "share" && !recipient {
        ApiError::new(
            ErrorCode::NotEntitled,
            "the wallet is no recipient of this launch's shared creator fees",
        )
    } else if curve.pool.fee_shared
        && *wallet == curve.pool.creator
        && *wallet != partner
        && kind != "surplus"
    {
        ApiError::new(
            ErrorCode::FeesShared,
            "this launch's creator fees are shared: its recipients claim them with kind `share`",
        )
    } else {
        ApiError::new(
            ErrorCode::NothingToClaim,
            format!("{wallet} has no {kind} fees to claim from this pool"),
        )
    })
}

/// Who signs a claim and who is paid.
#[derive(Debug, Clone, Copy)]
struct Payee {
    wallet: Pubkey,
    paid_to: Pubkey,
}

/// The instructions of a claim of `kind` (by `role`, for `locked-lp`): the payee's accounts made, the
/// claim, and SOL unwrapped when the claimer is paid in SOL.
fn instructions(
    keys: &LaunchKeys,
    kind: &str,
    role: &str,
    Payee { wallet, paid_to }: Payee,
    collect_lp_first: bool,
) -> Vec<Instruction> {
    let quote_account =
        sdk::associated_token_address(&paid_to, &keys.quote_mint, &keys.quote_token_program);
    let quote_ata = lix::create_ata_idempotent(
        &wallet,
        &paid_to,
        &keys.quote_mint,
        &keys.quote_token_program,
    );
    let mut ixs = match kind {
        "share" => {
            let base_account =
                sdk::associated_token_address(&paid_to, &keys.mint, &sdk::ids::TOKEN_2022_PROGRAM);
            let mut ixs = vec![
                quote_ata,
                lix::create_ata_idempotent(
                    &wallet,
                    &paid_to,
                    &keys.mint,
                    &sdk::ids::TOKEN_2022_PROGRAM,
                ),
            ];
            if collect_lp_first {
                ixs.push(lix::share_locked_lp_fee(keys, &wallet));
            }
            ixs.push(lix::claim_fee_share(
                keys,
                &wallet,
                &quote_account,
                Some(base_account),
            ));
            ixs
        }
        "trading" => vec![
            quote_ata,
            lix::claim_trading_fee(keys, &wallet, &quote_account),
        ],
        "surplus" => vec![quote_ata, lix::claim_surplus(keys, &wallet, &quote_account)],
        _ => {
            let amm = keys.amm_keys();
            let position = if role == "creator" {
                keys.creator_position()
            } else {
                keys.partner_position()
            };
            let (to_a, to_b) = amm.owner_accounts(&paid_to);
            vec![
                lix::create_ata_idempotent(&wallet, &paid_to, &amm.mint_a, &amm.token_program_a),
                lix::create_ata_idempotent(&wallet, &paid_to, &amm.mint_b, &amm.token_program_b),
                lix::claim_locked_lp_fee_to(keys, &wallet, &position, &to_a, &to_b),
            ]
        }
    };
    if keys.quote_mint == sdk::ids::NATIVE_MINT && paid_to == wallet {
        // Paid in SOL: the claim arrives as SOL, not in a wrapped-SOL account the wallet pays rent for.
        ixs.push(lix::unwrap_sol(&wallet));
    }
    ixs
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(claim))
}
