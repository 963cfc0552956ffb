//! Compressed answers (issue 48): the pages, their scripts and the JSON,
//! gzip or brotli as the client's `Accept-Encoding` asks (brotli first when
//! both are), with `Vary: Accept-Encoding`; nothing when it asks neither.
//!
//! Only the routes that read (GET, and HEAD with it: `http/mod.rs`'s
//! `Routes::get`) have the layer: a command's answer (a wager's, a slip's,
//! a sign-in's) is a few hundred bytes at most, and the layer's wrapping of
//! every answer cost each wager about a hundredth of its CPU
//! (docs/performance.md, "CPU per wager").
//!
//! Not compressed: a WebSocket's upgrade (`101`, no body to compress; its
//! messages are the socket's own), a body under [`MIN_BYTES`] (too small to
//! gain, the bulk of the API's answers to commands), images and event
//! streams, and an answer already encoded (one a holder compressed, passed
//! through by a standby: `forward.rs`). The pages carry no `ETag` (they are
//! `Cache-Control: no-cache`, `web.rs`), so none has to differ by encoding.
//! brotli is at quality 4 (tower-http's default), cheap enough for answers
//! made on each request.

use axum::http::{Extensions, HeaderMap, StatusCode, Version};
use tower_http::compression::predicate::{NotForContentType, Predicate, SizeAbove};
use tower_http::compression::CompressionLayer;

/// The smallest body compressed, in bytes.
pub const MIN_BYTES: u64 = 512;

/// The layer, on each route that reads.
pub fn layer() -> CompressionLayer<impl Predicate> {
    let not_an_upgrade =
        |status: StatusCode, _: Version, _: &HeaderMap, _: &Extensions| status != StatusCode::SWITCHING_PROTOCOLS;
    let when = SizeAbove::new(MIN_BYTES).and(NotForContentType::IMAGES).and(NotForContentType::SSE).and(not_an_upgrade);
    CompressionLayer::new().gzip(true).br(true).no_deflate().no_zstd().compress_when(when)
}
