//! `POST /launchpad/prepare`: the unsigned launch transaction (the launch, fee shares, the first buy) for
//! the creator to sign, and the prepared launch kept until it is recorded, within the pending limits per
//! creator and per client address; the sweeper of prepared launches that never landed, on its own timer.

use super::request::{Launch, LaunchRequest, FIRST_BUY_SLIPPAGE_BPS};
use crate::body::ApiJson;
use crate::error::{ApiError, ErrorCode};
use crate::json::Json;
use crate::state::AppState;
use anchor_lang::prelude::Pubkey;
use anchor_lang::solana_program::instruction::Instruction;
use axum::extract::State;
use curve::QuoteAsset;
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs, LaunchKeys, SwapArgs, SIDE_BUY};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrepareResponse {
    /// Base64 of an unsigned v0 transaction: the creator signs it and posts it to `/swap/submit-solana`.
    pub solana_transaction: String,
    pub mint: String,
    pub pool: String,
    pub config: String,
    pub quote_mint: String,
    /// Where the token's metadata JSON is served (send it back at record).
    #[serde(rename = "metadataURI")]
    pub metadata_uri: String,
    /// The mint's salt (`["mint", creator, salt]`).
    pub salt: String,
    /// Least tokens the first buy accepts (base units), when there is one.
    pub first_buy_min_tokens: Option<String>,
    #[serde(flatten)]
    pub lifetime: crate::solana::Lifetime,
}

#[utoipa::path(
    post,
    path = "/launchpad/prepare",
    request_body = LaunchRequest,
    responses(
        (status = 200, body = PrepareResponse),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_JSON, INVALID_CHAIN, INVALID_LAUNCH_TYPE, INVALID_PRESET, INVALID_QUOTE, INVALID_NAME, INVALID_SYMBOL, INVALID_DESCRIPTION, INVALID_SUPPLY, INVALID_ADDRESS, INVALID_AMOUNT, INVALID_IMAGE, INVALID_LINK, INVALID_FEE_SHARES, SECRET_MATERIAL"),
        (status = 413, body = crate::error::ErrorBody, description = "PAYLOAD_TOO_LARGE: the image is above 1 MiB, or the body above the prepare limit"),
        (status = 422, body = crate::error::ErrorBody, description = "SIMULATION_FAILED: the launch would fail (e.g. the creator cannot pay for it)"),
        (status = 429, body = crate::error::ErrorBody, description = "TOO_MANY_PENDING_LAUNCHES: the creator has `--max-pending-prepares-per-creator` prepared launches pending (neither recorded nor launched, younger than `--prepared-ttl-secs`); TOO_MANY_PENDING_LAUNCHES_ADDRESS: the client's address has `--max-pending-prepares-per-address`; RATE_LIMITED"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE: the index, the RPC node or the image store"),
    ),
    tag = "launchpad"
)]
pub async fn prepare(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    extensions: axum::http::Extensions,
    ApiJson(req): ApiJson<LaunchRequest>,
) -> Result<Json<PrepareResponse>, ApiError> {
    let client_id = headers
        .get("x-client-id")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(128).collect::<String>());
    let client_addr = crate::http::layers::client_of(&state.config, &headers, &extensions)
        .map(|ip| ip.to_string());
    Ok(Json(
        prepare_launch(&state, &req, client_id, client_addr).await?,
    ))
}

