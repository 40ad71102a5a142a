//! Launching: `POST /launchpad/prepare`, `GET /launchpad/metadata/{mint}.json`, `POST /launchpad/record`.
//!
//! The mint is the program's PDA `["mint", creator, salt]` with a salt the service picks, so the creator's
//! signature is the only one the launch needs: the service holds no keys.

use crate::body::ApiJson;
use crate::cache;
use crate::error::{address, ApiError};
use crate::extract::ApiPath;
use crate::json::Json;
use crate::AppState;
use anchor_lang::prelude::Pubkey;
use axum::extract::State;
use axum::http::StatusCode;
use curve::{Preset, QuoteAsset};
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs, LaunchKeys, SwapArgs, SIDE_BUY};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

/// The total supply every launch mints, in whole tokens.
pub const TOTAL_SUPPLY: &str = "1000000000";
/// Slippage allowed on the first buy of a launch, basis points.
pub const FIRST_BUY_SLIPPAGE_BPS: u64 = 100;

/// A launch (prepare; also the base of record).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchRequest {
    /// `solana`.
    #[schema(schema_with = chain_schema)]
    pub chain_key: String,
    /// `bonding-curve`.
    #[schema(schema_with = launch_type_schema)]
    pub launch_type: String,
    /// `fair`, `shield` or `distribute`.
    #[schema(schema_with = preset_schema)]
    pub curve_preset: String,
    /// `sol` or `usdc`.
    #[schema(schema_with = quote_schema)]
    pub quote: String,
    /// 1 to 32 characters, no control characters.
    #[schema(schema_with = name_schema)]
    pub name: String,
    /// 1 to 10 uppercase letters or digits.
    #[schema(schema_with = symbol_schema)]
    pub symbol: String,
    /// Up to 1000 characters; served in the metadata JSON.
    #[serde(default)]
    #[schema(schema_with = description_schema)]
    pub description: String,
    /// Whole tokens: `1000000000`.
    #[schema(schema_with = supply_schema)]
    pub total_supply: String,
    /// The creator's wallet: the only signer.
    #[schema(schema_with = crate::schema::solana_address)]
    pub creator: String,
    /// Optional first buy in whole quote tokens (`"0.5"` SOL), in the same transaction.
    #[serde(default)]
    #[schema(schema_with = first_buy_schema)]
    pub first_buy_amount: Option<String>,
    /// Optional image at prepare: base64 (or a `data:image/...;base64,` URL) of a PNG, JPEG, GIF or WebP of
    /// at most 1 MiB and 4096x4096, checked by decoding it. Stored by the service and served at a stable
    /// URL (the metadata JSON's `image`). Ignored at record.
    #[serde(default)]
    #[schema(schema_with = image_schema)]
    pub image: Option<String>,
    /// Optional website: an `https://` URL.
    #[serde(default)]
    #[schema(schema_with = website_schema)]
    pub website: Option<String>,
    /// Optional X account: `https://x.com/<handle>` (or twitter.com).
    #[serde(default)]
    #[schema(schema_with = twitter_schema)]
    pub twitter: Option<String>,
    /// Optional Telegram: `https://t.me/<name>` (or telegram.me).
    #[serde(default)]
    #[schema(schema_with = telegram_schema)]
    pub telegram: Option<String>,
    /// Optional: share the creator fees (bonding-phase trading fees and the locked creator position's AMM
    /// fees) among 1 to 10 wallets, shares in bps summing to 10,000, from the first trade (set in the launch's
    /// own transaction). The creator role can change them later until they are locked. Ignored at record.
    #[serde(default)]
    #[schema(min_items = 1, max_items = 10)]
    pub fee_shares: Option<Vec<crate::routes::fee_shares::FeeRecipientBody>>,
    /// With `feeShares`: make them final at launch.
    #[serde(default)]
    pub lock_fee_shares: bool,
}

