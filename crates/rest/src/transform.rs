//! Helpers for the transform recipes of spec 2.4: key case, key rename, a primary
//! key copied from the params, the `Link` header and `Content-Disposition`.

use rdc_core::json::{Map, Value};

pub use crate::link::{parse_link_header, Link};

/// `camelCase` -> `snake_case` for one key.
///
/// ```
/// assert_eq!(rdc_rest::transform::snake_case("currentViewers"), "current_viewers");
/// assert_eq!(rdc_rest::transform::snake_case("already_snake"), "already_snake");
/// ```
pub fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for (i, c) in key.char_indices() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `snake_case` -> `camelCase` for one key.
///
/// ```
/// assert_eq!(rdc_rest::transform::camel_case("current_viewers"), "currentViewers");
/// ```
pub fn camel_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Renames every object key, recursively through objects and arrays; values that
/// are not objects or arrays (including null) are kept as they are.
///
/// ```
/// use rdc_core::json;
/// use rdc_rest::transform::{deep_rename_keys, snake_case};
/// let v = deep_rename_keys(json!({"firstName": "A", "tags": [{"tagName": null}]}), &snake_case);
/// assert_eq!(v, json!({"first_name": "A", "tags": [{"tag_name": null}]}));
/// ```
pub fn deep_rename_keys(value: Value, rename: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (rename(&k), deep_rename_keys(v, rename))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|v| deep_rename_keys(v, rename)).collect()),
        other => other,
    }
}

/// Replaces key `from` by `to` in an object (the old key is removed); other values
/// are returned unchanged.
///
/// ```
/// use rdc_core::json;
/// let v = rdc_rest::transform::rename_key(json!({"userName": "a"}), "userName", "login");
/// assert_eq!(v, json!({"login": "a"}));
/// ```
pub fn rename_key(value: Value, from: &str, to: &str) -> Value {
    match value {
        Value::Object(mut map) => {
            if let Some(v) = map.remove(from) {
                map.insert(to.to_owned(), v);
            }
            Value::Object(map)
        }
        other => other,
    }
}

/// Copies path parameter `param` of `args` into `value` as field `field` (when the
/// value is an object and the parameter exists), for responses that lack their pk.
///
/// ```
/// use rdc_core::json;
/// let args = json!({"productId": "BTC-USD"});
/// let v = rdc_rest::transform::pk_from_params(json!({"price": "1"}), args.as_object().unwrap(), "productId", "product_id");
/// assert_eq!(v, json!({"price": "1", "product_id": "BTC-USD"}));
/// ```
pub fn pk_from_params(value: Value, args: &Map, param: &str, field: &str) -> Value {
    match (value, args.get(param)) {
        (Value::Object(mut map), Some(pk)) => {
            map.insert(field.to_owned(), pk.clone());
            Value::Object(map)
        }
        (value, _) => value,
    }
}

/// The filename of a `Content-Disposition` header: `filename*=UTF-8''...` (RFC 5987,
/// preferred), else `filename=` quoted or not; `None` when there is none. Path
/// separators and control characters are removed, and `.`/`..` give `None`.
///
/// ```
/// use rdc_rest::transform::content_disposition_filename as f;
/// assert_eq!(f(r#"attachment; filename="a b.txt""#).as_deref(), Some("a b.txt"));
/// assert_eq!(f("attachment; filename*=UTF-8''%E2%9C%93.txt; filename=x.txt").as_deref(), Some("✓.txt"));
/// assert_eq!(f(r#"attachment; filename="../../etc/passwd""#).as_deref(), Some("....etcpasswd"));
/// assert_eq!(f("inline"), None);
/// ```
pub fn content_disposition_filename(header: &str) -> Option<String> {
    let params = split_params(header);
    let extended =
        params.iter().find(|(k, _)| k.eq_ignore_ascii_case("filename*")).and_then(|(_, v)| decode_rfc5987(v));
    let plain = params.iter().find(|(k, _)| k.eq_ignore_ascii_case("filename")).map(|(_, v)| v.clone());
    let name: String = extended.or(plain)?.chars().filter(|c| !c.is_control() && *c != '/' && *c != '\\').collect();
    let name = name.trim().to_owned();
    (!name.is_empty() && name != "." && name != "..").then_some(name)
}

/// `key=value` parameters after the first `;`, unquoting quoted values
/// (semicolons inside quotes do not split).
fn split_params(header: &str) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in header.chars() {
        match c {
            _ if escaped => {
                current.push(c);
                escaped = false;
            }
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ';' if !quoted => parts.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .skip(1)
        .filter_map(|p| p.split_once('=').map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())))
        .collect()
}

/// Decodes `UTF-8''%E2%9C%93.txt` (RFC 5987); other charsets are treated as UTF-8
/// when they decode as such.
fn decode_rfc5987(value: &str) -> Option<String> {
    let mut parts = value.splitn(3, '\'');
    let _charset = parts.next()?;
    let _language = parts.next()?;
    let encoded = parts.next()?;
    let bytes = percent_decode(encoded)?;
    String::from_utf8(bytes).ok()
}

fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes.get(i) {
            Some(b'%') => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            Some(&b) => {
                out.push(b);
                i += 1;
            }
            None => break,
        }
    }
    Some(out)
}
