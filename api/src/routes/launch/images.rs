//! Launch images: base64 (or a `data:image/...;base64,` URL) in the prepare body, accepted only when the
//! `image` crate decodes it as PNG, JPEG, GIF or WebP within [`MAX_IMAGE_BYTES`] and
//! [`MAX_IMAGE_SIDE`]; the name or a claimed content type is never trusted. Stored content-addressed by
//! SHA-256: the bytes in the image store (`--image-store`, namespace [`LAUNCHES`]), the content type and the
//! time it was last stored in the `images` table.

use crate::error::{ApiError, ErrorCode};
use sha2::{Digest, Sha256};

/// Largest image, bytes (1 MiB).
pub const MAX_IMAGE_BYTES: usize = 1 << 20;
/// Largest width or height, pixels.
pub const MAX_IMAGE_SIDE: u32 = 4_096;
/// Largest prepare body: a 1 MiB image in base64 and the rest of the launch.
pub const PREPARE_BODY_LIMIT: usize = MAX_IMAGE_BYTES / 3 * 4 + 64 * 1024;

/// A checked image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub bytes: Vec<u8>,
    pub content_type: &'static str,
    /// SHA-256 of the bytes, hex.
    pub hash: String,
}

pub use web::image::{base64_bytes, sniff};

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidImage, message)
}

/// Checks an image field: 400 `INVALID_IMAGE` when it is not base64 of a PNG, JPEG, GIF or WebP that
/// decodes, 413 `PAYLOAD_TOO_LARGE` above 1 MiB.
pub fn check(field: &str) -> Result<Image, ApiError> {
    let bytes = base64_bytes(field)
        .ok_or_else(|| invalid("`image` must be base64 (or a data URL with base64)"))?;
    check_bytes(bytes)
}

/// Checks an image's bytes as [`check`] does (the launch form's rules, whatever brought the bytes: a
/// prepare's body, or a launch's metadata URI).
pub fn check_bytes(bytes: Vec<u8>) -> Result<Image, ApiError> {
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            "`image` is larger than 1 MiB",
        ));
    }
    let content_type =
        sniff(&bytes).ok_or_else(|| invalid("`image` must be a PNG, JPEG, GIF or WebP image"))?;
    // The header's dimensions first: an image too large to accept is refused before any pixel is decoded.
    let (width, height) = image::ImageReader::new(std::io::Cursor::new(&bytes))
        .with_guessed_format()
        .map_err(|_| invalid("`image` cannot be read"))?
        .into_dimensions()
        .map_err(|_| invalid(format!("`image` is not a readable {content_type}")))?;
    if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(invalid(format!(
            "`image` is {width}x{height} pixels; at most {MAX_IMAGE_SIDE}x{MAX_IMAGE_SIDE}"
        )));
    }
    let mut reader = image::ImageReader::new(std::io::Cursor::new(&bytes));
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(128 << 20);
    reader.limits(limits);
    reader
        .with_guessed_format()
        .map_err(|_| invalid("`image` cannot be read"))?
        .decode()
        .map_err(|e| {
            invalid(format!(
                "`image` does not decode as {content_type} (at most {MAX_IMAGE_SIDE}x{MAX_IMAGE_SIDE}): {e}"
            ))
        })?;
    let hash = hex::encode(Sha256::digest(&bytes));
    Ok(Image {
        bytes,
        content_type,
        hash,
    })
}

/// The image store's namespace of launch images.
pub const LAUNCHES: &str = "launches";

/// The launch images of `state`'s image store.
pub fn store(state: &crate::state::AppState) -> image_store::ImageStore {
    state.images.namespace(LAUNCHES)
}

/// An image store failure as a caller sees it: 503 without the store's own words (an S3 error names the
/// endpoint, the bucket and the key), which go to the log, redacted like every line.
pub fn unavailable(e: image_store::Error) -> ApiError {
    tracing::warn!("the image store failed: {e}");
    ApiError::unavailable("the image store is unavailable; try again shortly")
}