/// The only chain launches are on.
pub const LAUNCH_CHAIN: &str = "solana";
/// The only launch type.
pub const LAUNCH_TYPE: &str = "bonding-curve";
/// Most characters in a name, a symbol, a description and a link.
pub const MAX_NAME_CHARS: usize = 32;
pub const MAX_SYMBOL_CHARS: usize = 10;
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
pub const MAX_LINK_CHARS: usize = 200;
/// Hosts of the X and Telegram links.
pub const TWITTER_HOSTS: [&str; 2] = ["x.com", "twitter.com"];
pub const TELEGRAM_HOSTS: [&str; 2] = ["t.me", "telegram.me"];

use crate::schema;
use utoipa::openapi::{Object, RefOr, Schema};

fn chain_schema() -> Object {
    schema::one_of([LAUNCH_CHAIN]).build()
}
fn launch_type_schema() -> Object {
    schema::one_of([LAUNCH_TYPE]).build()
}
fn preset_schema() -> Object {
    schema::one_of(Preset::ALL.map(Preset::name)).build()
}
fn quote_schema() -> Object {
    schema::one_of(QuoteAsset::ALL.map(QuoteAsset::name)).build()
}
fn name_schema() -> Object {
    schema::text(1, MAX_NAME_CHARS)
        .pattern(Some("^[^\\x00-\\x1f\\x7f-\\x9f]*$"))
        .build()
}
fn symbol_schema() -> Object {
    schema::text(1, MAX_SYMBOL_CHARS)
        .pattern(Some(format!("^[A-Z0-9]{{1,{MAX_SYMBOL_CHARS}}}$")))
        .build()
}
fn description_schema() -> Object {
    schema::text(0, MAX_DESCRIPTION_CHARS).build()
}
/// [`TOTAL_SUPPLY`]'s digits, any of them separated by `,` or `_`.
fn supply_schema() -> Object {
    let digits: Vec<String> = TOTAL_SUPPLY.chars().map(String::from).collect();
    schema::text(TOTAL_SUPPLY.len(), usize::MAX)
        .max_length(None)
        .pattern(Some(format!("^[,_]*{}[,_]*$", digits.join("[,_]*"))))
        .build()
}
/// Positive, in whole quote tokens, valid for every quote token: at most the fewest decimals any has, and
/// few enough whole digits that the amount fits in base units of the one with the most decimals (SOL's 9: at
/// most 18,446,744,073 whole).
fn first_buy_schema() -> RefOr<Schema> {
    let (decimals, max) = first_buy_bounds();
    schema::nullable(schema::human_amount(decimals, max))
}
/// [`first_buy_schema`]'s pattern, which the handler applies as it is.
static FIRST_BUY_PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    let (decimals, max) = first_buy_bounds();
    regex::Regex::new(&schema::human_amount_pattern(decimals, max)).expect("the pattern compiles")
});

/// The decimals and the largest base-unit amount of [`first_buy_schema`].
fn first_buy_bounds() -> (u8, u128) {
    let decimals = QuoteAsset::ALL.map(QuoteAsset::decimals);
    let (fewest, most) = (
        decimals.into_iter().min().unwrap_or(0),
        decimals.into_iter().max().unwrap_or(0),
    );
    (
        fewest,
        u128::from(u64::MAX) / 10u128.pow(u32::from(most - fewest)),
    )
}
fn image_schema() -> RefOr<Schema> {
    schema::nullable(schema::text(0, crate::image::PREPARE_BODY_LIMIT))
}
/// An `https://` URL on a dotted host, without credentials.
/// The last label starts with a letter: a host ending in a number (`0-0.0`) is read as an IPv4 address by
/// URL parsers, and refused.
fn website_schema() -> RefOr<Schema> {
    link_schema(WEBSITE)
}
const WEBSITE: &str =
    "(?:[a-z0-9]+(?:-[a-z0-9]+)*\\.)+[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:/[A-Za-z0-9._~%-]*)*";
