//! Helpers for the transform recipes of spec 2.4: key case, key rename, a primary
//! key copied from the params, the `Link` header and `Content-Disposition`.

use rdc_core::json::{Map, Value};

pub use crate::disposition::content_disposition_filename;
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
