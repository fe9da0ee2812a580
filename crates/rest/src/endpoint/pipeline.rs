//! The pipeline's steps: the request init, the `sup` handles overrides call, and the default steps.

use super::*;

/// The request to send, before the URL and endpoint headers are added.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestInit {
    /// Method.
    pub method: String,
    /// Headers set by the step (content type...).
    pub headers: Vec<(String, String)>,
    /// The body to send (JSON is text by now).
    pub body: Option<RequestBody>,
}

/// The step an override replaced, for `fetch_response` overrides.
pub struct FetchSuper {
    pub(super) prev: FetchResponseFn,
    pub(super) endpoint: RestCall,
    pub(super) client: Arc<dyn HttpClient>,
}

impl std::fmt::Debug for FetchSuper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchSuper").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

impl FetchSuper {
    /// Runs the replaced step.
    pub fn call(self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, RestError>> {
        (self.prev)(self.endpoint, self.client, request)
    }
}

/// The step an override replaced, for `parse_response` overrides.
pub struct ParseSuper {
    pub(super) prev: ParseResponseFn,
    pub(super) endpoint: RestCall,
}

impl std::fmt::Debug for ParseSuper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParseSuper").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

impl ParseSuper {
    /// Runs the replaced step.
    pub fn call(self, response: HttpResponse) -> BoxFuture<'static, Result<Body, RestError>> {
        (self.prev)(self.endpoint, response)
    }
}

/// Refuses header names that are not HTTP tokens and values with CR, LF or NUL
/// (header injection), before any request is made.
pub(super) fn check_header(endpoint: &str, name: &str, value: &str) -> Result<(), RestError> {
    let invalid =
        |reason| Err(RestError::InvalidHeader { endpoint: endpoint.to_owned(), name: name.to_owned(), reason });
    if !crate::params::is_token(name) {
        return invalid("the name is not an HTTP token");
    }
    if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
        return invalid("the value contains CR, LF or NUL");
    }
    Ok(())
}

/// The default `request_init`: the method, and the body with its content
/// type: JSON as JSON text, or as form fields for a [`form`](RestEndpoint::form)
/// endpoint; text as `text/plain`; a blob with its MIME type; a multipart form
/// as it is (the client writes its content type, which holds the boundary),
/// refused when a name or filename holds a NUL.
pub(super) fn default_request_init(endpoint: &RestCall, body: Option<RequestBody>) -> Result<RequestInit, RestError> {
    let mut init = RequestInit { method: endpoint.options.method.clone(), headers: Vec::new(), body: None };
    let Some(body) = body else { return Ok(init) };
    let (content_type, body) = match body {
        RequestBody::Json(json) if endpoint.options.form => {
            let fields = crate::form_fields(&json).map_err(|message| RestError::Encode {
                endpoint: endpoint.name(),
                part: "body",
                message,
            })?;
            (Some("application/x-www-form-urlencoded".to_owned()), RequestBody::Text(fields))
        }
        RequestBody::Json(json) => (Some("application/json".to_owned()), RequestBody::Text(rdc_core::json_text(&json))),
        RequestBody::Text(text) => (Some("text/plain;charset=UTF-8".to_owned()), RequestBody::Text(text)),
        RequestBody::Blob(blob) => (Some(blob.mime_type()).filter(|mime| !mime.is_empty()), RequestBody::Blob(blob)),
        #[cfg(feature = "multipart")]
        RequestBody::Multipart(form) => match form.name_with_nul() {
            // The HTML standard escapes only `"`, CR and LF there; a NUL would
            // go raw into the part's header, which some parsers end at.
            Some(name) => {
                return Err(RestError::Encode {
                    endpoint: endpoint.name(),
                    part: "body",
                    message: format!("the multipart name or filename {name:?} contains NUL, which has no escape there"),
                })
            }
            None => (None, RequestBody::Multipart(form)),
        },
    };
    init.headers.extend(content_type.map(|value| ("Content-Type".to_owned(), value)));
    init.body = Some(body);
    Ok(init)
}

/// How much of an error's body a [`NetworkError`] keeps: enough for any API's
/// error details, not a hostile server's gigabyte held with the error.
const ERROR_BODY_BYTES: usize = 64 * 1024;

/// Cuts `text` to at most `max` bytes, on a character boundary.
fn truncate_on_char_boundary(text: &mut String, max: usize) {
    if text.len() > max {
        let end = (0..=max).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text.truncate(end);
    }
}

/// The default `fetch_response`: sends, and turns a non-2xx status into a
/// [`RestError::Network`] carrying the body text (its first 64 KiB).
pub(super) fn default_fetch_response(
    endpoint: RestCall,
    client: Arc<dyn HttpClient>,
    request: HttpRequest,
) -> BoxFuture<'static, Result<HttpResponse, RestError>> {
    Box::pin(async move {
        let url = request.url.clone();
        let response = client.send(request).await.map_err(|message| RestError::Transport {
            endpoint: endpoint.name(),
            url: url.clone(),
            message,
        })?;
        if response.ok() {
            return Ok(response);
        }
        let status = response.status;
        let retry_after = crate::retry::retry_after(&response);
        let mut body = response.body.text().await.unwrap_or_default();
        truncate_on_char_boundary(&mut body, ERROR_BODY_BYTES);
        Err(RestError::Network { endpoint: endpoint.name(), source: NetworkError { status, url, body, retry_after } })
    })
}

/// The default `parse_response`: 204 is empty; blob / array buffer content as
/// asked; JSON by content type (a parse failure is a typed error); text otherwise.
pub(super) fn default_parse_response(
    endpoint: RestCall,
    response: HttpResponse,
) -> BoxFuture<'static, Result<Body, RestError>> {
    Box::pin(async move {
        let url = response.url.clone();
        let parse_error = |message: String| RestError::Parse { endpoint: endpoint.name(), url: url.clone(), message };
        if response.status == 204 {
            return Ok(Body::Empty);
        }
        match endpoint.options.content {
            Content::Blob => return response.body.blob().await.map(Body::Blob).map_err(parse_error),
            Content::ArrayBuffer => return response.body.bytes().await.map(Body::Bytes).map_err(parse_error),
            Content::Json | Content::Text => {}
        }
        let response_type = response.header("content-type").map(str::to_owned);
        let is_json = response_type.as_deref().is_some_and(crate::media::is_json);
        let text = response.body.text().await.map_err(parse_error)?;
        if !is_json && endpoint.options.schema.is_some() && !text.trim().is_empty() {
            // A schema needs JSON: an HTML error page from a proxy is not data.
            let kind = response_type.unwrap_or_else(|| "no content type".to_owned());
            return Err(parse_error(format!("expected JSON, got {kind}")));
        }
        if endpoint.options.content == Content::Text || !is_json {
            return Ok(if text.is_empty() { Body::Empty } else { Body::Text(text) });
        }
        if text.trim().is_empty() {
            return Ok(Body::Empty);
        }
        Value::parse(text).map(Body::Json).map_err(|e| parse_error(format!("malformed JSON: {e}")))
    })
}
