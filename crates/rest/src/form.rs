//! Bodies sent as an HTML form sends them: `application/x-www-form-urlencoded`.

use rdc_core::json::Value;

/// `body` (an object) as form fields, `name=value` joined by `&`: a string as
/// it is, another scalar as its JSON text, each item of a list as a field of
/// the member's name; a `null` member is left out. Names and values are
/// encoded as the WHATWG URL standard's form serializer does (space as `+`,
/// bytes other than letters, digits and `*-._` as `%XX`). `Err` names what
/// cannot be a field: a body that is no object, or a member holding an object.
///
/// ```
/// let body = rdc_core::json!({ "q": "rust & leptos", "page": 2, "tag": ["a", "b"], "none": null });
/// assert_eq!(rdc_rest::form_fields(&body).unwrap(), "q=rust+%26+leptos&page=2&tag=a&tag=b");
/// assert!(rdc_rest::form_fields(&rdc_core::json!({ "user": { "id": 1 } })).is_err());
/// ```
pub fn form_fields(body: &Value) -> Result<String, String> {
    let Value::Object(members) = body else { return Err(format!("a form body is an object, not {}", body.kind())) };
    let mut fields = Vec::new();
    for (name, value) in members.iter() {
        let items = match value {
            Value::Array(items) => items.as_slice(),
            other => std::slice::from_ref(other),
        };
        for item in items {
            let text = match item {
                Value::Null => continue,
                Value::String(text) => text.as_str().to_owned(),
                Value::Array(_) | Value::Object(_) => {
                    return Err(format!("member `{name}` holds {}, which a form field cannot", item.kind()))
                }
                scalar => rdc_core::json_text(scalar),
            };
            fields.push(format!("{}={}", encoded(name), encoded(&text)));
        }
    }
    Ok(fields.join("&"))
}

/// `text` under the form serializer's percent-encode set.
fn encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b' ' => out.push('+'),
            b'*' | b'-' | b'.' | b'_' => out.push(char::from(byte)),
            _ if byte.is_ascii_alphanumeric() => out.push(char::from(byte)),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
