//! Launches built elsewhere (an SDK, a bot, another front-end) are listed like the ones this service
//! prepared; their description, image and links are in the metadata JSON their URI on chain points to. The
//! indexer queues every launch it writes (`launch_offchain`); this worker, in every API replica and off the
//! ingest path, claims the due ones, reads the JSON (Metaplex's token-metadata conventions: `description`,
//! `image` or `properties.files`, `external_url`, `extensions.{website,twitter,telegram}`, and the same at
//! the top level as other launchpads write them) through [`fetch`]'s guarded client, and the image through
//! the launch form's checks into the image store. A failure that may pass is retried with backoff
//! ([`retry_delay`]); after the last attempt, or at once for one that cannot pass, the launch stays listed
//! with its on-chain name, symbol and URI.

pub use web::fetch;

use crate::routes::launch::{images, link, MAX_DESCRIPTION_CHARS, TELEGRAM_HOSTS, TWITTER_HOSTS};
use crate::state::AppState;
use fetch::{FetchError, Fetcher, MAX_JSON_BYTES};
use futures::StreamExt;
use index::store::offchain::{DueMetadata, FetchedMetadata};
use serde_json::Value;
use std::time::Duration;

/// Launches taken per round.
pub const BATCH: u32 = 16;
/// Launches read at once per replica.
pub const CONCURRENCY: usize = 4;
/// How long a claimed launch is this worker's before another may take it (a replica that died mid-read).
pub const LEASE_SECS: i64 = 120;

/// The wait before the next attempt after `attempts` failed ones: 1 minute, 10 minutes, 1 hour, 6 hours;
/// `None` after the fifth: given up.
pub fn retry_delay(attempts: u32) -> Option<i64> {
    match attempts {
        0 | 1 => Some(60),
        2 => Some(600),
        3 => Some(3_600),
        4 => Some(6 * 3_600),
        _ => None,
    }
}

/// What a metadata JSON says, as found (nothing fetched beyond it yet).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    /// At most [`MAX_DESCRIPTION_CHARS`] characters, control characters but newlines removed.
    pub description: String,
    /// The image's URL (or a `data:` URL), as written.
    pub image: Option<String>,
    /// Links that pass the launch form's checks (others are dropped).
    pub website: Option<String>,
    pub twitter: Option<String>,
    pub telegram: Option<String>,
}

/// Reads a metadata JSON: an object, or [`FetchError::NotJson`].
pub fn parse(body: &[u8]) -> Result<Metadata, FetchError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| FetchError::NotJson(e.to_string()))?;
    let Value::Object(doc) = value else {
        return Err(FetchError::NotJson("not an object".into()));
    };
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let extensions = doc.get("extensions");
    // `extensions.<key>` (Metaplex), else `<key>` at the top level.
    let named =
        |key: &str| text(extensions.and_then(|e| e.get(key))).or_else(|| text(doc.get(key)));
    let image = text(doc.get("image")).or_else(|| {
        doc.get("properties")?
            .get("files")?
            .as_array()?
            .iter()
            .find(|f| {
                f.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t.starts_with("image/"))
            })
            .and_then(|f| text(f.get("uri")))
    });
    let checked = |field: &str, v: Option<String>, hosts: &[&str]| {
        link(field, v.as_deref(), hosts).ok().flatten()
    };
    Ok(Metadata {
        description: text(doc.get("description"))
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_control() || *c == '\n')
            .take(MAX_DESCRIPTION_CHARS)
            .collect(),
        image,
        website: checked(
            "website",
            named("website").or_else(|| text(doc.get("external_url"))),
            &[],
        ),
        twitter: checked("twitter", named("twitter"), &TWITTER_HOSTS),
        telegram: checked("telegram", named("telegram"), &TELEGRAM_HOSTS),
    })
}

/// The image at `url` (or in a `data:` URL), checked as the launch form checks one and stored; its hash.
async fn image(state: &AppState, fetcher: &Fetcher, url: &str) -> Result<String, FetchError> {
    let checked = if url.starts_with("data:") {
        images::check_off_thread(url.to_string()).await
    } else {
        let bytes = fetcher.get(url, images::MAX_IMAGE_BYTES).await?;
        images::check_bytes_off_thread(bytes).await
    }
    .map_err(|e| FetchError::Image(e.message.clone()))?;
    images::save(state, &checked, state.now())
        .await
        .map_err(|e| FetchError::Http(e.message.clone()))?;
    Ok(checked.hash)
}

/// Reads the metadata at `uri` and its image. An image refused as it is (not an image, too large, not
/// http) leaves the metadata without one; one that may pass (a timeout) fails the attempt.
pub async fn read(
    state: &AppState,
    fetcher: &Fetcher,
    uri: &str,
) -> Result<FetchedMetadata, FetchError> {
    let m = parse(&fetcher.get(uri, MAX_JSON_BYTES).await?)?;
    let image_hash = match m.image.as_deref() {
        None => None,
        Some(url) => match image(state, fetcher, url).await {
            Ok(hash) => Some(hash),
            Err(e) if e.permanent() => {
                tracing::info!("the image of {uri} is not taken: {e}");
                None
            }
            Err(e) => return Err(e),
        },
    };
    Ok(FetchedMetadata {
        description: m.description,
        image_hash,
        website: m.website,
        twitter: m.twitter,
        telegram: m.telegram,
    })
}

