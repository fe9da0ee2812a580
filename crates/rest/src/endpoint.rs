//! `RestEndpoint`: options, the key, and the fetch pipeline
//! (request init -> fetch response -> parse response -> process), every step
//! overridable by a function that can call the step it replaces (`sup`, like `super`).

use std::sync::Arc;
use std::time::Duration;

use std::marker::PhantomData;

use rdc_core::json::{Map, Value};
use rdc_core::{Schema, SchemaOf};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{NetworkError, RestError};
use crate::http::{Blob, HttpClient, HttpRequest, HttpResponse, LocalBoxFuture};
use crate::path::{ParamError, PathTemplate};

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

/// The request to send, before the URL and endpoint headers are added.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestInit {
    /// Method.
    pub method: String,
    /// Headers set by the step (content type...).
    pub headers: Vec<(String, String)>,
    /// Encoded body.
    pub body: Option<String>,
}

type RequestInitFn = Arc<dyn Fn(&RestCall, Option<Value>) -> Result<RequestInit, RestError> + Send + Sync>;
type ProcessFn = Arc<dyn Fn(&RestCall, Body, &Args) -> Result<Body, RestError> + Send + Sync>;
type FetchResponseFn = Arc<
    dyn Fn(RestCall, Arc<dyn HttpClient>, HttpRequest) -> LocalBoxFuture<'static, Result<HttpResponse, RestError>>
        + Send
        + Sync,
>;
type ParseResponseFn =
    Arc<dyn Fn(RestCall, HttpResponse) -> LocalBoxFuture<'static, Result<Body, RestError>> + Send + Sync>;
type OptimisticFn = Arc<dyn Fn(&Args, Option<&Value>) -> Value + Send + Sync>;
type HeadersFn = Arc<dyn Fn(&Args) -> Vec<(String, String)> + Send + Sync>;

/// The step an override replaced, for `fetch_response` overrides.
pub struct FetchSuper {
    prev: FetchResponseFn,
    endpoint: RestCall,
    client: Arc<dyn HttpClient>,
}

impl std::fmt::Debug for FetchSuper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchSuper").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

impl FetchSuper {
    /// Runs the replaced step.
    pub fn call(self, request: HttpRequest) -> LocalBoxFuture<'static, Result<HttpResponse, RestError>> {
        (self.prev)(self.endpoint, self.client, request)
    }
}

/// The step an override replaced, for `parse_response` overrides.
pub struct ParseSuper {
    prev: ParseResponseFn,
    endpoint: RestCall,
}

impl std::fmt::Debug for ParseSuper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParseSuper").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

impl ParseSuper {
    /// Runs the replaced step.
    pub fn call(self, response: HttpResponse) -> LocalBoxFuture<'static, Result<Body, RestError>> {
        (self.prev)(self.endpoint, response)
    }
}

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
    error_policy: ErrorPolicy,
    headers: Vec<(String, String)>,
    dynamic_headers: Option<HeadersFn>,
    timeout: Option<Duration>,
    client: Option<Arc<dyn HttpClient>>,
    optimistic: Option<OptimisticFn>,
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
/// controller fetches with (its [`Endpoint`](rdc_core::Endpoint)).
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

impl<A, B, R> Clone for Typing<A, B, R> {
    fn clone(&self) -> Self {
        Typing { args: Arc::clone(&self.args), result: Arc::clone(&self.result), body: PhantomData }
    }
}

impl Typing<Value, Option<Value>, Value> {
    fn dynamic() -> Self {
        Typing {
            args: Arc::new(encode_args::<Value>),
            result: Arc::new(|body: Body| Ok(body.into_json())),
            body: PhantomData,
        }
    }
}

/// Args as JSON (the pipeline takes an object of params, or `null` for none).
fn encode_args<T: Serialize>(args: &T) -> Result<Value, String> {
    rdc_core::json::to_value(args).map_err(|e| e.to_string())
}

