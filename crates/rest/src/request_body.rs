//! What a request sends: JSON, text, a blob, or a multipart form with files.

use std::borrow::Cow;

use rdc_core::json::Value;
use serde::Serialize;

use crate::Blob;
#[cfg(feature = "multipart")]
use crate::Multipart;

/// A request's body. An endpoint's `request_init` turns [`RequestBody::Json`]
/// into text (or form fields); the others go to the client as they are.
///
/// ```
/// use rdc_rest::{Blob, Multipart, RequestBody};
/// let json: RequestBody = rdc_core::json!({ "name": "Ada" }).into();
/// let form: RequestBody = Multipart::new().text("title", "Cat").into();
/// let bytes: RequestBody = Blob::from_bytes(vec![1, 2, 3], "application/octet-stream").into();
/// assert_eq!(json.json_view().unwrap()["name"], "Ada");
/// assert_eq!(form.json_view().unwrap()["title"], "Cat");
/// assert!(bytes.json_view().is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive] // `Multipart` comes with a feature: a match elsewhere needs `_`.
pub enum RequestBody {
    /// JSON, encoded by the endpoint (as JSON text, or as form fields for a
    /// [`form`](crate::RestEndpoint::form) endpoint).
    Json(Value),
    /// Text, sent as it is.
    Text(String),
    /// A blob (a file, bytes), sent as it is with its MIME type.
    Blob(Blob),
    /// `multipart/form-data`: text fields and files. The client writes the
    /// content type with its boundary. (Feature `multipart`.)
    #[cfg(feature = "multipart")]
    Multipart(Multipart),
}

impl RequestBody {
    /// The body as JSON for an optimistic update: JSON as it is, text as a
    /// string, a form as its [`Multipart::fields`]; a blob has none.
    pub fn json_view(&self) -> Option<Cow<'_, Value>> {
        match self {
            RequestBody::Json(value) => Some(Cow::Borrowed(value)),
            RequestBody::Text(text) => Some(Cow::Owned(Value::from(text.as_str()))),
            #[cfg(feature = "multipart")]
            RequestBody::Multipart(form) => Some(Cow::Owned(form.fields())),
            RequestBody::Blob(_) => None,
        }
    }

    /// The body with `f` applied to it if it is JSON (a `request_init`
    /// override's transform); other bodies as they are.
    ///
    /// ```
    /// use rdc_rest::RequestBody;
    /// let body = RequestBody::Json(rdc_core::json!({ "a": 1 })).map_json(|_| rdc_core::json!({ "b": 2 }));
    /// assert_eq!(body, RequestBody::Json(rdc_core::json!({ "b": 2 })));
    /// ```
    #[must_use]
    pub fn map_json(self, f: impl FnOnce(Value) -> Value) -> RequestBody {
        match self {
            RequestBody::Json(value) => RequestBody::Json(f(value)),
            other => other,
        }
    }

    /// The text sent, when the body is text (what `request_init` makes of JSON).
    pub fn as_text(&self) -> Option<&str> {
        match self {
            RequestBody::Text(text) => Some(text),
            _ => None,
        }
    }
}

impl From<Value> for RequestBody {
    fn from(value: Value) -> RequestBody {
        RequestBody::Json(value)
    }
}

/// A body saved with a mutation held offline (`rdc_controller::Persist::replay`):
/// JSON as `{"json": ..}`, text as `{"text": ".."}`; a blob or a form
/// (`RequestBody::Multipart`, with or without files) is not saved (its
/// mutation is reported after a reload, not sent).
///
/// ```
/// use rdc_controller::SavedBody;
/// use rdc_rest::{Blob, RequestBody};
/// let body = RequestBody::Json(rdc_core::json!({ "title": "milk" }));
/// let saved = body.to_saved().unwrap();
/// assert_eq!(saved, rdc_core::json!({ "json": { "title": "milk" } }));
/// assert_eq!(RequestBody::from_saved(saved), Ok(body));
/// assert!(RequestBody::Blob(Blob::from_bytes(vec![1], "image/png")).to_saved().is_none());
/// assert!(RequestBody::from_saved(rdc_core::json!({ "blob": 1 })).is_err());
/// ```
impl rdc_controller::SavedBody for RequestBody {
    fn to_saved(&self) -> Option<Value> {
        let (tag, value) = match self {
            RequestBody::Json(value) => ("json", value.clone()),
            RequestBody::Text(text) => ("text", Value::from(text.as_str())),
            _ => return None,
        };
        let mut saved = rdc_core::json::Map::new();
        saved.insert(tag.to_owned(), value);
        Some(Value::Object(saved))
    }

    fn from_saved(saved: Value) -> Result<RequestBody, String> {
        let Value::Object(mut saved) = saved else { return Err("expected an object".to_owned()) };
        match (saved.len(), saved.remove("json"), saved.remove("text")) {
            (1, Some(json), None) => Ok(RequestBody::Json(json)),
            (1, None, Some(Value::String(text))) => Ok(RequestBody::Text(text.to_string())),
            _ => Err("expected one of `json` (any JSON) or `text` (a string)".to_owned()),
        }
    }
}

#[cfg(feature = "multipart")]
impl From<Multipart> for RequestBody {
    fn from(form: Multipart) -> RequestBody {
        RequestBody::Multipart(form)
    }
}

impl From<Blob> for RequestBody {
    fn from(blob: Blob) -> RequestBody {
        RequestBody::Blob(blob)
    }
}

/// What a typed endpoint's body `B` may be: any `Serialize` value (sent as
/// JSON; one serializing to `null`, such as `()` or `None`, sends no body), a
/// [`Multipart`] form, a [`Blob`] or a [`RequestBody`].
///
/// ```
/// use rdc_rest::{IntoRequestBody, Multipart, RequestBody};
/// assert_eq!(().into_request_body(), Ok(None));
/// let form = Multipart::new().text("a", "1");
/// assert_eq!(form.clone().into_request_body(), Ok(Some(RequestBody::Multipart(form))));
/// ```
pub trait IntoRequestBody: 'static {
    /// The body to send, or `None` for none.
    ///
    /// # Errors
    /// When the value cannot be encoded (serde's message).
    fn into_request_body(self) -> Result<Option<RequestBody>, String>;
}

impl<T: Serialize + 'static> IntoRequestBody for T {
    fn into_request_body(self) -> Result<Option<RequestBody>, String> {
        match rdc_core::json::to_value(&self) {
            Ok(Value::Null) => Ok(None),
            Ok(value) => Ok(Some(RequestBody::Json(value))),
            Err(e) => Err(e.to_string()),
        }
    }
}

#[cfg(feature = "multipart")]
impl IntoRequestBody for Multipart {
    fn into_request_body(self) -> Result<Option<RequestBody>, String> {
        Ok(Some(RequestBody::Multipart(self)))
    }
}

impl IntoRequestBody for Blob {
    fn into_request_body(self) -> Result<Option<RequestBody>, String> {
        Ok(Some(RequestBody::Blob(self)))
    }
}

impl IntoRequestBody for RequestBody {
    fn into_request_body(self) -> Result<Option<RequestBody>, String> {
        Ok(Some(self))
    }
}
