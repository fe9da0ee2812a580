//! `use_server_action`: a Leptos server function's answers written into the
//! store, for `<ActionForm>` (a form that works before the page hydrates).

use leptos::prelude::*;
use leptos::server::ServerAction;
use leptos::server_fn::ServerFn;
use rdc_controller::{Controller, FetchError, TypedEndpoint};
use serde::Serialize;

use crate::provider::use_controller;

/// Why a [`ServerForm`] shows an error: the server function failed, or its
/// answer did not go into the store (which keeps what it had).
///
/// ```
/// use leptos::prelude::ServerFnError;
/// use rdc_leptos::ServerFormError;
/// let error: ServerFormError<ServerFnError, String> = ServerFormError::Server(ServerFnError::ServerError("taken".into()));
/// assert!(error.to_string().contains("taken"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerFormError<E, F> {
    /// The server function's own typed error, as it returned it.
    Server(E),
    /// The answer does not encode as JSON.
    Encode {
        /// The endpoint key it was for (method and URL for REST).
        key: String,
        /// What the encoder said.
        message: String,
    },
    /// The answer did not write as the endpoint's result: its args give no
    /// key (`FetchError::Endpoint`), or it does not normalize through the
    /// endpoint's schema (`FetchError::Normalize`, with the path inside it).
    Store {
        /// The endpoint key (empty when the args gave none).
        key: String,
        /// What failed.
        error: FetchError<F>,
    },
}

impl<E: std::fmt::Display, F: std::fmt::Display> std::fmt::Display for ServerFormError<E, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerFormError::Server(e) => e.fmt(f),
            ServerFormError::Encode { key, message } => {
                write!(f, "the server function's answer for {key} is not JSON: {message}")
            }
            ServerFormError::Store { key, error } if key.is_empty() => write!(f, "not stored: {error}"),
            ServerFormError::Store { key, error } => write!(f, "not stored as {key}: {error}"),
        }
    }
}

impl<E: std::fmt::Debug + std::fmt::Display, F: std::fmt::Debug + std::fmt::Display> std::error::Error
    for ServerFormError<E, F>
{
}

/// What [`use_server_action`] returns: the action to hand to `<ActionForm>`,
/// and signals for the form. `Copy`, so view closures can share it.
///
/// ```no_run
/// use leptos::prelude::*;
/// # use rdc_core::Entity;
/// # #[derive(Clone, serde::Serialize, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// # #[server] async fn create_user(name: String) -> Result<User, ServerFnError> { Ok(User { id: "1".into(), name }) }
/// # fn demo() -> impl IntoView {
/// # let created = rdc_rest::RestEndpoint::post("/api/users").args::<()>().body::<()>().schema(User::schema());
/// let form = rdc_leptos::use_server_action(created, ServerAction::<CreateUser>::new());
/// view! {
///     <ActionForm action=form.action><input name="name"/><button disabled=form.pending>"Add"</button></ActionForm>
///     <Show when=move || form.error.with(Option::is_some)>"Not saved"</Show>
/// }
/// # }
/// ```
pub struct ServerForm<C: TypedEndpoint, S: ServerFn + 'static>
where
    C::Error: Send + Sync,
{
    /// The server action: `<ActionForm action=form.action>`.
    pub action: ServerAction<S>,
    /// Whether a submit is in flight (after hydration).
    pub pending: Signal<bool>,
    /// The last submit's error: the server function's, or the store's
    /// (cleared when a submit starts).
    pub error: Signal<Option<ServerFormError<S::Error, C::Error>>>,
}

impl<C: TypedEndpoint, S: ServerFn + 'static> Clone for ServerForm<C, S>
where
    C::Error: Send + Sync,
{
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: TypedEndpoint, S: ServerFn + 'static> Copy for ServerForm<C, S> where C::Error: Send + Sync {}

impl<C: TypedEndpoint, S: ServerFn + 'static> std::fmt::Debug for ServerForm<C, S>
where
    C::Error: Send + Sync,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerForm").field("path", &S::PATH).finish_non_exhaustive()
    }
}

