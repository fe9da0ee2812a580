//! The offline queue kept with the store: each held mutation saved as data
//! (the name its endpoint was registered under with `Persist::replay`, its
//! args and body as JSON, in order) and, at the next start, its optimistic
//! layer shown again and the mutation sent again in its turn.

#[cfg(feature = "offline")]
#[cfg(feature = "offline")]
use rdc_core::json::Value;
use serde::{Deserialize, Serialize};
use std::any::{Any, TypeId};
#[cfg(feature = "offline")]
use std::sync::Arc;

#[cfg(feature = "offline")]
use super::{shared::Shared, BoxFuture, Controller, Endpoint, SavedBody, TypedEndpoint};

/// A mutation of the offline queue as it is saved with the store.
///
/// ```
/// use rdc_controller::SavedMutation;
/// let saved = SavedMutation { name: Some("todos.add".into()), key: "POST /todos".into(), args: rdc_core::json!({}), body: None };
/// assert!(saved.name.is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMutation {
    /// The name its endpoint was registered under ([`Persist::replay`](crate::Persist::replay));
    /// `None` when its body cannot be saved (a file): it is not sent again
    /// after a reload, only reported. (A mutation of an endpoint not
    /// registered is not saved.)
    pub name: Option<String>,
    /// Its endpoint key (method and URL for REST).
    pub key: String,
    /// Its args as JSON.
    pub args: Value,
    /// Its body as saved ([`SavedBody`](crate::SavedBody)); `None`: no body, or not saved.
    /// Saved only when there is one (so a `null` body reads back as `Some(Null)`).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub body: Option<Value>,
}

/// A field that is there, even `null`: `Some`.
fn present<'de, D: serde::Deserializer<'de>>(field: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(field).map(Some)
}

/// Why a saved queue of mutations was not taken up (the saved store was
/// dropped, and this one left as it was): entry `at` (from 0) names a
/// registered endpoint but is not a call of it.
///
/// ```
/// use rdc_controller::QueueError;
/// let error = QueueError::Body { at: 1, name: "todos.add".into(), reason: "expected an object".into() };
/// assert_eq!(error.to_string(), "saved mutation 1 (todos.add): the body: expected an object");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueError {
    /// Its args make no key for the endpoint (a path param missing...).
    Args {
        /// Its place in the queue.
        at: usize,
        /// The endpoint's registered name.
        name: String,
        /// What the endpoint said.
        reason: String,
    },
    /// Its body does not read as the endpoint's body.
    Body {
        /// Its place in the queue.
        at: usize,
        /// The endpoint's registered name.
        name: String,
        /// What [`SavedBody::from_saved`](crate::SavedBody::from_saved) said.
        reason: String,
    },
}

impl std::fmt::Display for QueueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueueError::Args { at, name, reason } => write!(f, "saved mutation {at} ({name}): the args: {reason}"),
            QueueError::Body { at, name, reason } => write!(f, "saved mutation {at} ({name}): the body: {reason}"),
        }
    }
}

impl std::error::Error for QueueError {}

#[cfg(feature = "offline")]
/// An endpoint whose held mutations are saved, under its name.
#[derive(Clone)]
pub(crate) struct Replayable {
    name: Arc<str>,
    endpoint: Arc<dyn Replay>,
}

#[cfg(feature = "offline")]
impl std::fmt::Debug for Replayable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Replayable").field(&self.name).finish()
    }
}

#[cfg(feature = "offline")]
impl Replayable {
    /// The name it is saved under.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// `endpoint`'s mutations, saved under `name`.
    pub(crate) fn of<C: TypedEndpoint>(name: &str, endpoint: &C) -> Replayable
    where
        <C::Endpoint as Endpoint>::Body: SavedBody,
    {
        Replayable { name: name.into(), endpoint: Arc::new(Of(endpoint.endpoint().clone())) }
    }
}

#[cfg(feature = "offline")]
/// A registered endpoint, its types erased.
trait Replay: Send + Sync {
    /// Whether a mutation of endpoint type `of` sent with `args` under
    /// `key` is one of this endpoint's.
    fn owns(&self, of: TypeId, args: &Value, key: &str) -> bool;
    /// The body (an `E::Body`) as saved; `None` when it cannot be saved.
    fn save_body(&self, body: Option<&dyn Any>) -> Option<Option<Value>>;
    /// The request sending a saved mutation again, not started yet.
    fn request(&self, controller: &Controller, args: Value, body: Option<Value>) -> Result<BoxFuture<()>, Bad>;
}

#[cfg(feature = "offline")]
/// What in a saved mutation does not read.
enum Bad {
    Args(String),
    Body(String),
}

#[cfg(feature = "offline")]
struct Of<E>(E);