/// A body read as `T` through serde: JSON as it is, text as a string, no
/// content as `null`.
fn read_body<T: DeserializeOwned>(body: Body) -> Result<T, String> {
    let value = match body {
        Body::Json(value) => value,
        Body::Text(text) => Value::String(text.into()),
        Body::Empty => Value::Null,
        binary => return Err(format!("expected JSON or text, got {}", binary.kind())),
    };
    rdc_core::deserialize_at(&value).map_err(|e| e.to_string())
}

impl<A, B, R> Clone for RestEndpoint<A, B, R> {
    fn clone(&self) -> Self {
        RestEndpoint { call: self.call.clone(), typing: self.typing.clone() }
    }
}

impl<A, B, R> std::ops::Deref for RestEndpoint<A, B, R> {
    type Target = RestCall;
    fn deref(&self) -> &RestCall {
        &self.call
    }
}

impl<A, B, R> std::fmt::Debug for RestEndpoint<A, B, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.call.fmt(f)
    }
}

impl std::fmt::Debug for RestCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestEndpoint")
            .field("method", &self.options.method)
            .field("path", &self.options.path)
            .field("url_prefix", &self.options.url_prefix)
            .field("content", &self.options.content)
            .finish_non_exhaustive()
    }
}

impl<A, B, R> rdc_core::TypedEndpoint for RestEndpoint<A, B, R>
where
    A: 'static,
    B: Serialize + 'static,
    R: 'static,
{
    type Args = A;
    type Body = B;
    type Result = R;
    type Error = RestError;
    type Endpoint = RestCall;

    fn endpoint(&self) -> &RestCall {
        &self.call
    }

    fn encode_args(&self, args: &A) -> Result<Value, RestError> {
        let json = (self.typing.args)(args).map_err(|message| RestError::Encode {
            endpoint: self.name(),
            part: "args",
            message,
        })?;
        // Checked here as the key and the fetch check it: an error at once.
        self.call.check_params(&json)?;
        Ok(json)
    }

    fn encode_body(&self, body: B) -> Result<Option<Value>, RestError> {
        match rdc_core::json::to_value(&body) {
            Ok(Value::Null) => Ok(None),
            Ok(value) => Ok(Some(value)),
            Err(e) => Err(RestError::Encode { endpoint: self.name(), part: "body", message: e.to_string() }),
        }
    }

    fn decode_result(&self, output: Body) -> Result<R, RestError> {
        (self.typing.result)(output).map_err(|message| RestError::Decode { endpoint: self.name(), message })
    }
}
impl RestEndpoint {
    /// An endpoint with `method` and path template `path`, taking JSON args and
    /// an optional JSON body and reading as JSON (the dynamic form; see
    /// [`RestEndpoint::args`], [`RestEndpoint::body`], [`RestEndpoint::schema`]
    /// and the `rest!` macro for typed ones).
    pub fn new(method: &str, path: &str) -> RestEndpoint {
        RestEndpoint {
            call: RestCall {
                options: Arc::new(Options {
                    method: method.to_ascii_uppercase(),
                    path: path.to_owned(),
                    template: PathTemplate::parse(path),
                    url_prefix: String::new(),
                    schema: None,
                    content: Content::Json,
                    poll_frequency: None,
                    data_expiry: Duration::from_secs(60),
                    error_expiry: Duration::from_secs(1),
                    invalid_if_stale: false,
                    error_policy: ErrorPolicy::Auto,
                    headers: Vec::new(),
                    dynamic_headers: None,
                    timeout: None,
                    client: None,
                    optimistic: None,
                    request_init: Arc::new(default_request_init),
                    fetch_response: Arc::new(default_fetch_response),
                    parse_response: Arc::new(default_parse_response),
                    process: Arc::new(|_, body, _| Ok(body)),
                }),
            },
            typing: Typing::dynamic(),
        }
    }

    /// A `GET` endpoint.
    pub fn get(path: &str) -> RestEndpoint {
        RestEndpoint::new("GET", path)
    }

