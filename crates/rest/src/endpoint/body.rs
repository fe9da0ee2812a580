//! What an endpoint is called with and what it answers: args, the body kinds, how errors count.

use super::*;

/// Call arguments: path parameters and search parameters, as a JSON object.
pub type Args = Map;

/// How to read the response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Content {
    /// JSON when the content type is a JSON media type (`application/json`,
    /// `*/*+json`...); text otherwise. The default.
    #[default]
    Json,
    /// Text.
    Text,
    /// A [`Blob`].
    Blob,
    /// Bytes (an `ArrayBuffer` in the browser).
    ArrayBuffer,
}

/// Whether an error replaces the data shown (hard) or shows beside stale data (soft).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorPolicy {
    /// 5xx and transport errors are soft, 4xx and the rest hard (Reactive Data Client's default).
    #[default]
    Auto,
    /// Always soft.
    Soft,
    /// Always hard.
    Hard,
}

impl ErrorPolicy {
    /// Whether `error` is soft under this policy.
    pub fn is_soft(self, error: &RestError) -> bool {
        match self {
            ErrorPolicy::Soft => true,
            ErrorPolicy::Hard => false,
            ErrorPolicy::Auto => match error {
                RestError::Network { source, .. } => source.status >= 500,
                RestError::Transport { .. } => true,
                _ => false,
            },
        }
    }
}

/// A downloaded file: the body and the filename the server gave (recipe 5).
#[derive(Debug, Clone, PartialEq)]
pub struct FileDownload {
    /// The body.
    pub blob: Blob,
    /// From `Content-Disposition`, else `download`.
    pub filename: String,
}

/// What the pipeline produces.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Parsed JSON.
    Json(Value),
    /// Text.
    Text(String),
    /// A blob.
    Blob(Blob),
    /// Bytes.
    Bytes(Vec<u8>),
    /// A blob with its filename.
    File(FileDownload),
    /// No content (204, or an empty body).
    Empty,
}

impl Body {
    /// The JSON value, if this is JSON.
    pub fn json(&self) -> Option<&Value> {
        match self {
            Body::Json(v) => Some(v),
            _ => None,
        }
    }

    /// What kind of body this is, for messages (`JSON`, `text`, `a blob`...).
    pub fn kind(&self) -> &'static str {
        match self {
            Body::Json(_) => "JSON",
            Body::Text(_) => "text",
            Body::Blob(_) => "a blob",
            Body::Bytes(_) => "bytes",
            Body::File(_) => "a file",
            Body::Empty => "no content",
        }
    }

    /// The JSON value; `Null` for anything else.
    pub fn into_json(self) -> Value {
        match self {
            Body::Json(v) => v,
            Body::Text(t) => Value::String(t.into()),
            _ => Value::Null,
        }
    }
}
