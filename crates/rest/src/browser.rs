//! The browser [`HttpClient`] on gloo-net: gloo sends the request (through the
//! global `fetch`, in a page or a worker) and reads the response as text or
//! bytes; web-sys builds the request and reads a `Blob`, where gloo stops.
//!
//! The request is built with web-sys because gloo-net 0.6's `RequestBuilder`
//! rewrites a URL that has a query (it appends `&`), and rdc sends the URL its
//! path template made, byte for byte.

use gloo_net::http::{Request, Response};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::http::{Blob, BoxFuture, HttpClient, HttpRequest, HttpResponse, ResponseBody};
use crate::RequestBody;

/// Sends requests with the browser's Fetch API (through gloo-net).
///
/// ```no_run
/// let client: std::sync::Arc<dyn rdc_rest::HttpClient> = std::sync::Arc::new(rdc_rest::BrowserClient);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserClient;

fn js_error(value: JsValue) -> String {
    value
        .as_string()
        .or_else(|| value.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| format!("{value:?}"))
}

/// The Fetch API request for `request`, with an `AbortController` when it
/// can be cancelled (by its timeout or its abort handle), and the timer that
/// enforces the timeout.
fn build(request: &HttpRequest) -> Result<(web_sys::Request, Option<i32>), String> {
    let init = web_sys::RequestInit::new();
    init.set_method(&request.method);
    let headers = web_sys::Headers::new().map_err(js_error)?;
    for (name, value) in &request.headers {
        headers.append(name, value).map_err(js_error)?;
    }
    init.set_headers(&headers);
    match &request.body {
        None => {}
        Some(RequestBody::Json(json)) => init.set_body(&JsValue::from_str(&rdc_core::json_text(json))),
        Some(RequestBody::Text(text)) => init.set_body(&JsValue::from_str(text)),
        Some(RequestBody::Blob(blob)) => init.set_body(blob.as_web()),
        // The browser writes the content type with the boundary.
        #[cfg(feature = "multipart")]
        Some(RequestBody::Multipart(form)) => init.set_body(&form.to_form_data().map_err(js_error)?.into()),
    }
    let mut timer = None;
    if request.timeout_ms.is_some() || request.abort.is_some() {
        let controller = web_sys::AbortController::new().map_err(js_error)?;
        init.set_signal(Some(&controller.signal()));
        if let Some(ms) = request.timeout_ms {
            let window = web_sys::window().ok_or("a request timeout needs a page's timers")?;
            let by_timer = controller.clone();
            let abort = wasm_bindgen::closure::Closure::once_into_js(move || by_timer.abort());
            let delay = i32::try_from(ms).unwrap_or(i32::MAX);
            timer = window.set_timeout_with_callback_and_timeout_and_arguments_0(abort.unchecked_ref(), delay).ok();
        }
        if let Some(abort) = &request.abort {
            // The browser is one thread; the handle only needs to look Send.
            let controller = send_wrapper::SendWrapper::new(controller);
            abort.on_abort(move || controller.abort());
        }
    }
    let js_request = web_sys::Request::new_with_str_and_init(&request.url, &init).map_err(js_error)?;
    Ok((js_request, timer))
}

async fn send(request: HttpRequest) -> Result<HttpResponse, String> {
    let (js_request, timer) = build(&request)?;
    let sent = Request::from(js_request).send().await;
    if let (Some(handle), Some(window)) = (timer, web_sys::window()) {
        window.clear_timeout_with_handle(handle);
    }
    let response = match sent {
        Ok(response) => response,
        Err(error) => {
            let aborted = matches!(&error, gloo_net::Error::JsError(e) if e.name == "AbortError");
            let cancelled = request.abort.as_ref().is_some_and(rdc_controller::Abort::is_aborted);
            return Err(match (aborted, cancelled, request.timeout_ms) {
                (true, true, _) => "aborted".to_owned(),
                (true, false, Some(ms)) => format!("timed out after {ms} ms"),
                _ => error.to_string(),
            });
        }
    };
    let headers = response.headers().entries().map(|(k, v)| (k.to_ascii_lowercase(), v)).collect();
    Ok(HttpResponse {
        status: response.status(),
        url: response.url(),
        headers,
        body: Box::new(FetchBody(send_wrapper::SendWrapper::new(response))),
    })
}

impl HttpClient for BrowserClient {
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, String>> {
        // A browser future (the page's one thread): made to look `Send`.
        Box::pin(send_wrapper::SendWrapper::new(send(request)))
    }
}

/// An unread Fetch API response body.
struct FetchBody(send_wrapper::SendWrapper<Response>);

impl ResponseBody for FetchBody {
    fn text(self: Box<Self>) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(send_wrapper::SendWrapper::new(async move { self.0.text().await.map_err(|e| e.to_string()) }))
    }

    fn bytes(self: Box<Self>) -> BoxFuture<'static, Result<Vec<u8>, String>> {
        Box::pin(send_wrapper::SendWrapper::new(async move { self.0.binary().await.map_err(|e| e.to_string()) }))
    }

    fn blob(self: Box<Self>) -> BoxFuture<'static, Result<Blob, String>> {
        Box::pin(send_wrapper::SendWrapper::new(async move {
            let FetchBody(response) = *self;
            let raw = web_sys::Response::from(response.take());
            let blob = JsFuture::from(raw.blob().map_err(js_error)?).await.map_err(js_error)?;
            Ok(Blob::from_web(blob.unchecked_into()))
        }))
    }
}