    /// A `POST` endpoint.
    pub fn post(path: &str) -> RestEndpoint {
        RestEndpoint::new("POST", path)
    }
}

impl<A, B, R> RestEndpoint<A, B, R> {
    fn with(&self, change: impl FnOnce(&mut Options)) -> Self {
        let mut options = (*self.call.options).clone();
        change(&mut options);
        RestEndpoint { call: RestCall { options: Arc::new(options) }, typing: self.typing.clone() }
    }

    /// Sets the method.
    pub fn method(&self, method: &str) -> Self {
        self.with(|o| o.method = method.to_ascii_uppercase())
    }

    /// Sets the address prefix (`urlPrefix`).
    pub fn url_prefix(&self, prefix: &str) -> Self {
        self.with(|o| o.url_prefix = prefix.trim_end_matches('/').to_owned())
    }

    /// Sets the schema responses are normalized with; the endpoint's result is
    /// what the schema reads as (`User::schema()`: a `User`; `All::of::<User>()`:
    /// a `Vec<User>`; a plain [`Schema`]: JSON).
    ///
    /// ```
    /// use rdc_core::{All, Entity};
    /// use rdc_rest::RestEndpoint;
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// let users: RestEndpoint<_, _, Vec<User>> = RestEndpoint::get("/users").schema(All::of::<User>());
    /// # let _ = users;
    /// ```
    pub fn schema<T: DeserializeOwned + 'static>(&self, schema: impl Into<SchemaOf<T>>) -> RestEndpoint<A, B, T> {
        let schema: Schema = schema.into().into();
        self.with(|o| o.schema = Some(schema)).returns()
    }

    /// Reads results as `T` (any `Deserialize` type) without a schema: what
    /// the server sent is kept as it is, not normalized.
    ///
    /// ```
    /// #[derive(serde::Deserialize)]
    /// struct Health { ok: bool }
    /// let health = rdc_rest::RestEndpoint::get("/health").returns::<Health>();
    /// # let _ = health;
    /// ```
    pub fn returns<T: DeserializeOwned + 'static>(&self) -> RestEndpoint<A, B, T> {
        self.retyped(self.typing.args.clone(), Arc::new(read_body::<T>))
    }

    /// Takes args of type `T` (any `Serialize` struct): its fields fill the
    /// path params by name and the others form the query string; `Option`
    /// fields that are `None` are left out; `()` takes none. The `rest!` macro
    /// also checks the path params against the fields at compile time.
    ///
    /// ```
    /// #[derive(serde::Serialize)]
    /// struct Search { id: String, page: Option<u32> }
    /// let ep = rdc_rest::RestEndpoint::get("/users/:id/posts").args::<Search>();
    /// let args = rdc_core::TypedEndpoint::encode_args(&ep, &Search { id: "7".into(), page: Some(2) }).unwrap();
    /// assert_eq!(ep.key(args.as_object().unwrap()).unwrap(), "GET /users/7/posts?page=2");
    /// ```
    pub fn args<T: Serialize + 'static>(&self) -> RestEndpoint<T, B, R> {
        self.retyped(Arc::new(encode_args::<T>), self.typing.result.clone())
    }

    /// Sends a body of type `T` (any `Serialize`; one that serializes to
    /// `null`, such as `()` or `None`, sends none).
    ///
    /// ```
    /// #[derive(serde::Serialize)]
    /// struct NewUser { name: String }
    /// let create = rdc_rest::RestEndpoint::post("/users").args::<()>().body::<NewUser>();
    /// # let _ = create;
    /// ```
    pub fn body<T: Serialize + 'static>(&self) -> RestEndpoint<A, T, R> {
        self.retyped(self.typing.args.clone(), self.typing.result.clone())
    }

    /// The same endpoint, with its options changed by `f` on its dynamic form
    /// (for recipes and helpers written for `RestEndpoint`); the types stay.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// use rdc_core::Entity;
    /// use rdc_rest::{recipes, RestEndpoint};
    /// let user = RestEndpoint::get("/users/:id").schema(User::schema()).map(|e| recipes::key_case(&e.url_prefix("/api")));
    /// assert_eq!(user.name(), "GET /users/:id");
    /// ```
    pub fn map(&self, f: impl FnOnce(&RestEndpoint) -> RestEndpoint) -> Self {
        let dynamic = RestEndpoint { call: self.call.clone(), typing: Typing::dynamic() };
        RestEndpoint { call: f(&dynamic).call, typing: self.typing.clone() }
    }

    /// Reads results with `result` from what the pipeline produced (a blob, a
    /// file, a body a schema does not describe).
    ///
    /// ```
    /// use rdc_rest::{Body, RestEndpoint};
    /// let size = RestEndpoint::get("/report").result_with(|body| match body {
    ///     Body::Text(text) => Ok(text.len()),
    ///     other => Err(format!("expected text, got {}", other.kind())),
    /// });
    /// # let _ = size;
    /// ```
    pub fn result_with<T: 'static>(
        &self,
        result: impl Fn(Body) -> Result<T, String> + Send + Sync + 'static,
    ) -> RestEndpoint<A, B, T> {
        self.retyped(self.typing.args.clone(), Arc::new(result))
    }

    /// Takes args of type `T`, made into JSON by `encode` (for args that are
    /// not a struct of params, such as a bare id).
    ///
    /// ```
    /// let by_id = rdc_rest::RestEndpoint::get("/users/:id").args_with(|id: &u64| Ok(rdc_core::json!({ "id": id })));
    /// let args = rdc_core::TypedEndpoint::encode_args(&by_id, &7).unwrap();
    /// assert_eq!(by_id.key(args.as_object().unwrap()).unwrap(), "GET /users/7");
    /// ```
    pub fn args_with<T: 'static>(
        &self,
        encode: impl Fn(&T) -> Result<Value, String> + Send + Sync + 'static,
    ) -> RestEndpoint<T, B, R> {
        self.retyped(Arc::new(encode), self.typing.result.clone())
    }

    fn retyped<A2, B2, R2>(&self, args: ArgsFn<A2>, result: ResultFn<R2>) -> RestEndpoint<A2, B2, R2> {
        RestEndpoint { call: self.call.clone(), typing: Typing { args, result, body: PhantomData } }
    }

    /// Sets how the body is read.
    pub fn content(&self, content: Content) -> Self {
        self.with(|o| o.content = content)
    }

    /// Refetch this often while in use. At least 1 ms: a shorter one is refused,
    /// with [`RestError::InvalidOption`], wherever the endpoint is used (its key,
    /// URL, fetch; the controller neither fetches nor polls it).
    pub fn poll_frequency(&self, every: Duration) -> Self {
        self.with(|o| o.poll_frequency = Some(every))
    }

    /// How long fetched data stays fresh (`Duration::ZERO` keeps nothing).
    pub fn data_expiry(&self, expiry: Duration) -> Self {
        self.with(|o| o.data_expiry = expiry)
    }

    /// How long an error counts before a read fetches again.
    pub fn error_expiry(&self, expiry: Duration) -> Self {
        self.with(|o| o.error_expiry = expiry)
    }

    /// Whether stale data must not be shown while refetching.
    pub fn invalid_if_stale(&self, invalid: bool) -> Self {
        self.with(|o| o.invalid_if_stale = invalid)
    }

    /// Sets the error policy.
    pub fn error_policy(&self, policy: ErrorPolicy) -> Self {
        self.with(|o| o.error_policy = policy)
    }

    /// Adds a static header to every request.
    pub fn header(&self, name: &str, value: &str) -> Self {
        self.with(|o| o.headers.push((name.to_owned(), value.to_owned())))
    }

    /// Aborts a request that has not answered after `timeout` (the browser client
    /// uses an `AbortController`); the error is a [`RestError::Transport`].
    pub fn timeout(&self, timeout: Duration) -> Self {
        self.with(|o| o.timeout = Some(timeout))
    }

    /// Computes headers per request (e.g. an auth token).
    pub fn headers_with(&self, f: impl Fn(&Args) -> Vec<(String, String)> + Send + Sync + 'static) -> Self {
        self.with(|o| o.dynamic_headers = Some(Arc::new(f)))
    }

    /// The HTTP client the controller fetches with (default: the browser's Fetch
    /// API in wasm; natively there is none, set a [`FakeClient`](crate::FakeClient)).
    pub fn client(&self, client: impl HttpClient + 'static) -> Self {
        let client: Arc<dyn HttpClient> = Arc::new(client);
        self.with(|o| o.client = Some(client))
    }

    /// The response a mutation is expected to give, shown at once (optimistic
    /// update) until the real one arrives or the request fails.
    pub fn optimistic(&self, f: impl Fn(&Args, Option<&Value>) -> Value + Send + Sync + 'static) -> Self {
        self.with(|o| o.optimistic = Some(Arc::new(f)))
    }

    /// Overrides `request_init(body)`; `sup` is the step replaced.
    pub fn with_request_init(
        &self,
        f: impl Fn(
                Option<Value>,
                &dyn Fn(Option<Value>) -> Result<RequestInit, RestError>,
            ) -> Result<RequestInit, RestError>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        let prev = Arc::clone(&self.call.options.request_init);
        self.with(|o| o.request_init = Arc::new(move |ep, body| f(body, &|b| prev(ep, b))))
    }

    /// Overrides `process(body, args)`; `sup` is the step replaced.
    pub fn with_process(
        &self,
        f: impl Fn(Body, &Args, &dyn Fn(Body, &Args) -> Result<Body, RestError>) -> Result<Body, RestError>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        let prev = Arc::clone(&self.call.options.process);
        self.with(|o| o.process = Arc::new(move |ep, body, args| f(body, args, &|b, a| prev(ep, b, a))))
    }

    /// Adds a JSON `process(value, args)` after the current one (the spec's
    /// `process` option). Non-JSON bodies pass by.
    pub fn process(&self, f: impl Fn(Value, &Args) -> Value + Send + Sync + 'static) -> Self {
        self.with_process(move |body, args, sup| match sup(body, args)? {
            Body::Json(value) => Ok(Body::Json(f(value, args))),
            other => Ok(other),
        })
    }

    /// Overrides `fetch_response(request)`, with access to the raw response.
    pub fn with_fetch_response(
        &self,
        f: impl Fn(HttpRequest, FetchSuper) -> LocalBoxFuture<'static, Result<HttpResponse, RestError>>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        let prev = Arc::clone(&self.call.options.fetch_response);
        self.with(|o| {
            o.fetch_response = Arc::new(move |endpoint, client, request| {
                f(request, FetchSuper { prev: Arc::clone(&prev), endpoint, client })
            })
        })
    }

    /// Overrides `parse_response(response)`; it may return another shape.
    pub fn with_parse_response(
        &self,
        f: impl Fn(HttpResponse, ParseSuper) -> LocalBoxFuture<'static, Result<Body, RestError>> + Send + Sync + 'static,
    ) -> Self {
        let prev = Arc::clone(&self.call.options.parse_response);
        self.with(|o| {
            o.parse_response =
                Arc::new(move |endpoint, response| f(response, ParseSuper { prev: Arc::clone(&prev), endpoint }))
        })
    }
}
impl RestCall {
    /// `METHOD path-template`, how errors name this endpoint.
    pub fn name(&self) -> String {
        format!("{} {}", self.options.method, self.options.path)
    }

