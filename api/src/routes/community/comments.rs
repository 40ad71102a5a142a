//! `GET /launchpad/tokens/{mint}/comments` (a token's comments with their replies, newest or top first, a
//! page at a time) and `POST /launchpad/tokens/{mint}/comments` (a wallet posts a signed comment or reply).

use super::{message, text, Limits};
use crate::body::ApiJson;
use crate::error::{address, ApiError, ErrorCode};
use crate::extract::{ApiPath, ApiQuery};
use crate::json::Json;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use index::read::{Comment, CommentCursor, CommentEntry, CommentOrder};
use index::store::comments::{NewComment, Refused};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CommentsQuery {
    /// `newest` (default) or `top` (most visible replies, then newest).
    #[param(schema_with = order_schema)]
    pub order: Option<String>,
    /// Comments per page, 1 to 100; default 20.
    #[param(schema_with = crate::routes::trades::page_limit_schema)]
    pub limit: Option<String>,
    /// `nextCursor` of the page before.
    #[param(schema_with = cursor_schema)]
    pub cursor: Option<String>,
}

fn order_schema() -> utoipa::openapi::Object {
    web::schema::one_of(["newest", "top"]).build()
}

/// `<replies>.<id>`, as `nextCursor` hands it out.
fn cursor_schema() -> utoipa::openapi::Object {
    web::extract::pattern_schema(r"^[0-9]{1,18}\.[1-9][0-9]{0,17}$")
}

/// A page of comments.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommentsPage {
    pub comments: Vec<Comment>,
    /// The next page's `cursor`; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// A signed comment. The wallet signs the message `docs/api.md` ("Signed messages") describes, built from
/// these fields and the request's host; the server rebuilds it and verifies the signature.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostComment {
    /// The author (signs).
    #[schema(schema_with = crate::schema::solana_address)]
    pub wallet: Option<String>,
    /// Plain text, at most 500 characters; no markup.
    pub text: Option<String>,
    /// The comment this replies to (a top-level comment of the same token).
    pub reply_to: Option<i64>,
    /// 8 to 40 ASCII letters and digits, never used before by this wallet.
    pub nonce: Option<String>,
    /// Unix seconds; later than now and at most 600 s ahead.
    pub expires_at: Option<i64>,
    /// The ed25519 signature of the message, base58.
    pub signature: Option<String>,
}

fn order_of(s: Option<&str>) -> Result<CommentOrder, ApiError> {
    match s.map(str::trim) {
        None | Some("") | Some("newest") => Ok(CommentOrder::Newest),
        Some("top") => Ok(CommentOrder::Top),
        Some(other) => Err(ApiError::invalid(format!(
            "`order` is `newest` or `top`, not `{other}`"
        ))),
    }
}

/// Avatars as URLs (the index keeps their hashes).
pub(crate) fn with_avatar_url(state: &AppState, e: &mut CommentEntry) {
    if let Some(hash) = e.avatar.take() {
        e.avatar = Some(super::profiles::avatar_url(state, &hash));
    }
}

#[utoipa::path(
    get,
    path = "/launchpad/tokens/{mint}/comments",
    params(crate::extract::MintPath, CommentsQuery),
    responses(
        (status = 200, body = CommentsPage),
        (status = 400, body = crate::error::ErrorBody, description = "INVALID_ADDRESS or INVALID_PARAMS (order, limit, cursor)"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: no launch with this mint"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "community"
)]
pub async fn list(
    State(state): State<AppState>,
    ApiPath(mint): ApiPath<String>,
    ApiQuery(q): ApiQuery<CommentsQuery>,
) -> Result<Json<CommentsPage>, ApiError> {
    let mint = address("mint", Some(&mint))?;
    let order = order_of(q.order.as_deref())?;
    let limit = crate::routes::trades::limit_param(
        q.limit.as_deref(),
        20,
        crate::routes::trades::MAX_PAGE,
    )?;
    let after = match q.cursor.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        None => None,
        Some(c) => Some(
            CommentCursor::decode(c)
                .ok_or_else(|| ApiError::invalid("`cursor` is not one this endpoint handed out"))?,
        ),
    };
    if state.store.launch(&mint).await?.is_none() {
        return Err(ApiError::not_found(format!("no launch with mint {mint}")));
    }
    let mut page = state
        .store
        .comments(&mint.to_string(), order, after, limit)
        .await?;
    for c in &mut page.comments {
        with_avatar_url(&state, &mut c.comment);
        for r in &mut c.replies {
            with_avatar_url(&state, r);
        }
    }
    Ok(Json(CommentsPage {
        next_cursor: page.next.map(|c| c.encode()),
        comments: page.comments,
    }))
}

