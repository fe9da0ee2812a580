//! `from_fn`: any async function (a Leptos server function, a GraphQL query, a
//! client of your own) as an endpoint feeding the normalized store.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::endpoint::{BoxFuture, Endpoint, Policy, TypedEndpoint};
use rdc_core::json::{self, Value};
use rdc_core::{canonical_text, Schema, SchemaOf};

/// Why a [`from_fn`] call failed.
///
/// ```
/// let failed = rdc_controller::FnError::Failed { endpoint: "get_user".into(), error: "no user 7".to_string() };
/// assert_eq!(failed.to_string(), "get_user: no user 7");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum FnError<E> {
    /// The function returned `error`.
    Failed {
        /// The endpoint's name.
        endpoint: String,
        /// What the function returned.
        error: E,
    },
    /// Args or result did not go through JSON.
    Json {
        /// The endpoint's name.
        endpoint: String,
        /// What failed.
        message: String,
    },
}

impl<E: std::fmt::Display> std::fmt::Display for FnError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FnError::Failed { endpoint, error } => write!(f, "{endpoint}: {error}"),
            FnError::Json { endpoint, message } => write!(f, "{endpoint}: {message}"),
        }
    }
}

type CallFn<E> = Arc<dyn Fn(&Value) -> BoxFuture<Result<Value, FnError<E>>> + Send + Sync>;

/// The JSON side of a [`FnEndpoint`]: what the controller fetches with.
///
/// ```
/// use rdc_controller::{Endpoint, TypedEndpoint};
/// async fn double(n: i64) -> Result<i64, String> { Ok(2 * n) }
/// let call = rdc_controller::from_fn("double", double).endpoint().clone();
/// assert_eq!(call.key(&rdc_core::json!(4)).unwrap(), "double 4");
/// ```
pub struct FnCall<E> {
    name: Arc<str>,
    call: CallFn<E>,
    schema: Option<Schema>,
    policy: Policy,
}

impl<E> Clone for FnCall<E> {
    fn clone(&self) -> Self {
        FnCall {
            name: Arc::clone(&self.name),
            call: Arc::clone(&self.call),
            schema: self.schema.clone(),
            policy: self.policy,
        }
    }
}

impl<E> std::fmt::Debug for FnCall<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnCall").field("name", &self.name).finish_non_exhaustive()
    }
}

impl<E: Clone + std::fmt::Display + Send + Sync + 'static> Endpoint for FnCall<E> {
    type Output = Value;
    type Error = FnError<E>;
    type Body = ();

    /// The name, then the args in canonical order (none for `()` args).
    fn key(&self, args: &Value) -> Result<String, FnError<E>> {
        Ok(match args {
            Value::Null => self.name.to_string(),
            args => format!("{} {}", self.name, canonical_text(args)),
        })
    }

    fn schema(&self) -> Option<Schema> {
        self.schema.clone()
    }

    fn policy(&self) -> Policy {
        self.policy
    }

    fn is_soft(&self, _error: &FnError<E>) -> bool {
        false
    }

    fn fetch(&self, args: &Value, _body: Option<()>) -> BoxFuture<Result<Value, FnError<E>>> {
        (self.call)(args)
    }

    fn storable(output: &Value) -> Option<Value> {
        Some(output.clone())
    }

    fn read_back(_output: Value, stored: Value) -> Value {
        stored
    }
}

/// An async function as an endpoint: made by [`from_fn`].
///
/// ```
/// async fn double(n: i64) -> Result<i64, String> { Ok(2 * n) }
/// let doubles: rdc_controller::FnEndpoint<i64, i64, String> = rdc_controller::from_fn("double", double);
/// # let _ = doubles;
/// ```
pub struct FnEndpoint<A, R, E> {
    call: FnCall<E>,
    types: PhantomData<fn(A) -> R>,
}

impl<A, R, E> Clone for FnEndpoint<A, R, E> {
    fn clone(&self) -> Self {
        FnEndpoint { call: self.call.clone(), types: PhantomData }
    }
}

impl<A, R, E> std::fmt::Debug for FnEndpoint<A, R, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnEndpoint").field("name", &self.call.name).finish_non_exhaustive()
    }
}