    /// The method.
    pub fn method_name(&self) -> &str {
        &self.options.method
    }

    /// The schema, if any.
    pub fn schema_ref(&self) -> Option<&Schema> {
        self.options.schema.as_ref()
    }

    /// How the body is read.
    pub fn content_kind(&self) -> Content {
        self.options.content
    }

    /// Poll interval.
    pub fn poll_every(&self) -> Option<Duration> {
        self.options.poll_frequency
    }

    /// Freshness of data.
    pub fn data_expiry_length(&self) -> Duration {
        self.options.data_expiry
    }

    /// Freshness of errors.
    pub fn error_expiry_length(&self) -> Duration {
        self.options.error_expiry
    }

    /// Whether stale data is invalid.
    pub fn is_invalid_if_stale(&self) -> bool {
        self.options.invalid_if_stale
    }

    /// The error policy.
    pub fn policy(&self) -> ErrorPolicy {
        self.options.error_policy
    }

    /// Whether this endpoint changes data (anything but GET/HEAD); such calls
    /// are never deduplicated.
    pub fn is_mutation(&self) -> bool {
        !matches!(self.options.method.as_str(), "GET" | "HEAD")
    }

    /// The full URL for `args`.
    ///
    /// # Errors
    /// [`RestError::MissingParam`] when a required path parameter is missing or
    /// empty, [`RestError::InvalidParam`] when one would make a dot segment,
    /// [`RestError::InvalidOption`] when an option cannot work.
    pub fn url(&self, args: &Args) -> Result<String, RestError> {
        self.check_options()?;
        let path = self.options.template.url(args).map_err(|error| match error {
            ParamError::Missing(name) => RestError::MissingParam { endpoint: self.name(), name },
            ParamError::DotSegment(name) => RestError::InvalidParam {
                endpoint: self.name(),
                name,
                reason: "it would make a `.` or `..` path segment, which URL parsers remove",
            },
        })?;
        Ok(join(&self.options.url_prefix, &path))
    }