#[utoipa::path(
    post,
    path = "/launchpad/tokens/{mint}/comments",
    params(crate::extract::MintPath),
    request_body = PostComment,
    responses(
        (status = 201, body = CommentEntry, description = "Stored, and sent on the live feed (`kind: comment`)"),
        (status = 400, body = crate::error::ErrorBody, description = "MISSING_PARAMS, INVALID_ADDRESS, INVALID_PARAMS, \
            MESSAGE_SIGNATURE_INVALID, MESSAGE_EXPIRED, TEXT_TOO_LONG, MARKUP_NOT_ALLOWED, SECRET_MATERIAL"),
        (status = 403, body = crate::error::ErrorBody, description = "WALLET_HIDDEN"),
        (status = 404, body = crate::error::ErrorBody, description = "NOT_FOUND: no launch with this mint, or no comment `replyTo`"),
        (status = 409, body = crate::error::ErrorBody, description = "NONCE_USED: a replay"),
        (status = 503, body = crate::error::ErrorBody, description = "UNAVAILABLE"),
    ),
    tag = "community"
)]
pub async fn post(
    State(state): State<AppState>,
    axum::Extension(limits): axum::Extension<Arc<Limits>>,
    ApiPath(mint): ApiPath<String>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    ApiJson(req): ApiJson<PostComment>,
) -> Result<(StatusCode, Json<CommentEntry>), ApiError> {
    limits.address(super::client(&state, &headers, &extensions))?;
    let mint = address("mint", Some(&mint))?;
    let wallet = address("wallet", req.wallet.as_deref())?;
    let body = req
        .text
        .as_deref()
        .ok_or_else(|| ApiError::missing("text"))?;
    text::check_comment(body)?;
    let parts = message::Signed::read(
        req.nonce.as_deref(),
        req.expires_at,
        req.signature.as_deref(),
        state.now(),
    )?;
    let domain = super::domain(&headers)?;
    let signed = message::comment(&parts.envelope(&domain, &wallet), &mint, req.reply_to, body);
    message::verify(&wallet, &signed, parts.signature)?;
    limits.wallet(&wallet.to_string())?;
    if state.store.launch(&mint).await?.is_none() {
        return Err(ApiError::not_found(format!("no launch with mint {mint}")));
    }
    let author = wallet.to_string();
    if state.store.wallet_hidden(&author).await? {
        return Err(ApiError::new(
            ErrorCode::WalletHidden,
            "an operator hid this wallet's comments",
        ));
    }
    let holding = state.store.balance_of(&author, &mint.to_string()).await?;
    let name = state
        .store
        .profile_names(std::slice::from_ref(&author))
        .await?
        .into_iter()
        .next()
        .map(|p| p.name);
    let new = NewComment {
        mint: mint.to_string(),
        wallet: author,
        reply_to: req.reply_to,
        text: body.to_string(),
        holding,
        name,
        message: signed,
        signature: parts.signature.to_string(),
        nonce: parts.nonce.to_string(),
        expires_at: parts.expires_at,
        now: parts.now,
        slot: state.indexed_slot().await.unwrap_or(0),
    };
    let id = match state.store.post_comment(&new).await? {
        Ok(id) => id,
        Err(Refused::NonceUsed) => {
            return Err(ApiError::new(
                ErrorCode::NonceUsed,
                "this wallet used the nonce already: sign a new message",
            ))
        }
        Err(Refused::NoParent) => {
            return Err(ApiError::not_found(format!(
                "no comment {} on this token to reply to",
                req.reply_to.unwrap_or_default()
            )))
        }
        Err(Refused::ParentIsReply) => return Err(ApiError::invalid(
            "`replyTo` names a reply: reply to its top-level comment (replies thread one level)",
        )),
    };
    let mut entry = state.store.comment(id).await?.ok_or_else(|| {
        ApiError::unavailable("the comment was stored but cannot be read back yet")
    })?;
    with_avatar_url(&state, &mut entry);
    Ok((StatusCode::CREATED, Json(entry)))
}