/// The launch `req` asks for, checked, built into one unsigned transaction and kept as prepared.
/// `client_addr` is the requester's address as the limits count it (`None`: not counted per address).
pub async fn prepare_launch(
    state: &AppState,
    req: &LaunchRequest,
    client_id: Option<String>,
    client_addr: Option<String>,
) -> Result<PrepareResponse, ApiError> {
    let launch = req.validate()?;
    // Before any work (an image decoded, a simulation): a client at its limit costs one count.
    within_pending_limits(state, &launch.creator.to_string(), client_addr.as_deref()).await?;
    // Checked at prepare only: a record ignores them (the chain has them).
    let fee_shares = match &req.fee_shares {
        Some(list) => Some(crate::routes::fee_shares::recipients(list)?),
        None => None,
    };
    let image = match req.image.clone() {
        Some(field) => Some(crate::routes::launch::images::check_off_thread(field).await?),
        None => None,
    };
    let (config_address, config) = state
        .store
        .config_for(launch.preset.name(), launch.quote.name())
        .await?
        .ok_or_else(|| {
            ApiError::unavailable(format!(
                "the {} / {} config is not indexed yet",
                launch.preset.name(),
                launch.quote.name()
            ))
        })?;
    let salt: u64 = rand::random();
    let mint = sdk::pda::mint(&launch.creator, salt);
    let keys = LaunchKeys::new(launch.creator, config_address, config.quote_mint, mint);
    let uri = format!(
        "{}/launchpad/metadata/{mint}.json",
        state.config.base_url().trim_end_matches('/')
    );
    let mut ixs = vec![lix::create_launch(
        &keys,
        CreateLaunchArgs {
            name: req.name.clone(),
            symbol: req.symbol.clone(),
            uri: uri.clone(),
            salt,
        },
    )];
    if let Some(recipients) = fee_shares {
        // Before any trade (the first buy's creator fee included), so the shares hold from the start.
        ixs.push(lix::set_fee_shares(
            &keys,
            &launch.creator,
            recipients,
            req.lock_fee_shares,
        ));
    }
    let first_buy_min_tokens = match launch.first_buy {
        Some(amount) => Some(first_buy(&mut ixs, &config, &keys, &launch, amount)?.to_string()),
        None => None,
    };
    let built = crate::solana::unsigned_transaction(
        &state.rpc,
        &launch.creator,
        &ixs,
        state.fee_policy(None),
    )
    .await?;
    let now = state.now();
    if let Some(img) = &image {
        super::images::save(state, img, now).await?;
    }
    state
        .store
        .insert_prepared(&index::store::PreparedLaunch {
            mint: mint.to_string(),
            creator: launch.creator.to_string(),
            name: req.name.clone(),
            symbol: req.symbol.clone(),
            description: req.description.clone(),
            preset: launch.preset.name().into(),
            quote: launch.quote.name().into(),
            salt: salt.to_string(),
            uri: uri.clone(),
            prepared_at: now,
            client_id,
            image_hash: image.map(|i| i.hash),
            website: launch.website,
            twitter: launch.twitter,
            telegram: launch.telegram,
            client_addr,
        })
        .await?;
    Ok(PrepareResponse {
        solana_transaction: built.transaction,
        lifetime: built.lifetime,
        mint: mint.to_string(),
        pool: keys.pool.to_string(),
        config: config_address.to_string(),
        quote_mint: config.quote_mint.to_string(),
        metadata_uri: uri,
        salt: salt.to_string(),
        first_buy_min_tokens,
    })
}

/// The creator's first buy of `amount` on the fresh curve, appended to `ixs` (wrapping and unwrapping SOL
/// around it when the quote is SOL): the least tokens it accepts, [`FIRST_BUY_SLIPPAGE_BPS`] under the
/// curve's quote.
fn first_buy(
    ixs: &mut Vec<Instruction>,
    config: &sdk::accounts::Config,
    keys: &LaunchKeys,
    launch: &Launch,
    amount: u64,
) -> Result<u64, ApiError> {
    let segments = config.curve_segments();
    let market = config.market(&segments);
    let start = market
        .initial_state()
        .map_err(|e| ApiError::unavailable(format!("the config's curve: {e:?}")))?;
    let quote = market
        .swap_exact_in(
            &start,
            curve::Side::Buy,
            amount,
            config.fee_schedule().fee_bps_at(0),
        )
        .map_err(|e| {
            ApiError::new(
                ErrorCode::InvalidAmount,
                format!("the first buy cannot fill: {e:?}"),
            )
        })?;
    let min_out = swap_core::slippage::min_out_u64(quote.amount_out, FIRST_BUY_SLIPPAGE_BPS);
    let creator = launch.creator;
    if launch.quote == QuoteAsset::Sol {
        ixs.extend(lix::wrap_sol(&creator, amount));
    }
    ixs.push(lix::create_ata_idempotent(
        &creator,
        &creator,
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    ));
    ixs.push(lix::swap_with_ata(
        keys,
        &creator,
        SwapArgs {
            side: SIDE_BUY,
            amount_in: amount,
            min_amount_out: min_out,
        },
    ));
    if launch.quote == QuoteAsset::Sol {
        // A refund (a first buy past the threshold) comes back as SOL, with the account's rent.
        ixs.push(lix::unwrap_sol(&creator));
    }
    Ok(min_out)
}