/// Images moved per round by [`move_to_store`].
const MOVE_CHUNK: i64 = 50;

/// Copies the images whose bytes are still in the database (stored before the image store) into `images`,
/// then clears their bytes in the database: once, at start, in chunks; a replica that starts meanwhile
/// copies the same bytes again, harmlessly. The number moved.
pub async fn move_to_store(
    store: &index::Store,
    images: &image_store::ImageStore,
) -> anyhow::Result<u64> {
    let launches = images.namespace(LAUNCHES);
    let mut moved = 0u64;
    loop {
        let chunk = store.images_in_database(MOVE_CHUNK).await?;
        if chunk.is_empty() {
            return Ok(moved);
        }
        for (hash, bytes) in chunk {
            launches.put(&hash, bytes).await?;
            store.clear_image_data(&hash).await?;
            moved += 1;
        }
    }
}

/// Images decoded at once, process-wide: decoding is CPU work, kept off the request path's threads and
/// bounded so that a burst of launches cannot take every core.
pub const DECODE_CONCURRENCY: usize = 2;

/// [`check`] on a blocking thread, at most [`DECODE_CONCURRENCY`] at a time.
pub async fn check_off_thread(field: String) -> Result<Image, ApiError> {
    off_thread(move || check(&field)).await
}

/// [`check_bytes`] on a blocking thread, at most [`DECODE_CONCURRENCY`] at a time (with [`check_off_thread`]'s).
pub async fn check_bytes_off_thread(bytes: Vec<u8>) -> Result<Image, ApiError> {
    off_thread(move || check_bytes(bytes)).await
}

async fn off_thread(
    check: impl FnOnce() -> Result<Image, ApiError> + Send + 'static,
) -> Result<Image, ApiError> {
    static DECODING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(DECODE_CONCURRENCY);
    let _permit = DECODING
        .acquire()
        .await
        .map_err(|_| ApiError::unavailable("the image decoder is shut down"))?;
    tokio::task::spawn_blocking(check)
        .await
        .map_err(|_| ApiError::unavailable("the image decoder failed"))?
}

/// Stores a checked image: its record first (a sweep deleting the same image meanwhile finishes before it,
/// see `Store::register_image`, so the bytes stored next stay), then its bytes in the image store.
pub async fn save(state: &crate::state::AppState, img: &Image, now: i64) -> Result<(), ApiError> {
    state
        .store
        .register_image(&img.hash, img.content_type, now)
        .await?;
    store(state)
        .put(&img.hash, img.bytes.clone())
        .await
        .map_err(unavailable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use base64::Engine;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_pixel(w, h, image::Rgb([200, 30, 90]));
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn images_are_checked_by_decoding() {
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let ok = check(&b64(&png(8, 8))).unwrap();
        assert_eq!(ok.content_type, "image/png");
        assert_eq!(ok.hash.len(), 64);
        let url = format!("data:image/jpeg;base64,{}", b64(&png(8, 8)));
        assert_eq!(check(&url).unwrap().content_type, "image/png");
        // A PNG signature over garbage, text, and a format not accepted.
        let mut broken = png(8, 8);
        broken.truncate(40);
        assert_eq!(check(&b64(&broken)).unwrap_err().code, "INVALID_IMAGE");
        assert_eq!(check(&b64(b"hello")).unwrap_err().code, "INVALID_IMAGE");
        assert_eq!(check("not base64!").unwrap_err().code, "INVALID_IMAGE");
        assert_eq!(
            check(&b64(b"BM\x00\x00")).unwrap_err().code,
            "INVALID_IMAGE"
        );
        assert_eq!(
            check(&b64(&vec![0u8; MAX_IMAGE_BYTES + 1]))
                .unwrap_err()
                .status,
            StatusCode::PAYLOAD_TOO_LARGE
        );
        assert_eq!(
            check(&b64(&png(MAX_IMAGE_SIDE + 1, 1))).unwrap_err().code,
            "INVALID_IMAGE"
        );
    }
}