/// A form posting through a Leptos server function whose answers land in the
/// normalized store: each time `action` succeeds (after this hook is built),
/// its output is stored through `Controller::set_response` as `endpoint`'s
/// result for `C::Args::default()`, so every reader of the entities it holds
/// updates with no refetch. The output is stored as it is, normalized by the
/// endpoint's schema only: the endpoint's `process` does not run on it, and
/// activity hooks and the devtools do not see it, so it must already be in the
/// store's shape.
/// Hand `form.action` to `<ActionForm>`: before the page hydrates the form is
/// a plain HTML form posting to the server function, whose handler redirects
/// back (the page renders again with the new data); after, it posts without a
/// reload and the answer comes here. The server function's typed error, or a
/// store error, shows as `form.error` (before hydration too, when the
/// redirect's error reaches `ServerAction::new` as a `ServerActionError`). See [`use_server_action_with`] for
/// endpoints whose args come from the answer.
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_core::Entity;
/// use rdc_leptos::use_server_action;
///
/// #[derive(Clone, serde::Serialize, serde::Deserialize, rdc_core::Entity)]
/// struct User { id: String, name: String }
///
/// #[server]
/// async fn create_user(name: String) -> Result<User, ServerFnError> {
///     Ok(User { id: "7".into(), name })
/// }
///
/// #[component]
/// fn AddUser() -> impl IntoView {
///     let created = rdc_rest::RestEndpoint::post("/api/users").args::<()>().body::<()>().schema(User::schema());
///     let form = use_server_action(created, ServerAction::<CreateUser>::new());
///     view! {
///         <ActionForm action=form.action>
///             <input name="name"/>
///             <button type="submit" disabled=form.pending>"Add"</button>
///         </ActionForm>
///         {move || form.error.get().map(|e| e.to_string())}
///     }
/// }
/// ```
pub fn use_server_action<C, S>(endpoint: C, action: ServerAction<S>) -> ServerForm<C, S>
where
    C: TypedEndpoint,
    C::Args: Default,
    C::Error: Send + Sync,
    S: ServerFn + Clone + Send + Sync + 'static,
    S::Output: Serialize + Send + Sync + 'static,
    S::Error: Clone + Send + Sync + 'static,
{
    use_server_action_with(endpoint, |_: &S::Output| C::Args::default(), action)
}

/// [`use_server_action`] for an endpoint with args, which `args` makes from
/// the server function's answer (a rename's answer names the row it renamed).
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_core::Entity;
///
/// #[derive(Clone, serde::Serialize, serde::Deserialize, rdc_core::Entity)]
/// struct User { id: String, name: String }
/// #[derive(Clone, serde::Serialize)]
/// struct UserId { id: String }
///
/// #[server]
/// async fn rename_user(id: String, name: String) -> Result<User, ServerFnError> {
///     Ok(User { id, name })
/// }
///
/// #[component]
/// fn Rename() -> impl IntoView {
///     let user = rdc_rest::RestEndpoint::get("/api/users/:id").args::<UserId>().schema(User::schema());
///     let form = rdc_leptos::use_server_action_with(
///         user,
///         |user: &User| UserId { id: user.id.clone() },
///         ServerAction::<RenameUser>::new(),
///     );
///     view! {
///         <ActionForm action=form.action>
///             <input type="hidden" name="id" value="1"/>
///             <input name="name"/>
///             <button type="submit">"Rename"</button>
///         </ActionForm>
///     }
/// }
/// ```
pub fn use_server_action_with<C, S>(
    endpoint: C,
    args: impl Fn(&S::Output) -> C::Args + 'static,
    action: ServerAction<S>,
) -> ServerForm<C, S>
where
    C: TypedEndpoint,
    C::Error: Send + Sync,
    S: ServerFn + Clone + Send + Sync + 'static,
    S::Output: Serialize + Send + Sync + 'static,
    S::Error: Clone + Send + Sync + 'static,
{
    let controller = use_controller();
    let value = action.value();
    // An error a post made before hydration carried back (Leptos' router, or
    // the app, provides it as `ServerActionError`): shown in the server's HTML too.
    let error = RwSignal::new(value.with_untracked(|outcome| match outcome {
        Some(Err(e)) => Some(ServerFormError::Server(e.clone())),
        _ => None,
    }));
    // Runs in the browser only (effects do not run on the server): each
    // answer, once, as the action sets it. Only answers the action gets after
    // the hook is built: one it held already (a form mounted again, or a
    // second hook on the action) is old, and must not overwrite newer data.
    let version = action.version();
    let built_at = version.get_untracked();
    Effect::new(move |written: Option<usize>| {
        let now = version.get();
        let last = written.unwrap_or(built_at);
        if now <= last {
            return last;
        }
        // Only the version is tracked, not the answer, nor what `args` or the write read.
        let outcome = untrack(|| {
            value.with(|outcome| match outcome {
                None => None,
                Some(Ok(output)) => Some(store(&controller, &endpoint, &args(output), output).err()),
                Some(Err(e)) => Some(Some(ServerFormError::Server(e.clone()))),
            })
        });
        if let Some(outcome) = outcome {
            error.set(outcome);
        }
        now
    });
    // A new submit (the action given its input) clears the last one's error.
    let started = Memo::new(move |_| action.input().with(Option::is_some));
    Effect::new(move |_| {
        if started.get() {
            error.set(None);
        }
    });
    let pending = action.pending();
    ServerForm { action, pending: pending.into(), error: error.into() }
}

/// Writes `output` as `endpoint`'s result for `args`.
fn store<C: TypedEndpoint, O: Serialize, E>(
    controller: &Controller,
    endpoint: &C,
    args: &C::Args,
    output: &O,
) -> Result<(), ServerFormError<E, C::Error>> {
    // The key names the endpoint in an error only: built on those paths.
    let key = || endpoint.json_and_key(args).map(|(_, key)| key).unwrap_or_default();
    let json =
        rdc_core::json::to_value(output).map_err(|e| ServerFormError::Encode { key: key(), message: e.to_string() })?;
    controller.set_response(endpoint, args, json).map_err(|error| ServerFormError::Store { key: key(), error })
}
