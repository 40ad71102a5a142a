//! JSON responses, serialized into one buffer.

use crate::error::{ApiError, ErrorCode};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

/// A JSON response. Unlike `axum::Json`, which writes through a `BytesMut` growing from 128 bytes (a call and
/// a capacity check per token, several reallocations for a quote), it serializes into a `Vec` started at
/// [`RESPONSE_CAPACITY`]: serialization was a third of a quote's time in the handler.
pub struct Json<T>(pub T);

/// Starting size of a response buffer: a Solana quote (about 1.5 KB) fits without growing.
pub const RESPONSE_CAPACITY: usize = 2048;

impl<T: serde::Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        let mut buf = Vec::with_capacity(RESPONSE_CAPACITY);
        match serde_json::to_writer(&mut buf, &self.0) {
            Ok(()) => (
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
                buf,
            )
                .into_response(),
            Err(e) => ApiError::new(
                ErrorCode::Internal,
                format!("the response could not be serialized: {e}"),
            )
            .into_response(),
        }
    }
}
