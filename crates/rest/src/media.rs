//! Media types (RFC 9110 §8.3.1): which `Content-Type`s are JSON.

use crate::params::is_token;

/// Whether `content_type` is a JSON media type as the WHATWG MIME Sniffing
/// standard defines one: `application/json`, `text/json`, or any type whose
/// subtype ends in `+json` (`application/problem+json`); type and subtype are
/// HTTP tokens compared without case, parameters (`; charset=utf-8`) ignored.
/// `text/x-not-json` or `application/jsonp` are not JSON.
pub(crate) fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim_matches([' ', '\t', '\r', '\n']);
    let Some((kind, subtype)) = essence.split_once('/') else { return false };
    if !is_token(kind) || !is_token(subtype) {
        return false;
    }
    let (kind, subtype) = (kind.to_ascii_lowercase(), subtype.to_ascii_lowercase());
    let suffixed = subtype.strip_suffix("+json").is_some_and(|prefix| !prefix.is_empty());
    suffixed || (subtype == "json" && (kind == "application" || kind == "text"))
}