/// Refuses a prepare past the pending limits: 429 `TOO_MANY_PENDING_LAUNCHES` for the creator,
/// `TOO_MANY_PENDING_LAUNCHES_ADDRESS` for the client's address. Pending: neither recorded nor launched,
/// prepared within `--prepared-ttl-secs`. Counted before the prepare is stored, so prepares arriving at
/// once may pass together (at most the requests in flight over the limit).
async fn within_pending_limits(
    state: &AppState,
    creator: &str,
    client_addr: Option<&str>,
) -> Result<(), ApiError> {
    let config = &state.config;
    let ttl = i64::try_from(config.prepared_ttl_secs).unwrap_or(i64::MAX);
    let since = state.now().saturating_sub(ttl);
    let (by_creator, by_addr) = state
        .store
        .pending_prepares(creator, client_addr, since)
        .await?;
    if by_creator >= i64::from(config.max_pending_prepares_per_creator) {
        return Err(ApiError::new(
            ErrorCode::TooManyPendingLaunches,
            format!(
                "{creator} has {by_creator} prepared launches pending (at most {}): sign and send one, or \
                 wait for them to expire ({} s after prepare)",
                config.max_pending_prepares_per_creator, config.prepared_ttl_secs
            ),
        ));
    }
    if by_addr >= i64::from(config.max_pending_prepares_per_address) {
        return Err(ApiError::new(
            ErrorCode::TooManyPendingLaunchesAddress,
            format!(
                "this address has {by_addr} prepared launches pending (at most {}): sign and send one, or \
                 wait for them to expire ({} s after prepare)",
                config.max_pending_prepares_per_address, config.prepared_ttl_secs
            ),
        ));
    }
    Ok(())
}

/// Prepared launches looked at per chunk of a sweep (a sweep goes on, chunk after chunk, until none is
/// left).
pub const SWEEP_CHUNK: i64 = 100;

/// The sweeper: [`expire_prepared`] every `--prepared-sweep-secs`, on its own timer, until `shutdown`. Every replica runs one; their deletions are conditional, so two sweeps at once
/// delete each row once.
pub async fn sweeper(state: AppState, mut shutdown: tokio::sync::watch::Receiver<bool>) {
    let every = state.config.prepared_sweep_secs.max(1);
    let mut timer = tokio::time::interval(std::time::Duration::from_secs(every));
    timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = timer.tick() => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
        let expired = expire_prepared(&state).await;
        if expired > 0 {
            tracing::info!(expired, "prepared launches never deployed expired");
        }
    }
}

/// Deletes every prepared launch older than `--prepared-ttl-secs` that was never recorded and never
/// launched, and its image (from the image store too) when no other launch uses it: their transaction's
/// blockhash expired long before, and neither the index nor the chain has their pool (a launch that landed
/// keeps its metadata, which its on-chain URI serves, recorded or not). Walks them in chunks of
/// [`SWEEP_CHUNK`], with no ceiling; the number deleted.
pub async fn expire_prepared(state: &AppState) -> u64 {
    let ttl = i64::try_from(state.config.prepared_ttl_secs).unwrap_or(i64::MAX);
    let cutoff = state.now().saturating_sub(ttl);
    let images = super::images::store(state);
    let mut after = None;
    let mut expired = 0u64;
    loop {
        let chunk = match state
            .store
            .stale_prepared(cutoff, after.as_ref(), SWEEP_CHUNK)
            .await
        {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("prepared-launch sweep: {e}");
                return expired;
            }
        };
        let Some(last) = chunk.last().cloned() else {
            return expired;
        };
        after = Some(last);
        let mints: Vec<Pubkey> = chunk.iter().filter_map(|(_, m)| m.parse().ok()).collect();
        // The index may lag: a pool on chain keeps its metadata.
        let pools: Vec<Pubkey> = mints.iter().map(sdk::pda::pool).collect();
        let accounts = match state.rpc.get_multiple_accounts(&pools).await {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!("prepared-launch sweep: reading pools: {e}");
                return expired;
            }
        };
        for (mint, account) in mints.iter().zip(accounts) {
            if account.is_some() {
                continue;
            }
            let images = images.clone();
            let deleted = state
                .store
                .expire_prepared(&mint.to_string(), cutoff, |hash| async move {
                    images
                        .delete(&hash)
                        .await
                        .map_err(|e| sqlx::Error::Io(std::io::Error::other(e.to_string())))
                })
                .await;
            match deleted {
                Ok(n) => expired += n,
                Err(e) => {
                    tracing::warn!("prepared-launch sweep: {e}");
                    return expired;
                }
            }
        }
        if (chunk.len() as i64) < SWEEP_CHUNK {
            return expired;
        }
    }
}