    /// Refuses options that cannot work: a `poll_frequency` under 1 ms (the
    /// controller counts milliseconds, so it would poll every 0 ms: a refetch as
    /// soon as the last one answers, for as long as anyone subscribes).
    fn check_options(&self) -> Result<(), RestError> {
        if self.options.poll_frequency.is_some_and(|every| every < Duration::from_millis(1)) {
            return Err(RestError::InvalidOption {
                endpoint: self.name(),
                option: "poll_frequency",
                reason: "it must be at least 1 ms",
            });
        }
        Ok(())
    }

    /// The cache key: method and full URL, the same for the same args in any order.
    ///
    /// # Errors
    /// As [`RestEndpoint::url`].
    pub fn key(&self, args: &Args) -> Result<String, RestError> {
        Ok(format!("{} {}", self.options.method, self.url(args)?))
    }

    /// The whole pipeline: URL, request init, headers, fetch response, parse
    /// response, process. Every request flows through here.
    ///
    /// # Errors
    /// Any [`RestError`]; nothing is sent when the URL or a header is invalid.
    pub fn fetch(
        &self,
        client: Arc<dyn HttpClient>,
        args: &Args,
        body: Option<Value>,
    ) -> LocalBoxFuture<'static, Result<Body, RestError>> {
        self.fetch_with_abort(client, args, body, None)
    }

    /// [`RestEndpoint::fetch`], cancelled when `abort` fires (the browser client
    /// aborts the `fetch`; the error is a [`RestError::Transport`] saying so).
    ///
    /// # Errors
    /// As [`RestEndpoint::fetch`].
    pub fn fetch_with_abort(
        &self,
        client: Arc<dyn HttpClient>,
        args: &Args,
        body: Option<Value>,
        abort: Option<rdc_core::Abort>,
    ) -> LocalBoxFuture<'static, Result<Body, RestError>> {
        let endpoint = self.clone();
        let args = args.clone();
        let prepared = self.prepare(&args, body);
        Box::pin(async move {
            let mut request = prepared?;
            request.abort = abort;
            let options = Arc::clone(&endpoint.options);
            let response = (options.fetch_response)(endpoint.clone(), client, request).await?;
            let parsed = (options.parse_response)(endpoint.clone(), response).await?;
            (options.process)(&endpoint, parsed, &args)
        })
    }

    /// Builds the request: URL, request init, static and computed headers (checked).
    ///
    /// # Errors
    /// A missing param, a refused transform, or an invalid header.
    pub fn prepare(&self, args: &Args, body: Option<Value>) -> Result<HttpRequest, RestError> {
        let url = self.url(args)?;
        let init = (self.options.request_init)(self, body)?;
        let mut headers = init.headers;
        headers.extend(self.options.headers.iter().cloned());
        if let Some(dynamic) = &self.options.dynamic_headers {
            headers.extend(dynamic(args));
        }
        for (name, value) in &headers {
            check_header(&self.name(), name, value)?;
        }
        let timeout_ms = self.options.timeout.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        Ok(HttpRequest { method: init.method, url, headers, body: init.body, timeout_ms, abort: None })
    }
}