fn twitter_schema() -> RefOr<Schema> {
    profile_schema(&TWITTER_HOSTS)
}
fn telegram_schema() -> RefOr<Schema> {
    profile_schema(&TELEGRAM_HOSTS)
}
/// A profile on one of `hosts` (`www.` allowed): one path segment naming the account.
fn profile_schema(hosts: &[&str]) -> RefOr<Schema> {
    let hosts: Vec<String> = hosts.iter().map(|h| h.replace('.', "\\.")).collect();
    link_schema(&format!(
        "(?:www\\.)?(?:{})/[A-Za-z0-9_+-]+/?",
        hosts.join("|")
    ))
}
/// `https://` and `rest`, at most [`MAX_LINK_CHARS`]; blank is no link.
fn link_schema(rest: &str) -> RefOr<Schema> {
    schema::nullable(
        schema::text(0, MAX_LINK_CHARS).pattern(Some(format!("^(?:https://{rest}|\\s*)$"))),
    )
}

/// A launch request that passed validation.
pub struct Launch {
    pub preset: Preset,
    pub quote: QuoteAsset,
    pub creator: anchor_lang::prelude::Pubkey,
    pub first_buy: Option<u64>,
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
}

/// An optional link: blank is none; otherwise an `https://` URL without credentials, at most 200
/// characters, on one of `hosts` when given, and then exactly a profile: one path segment naming the account
/// (letters, digits, `_`, and `+` or `-` as Telegram invite links use), no query or fragment.
fn link(field: &str, value: Option<&str>, hosts: &[&str]) -> Result<Option<String>, ApiError> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let bad_link = || {
        let rule = if hosts.is_empty() {
            "an https URL".to_string()
        } else {
            format!("an https URL on {}", hosts.join(" or "))
        };
        bad(
            "INVALID_LINK",
            format!("`{field}` must be {rule}, at most 200 characters"),
        )
    };
    let url = reqwest::Url::parse(v).map_err(|_| bad_link())?;
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let ok = v.chars().count() <= MAX_LINK_CHARS
        && url.scheme() == "https"
        && url.username().is_empty()
        && url.password().is_none()
        && url.domain().is_some_and(is_dotted_name)
        && (hosts.is_empty() || (hosts.contains(&host) && is_profile(&url)));
    ok.then(|| Some(v.to_string())).ok_or_else(bad_link)
}

/// A domain name of two labels or more whose last one starts with a letter (not an address).
fn is_dotted_name(domain: &str) -> bool {
    domain.rsplit_once('.').is_some_and(|(rest, last)| {
        !rest.is_empty() && last.starts_with(|c: char| c.is_ascii_alphabetic())
    })
}

/// `https://host/<account>` (a trailing `/` allowed) and nothing more.
fn is_profile(url: &reqwest::Url) -> bool {
    let account = url.path().trim_start_matches('/').trim_end_matches('/');
    url.query().is_none()
        && url.fragment().is_none()
        && !account.is_empty()
        && account
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
}

fn bad(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message)
}

