//! The image formats requests may carry (PNG, JPEG, GIF, WebP), recognised by their signature: what the
//! secret scan skips as opaque, and what the launch images accept.

use base64::Engine;

/// The bytes of a base64 image field: plain base64, or a `data:<type>;base64,` URL (its type is ignored).
pub fn base64_bytes(field: &str) -> Option<Vec<u8>> {
    let b64 = match field.strip_prefix("data:") {
        Some(rest) => rest.split_once(";base64,")?.1,
        None => field,
    };
    let b64: String = b64.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD.decode(b64).ok()
}

/// The content type of the formats accepted, by their signature; `None` for anything else.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    match image::guess_format(bytes).ok()? {
        image::ImageFormat::Png => Some("image/png"),
        image::ImageFormat::Jpeg => Some("image/jpeg"),
        image::ImageFormat::Gif => Some("image/gif"),
        image::ImageFormat::WebP => Some("image/webp"),
        _ => None,
    }
}