/// `prefix` and `path` with exactly one `/` between them, so no path (a template
/// without a leading `/`, a param's value first in it) continues the prefix's host
/// or last segment, and no run of leading slashes (`\` counts: `http(s)` URLs
/// read it as `/`) makes a host of the path. A path that is empty, a query or a
/// fragment is appended as it is, and so is a relative one without a prefix.
fn join(prefix: &str, path: &str) -> String {
    let rest = path.trim_start_matches(['/', '\\']);
    let slashed = rest.len() != path.len();
    if path.is_empty() || path.starts_with(['?', '#']) || (prefix.is_empty() && !slashed) {
        return format!("{prefix}{path}");
    }
    format!("{}/{rest}", prefix.trim_end_matches('/'))
}

impl RestCall {
    /// JSON args as the params the pipeline takes: an object (`null`: none);
    /// anything else is refused, not read as no params.
    fn params(&self, args: &Value) -> Result<Args, RestError> {
        self.check_params(args)?;
        Ok(args.as_object().cloned().unwrap_or_default())
    }

    fn check_params(&self, args: &Value) -> Result<(), RestError> {
        match args {
            Value::Null | Value::Object(_) => Ok(()),
            other => Err(RestError::Encode {
                endpoint: self.name(),
                part: "args",
                message: format!("args must be a struct or map of params, not {}", other.kind()),
            }),
        }
    }
}

