//! `RestEndpoint<A, B, R>`: the typed face over a `RestCall`, and its builders.

use super::pipeline::{default_fetch_response, default_parse_response, default_request_init};
use super::*;

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
/// A NaN or infinite number is refused: as `null` it would read as no param
/// (a NaN cursor as the first page).
fn encode_args<T: Serialize>(args: &T) -> Result<Value, String> {
    rdc_core::json::to_finite_value(args).map_err(|e| e.to_string())
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

impl<A, B, R> rdc_controller::TypedEndpoint for RestEndpoint<A, B, R>
where
    A: Send + 'static,
    B: IntoRequestBody + Send,
    R: Send + 'static,
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

    fn encode_body(&self, body: B) -> Result<Option<RequestBody>, RestError> {
        body.into_request_body().map_err(|message| RestError::Encode { endpoint: self.name(), part: "body", message })
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
                    persist: false,
                    error_policy: ErrorPolicy::Auto,
                    headers: Vec::new(),
                    dynamic_headers: None,
                    timeout: None,
                    client: None,
                    optimistic: None,
                    page_field: None,
                    retry: None,
                    form: false,
                    idempotent: false,
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
    /// let args = rdc_controller::TypedEndpoint::encode_args(&ep, &Search { id: "7".into(), page: Some(2) }).unwrap();
    /// assert_eq!(ep.key(args.as_object().unwrap()).unwrap(), "GET /users/7/posts?page=2");
    /// ```
    pub fn args<T: Serialize + 'static>(&self) -> RestEndpoint<T, B, R> {
        self.retyped(Arc::new(encode_args::<T>), self.typing.result.clone())
    }

    /// Sends a body of type `T`: any `Serialize` as JSON (one that serializes
    /// to `null`, such as `()` or `None`, sends none), or a
    /// [`Multipart`](crate::Multipart) form, a [`Blob`](crate::Blob) or a
    /// [`RequestBody`](crate::RequestBody) (see [`IntoRequestBody`](crate::IntoRequestBody)).
    ///
    /// ```
    /// #[derive(serde::Serialize)]
    /// struct NewUser { name: String }
    /// let create = rdc_rest::RestEndpoint::post("/users").args::<()>().body::<NewUser>();
    /// # let _ = create;
    /// ```
    pub fn body<T: IntoRequestBody>(&self) -> RestEndpoint<A, T, R> {
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
    /// let args = rdc_controller::TypedEndpoint::encode_args(&by_id, &7).unwrap();
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

    /// Whether this endpoint's results outlive the page: kept where the app
    /// keeps its store (`rdc_leptos::persist`, IndexedDB in the browser) with
    /// the entities they reach, and shown at the next start until refetched.
    ///
    /// ```
    /// use rdc_controller::Endpoint;
    /// let users = rdc_rest::RestEndpoint::get("/api/users").persist(true);
    /// assert!(Endpoint::policy(&*users).persist);
    /// ```
    pub fn persist(&self, persist: bool) -> Self {
        self.with(|o| o.persist = persist)
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

    /// The endpoint that fetches a further page of this list endpoint's
    /// lists, the page named by arg `field` (a cursor, a page number). The
    /// page's items join the list fetched without `field`, each once
    /// ([`Collection::paginated`](rdc_core::Collection::paginated), for a
    /// collection at the top of the schema or a member of its object). Its key
    /// leaves `field` out, so a page's answer replaces the list endpoint's
    /// result: the list shows every page's items with the information of the
    /// last page fetched (its next cursor or `Link`, say).
    ///
    /// ```
    /// use rdc_core::{Collection, Entity};
    /// use rdc_rest::RestEndpoint;
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Todo { id: u32 }
    /// let list = RestEndpoint::get("/todos").schema(Collection::of("TodoList", Todo::schema()));
    /// let next_page = list.paginated("cursor");
    /// let args = |json| match json { rdc_core::json::Value::Object(map) => map, _ => unreachable!() };
    /// let first = list.key(&args(rdc_core::json!({})))?;
    /// assert_eq!(next_page.key(&args(rdc_core::json!({ "cursor": 5 })))?, first);
    /// assert_eq!(next_page.url(&args(rdc_core::json!({ "cursor": 5 })))?, "/todos?cursor=5");
    /// # Ok::<(), rdc_rest::RestError>(())
    /// ```
    pub fn paginated(&self, field: &str) -> Self {
        self.with(|o| {
            o.schema = o.schema.as_ref().map(|schema| rdc_core::Collection::paginated_schema(schema, field));
            o.page_field = Some(field.into());
        })
    }

    /// Sends the body as an HTML form does (`application/x-www-form-urlencoded`,
    /// fields as [`form_fields`](crate::form_fields) writes them) instead of
    /// JSON; a body that cannot be form fields is an `Encode` error, and nothing
    /// is sent.
    ///
    /// ```
    /// use rdc_rest::{block_on, FakeClient, FakeResponse, RestEndpoint};
    /// let client = FakeClient::default();
    /// client.on("POST", "/login", FakeResponse::json(rdc_core::json!({ "ok": true })));
    /// let login = RestEndpoint::post("/login").form().client(client.clone());
    /// let body = rdc_core::json!({ "user": "ada", "password": "x&y" });
    /// block_on(login.fetch(std::sync::Arc::new(client.clone()), &Default::default(), Some(body.into())))?;
    /// let sent = &client.requests()[0];
    /// assert_eq!(sent.body_text(), Some("user=ada&password=x%26y"));
    /// assert!(sent.headers.iter().any(|(n, v)| n == "Content-Type" && v == "application/x-www-form-urlencoded"));
    /// # Ok::<(), rdc_rest::RestError>(())
    /// ```
    pub fn form(&self) -> Self {
        self.with(|o| o.form = true)
    }

    /// How a failed request is tried again (see [`Retry`](crate::Retry)),
    /// over the app's ([`provide_retry`](crate::provide_retry)) and the
    /// platform's ([`Retry::platform`](crate::Retry::platform)); a mutation
    /// only when also [`idempotent`](RestEndpoint::idempotent).
    ///
    /// ```
    /// use rdc_rest::{RestEndpoint, Retry};
    /// let patient = RestEndpoint::get("/flaky").retry(Retry::default());
    /// # let _ = patient;
    /// ```
    pub fn retry(&self, retry: crate::Retry) -> Self {
        self.with(|o| o.retry = Some(retry))
    }

    /// Marks a mutation as safe to send twice (a `PUT` of a whole entity, a
    /// `DELETE`): it is then retried as a read is. Other mutations never are.
    pub fn idempotent(&self, idempotent: bool) -> Self {
        self.with(|o| o.idempotent = idempotent)
    }

    /// The response a mutation is expected to give, shown at once (optimistic
    /// update) until the real one arrives or the request fails.
    pub fn optimistic(&self, f: impl Fn(&Args, Option<&Value>) -> Value + Send + Sync + 'static) -> Self {
        self.optimistic_with(move |_, args, body| Some(f(args, body)))
    }

    /// An optimistic response worked out from the store as it stands (the
    /// fetched data with earlier layers on it): when the mutation is sent, and
    /// again after every write while it is pending, so "one more than stored"
    /// stays one more than what was fetched since. `None` shows nothing.
    ///
    /// ```
    /// use rdc_core::{json, Entity};
    /// use rdc_rest::RestEndpoint;
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Counter { id: u32, count: u64 }
    /// let increment = RestEndpoint::post("/counters/:id/increment").schema(Counter::schema()).optimistic_with(
    ///     |store, args, _| {
    ///         let id = args.get("id")?.as_u64()?;
    ///         let stored = store.entity("Counter", &id.to_string())?.value.as_ref()?.get("count")?.as_u64()?;
    ///         Some(json!({ "id": id, "count": stored + 1 }))
    ///     },
    /// );
    /// # let _ = increment;
    /// ```
    pub fn optimistic_with(
        &self,
        f: impl Fn(&rdc_core::State, &Args, Option<&Value>) -> Option<Value> + Send + Sync + 'static,
    ) -> Self {
        self.with(|o| o.optimistic = Some(Arc::new(f)))
    }

    /// Overrides `request_init(body)`; `sup` is the step replaced.
    pub fn with_request_init(
        &self,
        f: impl Fn(
                Option<RequestBody>,
                &dyn Fn(Option<RequestBody>) -> Result<RequestInit, RestError>,
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
        f: impl Fn(HttpRequest, FetchSuper) -> BoxFuture<'static, Result<HttpResponse, RestError>> + Send + Sync + 'static,
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
        f: impl Fn(HttpResponse, ParseSuper) -> BoxFuture<'static, Result<Body, RestError>> + Send + Sync + 'static,
    ) -> Self {
        let prev = Arc::clone(&self.call.options.parse_response);
        self.with(|o| {
            o.parse_response =
                Arc::new(move |endpoint, response| f(response, ParseSuper { prev: Arc::clone(&prev), endpoint }))
        })
    }
}
