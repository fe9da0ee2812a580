//! `RestCall`: the JSON pipeline run end to end, and the controller's `Endpoint`.

use super::pipeline::check_header;
use super::*;
use crate::Retry;

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

    /// The cache key: method and full URL, the same for the same args in any
    /// order (without the page arg of a [paginated](RestEndpoint::paginated)
    /// endpoint: every page's answer is the list's).
    ///
    /// # Errors
    /// As [`RestEndpoint::url`].
    pub fn key(&self, args: &Args) -> Result<String, RestError> {
        let url = match &self.options.page_field {
            Some(field) if args.contains_key(field) => {
                let mut rest = args.clone();
                rest.remove(field);
                self.url(&rest)?
            }
            _ => self.url(args)?,
        };
        Ok(format!("{} {}", self.options.method, url))
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
        body: Option<RequestBody>,
    ) -> BoxFuture<'static, Result<Body, RestError>> {
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
        body: Option<RequestBody>,
        abort: Option<rdc_controller::Abort>,
    ) -> BoxFuture<'static, Result<Body, RestError>> {
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
    pub fn prepare(&self, args: &Args, body: Option<RequestBody>) -> Result<HttpRequest, RestError> {
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

    pub(super) fn check_params(&self, args: &Value) -> Result<(), RestError> {
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

impl rdc_controller::Endpoint for RestCall {
    type Output = Body;
    type Error = RestError;
    type Body = RequestBody;

    fn key(&self, args: &Value) -> Result<String, RestError> {
        RestCall::key(self, &self.params(args)?)
    }

    fn schema(&self) -> Option<Schema> {
        self.options.schema.clone()
    }

    fn policy(&self) -> rdc_controller::Policy {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        rdc_controller::Policy {
            data_expiry_ms: ms(self.options.data_expiry),
            error_expiry_ms: ms(self.options.error_expiry),
            poll_ms: self.options.poll_frequency.map(ms),
            mutation: self.is_mutation(),
            invalid_if_stale: self.options.invalid_if_stale,
            persist: self.options.persist,
            // The endpoint's own timeout answers first, with its typed error; the
            // controller's limit is the backstop a second later.
            timeout_ms: self
                .options
                .timeout
                .map(|t| ms(t).saturating_add(1_000))
                .or(rdc_controller::Policy::default().timeout_ms),
        }
    }

    fn is_soft(&self, error: &RestError) -> bool {
        self.options.error_policy.is_soft(error)
    }

    fn fetch(&self, args: &Value, body: Option<RequestBody>) -> rdc_controller::BoxFuture<Result<Body, RestError>> {
        self.fetch_in(args, body, &rdc_controller::FetchContext::default())
    }

    fn fetch_in(
        &self,
        args: &Value,
        body: Option<RequestBody>,
        context: &rdc_controller::FetchContext,
    ) -> rdc_controller::BoxFuture<Result<Body, RestError>> {
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

    fn read_back(output: Body, stored: Value) -> Body {
        match output {
            Body::Json(_) => Body::Json(stored),
            other => other,
        }
    }

    fn retry_after(&self, error: &RestError, attempt: u32, context: &rdc_controller::FetchContext) -> Option<u64> {
        if self.is_mutation() && !self.options.idempotent {
            return None;
        }
        // The endpoint's own policy, else the app's, else the platform's.
        let retry =
            self.options.retry.or_else(|| context.service::<AppRetry>().map(|r| r.0)).unwrap_or_else(Retry::platform);
        let wait = retry.wait(error, attempt, context.random())?;
        Some(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX))
    }

    fn optimistic(&self, store: &rdc_core::State, args: &Value, body: Option<&RequestBody>) -> Option<Value> {
        let optimistic = self.options.optimistic.as_ref()?;
        let body = body.and_then(RequestBody::json_view);
        optimistic(store, &self.params(args).ok()?, body.as_deref())
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
/// use rdc_core::json;
/// use rdc_controller::{Controller, FakeTime, LocalTasks};
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
pub fn provide_client(controller: &rdc_controller::Controller, client: impl HttpClient + 'static) {
    controller.provide(ControllerClient(Arc::new(client)));
}

/// The retry policy a controller's REST endpoints use (see [`provide_retry`]).
#[derive(Clone, Copy)]
struct AppRetry(Retry);

/// Gives `controller`'s REST endpoints `retry` as their policy when they set
/// none: fewer tries for an app behind a flaky proxy, [`Retry::NEVER`] for
/// tests that want an error at once. An endpoint's [`RestEndpoint::retry`] wins.
///
/// ```
/// use rdc_controller::{Controller, FakeTime, LocalTasks};
/// use rdc_rest::{FakeClient, FakeResponse, RestEndpoint, Retry};
/// let (time, tasks) = (FakeTime::default(), LocalTasks::default());
/// let controller = Controller::new(time.clone(), time.clone(), tasks.clone());
/// rdc_rest::provide_retry(&controller, Retry::default());
/// let client = FakeClient::default();
/// client.on("GET", "/busy", FakeResponse::status(503));
/// let busy = RestEndpoint::get("/busy").client(client.clone());
/// let fetch = controller.fetch(&busy, rdc_core::json!(null), None);
/// let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
/// let seen = done.clone();
/// rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { let _ = fetch.await; seen.store(true, std::sync::atomic::Ordering::SeqCst); }));
/// tasks.run();
/// time.advance(1_000);
/// tasks.run();
/// assert_eq!((client.requests().len(), done.load(std::sync::atomic::Ordering::SeqCst)), (2, false), "retried once after at most 1 s");
/// ```
pub fn provide_retry(controller: &rdc_controller::Controller, retry: Retry) {
    controller.provide(AppRetry(retry));
}

#[cfg(target_arch = "wasm32")]
fn default_client() -> Option<Arc<dyn HttpClient>> {
    Some(Arc::new(crate::BrowserClient))
}

#[cfg(not(target_arch = "wasm32"))]
fn default_client() -> Option<Arc<dyn HttpClient>> {
    None
}