impl rdc_core::Endpoint for RestCall {
    type Output = Body;
    type Error = RestError;

    fn key(&self, args: &Value) -> Result<String, RestError> {
        RestCall::key(self, &self.params(args)?)
    }

    fn schema(&self) -> Option<Schema> {
        self.options.schema.clone()
    }

    fn policy(&self) -> rdc_core::Policy {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        rdc_core::Policy {
            data_expiry_ms: ms(self.options.data_expiry),
            error_expiry_ms: ms(self.options.error_expiry),
            poll_ms: self.options.poll_frequency.map(ms),
            mutation: self.is_mutation(),
            invalid_if_stale: self.options.invalid_if_stale,
            // The endpoint's own timeout answers first, with its typed error; the
            // controller's limit is the backstop a second later.
            timeout_ms: self
                .options
                .timeout
                .map(|t| ms(t).saturating_add(1_000))
                .or(rdc_core::Policy::default().timeout_ms),
        }
    }

    fn is_soft(&self, error: &RestError) -> bool {
        self.options.error_policy.is_soft(error)
    }

    fn fetch(&self, args: &Value, body: Option<Value>) -> rdc_core::LocalFuture<Result<Body, RestError>> {
        self.fetch_in(args, body, &rdc_core::FetchContext::default())
    }

