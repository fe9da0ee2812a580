//! `RestEndpoint`: options, the key, and the fetch pipeline
//! (request init -> fetch response -> parse response -> process), every step
//! overridable by a function that can call the step it replaces (`sup`, like `super`).

mod body;
mod call;
mod pipeline;
mod typed;

pub use body::{Args, Body, Content, ErrorPolicy, FileDownload};
pub use call::{provide_client, provide_retry};
pub use pipeline::{FetchSuper, ParseSuper, RequestInit};

use std::sync::Arc;
use std::time::Duration;

use std::marker::PhantomData;

use rdc_core::json::{Map, Value};
use rdc_core::{Schema, SchemaOf};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{NetworkError, RestError};
use crate::http::{Blob, BoxFuture, HttpClient, HttpRequest, HttpResponse};
use crate::path::{ParamError, PathTemplate};
use crate::request_body::{IntoRequestBody, RequestBody};

type RequestInitFn = Arc<dyn Fn(&RestCall, Option<RequestBody>) -> Result<RequestInit, RestError> + Send + Sync>;
type ProcessFn = Arc<dyn Fn(&RestCall, Body, &Args) -> Result<Body, RestError> + Send + Sync>;
type FetchResponseFn = Arc<
    dyn Fn(RestCall, Arc<dyn HttpClient>, HttpRequest) -> BoxFuture<'static, Result<HttpResponse, RestError>>
        + Send
        + Sync,
>;
type ParseResponseFn = Arc<dyn Fn(RestCall, HttpResponse) -> BoxFuture<'static, Result<Body, RestError>> + Send + Sync>;
type OptimisticFn = Arc<dyn Fn(&rdc_core::State, &Args, Option<&Value>) -> Option<Value> + Send + Sync>;
type HeadersFn = Arc<dyn Fn(&Args) -> Vec<(String, String)> + Send + Sync>;

#[derive(Clone)]
struct Options {
    method: String,
    path: String,
    template: PathTemplate,
    url_prefix: String,
    schema: Option<Schema>,
    content: Content,
    poll_frequency: Option<Duration>,
    data_expiry: Duration,
    error_expiry: Duration,
    invalid_if_stale: bool,
    /// Whether results outlive the page (see `persist`).
    persist: bool,
    error_policy: ErrorPolicy,
    headers: Vec<(String, String)>,
    dynamic_headers: Option<HeadersFn>,
    timeout: Option<Duration>,
    client: Option<Arc<dyn HttpClient>>,
    optimistic: Option<OptimisticFn>,
    /// The arg that names a page, left out of the key (see `paginated`).
    page_field: Option<Arc<str>>,
    /// `None`: the app's policy (`provide_retry`), else the platform's.
    retry: Option<crate::Retry>,
    /// Whether the body goes as form fields rather than JSON.
    form: bool,
    /// A mutation that may be sent twice with one effect (then retried too).
    idempotent: bool,
    request_init: RequestInitFn,
    fetch_response: FetchResponseFn,
    parse_response: ParseResponseFn,
    process: ProcessFn,
}

/// A REST endpoint: where it is, how to read its answer, how long it is fresh,
/// and the types it is called with: args `A`, body `B` and result `R`.
/// Cheap to clone; builder methods return a changed copy (like `extend()`).
/// The untyped pipeline and getters come from its [`RestCall`] (through `Deref`).
///
/// `RestEndpoint::get(path)` is the dynamic form (JSON args, an optional JSON
/// body, a JSON result); [`RestEndpoint::args`], [`RestEndpoint::body`] and
/// [`RestEndpoint::schema`] give it types, and the `rest!` macro does all three
/// with the path params checked against the args type at compile time.
///
/// ```
/// use rdc_rest::{block_on, FakeClient, FakeResponse, RestEndpoint};
/// use rdc_core::json;
///
/// let get_price = RestEndpoint::get("/price/:exchangePair").url_prefix("https://api.example.com");
/// let args = json!({ "exchangePair": "BTC-USD" });
/// assert_eq!(get_price.key(args.as_object().unwrap()).unwrap(), "GET https://api.example.com/price/BTC-USD");
///
/// let client = FakeClient::default();
/// client.on("GET", "https://api.example.com/price/BTC-USD", FakeResponse::json(json!({ "price": "1.5" })));
/// let body = block_on(get_price.fetch(std::sync::Arc::new(client), args.as_object().unwrap(), None)).unwrap();
/// assert_eq!(body.json().unwrap()["price"], "1.5");
/// ```
pub struct RestEndpoint<A = Value, B = Option<Value>, R = Value> {
    call: RestCall,
    typing: Typing<A, B, R>,
}

/// The JSON side of a [`RestEndpoint`]: its options and pipeline, what the
/// controller fetches with (its [`Endpoint`](rdc_controller::Endpoint)).
///
/// ```
/// let endpoint = rdc_rest::RestEndpoint::get("/users/:id").url_prefix("/api");
/// let call: &rdc_rest::RestCall = &endpoint;   // through `Deref`
/// assert_eq!(call.name(), "GET /users/:id");
/// ```
#[derive(Clone)]
pub struct RestCall {
    options: Arc<Options>,
}

type ArgsFn<A> = Arc<dyn Fn(&A) -> Result<Value, String> + Send + Sync>;
type ResultFn<R> = Arc<dyn Fn(Body) -> Result<R, String> + Send + Sync>;

/// How a typed endpoint's args and results meet JSON.
struct Typing<A, B, R> {
    args: ArgsFn<A>,
    result: ResultFn<R>,
    body: PhantomData<fn(B)>,
}