#[cfg(feature = "offline")]
impl<E: Endpoint + Clone> Replay for Of<E>
where
    E::Body: SavedBody,
{
    fn owns(&self, of: TypeId, args: &Value, key: &str) -> bool {
        of == TypeId::of::<E>() && self.0.key(args).is_ok_and(|made| made == key)
    }

    fn save_body(&self, body: Option<&dyn Any>) -> Option<Option<Value>> {
        match body {
            None => Some(None),
            Some(body) => body.downcast_ref::<E::Body>()?.to_saved().map(Some),
        }
    }

    fn request(&self, controller: &Controller, args: Value, body: Option<Value>) -> Result<BoxFuture<()>, Bad> {
        let key = self.0.key(&args).map_err(|error| Bad::Args(error.to_string()))?;
        let body = body.map(E::Body::from_saved).transpose().map_err(Bad::Body)?;
        let shared = Arc::new(Shared::of::<E>(args.clone()));
        let request = controller.request(self.0.clone(), key, args, body, Arc::clone(&shared), None);
        // Its caller went with the last page: this task awaits the answer in
        // its place, so a failure is tried again as it was before the reload.
        Ok(Box::pin(async move {
            let _awaited = shared;
            request.await;
        }))
    }
}

#[cfg(feature = "offline")]
/// The registered endpoints, and what hears of each change to the queue (the saver).
pub(crate) struct Replays {
    registry: super::sync::Slot<Vec<Replayable>>,
    told: super::sync::Slot<Option<Arc<dyn Fn() + Send + Sync>>>,
}

#[cfg(feature = "offline")]
impl Replays {
    pub(crate) fn new(gate: &std::sync::Arc<super::sync::Gate>) -> Replays {
        Replays {
            registry: super::sync::Slot::new(gate, "replays.registry", Vec::new()),
            told: super::sync::Slot::new(gate, "replays.told", None),
        }
    }
}

#[cfg(feature = "offline")]
/// The requests of a saved queue, in order, and its mutations no endpoint here takes.
pub(crate) type Prepared = (Vec<BoxFuture<()>>, Vec<SavedMutation>);

#[cfg(feature = "offline")]
impl Controller {
    /// Saves the held mutations of `registry`'s endpoints from now on,
    /// calling `told` after each change to the queue.
    pub(crate) fn save_queue_of(&self, registry: &[Replayable], told: impl Fn() + Send + Sync + 'static) {
        self.inner.replays.registry.borrow_mut().extend(registry.iter().cloned());
        *self.inner.replays.told.borrow_mut() = Some(Arc::new(told));
    }

    /// Tells the saver the queue changed.
    pub(crate) fn queue_saved_changed(&self) {
        let told = self.inner.replays.told.borrow().clone();
        if let Some(told) = told {
            told();
        }
    }

    /// A held mutation of endpoint type `E` as saved: under the name of the
    /// first registered endpoint of that type making `key` from `args`
    /// (with no name when its body cannot be saved); `None`, not saved, when
    /// no registered endpoint makes it.
    pub(crate) fn describe_held<E: Endpoint>(
        &self,
        key: &str,
        args: &Value,
        body: Option<&E::Body>,
    ) -> Option<SavedMutation> {
        let registry = self.inner.replays.registry.borrow();
        let of = TypeId::of::<E>();
        let registered = registry.iter().find(|r| r.endpoint.owns(of, args, key))?;
        let (name, body) = match registered.endpoint.save_body(body.map(|body| body as &dyn Any)) {
            Some(body) => (Some(registered.name.to_string()), body),
            None => (None, None),
        };
        Some(SavedMutation { name, key: key.to_owned(), args: args.clone(), body })
    }

    /// The requests sending `queue` again through `registry`, in order (none
    /// started), and the mutations no endpoint here takes.
    ///
    /// # Errors
    /// The first mutation of a registered endpoint that is not a call of it.
    pub(crate) fn prepare_replays(
        &self,
        registry: &[Replayable],
        queue: Vec<SavedMutation>,
    ) -> Result<Prepared, QueueError> {
        let (mut requests, mut unknown) = (Vec::new(), Vec::new());
        for (at, saved) in queue.into_iter().enumerate() {
            let found = saved.name.as_deref().and_then(|name| registry.iter().find(|r| &*r.name == name));
            let Some(replayable) = found else {
                unknown.push(saved);
                continue;
            };
            let name = replayable.name.to_string();
            match replayable.endpoint.request(self, saved.args, saved.body) {
                Ok(request) => requests.push(request),
                Err(Bad::Args(reason)) => return Err(QueueError::Args { at, name, reason }),
                Err(Bad::Body(reason)) => return Err(QueueError::Body { at, name, reason }),
            }
        }
        Ok((requests, unknown))
    }

    /// Starts the requests of a saved queue, in order (each takes its turn
    /// as it starts); how many.
    pub(crate) fn replay(&self, requests: Vec<BoxFuture<()>>) -> usize {
        let count = requests.len();
        if count > 0 {
            self.ticket_next_mutation();
        }
        requests.into_iter().for_each(|request| self.inner.spawner.spawn(request));
        count
    }
}