impl LaunchRequest {
    pub fn validate(&self) -> Result<Launch, ApiError> {
        if self.chain_key != LAUNCH_CHAIN {
            return Err(bad("INVALID_CHAIN", "launches are on `solana` only"));
        }
        if self.launch_type != LAUNCH_TYPE {
            return Err(bad(
                "INVALID_LAUNCH_TYPE",
                "`launchType` must be `bonding-curve`",
            ));
        }
        let preset = Preset::from_name(&self.curve_preset).ok_or_else(|| {
            bad(
                "INVALID_PRESET",
                "`curvePreset` must be `fair`, `shield` or `distribute`",
            )
        })?;
        let quote = QuoteAsset::from_name(&self.quote)
            .ok_or_else(|| bad("INVALID_QUOTE", "`quote` must be `sol` or `usdc`"))?;
        let chars = self.name.chars().count();
        if chars == 0 || chars > MAX_NAME_CHARS || self.name.chars().any(char::is_control) {
            return Err(bad(
                "INVALID_NAME",
                "`name` must be 1 to 32 characters without control characters",
            ));
        }
        if self.symbol.is_empty()
            || self.symbol.len() > MAX_SYMBOL_CHARS
            || !self
                .symbol
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        {
            return Err(bad(
                "INVALID_SYMBOL",
                "`symbol` must be 1 to 10 uppercase letters or digits",
            ));
        }
        if self.description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(bad(
                "INVALID_DESCRIPTION",
                "`description` is at most 1000 characters",
            ));
        }
        if self.total_supply.replace([',', '_'], "") != TOTAL_SUPPLY {
            return Err(bad(
                "INVALID_SUPPLY",
                "`totalSupply` must be 1000000000: every launch mints one billion tokens",
            ));
        }
        let creator = address("creator", Some(&self.creator))?;
        let first_buy = match self.first_buy_amount.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(a) => Some(
                // Exactly what the document's pattern admits (the same for every quote token), then
                // read in this quote's base units.
                FIRST_BUY_PATTERN
                    .is_match(a)
                    .then(|| curve::display::parse_decimal(a, quote.decimals()))
                    .flatten()
                    .filter(|v| *v > 0)
                    .ok_or_else(|| {
                        bad(
                            "INVALID_AMOUNT",
                            format!(
                                "`firstBuyAmount` must be a positive decimal in whole {} with at most {} decimals",
                                quote.name().to_uppercase(),
                                first_buy_bounds().0
                            ),
                        )
                    })?,
            ),
        };
        Ok(Launch {
            preset,
            quote,
            creator,
            first_buy,
            website: link("website", self.website.as_deref(), &[])?,
            twitter: link("twitter", self.twitter.as_deref(), &TWITTER_HOSTS)?,
            telegram: link("telegram", self.telegram.as_deref(), &TELEGRAM_HOSTS)?,
        })
    }
}

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
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE: the index or the RPC node"),
    ),
    tag = "launchpad"
)]
pub async fn prepare(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    ApiJson(req): ApiJson<LaunchRequest>,
) -> Result<Json<PrepareResponse>, ApiError> {
    let launch = req.validate()?;
    // Checked at prepare only: a record ignores them (the chain has them).
    let fee_shares = match &req.fee_shares {
        Some(list) => Some(crate::routes::fee_shares::recipients(list)?),
        None => None,
    };
    let image = match req.image.clone() {
        Some(field) => Some(crate::image::check_off_thread(field).await?),
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
    let mut first_buy_min_tokens = None;
    if let Some(amount) = launch.first_buy {
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
                bad(
                    "INVALID_AMOUNT",
                    format!("the first buy cannot fill: {e:?}"),
                )
            })?;
        let min_out = quote
            .amount_out
            .saturating_mul(10_000 - FIRST_BUY_SLIPPAGE_BPS)
            / 10_000;
        first_buy_min_tokens = Some(min_out.to_string());
        let creator = launch.creator;
        if launch.quote == QuoteAsset::Sol {
            ixs.extend(lix::wrap_sol(&creator, amount));
        }
        ixs.push(lix::create_ata_idempotent(
            &creator,
            &creator,
            &mint,
            &sdk::ids::TOKEN_2022_PROGRAM,
        ));
        ixs.push(lix::swap_with_ata(
            &keys,
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
    }
    let built = crate::solana::unsigned_transaction(
        &state.rpc,
        &launch.creator,
        &ixs,
        state.fee_policy(None),
    )
    .await?;
    let client_id = headers
        .get("x-client-id")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(128).collect::<String>());
    let now = state.now();
    if let Some(img) = &image {
        state
            .store
            .put_image(&img.hash, img.content_type, &img.bytes, now)
            .await?;
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
        })
        .await?;
    let sweeper = state.clone();
    tokio::spawn(async move { expire_prepared(&sweeper).await });
    Ok(Json(PrepareResponse {
        solana_transaction: built.transaction,
        lifetime: built.lifetime,
        mint: mint.to_string(),
        pool: keys.pool.to_string(),
        config: config_address.to_string(),
        quote_mint: config.quote_mint.to_string(),
        metadata_uri: uri,
        salt: salt.to_string(),
        first_buy_min_tokens,
    }))
}

