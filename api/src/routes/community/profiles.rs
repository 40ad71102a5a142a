//! Profiles: `GET /launchpad/profiles/{wallet}` (a wallet's display name and avatar, and what it launched),
//! `PUT /launchpad/profiles/{wallet}` (set them, signed by the wallet), `GET /launchpad/profiles?wallets=`
//! (the names of many wallets at once: what the page shows beside holders and trades) and
//! `GET /launchpad/avatars/{hash}`. Avatars go through the launch images' checks (type, size, decoding) and
//! are re-encoded as PNG of at most [`AVATAR_SIDE`] pixels a side before they are stored, by SHA-256.

use super::{message, text, Limits};
use crate::body::ApiJson;
use crate::error::{address, required, ApiError, ErrorCode};
use crate::extract::{ApiPath, ApiQuery};
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use index::read::{LaunchedToken, ProfileName};
use index::store::profiles::{NewProfile, ProfileRefused};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

/// The image store's namespace of avatars.
pub const AVATARS: &str = "avatars";

/// An avatar's largest side after re-encoding, pixels.
pub const AVATAR_SIDE: u32 = 256;

/// Launched tokens a profile lists.
pub const LAUNCHES_LISTED: u32 = 20;

/// An avatar's URL.
pub fn avatar_url(state: &AppState, hash: &str) -> String {
    format!(
        "{}/launchpad/avatars/{hash}",
        state.config.base_url().trim_end_matches('/')
    )
}

/// A wallet's profile.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub wallet: String,
    /// `null` when the wallet set no name.
    pub name: Option<String>,
    /// The avatar's URL (by its SHA-256), `null` when none.
    pub avatar: Option<String>,
    /// Unix seconds the profile was last set; `null` when never.
    pub updated_at: Option<i64>,
    /// How many tokens the wallet created.
    pub launch_count: u64,
    /// The newest of them (at most 20): "created by" this wallet.
    pub launches: Vec<LaunchedToken>,
}

/// A signed profile. The wallet signs the message `docs/api.md` ("Signed messages") describes.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetProfile {
    /// 3 to 24 letters, digits, spaces, `_`, `-`, `.`; normalized (NFKC, trimmed); unique case-insensitively.
    pub name: Option<String>,
    /// A PNG, JPEG, GIF or WebP image, base64 (or a `data:` URL), at most 1 MiB and 4096 pixels a side;
    /// absent: no avatar.
    pub avatar: Option<String>,
    pub nonce: Option<String>,
    /// Unix seconds; later than now and at most 600 s ahead.
    pub expires_at: Option<i64>,
    /// The ed25519 signature of the message, base58.
    pub signature: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct ProfilesQuery {
    /// Wallet addresses, comma-separated, at most 100 (an `Option` only so that its absence is answered with
    /// `MISSING_PARAMS`: the document marks it required).
    pub wallets: Option<String>,
}

impl IntoParams for ProfilesQuery {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![web::extract::param(
            utoipa::openapi::path::ParameterIn::Query,
            "wallets",
            true,
            "Wallet addresses, comma-separated, at most 100",
            wallets_schema(),
        )]
    }
}

/// One to 100 addresses, comma-separated.
fn wallets_schema() -> utoipa::openapi::Object {
    let one = web::schema::base58_pattern(32);
    let one = one.trim_start_matches('^').trim_end_matches('$');
    web::extract::pattern_schema(&format!("^(?:{one})(?:,(?:{one})){{0,99}}$"))
}

/// The profiles among the wallets asked for (wallets without one are absent).
#[derive(Debug, Serialize, ToSchema)]
pub struct Profiles {
    pub profiles: Vec<ProfileName>,
}

#[derive(Debug, Deserialize)]
pub struct WalletPath {
    /// A wallet address.
    pub wallet: String,
}

impl IntoParams for WalletPath {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![web::extract::path_param(
            "wallet",
            "A wallet address",
            web::extract::address_schema(),
        )]
    }
}

#[derive(Debug, Deserialize)]
pub struct AvatarPath {
    /// The avatar's SHA-256, lowercase hex.
    pub hash: String,
}

impl IntoParams for AvatarPath {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![web::extract::path_param(
            "hash",
            "The avatar's SHA-256, lowercase hex",
            web::extract::pattern_schema("^[0-9a-f]{64}$"),
        )]
    }
}

#[utoipa::path(
    get,
    path = "/launchpad/profiles/{wallet}",
    params(WalletPath),
    responses(
        (status = 200, body = Profile, description = "The profile (name and avatar `null` when never set)"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "community"
)]
pub async fn get(
    State(state): State<AppState>,
    ApiPath(wallet): ApiPath<String>,
) -> Result<Json<Profile>, ApiError> {
    let wallet = address("wallet", Some(&wallet))?.to_string();
    let set = state
        .store
        .profile_names(std::slice::from_ref(&wallet))
        .await?
        .into_iter()
        .next();
    let (launch_count, launches) = state.store.launched_by(&wallet, LAUNCHES_LISTED).await?;
    Ok(Json(Profile {
        wallet,
        name: set.as_ref().map(|p| p.name.clone()),
        avatar: set
            .as_ref()
            .and_then(|p| p.avatar.as_deref())
            .map(|h| avatar_url(&state, h)),
        updated_at: set.map(|p| p.updated_at),
        launch_count,
        launches,
    }))
}

