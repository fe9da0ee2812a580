//! An in-memory [`HttpClient`] for native tests: canned responses by method and
//! URL, and a record of every request sent.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::http::{BoxFuture, BytesBody, HttpClient, HttpRequest, HttpResponse};

/// A canned response.
#[derive(Debug, Clone)]
pub struct FakeResponse {
    /// HTTP status.
    pub status: u16,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl FakeResponse {
    /// A 200 JSON response.
    pub fn json(value: rdc_core::json::Value) -> FakeResponse {
        FakeResponse::status(200).header("content-type", "application/json").body(value.to_string())
    }

    /// An empty response with `status`.
    pub fn status(status: u16) -> FakeResponse {
        FakeResponse { status, headers: Vec::new(), body: Vec::new() }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> FakeResponse {
        self.headers.push((name.to_ascii_lowercase(), value.to_owned()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> FakeResponse {
        self.body = body.into();
        self
    }
}

/// Answers requests from a table of `(method, url)` -> response; anything else is
/// a transport error. Cloning shares the table and the record.
///
/// ```
/// use rdc_rest::{FakeClient, FakeResponse, HttpClient, HttpRequest};
/// let client = FakeClient::default();
/// client.on("GET", "/users", FakeResponse::json(rdc_core::json!([])));
/// let request = HttpRequest { method: "GET".into(), url: "/users".into(), ..Default::default() };
/// let response = futures_lite_block_on(client.send(request)).unwrap();
/// assert_eq!(response.status, 200);
/// assert_eq!(client.requests().len(), 1);
/// # fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output { rdc_rest::block_on(f) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct FakeClient {
    routes: Arc<Mutex<Vec<(String, String, FakeResponse)>>>,
    sent: Arc<Mutex<Vec<HttpRequest>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl FakeClient {
    /// Answers `method url` with `response` (later registrations win).
    pub fn on(&self, method: &str, url: &str, response: FakeResponse) {
        lock(&self.routes).insert(0, (method.to_owned(), url.to_owned(), response));
    }

    /// Every request sent so far.
    pub fn requests(&self) -> Vec<HttpRequest> {
        lock(&self.sent).clone()
    }
}

impl HttpClient for FakeClient {
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, String>> {
        let found = lock(&self.routes)
            .iter()
            .find(|(m, u, _)| *m == request.method && *u == request.url)
            .map(|(_, _, r)| r.clone());
        let url = request.url.clone();
        lock(&self.sent).push(request);
        Box::pin(async move {
            let canned = found.ok_or_else(|| format!("no fake response for {url}"))?;
            let mime =
                canned.headers.iter().find(|(k, _)| k == "content-type").map(|(_, v)| v.clone()).unwrap_or_default();
            Ok(HttpResponse {
                status: canned.status,
                url,
                headers: canned.headers,
                body: Box::new(BytesBody { bytes: canned.body, mime }),
            })
        })
    }
}

/// Runs a future that never waits on anything external (the fake client's) to
/// completion on the current thread. For native tests and examples.
///
/// # Panics
/// If the future is still pending after being polled with nothing left to wait for.
#[allow(clippy::panic, reason = "a test helper: a future that can never finish is a bug in the test")]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1000 {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
    panic!("block_on: the future is waiting on something that will never wake it")
}