/// Most prepared launches looked at by one sweep.
const SWEEP_BATCH: i64 = 100;

/// Deletes prepared launches older than `--prepared-ttl-secs` that were never recorded and never launched
/// (and their images, when no other launch uses them): their transaction's blockhash expired long before,
/// and neither the index nor the chain has their pool (a launch that landed keeps its metadata, which its
/// on-chain URI serves, recorded or not). Runs after a prepare, at most once a minute (or once a TTL, when
/// shorter), in the background.
pub async fn expire_prepared(state: &AppState) {
    use std::sync::atomic::Ordering;
    let ttl = i64::try_from(state.config.prepared_ttl_secs).unwrap_or(i64::MAX);
    let now = state.now();
    let last = state.last_sweep.load(Ordering::Relaxed);
    if now.saturating_sub(last) < ttl.min(60)
        || state
            .last_sweep
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
    {
        return;
    }
    let cutoff = now.saturating_sub(ttl);
    let candidates = match state.store.stale_prepared(cutoff, SWEEP_BATCH).await {
        Ok(c) => c,
        Err(e) => return tracing::warn!("prepared-launch sweep: {e}"),
    };
    let mints: Vec<Pubkey> = candidates.iter().filter_map(|m| m.parse().ok()).collect();
    if mints.is_empty() {
        return;
    }
    // The index may lag: a pool on chain keeps its metadata.
    let pools: Vec<Pubkey> = mints.iter().map(sdk::pda::pool).collect();
    let accounts = match state.rpc.get_multiple_accounts(&pools).await {
        Ok(a) => a,
        Err(e) => return tracing::warn!("prepared-launch sweep: reading pools: {e}"),
    };
    let mut expired = 0u64;
    for (mint, account) in mints.iter().zip(accounts) {
        if account.is_some() {
            continue;
        }
        match state.store.expire_prepared(&mint.to_string(), cutoff).await {
            Ok(n) => expired += n,
            Err(e) => return tracing::warn!("prepared-launch sweep: {e}"),
        }
    }
    if expired > 0 {
        tracing::info!(expired, "prepared launches never deployed expired");
    }
}

/// The token metadata JSON a launch's URI points to, in the Metaplex token-metadata JSON conventions.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenMetadata {
    pub name: String,
    pub symbol: String,
    pub description: String,
    /// The image's URL (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The website (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_url: Option<String>,
    /// The links: `website`, `twitter`, `telegram` (absent without any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<MetadataLinks>,
    /// The image as a file (`files[0]`), with `category` `image` (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<MetadataProperties>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MetadataLinks {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twitter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telegram: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MetadataProperties {
    pub files: Vec<MetadataFile>,
    pub category: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MetadataFile {
    pub uri: String,
    /// The content type.
    #[serde(rename = "type")]
    pub kind: String,
}

#[utoipa::path(
    get,
    path = "/launchpad/metadata/{file}",
    params(MetadataPath),
    responses(
        (status = 200, body = TokenMetadata),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND"),
    ),
    tag = "launchpad"
)]
pub async fn metadata(
    State(state): State<AppState>,
    ApiPath(file): ApiPath<String>,
) -> Result<Json<TokenMetadata>, ApiError> {
    let mint = address("mint", Some(file.strip_suffix(".json").unwrap_or(&file)))?;
    let m = state
        .store
        .launch_extras(&mint)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no metadata for {mint}")))?;
    let image = match &m.image_hash {
        Some(hash) => state
            .store
            .image(hash)
            .await?
            .map(|(content_type, _)| (super::tokens::image_url(&state, hash), content_type)),
        None => None,
    };
    let any_link = m.website.is_some() || m.twitter.is_some() || m.telegram.is_some();
    Ok(Json(TokenMetadata {
        name: m.name,
        symbol: m.symbol,
        description: m.description,
        properties: image.as_ref().map(|(uri, kind)| MetadataProperties {
            files: vec![MetadataFile {
                uri: uri.clone(),
                kind: kind.clone(),
            }],
            category: "image".into(),
        }),
        image: image.map(|(uri, _)| uri),
        external_url: m.website.clone(),
        extensions: any_link.then_some(MetadataLinks {
            website: m.website,
            twitter: m.twitter,
            telegram: m.telegram,
        }),
    }))
}