/// One due launch: claimed, then read (or marked prepared), its outcome stored.
async fn one(state: &AppState, fetcher: &Fetcher, due: DueMetadata) -> anyhow::Result<()> {
    let now = state.now();
    if !state.store.claim_metadata(&due, now + LEASE_SECS).await? {
        return Ok(());
    }
    if due.prepared {
        state.store.metadata_prepared(&due.mint).await?;
        return Ok(());
    }
    match read(state, fetcher, &due.uri).await {
        Ok(m) => {
            state
                .store
                .metadata_fetched(&due.mint, &m, state.now())
                .await?
        }
        Err(e) => {
            let attempts = due.attempts.saturating_add(1);
            let retry_at = match e.permanent() {
                true => None,
                false => retry_delay(attempts).map(|d| state.now() + d),
            };
            tracing::info!(
                mint = %due.mint,
                attempts,
                retry = retry_at.is_some(),
                "the metadata at {} is not read: {e}",
                due.uri
            );
            // Stored without the URI's host's own words beyond ours (they are the stranger's), and redacted as
            // the log is (the row outlives the log line, and an error may quote a URL with a key).
            let error: String = crate::redact::redact(&e.to_string())
                .chars()
                .take(500)
                .collect();
            state
                .store
                .metadata_failed(&due.mint, &error, retry_at)
                .await?;
        }
    }
    Ok(())
}

/// One round: the due launches (up to [`BATCH`]), [`CONCURRENCY`] at a time; how many were due.
pub async fn round(state: &AppState, fetcher: &Fetcher) -> usize {
    let due = match state.store.due_metadata(state.now(), BATCH).await {
        Ok(due) => due,
        Err(e) => {
            tracing::warn!("metadata worker: {e}");
            return 0;
        }
    };
    let n = due.len();
    futures::stream::iter(due)
        .map(|d| async move {
            if let Err(e) = one(state, fetcher, d).await {
                tracing::warn!("metadata worker: {e:#}");
            }
        })
        .buffer_unordered(CONCURRENCY)
        .collect::<()>()
        .await;
    n
}

/// The worker: a round every `--metadata-poll-ms` (at once again after a full one), until the listener
/// closes.
pub async fn worker(state: AppState, mut shutdown: tokio::sync::watch::Receiver<bool>) {
    let fetcher = match Fetcher::new(
        Duration::from_secs(state.config.metadata_fetch_timeout_secs.max(1)),
        state.config.metadata_fetch_private,
    ) {
        Ok(f) => f,
        Err(e) => {
            tracing::error!("the metadata worker cannot start: {e}");
            return;
        }
    };
    let every = Duration::from_millis(state.config.metadata_poll_ms.max(10));
    loop {
        if *shutdown.borrow() {
            return;
        }
        if round(&state, &fetcher).await < BATCH as usize {
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = shutdown.wait_for(|s| *s) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metaplex_and_flat_shapes() {
        let metaplex = br#"{"name":"Dog","symbol":"DOG","description":"a dog\u0007 coin\nyes",
            "image":"https://cdn.example.org/dog.png","external_url":"https://dog.example.org",
            "extensions":{"twitter":"https://x.com/dog","telegram":"https://t.me/dogs"},
            "properties":{"files":[{"uri":"https://cdn.example.org/other.png","type":"image/png"}],"category":"image"}}"#;
        assert_eq!(
            parse(metaplex).unwrap(),
            Metadata {
                description: "a dog coin\nyes".into(),
                image: Some("https://cdn.example.org/dog.png".into()),
                website: Some("https://dog.example.org".into()),
                twitter: Some("https://x.com/dog".into()),
                telegram: Some("https://t.me/dogs".into()),
            }
        );
        // Flat (as other launchpads write it), the image in `properties.files`, bad links dropped.
        let flat = br#"{"description":"x","website":"javascript:alert(1)","twitter":"https://evil.example/x",
            "telegram":"https://t.me/ok","properties":{"files":[{"uri":"https://a.example/f.txt","type":"text/plain"},
            {"uri":"https://a.example/i.webp","type":"image/webp"}]}}"#;
        assert_eq!(
            parse(flat).unwrap(),
            Metadata {
                description: "x".into(),
                image: Some("https://a.example/i.webp".into()),
                website: None,
                twitter: None,
                telegram: Some("https://t.me/ok".into()),
            }
        );
        let long = format!(r#"{{"description":"{}"}}"#, "é".repeat(5_000));
        assert_eq!(
            parse(long.as_bytes()).unwrap().description.chars().count(),
            MAX_DESCRIPTION_CHARS
        );
        assert!(matches!(parse(b"<html>"), Err(FetchError::NotJson(_))));
        assert!(matches!(parse(b"[1,2]"), Err(FetchError::NotJson(_))));
        assert_eq!(parse(b"{}").unwrap(), Metadata::default());
    }

    #[test]
    fn retries_back_off_then_stop() {
        let delays: Vec<Option<i64>> = (1..=6).map(retry_delay).collect();
        assert_eq!(
            delays,
            [Some(60), Some(600), Some(3_600), Some(21_600), None, None]
        );
    }
}