    fn fetch_in(
        &self,
        args: &Value,
        body: Option<Value>,
        context: &rdc_core::FetchContext,
    ) -> rdc_core::LocalFuture<Result<Body, RestError>> {
        let params = match self.params(args) {
            Ok(params) => params,
            Err(error) => return Box::pin(async move { Err(error) }),
        };
        // The endpoint's own client, else the controller's, else the platform's.
        let client = self
            .options
            .client
            .clone()
            .or_else(|| context.service::<ControllerClient>().map(|c| c.0))
            .or_else(default_client);
        let Some(client) = client else {
            let error = RestError::Transport {
                endpoint: self.name(),
                url: self.url(&params).unwrap_or_default(),
                message: "no HTTP client: give the controller one with rdc_rest::provide_client".to_owned(),
            };
            return Box::pin(async move { Err(error) });
        };
        self.fetch_with_abort(client, &params, body, context.abort().cloned())
    }

    fn storable(output: &Body) -> Option<Value> {
        match output {
            Body::Json(value) => Some(value.clone()),
            Body::Text(text) => Some(Value::from(text.as_str())),
            Body::Empty | Body::Blob(_) | Body::Bytes(_) | Body::File(_) => None,
        }
    }

    fn optimistic(&self, args: &Value, body: Option<&Value>) -> Option<Value> {
        let params = self.params(args).ok()?;
        self.options.optimistic.as_ref().map(|f| f(&params, body))
    }
}

/// The client a controller's REST endpoints fetch with (see [`provide_client`]).
#[derive(Clone)]
struct ControllerClient(Arc<dyn HttpClient>);

/// Gives `controller`'s REST endpoints `client` to fetch with: on a server,
/// one per request (a client that forwards that request's cookies, say). An
/// endpoint's own [`RestEndpoint::client`] still wins.
///
/// ```
/// use rdc_core::{json, Controller, FakeTime, LocalTasks};
/// use rdc_rest::{provide_client, FakeClient, FakeResponse, RestEndpoint};
/// let time = FakeTime::default();
/// let tasks = LocalTasks::default();
/// let controller = Controller::new(time.clone(), time, tasks.clone());
/// let client = FakeClient::default();
/// client.on("GET", "/api/me", FakeResponse::json(json!({ "name": "Ann" })));
/// provide_client(&controller, client);
/// let me = RestEndpoint::get("/api/me").args::<()>();
/// assert_eq!(tasks.block_on(controller.fetch(&me, (), None)).unwrap()["name"], "Ann");
/// ```
pub fn provide_client(controller: &rdc_core::Controller, client: impl HttpClient + 'static) {
    controller.provide(ControllerClient(Arc::new(client)));
}

#[cfg(target_arch = "wasm32")]
fn default_client() -> Option<Arc<dyn HttpClient>> {
    Some(Arc::new(crate::BrowserClient))
}

#[cfg(not(target_arch = "wasm32"))]
fn default_client() -> Option<Arc<dyn HttpClient>> {
    None
}

/// Refuses header names that are not HTTP tokens and values with CR, LF or NUL
/// (header injection), before any request is made.
fn check_header(endpoint: &str, name: &str, value: &str) -> Result<(), RestError> {
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

/// The default `request_init`: the method, and a JSON body when there is one.
fn default_request_init(endpoint: &RestCall, body: Option<Value>) -> Result<RequestInit, RestError> {
    let mut init = RequestInit { method: endpoint.options.method.clone(), headers: Vec::new(), body: None };
    if let Some(body) = body {
        init.headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
        init.body = Some(rdc_core::json_text(&body));
    }
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
fn default_fetch_response(
    endpoint: RestCall,
    client: Arc<dyn HttpClient>,
    request: HttpRequest,
) -> LocalBoxFuture<'static, Result<HttpResponse, RestError>> {
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
        let mut body = response.body.text().await.unwrap_or_default();
        truncate_on_char_boundary(&mut body, ERROR_BODY_BYTES);
        Err(RestError::Network { endpoint: endpoint.name(), source: NetworkError { status, url, body } })
    })
}

/// The default `parse_response`: 204 is empty; blob / array buffer content as
/// asked; JSON by content type (a parse failure is a typed error); text otherwise.
fn default_parse_response(
    endpoint: RestCall,
    response: HttpResponse,
) -> LocalBoxFuture<'static, Result<Body, RestError>> {
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
