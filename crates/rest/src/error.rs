//! Typed errors of the REST layer; each names the endpoint it happened on.

use thiserror::Error;

/// A response with a non-2xx status. The body text is kept so an API's error
/// details (e.g. a 422's JSON) can be read.
///
/// ```
/// let e = rdc_rest::NetworkError { status: 422, url: "/users".into(), body: r#"{"field":"name"}"#.into(), retry_after: None };
/// assert_eq!(e.json().unwrap()["field"], "name");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("HTTP {status} from {url}")]
pub struct NetworkError {
    /// The HTTP status.
    pub status: u16,
    /// The URL requested.
    pub url: String,
    /// The response body as text (empty when there was none): at most its
    /// first 64 KiB, cut on a character boundary.
    pub body: String,
    /// The wait its `Retry-After` header asks for, if it gave a valid one.
    pub retry_after: Option<std::time::Duration>,
}

impl NetworkError {
    /// The body parsed as JSON, when it is JSON.
    ///
    /// ```
    /// let err = rdc_rest::NetworkError { status: 422, url: "/x".into(), body: r#"{"field": "name"}"#.into(), retry_after: None };
    /// assert_eq!(err.json().unwrap()["field"], "name");
    /// ```
    pub fn json(&self) -> Option<rdc_core::json::Value> {
        rdc_core::json::Value::parse(self.body.clone()).ok()
    }
}

/// Everything that can go wrong calling an endpoint.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RestError {
    /// A path parameter the template needs was not given (no request was made).
    #[error("{endpoint}: missing path parameter `{name}`")]
    MissingParam {
        /// The endpoint's method and path template.
        endpoint: String,
        /// The parameter.
        name: String,
    },
    /// A path parameter's value is refused (no request was made): it would make
    /// its path segment `.` or `..`, which URL parsers remove.
    #[error("{endpoint}: path parameter `{name}` is invalid: {reason}")]
    InvalidParam {
        /// The endpoint's method and path template.
        endpoint: String,
        /// The parameter.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// An option of the endpoint cannot work (e.g. a `poll_frequency` under
    /// 1 ms, which would refetch without pause); no request was made.
    #[error("{endpoint}: option `{option}` is invalid: {reason}")]
    InvalidOption {
        /// The endpoint.
        endpoint: String,
        /// The option's builder method.
        option: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// A header name or value is not allowed (e.g. contains CR or LF); no request was made.
    #[error("{endpoint}: header `{name}` is invalid: {reason}")]
    InvalidHeader {
        /// The endpoint.
        endpoint: String,
        /// The header name.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// The server answered with a non-2xx status.
    #[error("{endpoint}: {source}")]
    Network {
        /// The endpoint.
        endpoint: String,
        /// Status, URL and body.
        #[source]
        source: NetworkError,
    },
    /// The request did not complete (connection refused, CORS, aborted...).
    #[error("{endpoint}: request to {url} failed: {message}")]
    Transport {
        /// The endpoint.
        endpoint: String,
        /// The URL.
        url: String,
        /// What the platform said.
        message: String,
    },
    /// The body could not be parsed (malformed JSON, wrong content...).
    #[error("{endpoint}: cannot parse the response from {url}: {message}")]
    Parse {
        /// The endpoint.
        endpoint: String,
        /// The URL.
        url: String,
        /// What went wrong, with the position for JSON.
        message: String,
    },
    /// Typed args or body did not make JSON the endpoint takes (no request was made).
    #[error("{endpoint}: the {part} cannot be sent: {message}")]
    Encode {
        /// The endpoint.
        endpoint: String,
        /// `args` or `body`.
        part: &'static str,
        /// What serde said.
        message: String,
    },
    /// The response (stored as it came) does not read as the endpoint's result type.
    #[error("{endpoint}: the response does not read as the result type: {message}")]
    Decode {
        /// The endpoint.
        endpoint: String,
        /// What serde said, with the path.
        message: String,
    },
    /// A transform (`request_init`, `process`...) refused the value.
    #[error("{endpoint}: {message}")]
    Transform {
        /// The endpoint.
        endpoint: String,
        /// The reason.
        message: String,
    },
}

impl RestError {
    /// The HTTP status, for a [`RestError::Network`].
    pub fn status(&self) -> Option<u16> {
        match self {
            RestError::Network { source, .. } => Some(source.status),
            _ => None,
        }
    }
}
