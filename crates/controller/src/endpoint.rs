//! What the controller needs from an endpoint. `rdc_rest::RestEndpoint` implements it;
//! tests implement it over an in-memory server.

use std::future::Future;
use std::pin::Pin;

use rdc_core::json::Value;

use rdc_core::{Schema, State};

/// A boxed future that need not be `Send` (browser futures are not).
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Freshness and behaviour of an endpoint, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// How long data stays fresh (`0` keeps nothing in the store).
    pub data_expiry_ms: u64,
    /// How long an error counts before a read fetches again.
    pub error_expiry_ms: u64,
    /// Refetch interval while subscribed.
    pub poll_ms: Option<u64>,
    /// Mutations are never deduplicated.
    pub mutation: bool,
    /// Stale data must not be shown while refetching.
    pub invalid_if_stale: bool,
    /// How long a request may take before it fails with
    /// [`FetchError::Timeout`](super::FetchError::Timeout) and frees its key
    /// (`None`: no limit). A server that never answers must not keep readers
    /// loading forever.
    pub timeout_ms: Option<u64>,
    /// Whether results outlive the page, where the app keeps the store
    /// ([`Controller::persist`](super::Controller::persist)).
    ///
    /// ```
    /// let kept = rdc_controller::Policy { persist: true, ..Default::default() };
    /// assert!(kept.persist && !rdc_controller::Policy::default().persist);
    /// ```
    pub persist: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            data_expiry_ms: 60_000,
            error_expiry_ms: 1_000,
            poll_ms: None,
            mutation: false,
            invalid_if_stale: false,
            timeout_ms: Some(60_000),
            persist: false,
        }
    }
}

/// An endpoint the [`Controller`](super::Controller) can fetch.
pub trait Endpoint: Send + Sync + 'static {
    /// What a fetch resolves to (e.g. a JSON value or a blob).
    type Output: Clone + Send + Sync + 'static;
    /// What a failed fetch gives.
    type Error: Clone + std::fmt::Display + Send + Sync + 'static;
    /// What a mutation sends: JSON for most endpoints; a REST endpoint also
    /// sends text, blobs and multipart forms. Cloned for each retry.
    type Body: Clone + Send + Sync + 'static;

    /// The cache key for `args` (the same for equal args in any order).
    ///
    /// # Errors
    /// When args are missing or invalid (nothing is fetched).
    fn key(&self, args: &Value) -> Result<String, Self::Error>;

    /// The schema results are normalized with (`None` keeps the raw JSON).
    fn schema(&self) -> Option<Schema>;

    /// Expiry, polling and mutation flags.
    fn policy(&self) -> Policy;

    /// Whether `error` leaves stale data showing (soft) or replaces it (hard).
    fn is_soft(&self, error: &Self::Error) -> bool;

    /// How long to wait before sending a failed request again, `attempt`
    /// counting the retries made so far (0 before the first), or `None` to
    /// give up with `error`. The endpoint knows which of its errors another
    /// try can mend (a timeout, a 503) and which not (a 404); `context` holds
    /// what the app gave the controller (an app-wide retry policy, say). The
    /// controller asks only while someone still wants the answer: a retry
    /// stops when its readers are gone, its request is aborted or the store is reset.
    fn retry_after(&self, _error: &Self::Error, _attempt: u32, _context: &super::FetchContext) -> Option<u64> {
        None
    }

    /// Sends the request.
    fn fetch(&self, args: &Value, body: Option<Self::Body>) -> BoxFuture<Result<Self::Output, Self::Error>>;

    /// Sends the request as the controller does: with the controller's
    /// services, cancelled when the context's abort fires. The default calls
    /// [`Endpoint::fetch`] (the controller still drops a late result).
    fn fetch_in(
        &self,
        args: &Value,
        body: Option<Self::Body>,
        _context: &super::FetchContext,
    ) -> BoxFuture<Result<Self::Output, Self::Error>> {
        self.fetch(args, body)
    }

    /// The JSON to store for an output (`None`: not stored, e.g. a blob).
    fn storable(output: &Self::Output) -> Option<Value>;

    /// The output a call resolves to once its answer, of an entity schema,
    /// is stored: `stored` is that entity read back from the store, the
    /// answer merged into what was there (a PATCH answered with the fields it
    /// changed reads whole). The default keeps `output` as it came.
    ///
    /// ```
    /// use rdc_controller::{Endpoint, FnEndpoint, TypedEndpoint};
    /// use rdc_core::{json, json::Value};
    /// // A `from_fn` endpoint resolves to the entity as stored.
    /// type Call = <FnEndpoint<(), Value, String> as TypedEndpoint>::Endpoint;
    /// let answer = json!({ "id": "1", "done": true });
    /// let stored = json!({ "id": "1", "title": "Milk", "done": true });
    /// assert_eq!(<Call as Endpoint>::read_back(answer, stored.clone()), stored);
    /// ```
    fn read_back(output: Self::Output, stored: Value) -> Self::Output {
        let _ = stored;
        output
    }

    /// The optimistic response of a mutation, shown at once until the real one
    /// arrives (`None`: not optimistic). It is worked out from `store` (the
    /// fetched data with the earlier layers on it) when the mutation is sent
    /// and again after every write while it is pending, so "one more than
    /// stored" stays one more than what was fetched since.
    fn optimistic(&self, _store: &State, _args: &Value, _body: Option<&Self::Body>) -> Option<Value> {
        None
    }
}