pub struct MetadataPath;

impl utoipa::IntoParams for MetadataPath {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![crate::extract::path_param(
            "file",
            "`<mint>.json` (or the mint alone)",
            crate::extract::pattern_schema(&schema::solana_address_then("(?:\\.json)?")),
        )]
    }
}

pub struct ImagePath;

impl utoipa::IntoParams for ImagePath {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![crate::extract::path_param(
            "hash",
            "SHA-256 of the image, 64 lowercase hex digits",
            crate::extract::pattern_schema("^[0-9a-f]{64}$"),
        )]
    }
}

/// `GET /launchpad/images/{hash}`: an uploaded image, by the SHA-256 of its bytes (so a URL never changes
/// content: cached for a year, immutable).
#[utoipa::path(
    get,
    path = "/launchpad/images/{hash}",
    params(ImagePath),
    responses(
        (status = 200, description = "The image, with its content type", content_type = "image/png"),
        (status = 304, description = "Not modified (`If-None-Match` matched the `ETag`)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_PARAMS: not a SHA-256"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND"),
    ),
    tag = "launchpad"
)]
pub async fn image(
    State(state): State<AppState>,
    ApiPath(hash): ApiPath<String>,
) -> Result<axum::response::Response, ApiError> {
    use axum::http::header;
    use axum::response::IntoResponse;
    if hash.len() != 64 || !hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(ApiError::invalid(
            "the image is named by its SHA-256 in lowercase hex",
        ));
    }
    let (content_type, bytes) = state
        .store
        .image(&hash)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no image {hash}")))?;
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (
                header::CACHE_CONTROL,
                "public, max-age=31536000, immutable".to_string(),
            ),
            (header::ETAG, format!("\"{hash}\"")),
        ],
        bytes,
    )
        .into_response())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchRecordRequest {
    #[serde(flatten)]
    pub launch: LaunchRequest,
    /// The mint (from prepare).
    #[schema(schema_with = crate::schema::solana_address)]
    pub token_address: String,
    /// The signature of the confirmed launch transaction.
    #[schema(schema_with = crate::schema::solana_signature)]
    pub deploy_tx_hash: String,
    /// From prepare.
    #[serde(rename = "metadataURI")]
    pub metadata_uri: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchRecordResponse {
    pub mint: String,
    pub pool: String,
    pub deploy_tx_hash: String,
    /// The token is on the discovery listing (`GET /launchpad/launches`).
    pub listed: bool,
    /// Unix seconds of the first record.
    pub recorded_at: i64,
}

#[utoipa::path(
    post,
    path = "/launchpad/record",
    operation_id = "launch_record",
    request_body = LaunchRecordRequest,
    responses(
        (status = 200, body = LaunchRecordResponse, description = "Recorded (idempotent: the same record answers the same)"),
        (status = 400, body = crate::error::ErrorBody, description = "validation codes of prepare, INVALID_SIGNATURE, TX_MISMATCH"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: not prepared by this service"),
        (status = 409, body = crate::error::ErrorBody, description = "NOT_CONFIRMED (retry once confirmed) or ALREADY_RECORDED (with another transaction)"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "launchpad"
)]
pub async fn record(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<LaunchRecordRequest>,
) -> Result<Json<LaunchRecordResponse>, ApiError> {
    let launch = req.launch.validate()?;
    let mint = address("tokenAddress", Some(&req.token_address))?;
    let signature: solana_signature::Signature =
        req.deploy_tx_hash.trim().parse().map_err(|_| {
            bad(
                "INVALID_SIGNATURE",
                "`deployTxHash` is not a transaction signature",
            )
        })?;
    let row = state
        .store
        .prepared(&mint.to_string())
        .await?
        .ok_or_else(|| ApiError::not_found(format!("{mint} was not prepared by this service")))?;
    // The record describes the launch that was prepared, field for field.
    let link = |l: &Option<String>| l.clone().unwrap_or_default();
    let prepared: [(&str, String, String); 10] = [
        ("creator", row.creator.clone(), launch.creator.to_string()),
        ("metadataURI", row.uri.clone(), req.metadata_uri.clone()),
        ("name", row.name.clone(), req.launch.name.clone()),
        ("symbol", row.symbol.clone(), req.launch.symbol.clone()),
        (
            "description",
            row.description.clone(),
            req.launch.description.clone(),
        ),
        (
            "curvePreset",
            row.preset.clone(),
            launch.preset.name().to_string(),
        ),
        ("quote", row.quote.clone(), launch.quote.name().to_string()),
        (
            "website",
            link(&row.website),
            launch.website.clone().unwrap_or_default(),
        ),
        (
            "twitter",
            link(&row.twitter),
            launch.twitter.clone().unwrap_or_default(),
        ),
        (
            "telegram",
            link(&row.telegram),
            launch.telegram.clone().unwrap_or_default(),
        ),
    ];
    if let Some((field, _, _)) = prepared.iter().find(|(_, was, now)| was != now) {
        return Err(bad(
            "TX_MISMATCH",
            format!("`{field}` differs from what prepare was given for this mint"),
        ));
    }
    let pool = sdk::pda::pool(&mint);
    if let (Some(sig), Some(at)) = (row.deploy_signature.clone(), row.recorded_at) {
        if sig == signature.to_string() {
            return Ok(Json(LaunchRecordResponse {
                mint: mint.to_string(),
                pool: pool.to_string(),
                deploy_tx_hash: sig,
                listed: true,
                recorded_at: at,
            }));
        }
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "ALREADY_RECORDED",
            format!("{mint} was recorded with transaction {sig}"),
        ));
    }
    // The transaction must be confirmed, successful, signed by the creator, and have created this mint's pool.
    let status = crate::solana::signature_status(&state.rpc, &signature).await?;
    match status {
        Some(s) if s.err.is_some() => {
            return Err(bad("TX_FAILED", "the deploy transaction failed on chain"))
        }
        Some(s)
            if s.satisfies_commitment(solana_commitment_config::CommitmentConfig::confirmed()) => {}
        _ => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "NOT_CONFIRMED",
                "the deploy transaction is not confirmed yet; retry shortly",
            ))
        }
    }
    let tx = crate::solana::confirmed_transaction(&state.rpc, &signature)
        .await
        .map_err(|e| {
            tracing::warn!("getTransaction {signature}: {e}");
            ApiError::unavailable("the deploy transaction cannot be read")
        })?;
    if !crate::solana::launches(&tx, &mint, &launch.creator, &row.uri)? {
        return Err(bad(
            "TX_MISMATCH",
            "the transaction is not this mint's deploy: it has no launchpad `create_launch` of this mint by \
             this creator with the prepared metadata URI (e.g. a later buy)",
        ));
    }
    let pool_ok = match state.rpc.get_account(&pool).await {
        Ok(a) => sdk::accounts::decode_pool(&a.data)
            .is_some_and(|p| p.base_mint == mint && p.creator == launch.creator),
        Err(_) => false,
    };
    if !pool_ok {
        return Err(bad(
            "TX_MISMATCH",
            "the transaction did not launch this mint for this creator",
        ));
    }
    let now = state.now();
    state
        .store
        .mark_recorded(&mint.to_string(), &signature.to_string(), now)
        .await?;
    Ok(Json(LaunchRecordResponse {
        mint: mint.to_string(),
        pool: pool.to_string(),
        deploy_tx_hash: signature.to_string(),
        listed: true,
        recorded_at: now,
    }))
}