/// `f` as an endpoint named `name`: its args and result travel as JSON, its
/// results are stored under `name` and the args, deduplicated, kept fresh and
/// read like any endpoint's. Give it a schema (`.schema(..)`) and its entities
/// join the normalized store. A function that writes is a mutation
/// (`.mutation()`): never deduplicated. A Leptos `#[server]` function of one
/// argument fits as it is (several: one struct argument).
///
/// ```
/// use rdc_core::{json, Entity};
/// use rdc_controller::{from_fn, Controller, FakeTime, LocalTasks};
/// #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, Entity)]
/// struct User { id: String, name: String }
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct ById { id: String }
///
/// // A Leptos `#[server]` function of one argument has this shape too.
/// async fn get_user(args: ById) -> Result<User, String> {
///     Ok(User { id: args.id, name: "Ada".into() })
/// }
/// let user = from_fn("get_user", get_user).schema(User::schema());
///
/// let (time, tasks) = (FakeTime::default(), LocalTasks::default());
/// let controller = Controller::new(time.clone(), time, tasks.clone());
/// let ada: User = tasks.block_on(controller.fetch(&user, ById { id: "1".into() }, ())).unwrap();
/// assert_eq!(ada.name, "Ada");
/// assert_eq!(controller.entity::<User>("1").unwrap().unwrap().name, "Ada");   // in the store
/// ```
pub fn from_fn<A, R, E, F, Fut>(name: &str, f: F) -> FnEndpoint<A, R, E>
where
    A: Serialize + DeserializeOwned + Send + Sync + 'static,
    R: Serialize + DeserializeOwned + Send + Sync + 'static,
    E: Clone + std::fmt::Display + Send + Sync + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, E>> + Send + 'static,
{
    let name: Arc<str> = name.into();
    let own_name = Arc::clone(&name);
    let call: CallFn<E> = Arc::new(move |args: &Value| {
        let endpoint = own_name.to_string();
        let args = json::from_value::<A>(args)
            .map_err(|e| FnError::Json { endpoint: endpoint.clone(), message: format!("args: {e}") });
        let called = args.map(&f);
        Box::pin(async move {
            let result = called?.await.map_err(|error| FnError::Failed { endpoint: endpoint.clone(), error })?;
            json::to_value(&result).map_err(|e| FnError::Json { endpoint, message: format!("result: {e}") })
        })
    });
    FnEndpoint { call: FnCall { name, call, schema: None, policy: Policy::default() }, types: PhantomData }
}

impl<A, R, E> FnEndpoint<A, R, E> {
    /// Normalizes results with `schema` (which reads as the result type).
    pub fn schema(mut self, schema: SchemaOf<R>) -> Self {
        self.call.schema = Some(schema.into());
        self
    }

    /// Sets expiry, polling, the mutation flag and the time limit.
    pub fn policy(mut self, policy: Policy) -> Self {
        self.call.policy = policy;
        self
    }

    /// Marks a function that writes: each call runs (never shared with another).
    ///
    /// ```
    /// async fn rename(name: String) -> Result<String, String> { Ok(name) }
    /// let rename = rdc_controller::from_fn("rename", rename).mutation();
    /// assert!(rdc_controller::Endpoint::policy(rdc_controller::TypedEndpoint::endpoint(&rename)).mutation);
    /// ```
    pub fn mutation(mut self) -> Self {
        self.call.policy.mutation = true;
        self
    }
}

impl<A, R, E> TypedEndpoint for FnEndpoint<A, R, E>
where
    A: Serialize + Send + Sync + 'static,
    R: DeserializeOwned + Send + Sync + 'static,
    E: Clone + std::fmt::Display + Send + Sync + 'static,
{
    type Args = A;
    type Body = ();
    type Result = R;
    type Error = FnError<E>;
    type Endpoint = FnCall<E>;

    fn endpoint(&self) -> &FnCall<E> {
        &self.call
    }

    fn encode_args(&self, args: &A) -> Result<Value, FnError<E>> {
        json::to_value(args)
            .map_err(|e| FnError::Json { endpoint: self.call.name.to_string(), message: format!("args: {e}") })
    }

    fn encode_body(&self, _body: ()) -> Result<Option<()>, FnError<E>> {
        Ok(None)
    }

    fn decode_result(&self, output: Value) -> Result<R, FnError<E>> {
        json::from_value(&output)
            .map_err(|e| FnError::Json { endpoint: self.call.name.to_string(), message: format!("result: {e}") })
    }
}
