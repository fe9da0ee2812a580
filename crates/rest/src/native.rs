//! The native [`HttpClient`] on reqwest: what a server fetches with while it
//! renders a page. Endpoint paths (`/api/users`) resolve against the API's
//! base URL; headers the app forwards (a cookie, an authorization) go only to
//! that origin.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::future::{AbortHandle, Abortable};
use url::Url;

use crate::http::{Blob, BoxFuture, BytesBody, HttpClient, HttpRequest, HttpResponse, ResponseBody};
use crate::RequestBody;

/// Sends requests with reqwest. Cheap to clone and to make per request: every
/// client made by [`ReqwestClient::new`] shares one connection pool. That pool
/// gives up on a request after 60 s (the controller's default limit, which on
/// a server has no timer to enforce it) and follows redirects only within the
/// origin a request went to, so forwarded headers never reach another host.
///
/// ```
/// use rdc_rest::ReqwestClient;
/// // In a server's handler: this request's cookie goes to the API, and only there.
/// let client = ReqwestClient::new("http://127.0.0.1:3000")?.forward("cookie", "session=abc");
/// # Ok::<(), url::ParseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ReqwestClient {
    client: reqwest::Client,
    base: Arc<Url>,
    forwarded: Vec<(String, String)>,
}

impl ReqwestClient {
    /// A client resolving relative URLs against `base` (the API's origin).
    ///
    /// # Errors
    /// When `base` is not an absolute URL.
    pub fn new(base: &str) -> Result<ReqwestClient, url::ParseError> {
        static SHARED: OnceLock<reqwest::Client> = OnceLock::new();
        #[allow(clippy::expect_used, reason = "no TLS, proxy or certificate setting of ours can fail to build")]
        let client = SHARED.get_or_init(|| {
            reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .redirect(same_origin_redirects())
                .build()
                .expect("a reqwest client with a timeout and a redirect policy")
        });
        Ok(ReqwestClient::with_client(client.clone(), Url::parse(base)?))
    }

    /// The same over a reqwest client of the app's (its TLS, proxy, limits).
    /// Its redirect policy is the app's too: reqwest's default follows a
    /// redirect to another host, taking headers other than `Authorization`
    /// and `Cookie` with it (see [`same_origin_redirects`]).
    pub fn with_client(client: reqwest::Client, base: Url) -> ReqwestClient {
        ReqwestClient { client, base: Arc::new(base), forwarded: Vec::new() }
    }

    /// Adds `name: value` to every request sent to the base URL's origin (never
    /// to another: an endpoint with an absolute URL elsewhere does not get a
    /// user's credentials).
    #[must_use]
    pub fn forward(mut self, name: &str, value: &str) -> ReqwestClient {
        self.forwarded.push((name.to_owned(), value.to_owned()));
        self
    }

    fn build(&self, request: &HttpRequest) -> Result<reqwest::RequestBuilder, String> {
        let url = self.base.join(&request.url).map_err(|e| format!("invalid URL {:?}: {e}", request.url))?;
        let method = reqwest::Method::from_bytes(request.method.as_bytes()).map_err(|e| e.to_string())?;
        let same_origin = url.origin() == self.base.origin();
        let forwarded = self.forwarded.iter().filter(|_| same_origin);
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in forwarded.chain(&request.headers) {
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|e| format!("{name}: {e}"))?;
            let value = reqwest::header::HeaderValue::from_str(value).map_err(|e| format!("{name}: {e}"))?;
            headers.append(name, value);
        }
        let mut builder = self.client.request(method, url).headers(headers);
        match &request.body {
            None => {}
            Some(RequestBody::Json(json)) => builder = builder.body(rdc_core::json_text(json)),
            Some(RequestBody::Text(text)) => builder = builder.body(text.clone()),
            Some(RequestBody::Blob(blob)) => builder = builder.body(blob.bytes().to_vec()),
            #[cfg(feature = "multipart")]
            Some(RequestBody::Multipart(form)) => {
                // As `fetch` does for a `FormData`: a content type set by hand wins.
                let (content_type, bytes) = form.encode();
                if request.header("content-type").is_none() {
                    builder = builder.header(reqwest::header::CONTENT_TYPE, content_type);
                }
                builder = builder.body(bytes);
            }
        }
        if let Some(ms) = request.timeout_ms {
            builder = builder.timeout(std::time::Duration::from_millis(ms));
        }
        Ok(builder)
    }
}

/// A redirect policy that follows at most ten redirects, all within the origin
/// the request was sent to; a redirect elsewhere is not followed (the endpoint
/// gets the 3xx response).
///
/// ```
/// let client = reqwest::Client::builder().redirect(rdc_rest::same_origin_redirects()).build()?;
/// # Ok::<(), reqwest::Error>(())
/// ```
pub fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same = attempt.previous().first().is_some_and(|first| first.origin() == attempt.url().origin());
        if !same {
            attempt.stop()
        } else if attempt.previous().len() > 10 {
            attempt.error("more than 10 redirects")
        } else {
            attempt.follow()
        }
    })
}

async fn send(builder: reqwest::RequestBuilder, timeout_ms: Option<u64>) -> Result<HttpResponse, String> {
    let response = builder.send().await.map_err(|e| match timeout_ms {
        Some(ms) if e.is_timeout() => format!("timed out after {ms} ms"),
        _ => e.to_string(),
    })?;
    let headers = response
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_ascii_lowercase(), v.to_str().ok()?.to_owned())))
        .collect();
    Ok(HttpResponse {
        status: response.status().as_u16(),
        url: response.url().to_string(),
        headers,
        body: Box::new(ReqwestBody(response)),
    })
}

impl HttpClient for ReqwestClient {
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, String>> {
        let builder = self.build(&request);
        Box::pin(async move {
            let sent = send(builder?, request.timeout_ms);
            match request.abort {
                Some(abort) => {
                    let (handle, registration) = AbortHandle::new_pair();
                    abort.on_abort(move || handle.abort());
                    Abortable::new(sent, registration).await.map_err(|_| "aborted".to_owned())?
                }
                None => sent.await,
            }
        })
    }
}

/// An unread reqwest response body.
struct ReqwestBody(reqwest::Response);

impl ReqwestBody {
    /// The whole body in memory, with its content type.
    async fn read(self) -> Result<BytesBody, String> {
        let mime = self.0.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        let bytes = self.0.bytes().await.map_err(|e| e.to_string())?;
        Ok(BytesBody { bytes: bytes.to_vec(), mime })
    }
}

impl ResponseBody for ReqwestBody {
    fn text(self: Box<Self>) -> BoxFuture<'static, Result<String, String>> {
        // As the Fetch API's `text()`: UTF-8 with one BOM removed, whatever the charset says.
        Box::pin(async move { Box::new(self.read().await?).text().await })
    }

    fn bytes(self: Box<Self>) -> BoxFuture<'static, Result<Vec<u8>, String>> {
        Box::pin(async move { Ok(self.read().await?.bytes) })
    }

    fn blob(self: Box<Self>) -> BoxFuture<'static, Result<Blob, String>> {
        Box::pin(async move { Box::new(self.read().await?).blob().await })
    }
}