/// An endpoint as an app calls it: args, body and result with Rust types, over
/// the JSON-speaking [`Endpoint`] that does the work. Every `Endpoint` is one,
/// with JSON args, an optional JSON body and its output as the result;
/// `rdc_rest::RestEndpoint<A, B, R>` and [`from_fn`](crate::from_fn) endpoints
/// choose their own types.
///
/// ```
/// use rdc_core::{json, json::Value};
/// use rdc_controller::TypedEndpoint;
/// fn key_of<C: TypedEndpoint>(endpoint: &C, args: &C::Args) -> Option<String> {
///     let args: Value = endpoint.encode_args(args).ok()?;
///     rdc_controller::Endpoint::key(endpoint.endpoint(), &args).ok()
/// }
/// # let _ = key_of::<rdc_controller::FnEndpoint<(), Value, String>>;
/// ```
pub trait TypedEndpoint: Clone + Send + Sync + 'static {
    /// What a call is made with (path and search params for REST).
    type Args: Send + 'static;
    /// What a mutation sends.
    type Body: Send + 'static;
    /// What a call resolves to, and what readers read.
    type Result: Send + 'static;
    /// What a failed call gives.
    type Error: Clone + std::fmt::Display + Send + Sync + 'static;
    /// The endpoint doing the work.
    type Endpoint: Endpoint<Error = Self::Error> + Clone;

    /// The endpoint doing the work.
    fn endpoint(&self) -> &Self::Endpoint;

    /// The args as JSON.
    ///
    /// # Errors
    /// When they cannot be JSON (nothing is fetched).
    fn encode_args(&self, args: &Self::Args) -> Result<Value, Self::Error>;

    /// The body as the endpoint sends it (`None`: no body).
    ///
    /// # Errors
    /// When it cannot be encoded (nothing is sent).
    fn encode_body(&self, body: Self::Body) -> Result<Option<<Self::Endpoint as Endpoint>::Body>, Self::Error>;

    /// The result of a call, from what the endpoint produced.
    ///
    /// # Errors
    /// When the output does not read as the result.
    fn decode_result(&self, output: <Self::Endpoint as Endpoint>::Output) -> Result<Self::Result, Self::Error>;

    /// The args as JSON and the store key they make: where every call starts.
    ///
    /// # Errors
    /// When the args cannot be JSON or make no key (a path param missing...).
    fn json_and_key(&self, args: &Self::Args) -> Result<(Value, String), Self::Error> {
        let json = self.encode_args(args)?;
        let key = self.endpoint().key(&json)?;
        Ok((json, key))
    }

    /// The cache key for `args` alone (a JSON endpoint keys its args as they
    /// are, without the copy encoding makes).
    ///
    /// # Errors
    /// As [`TypedEndpoint::json_and_key`].
    fn key_for(&self, args: &Self::Args) -> Result<String, Self::Error> {
        self.json_and_key(args).map(|(_, key)| key)
    }
}

impl<E: Endpoint + Clone> TypedEndpoint for E {
    type Args = Value;
    type Body = Option<E::Body>;
    type Result = E::Output;
    type Error = E::Error;
    type Endpoint = E;

    fn endpoint(&self) -> &E {
        self
    }

    fn encode_args(&self, args: &Value) -> Result<Value, E::Error> {
        Ok(args.clone())
    }

    fn encode_body(&self, body: Option<E::Body>) -> Result<Option<E::Body>, E::Error> {
        Ok(body)
    }

    fn decode_result(&self, output: E::Output) -> Result<E::Output, E::Error> {
        Ok(output)
    }

    fn key_for(&self, args: &Value) -> Result<String, E::Error> {
        Endpoint::key(self, args)
    }
}
