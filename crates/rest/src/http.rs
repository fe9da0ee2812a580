//! The HTTP boundary: requests and responses as plain data, and the `HttpClient`
//! trait with a browser implementation (Fetch API) and an in-memory fake.

use std::future::Future;
use std::pin::Pin;

/// A boxed future that need not be `Send` (browser futures are not).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What to send.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HttpRequest {
    /// `GET`, `POST`...
    pub method: String,
    /// The full URL.
    pub url: String,
    /// Headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body, if any.
    pub body: Option<crate::RequestBody>,
    /// Give up (abort the request) after this many milliseconds.
    pub timeout_ms: Option<u64>,
    /// Cancels the request when it fires.
    pub abort: Option<rdc_controller::Abort>,
}

impl HttpRequest {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body's text, when it is text (JSON and form fields are, once encoded).
    pub fn body_text(&self) -> Option<&str> {
        self.body.as_ref().and_then(crate::RequestBody::as_text)
    }
}

/// A binary body. In the browser it is the `Blob` the Fetch API gave (no copy
/// into wasm memory); natively it holds the bytes.
#[derive(Debug, Clone)]
pub struct Blob {
    #[cfg(target_arch = "wasm32")]
    inner: send_wrapper::SendWrapper<web_sys::Blob>,
    /// Shared, so a body sent again (a retry) is not copied.
    #[cfg(not(target_arch = "wasm32"))]
    bytes: std::sync::Arc<[u8]>,
    #[cfg(not(target_arch = "wasm32"))]
    mime: String,
}

impl PartialEq for Blob {
    fn eq(&self, other: &Blob) -> bool {
        #[cfg(target_arch = "wasm32")]
        return *self.inner == *other.inner;
        #[cfg(not(target_arch = "wasm32"))]
        return self.bytes == other.bytes && self.mime == other.mime;
    }
}

impl Blob {
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        #[cfg(target_arch = "wasm32")]
        return self.inner.size() as u64;
        #[cfg(not(target_arch = "wasm32"))]
        return self.bytes.len() as u64;
    }

    /// The MIME type (may be empty).
    pub fn mime_type(&self) -> String {
        #[cfg(target_arch = "wasm32")]
        return self.inner.type_();
        #[cfg(not(target_arch = "wasm32"))]
        return self.mime.clone();
    }

    /// Wraps a browser `Blob`.
    #[cfg(target_arch = "wasm32")]
    pub fn from_web(inner: web_sys::Blob) -> Blob {
        Blob { inner: send_wrapper::SendWrapper::new(inner) }
    }

    /// The browser `Blob` (for `URL.createObjectURL`, a download link...).
    #[cfg(target_arch = "wasm32")]
    pub fn as_web(&self) -> &web_sys::Blob {
        &self.inner
    }

    /// A blob of `bytes` with MIME type `mime` (in the browser, a new `Blob`).
    ///
    /// ```
    /// let blob = rdc_rest::Blob::from_bytes(b"hi".to_vec(), "text/plain");
    /// assert_eq!((blob.size(), blob.mime_type().as_str()), (2, "text/plain"));
    /// ```
    pub fn from_bytes(bytes: Vec<u8>, mime: &str) -> Blob {
        #[cfg(not(target_arch = "wasm32"))]
        return Blob { bytes: bytes.into(), mime: mime.to_owned() };
        #[cfg(target_arch = "wasm32")]
        return Blob::from_web(web_blob(&bytes, mime));
    }

    /// The bytes (native builds).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Reads a response body once, in the form the endpoint's content asks for.
pub trait ResponseBody: Send {
    /// The body as text, decoded as UTF-8 with one leading byte order mark
    /// removed, as the Fetch API's `text()` does (the Encoding standard's UTF-8
    /// decode): a JSON body after a BOM then parses, in the browser and natively.
    fn text(self: Box<Self>) -> BoxFuture<'static, Result<String, String>>;
    /// The body as bytes (an `ArrayBuffer` in the browser).
    fn bytes(self: Box<Self>) -> BoxFuture<'static, Result<Vec<u8>, String>>;
    /// The body as a [`Blob`].
    fn blob(self: Box<Self>) -> BoxFuture<'static, Result<Blob, String>>;
}

/// A response: status, headers, and a body not yet read.
pub struct HttpResponse {
    /// HTTP status.
    pub status: u16,
    /// Final URL.
    pub url: String,
    /// Headers (names lowercase).
    pub headers: Vec<(String, String)>,
    /// The unread body.
    pub body: Box<dyn ResponseBody>,
}

impl std::fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("url", &self.url)
            .field("headers", &self.headers)
            .finish()
    }
}

impl HttpResponse {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Sends requests. [`BrowserClient`](crate::BrowserClient) uses the Fetch API;
/// [`FakeClient`](crate::FakeClient) answers from memory for native tests.
pub trait HttpClient: Send + Sync {
    /// Sends `request`; `Err` is a transport failure (no HTTP response at all).
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, String>>;
}

/// A body held in memory (the fake client's, and handy in tests).
#[derive(Debug, Clone, Default)]
pub struct BytesBody {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Content type, for [`ResponseBody::blob`].
    pub mime: String,
}

impl ResponseBody for BytesBody {
    fn text(self: Box<Self>) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async move {
            let mut text = String::from_utf8(self.bytes).map_err(|e| format!("body is not UTF-8: {e}"))?;
            if text.starts_with('\u{FEFF}') {
                text.drain(..'\u{FEFF}'.len_utf8());
            }
            Ok(text)
        })
    }

    fn bytes(self: Box<Self>) -> BoxFuture<'static, Result<Vec<u8>, String>> {
        Box::pin(async move { Ok(self.bytes) })
    }

    fn blob(self: Box<Self>) -> BoxFuture<'static, Result<Blob, String>> {
        Box::pin(async move { Ok(Blob::from_bytes(self.bytes, &self.mime)) })
    }
}

/// A browser `Blob` holding a copy of `bytes`.
#[cfg(target_arch = "wasm32")]
fn web_blob(bytes: &[u8], mime: &str) -> web_sys::Blob {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    // The constructor throws only for parts that are not blob parts.
    #[allow(clippy::expect_used)]
    web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).expect("a Uint8Array is a blob part")
}
