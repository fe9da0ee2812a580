//! The browser [`HttpClient`]: the Fetch API through web-sys, with bodies read as
//! text, `ArrayBuffer` or `Blob` straight from the `Response`.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::http::{Blob, HttpClient, HttpRequest, HttpResponse, LocalBoxFuture, ResponseBody};

/// Sends requests with `window.fetch`.
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

async fn send(request: HttpRequest) -> Result<HttpResponse, String> {
    let init = web_sys::RequestInit::new();
    init.set_method(&request.method);
    let headers = web_sys::Headers::new().map_err(js_error)?;
    for (name, value) in &request.headers {
        headers.append(name, value).map_err(js_error)?;
    }
    init.set_headers(&headers);
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    let window = web_sys::window().ok_or("no window: the browser client needs a page")?;
    // A timeout or an abort handle cancels the request through an AbortController.
    let mut timer = None;
    if request.timeout_ms.is_some() || request.abort.is_some() {
        let controller = web_sys::AbortController::new().map_err(js_error)?;
        init.set_signal(Some(&controller.signal()));
        if let Some(ms) = request.timeout_ms {
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
    let sent = JsFuture::from(window.fetch_with_request(&js_request)).await;
    if let Some(handle) = timer {
        window.clear_timeout_with_handle(handle);
    }
    let response: web_sys::Response = match sent {
        Ok(response) => response.unchecked_into(),
        Err(error) => {
            let aborted = error.dyn_ref::<js_sys::Error>().is_some_and(|e| e.name() == "AbortError")
                || error.dyn_ref::<web_sys::DomException>().is_some_and(|e| e.name() == "AbortError");
            let cancelled = request.abort.as_ref().is_some_and(rdc_core::Abort::is_aborted);
            return Err(match (aborted, cancelled, request.timeout_ms) {
                (true, true, _) => "aborted".to_owned(),
                (true, false, Some(ms)) => format!("timed out after {ms} ms"),
                _ => js_error(error),
            });
        }
    };
    let mut headers = Vec::new();
    if let Ok(Some(iter)) = js_sys::try_iter(&response.headers()) {
        for entry in iter.flatten() {
            let pair: js_sys::Array = entry.unchecked_into();
            if let (Some(k), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                headers.push((k.to_ascii_lowercase(), v));
            }
        }
    }
    Ok(HttpResponse { status: response.status(), url: response.url(), headers, body: Box::new(FetchBody(response)) })
}

impl HttpClient for BrowserClient {
    fn send(&self, request: HttpRequest) -> LocalBoxFuture<'static, Result<HttpResponse, String>> {
        Box::pin(send(request))
    }
}

/// An unread Fetch API response body.
struct FetchBody(web_sys::Response);

async fn read(promise: Result<js_sys::Promise, JsValue>) -> Result<JsValue, String> {
    JsFuture::from(promise.map_err(js_error)?).await.map_err(js_error)
}

impl ResponseBody for FetchBody {
    fn text(self: Box<Self>) -> LocalBoxFuture<'static, Result<String, String>> {
        Box::pin(async move { read(self.0.text()).await?.as_string().ok_or_else(|| "the body is not text".to_owned()) })
    }

    fn bytes(self: Box<Self>) -> LocalBoxFuture<'static, Result<Vec<u8>, String>> {
        Box::pin(async move { Ok(js_sys::Uint8Array::new(&read(self.0.array_buffer()).await?).to_vec()) })
    }

    fn blob(self: Box<Self>) -> LocalBoxFuture<'static, Result<Blob, String>> {
        Box::pin(async move { Ok(Blob::from_web(read(self.0.blob()).await?.unchecked_into())) })
    }
}