#[utoipa::path(
    get,
    path = "/launchpad/profiles",
    params(ProfilesQuery),
    responses(
        (status = 200, body = Profiles),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS or INVALID_PARAMS (over 100)"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "community"
)]
pub async fn many(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ProfilesQuery>,
) -> Result<Json<Profiles>, ApiError> {
    let list = required("wallets", q.wallets.as_deref())?;
    let wallets: Vec<String> = list
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(|w| address("wallets", Some(w)).map(|a| a.to_string()))
        .collect::<Result<_, _>>()?;
    if wallets.len() > 100 {
        return Err(ApiError::invalid("`wallets` names at most 100 wallets"));
    }
    let mut profiles = state.store.profile_names(&wallets).await?;
    for p in &mut profiles {
        if let Some(h) = p.avatar.take() {
            p.avatar = Some(avatar_url(&state, &h));
        }
    }
    Ok(Json(Profiles { profiles }))
}

/// Re-encodes a checked image as a PNG of at most [`AVATAR_SIDE`] pixels a side (metadata and any payload
/// beside the pixels are dropped).
fn reencode(bytes: &[u8]) -> Result<Vec<u8>, ApiError> {
    let img = image::load_from_memory(bytes).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidImage,
            format!("`avatar` does not decode: {e}"),
        )
    })?;
    let img = if img.width() > AVATAR_SIDE || img.height() > AVATAR_SIDE {
        img.thumbnail(AVATAR_SIDE, AVATAR_SIDE)
    } else {
        img
    };
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("re-encoding the avatar: {e}")))?;
    Ok(out.into_inner())
}

#[utoipa::path(
    put,
    path = "/launchpad/profiles/{wallet}",
    params(WalletPath),
    request_body = SetProfile,
    responses(
        (status = 200, body = Profile),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS, INVALID_PARAMS, \
            MESSAGE_SIGNATURE_INVALID, MESSAGE_EXPIRED, INVALID_DISPLAY_NAME, NAME_RESERVED, MARKUP_NOT_ALLOWED, INVALID_IMAGE"),
        (status = 409, body = crate::error::ErrorBody, description = "NAME_TAKEN, or NONCE_USED (a replay)"),
        (status = 413, body = crate::error::ErrorBody, description = "PAYLOAD_TOO_LARGE: an avatar above 1 MiB"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "community"
)]
pub async fn put(
    State(state): State<AppState>,
    axum::Extension(limits): axum::Extension<Arc<Limits>>,
    ApiPath(wallet): ApiPath<String>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    ApiJson(req): ApiJson<SetProfile>,
) -> Result<Json<Profile>, ApiError> {
    limits.address(super::client(&state, &headers, &extensions))?;
    let wallet = address("wallet", Some(&wallet))?;
    let raw = req
        .name
        .as_deref()
        .ok_or_else(|| ApiError::missing("name"))?;
    let name = text::check_name(raw)?;
    let parts = message::Signed::read(
        req.nonce.as_deref(),
        req.expires_at,
        req.signature.as_deref(),
        state.now(),
    )?;
    let avatar = match req
        .avatar
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
    {
        None => None,
        Some(field) => {
            Some(crate::routes::launch::images::check_off_thread(field.to_string()).await?)
        }
    };
    let domain = super::domain(&headers)?;
    // The name as sent is what the wallet saw and signed.
    let signed = message::profile(
        &parts.envelope(&domain, &wallet),
        raw,
        avatar.as_ref().map(|a| a.hash.as_str()),
    );
    message::verify(&wallet, &signed, parts.signature)?;
    limits.wallet(&wallet.to_string())?;
    let avatar_hash = match avatar {
        None => None,
        Some(img) => {
            let png = tokio::task::spawn_blocking(move || reencode(&img.bytes))
                .await
                .map_err(|_| ApiError::unavailable("the image encoder failed"))??;
            let hash = message::sha256_hex(&png);
            state
                .images
                .namespace(AVATARS)
                .put(&hash, png)
                .await
                .map_err(crate::routes::launch::images::unavailable)?;
            Some(hash)
        }
    };
    let new = NewProfile {
        wallet: wallet.to_string(),
        name: name.display,
        name_key: name.key,
        avatar_hash,
        message: signed,
        signature: parts.signature.to_string(),
        nonce: parts.nonce.to_string(),
        expires_at: parts.expires_at,
        now: parts.now,
    };
    match state.store.set_profile(&new).await? {
        Ok(()) => {}
        Err(ProfileRefused::NonceUsed) => {
            return Err(ApiError::new(
                ErrorCode::NonceUsed,
                "this wallet used the nonce already: sign a new message",
            ))
        }
        Err(ProfileRefused::NameTaken) => {
            return Err(ApiError::new(
                ErrorCode::NameTaken,
                format!("another wallet holds the name {:?}", new.name),
            ))
        }
    }
    get(State(state), ApiPath(wallet.to_string())).await
}

#[utoipa::path(
    get,
    path = "/launchpad/avatars/{hash}",
    params(AvatarPath),
    responses(
        (status = 200, description = "The avatar, a PNG", content_type = "image/png"),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_PARAMS: not a SHA-256"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE: the image store"),
    ),
    tag = "community"
)]
pub async fn avatar(
    State(state): State<AppState>,
    ApiPath(hash): ApiPath<String>,
) -> Result<axum::response::Response, ApiError> {
    use axum::http::header;
    use axum::response::IntoResponse;
    if !image_store::is_hash(&hash) {
        return Err(ApiError::invalid(
            "an avatar is named by its SHA-256 in lowercase hex",
        ));
    }
    let bytes = state
        .images
        .namespace(AVATARS)
        .get(&hash)
        .await
        .map_err(crate::routes::launch::images::unavailable)?
        .ok_or_else(|| ApiError::not_found(format!("no avatar {hash}")))?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png".to_string()),
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