/// This area's routes, each with its OpenAPI path (the handler's `#[utoipa::path]` names its method and path).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    // Prepare and record can carry an image.
    let image_body = axum::extract::DefaultBodyLimit::max(
        crate::image::PREPARE_BODY_LIMIT.max(state.config.max_body_bytes),
    );
    OpenApiRouter::new()
        .routes(routes!(prepare).layer(image_body))
        .routes(routes!(image).layer(cache::layer(state, cache::policy::METADATA)))
        .routes(routes!(metadata).layer(cache::layer(state, cache::policy::METADATA)))
        .routes(routes!(record).layer(image_body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn websites_on_addresses_or_numeric_hosts_are_refused() {
        for bad in [
            "https://0-0-0-0.0",
            "https://1.2.3.4/",
            "https://example.0x1f",
            "https://localhost",
            "http://example.org",
        ] {
            assert!(link("website", Some(bad), &[]).is_err(), "{bad}");
        }
        for good in ["https://0.example.org/a", "https://my-token.xyz"] {
            assert!(link("website", Some(good), &[]).is_ok(), "{good}");
        }
    }

    proptest! {
        /// Every `website` the document calls valid is one the handler takes.
        #[test]
        fn websites_of_the_schema_are_taken(s in proptest::string::string_regex(
            // The same language with repetitions bounded, so that URLs stay within the length limit.
            &WEBSITE
                .replace("]+", "]{1,6}")
                .replace("]*", "]{0,6}")
                .replace(")+", "){1,3}")
                .replace(")*", "){0,2}")
        ).unwrap()) {
            let url = format!("https://{s}");
            prop_assume!(url.chars().count() <= MAX_LINK_CHARS);
            prop_assert!(link("website", Some(&url), &[]).is_ok(), "{url}");
        }

        /// Every `firstBuyAmount` the document calls valid is one the handler takes, whatever the quote.
        #[test]
        fn first_buys_of_the_schema_parse_in_every_quote(
            s in proptest::string::string_regex({
                let (decimals, max) = first_buy_bounds();
                let p = schema::human_amount_pattern(decimals, max);
                p.trim_start_matches('^').trim_end_matches('$').to_string()
            }.as_str()).unwrap()
        ) {
            for quote in QuoteAsset::ALL {
                let v = curve::display::parse_decimal(&s, quote.decimals());
                prop_assert!(v.is_some_and(|v| v > 0), "{s} in {}", quote.name());
            }
        }

        /// And the handler takes nothing the document calls invalid: decimal-looking text, valid or not,
        /// passes the request's validation exactly when the document's pattern matches, for either quote.
        #[test]
        fn the_handler_takes_exactly_the_pattern(s in "[0-9]{0,14}(\\.[0-9]{0,10})?") {
            let pattern = regex::Regex::new(&{
                let (decimals, max) = first_buy_bounds();
                schema::human_amount_pattern(decimals, max)
            })
            .unwrap();
            for quote in ["sol", "usdc"] {
                let request: LaunchRequest = serde_json::from_value(serde_json::json!({
                    "chainKey": "solana", "launchType": "bonding-curve", "curvePreset": "fair",
                    "quote": quote, "name": "Name", "symbol": "SYM", "totalSupply": "1000000000",
                    "creator": "9eHC6gHSiyx5W77J7LSnEibuWCQSSh53KqG9V38ghTRS", "firstBuyAmount": s,
                }))
                .unwrap();
                let taken = match request.validate() {
                    Ok(launch) => launch.first_buy.is_some() || s.is_empty(),
                    Err(e) => {
                        prop_assert_eq!(e.code, "INVALID_AMOUNT", "{}", e.message);
                        false
                    }
                };
                prop_assert_eq!(taken, s.is_empty() || pattern.is_match(&s), "{} in {}", s, quote);
            }
        }
    }
}
