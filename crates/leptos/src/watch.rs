//! Following one endpoint key in the store: a signal that changes only when what
//! a reader shows changes (new data `Arc`, status, error or loading flag).

use std::sync::{Arc, Mutex};

use crate::lock;

use leptos::prelude::*;
use rdc_controller::{Controller, Endpoint, ExpiryStatus, TypedEndpoint};
use serde::de::DeserializeOwned;

/// What a reader of one endpoint key sees.
#[derive(Debug)]
pub struct Snapshot<T> {
    /// The data (possibly stale).
    pub data: Option<Arc<T>>,
    /// Valid, stale or invalid.
    pub status: ExpiryStatus,
    /// The current error's text, if one counts (or why the args make no key).
    pub error: Option<String>,
    /// Why the stored data does not read as the reader's type, if it does not.
    pub read_error: Option<String>,
    /// Whether a request is in flight.
    pub fetching: bool,
}

impl<T> Clone for Snapshot<T> {
    fn clone(&self) -> Self {
        Snapshot {
            data: self.data.clone(),
            status: self.status,
            error: self.error.clone(),
            read_error: self.read_error.clone(),
            fetching: self.fetching,
        }
    }
}

impl<T> PartialEq for Snapshot<T> {
    fn eq(&self, other: &Self) -> bool {
        let same_data = match (&self.data, &other.data) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_data
            && self.status == other.status
            && self.error == other.error
            && self.read_error == other.read_error
            && self.fetching == other.fetching
    }
}

impl<T> Snapshot<T> {
    fn empty() -> Self {
        Snapshot { data: None, status: ExpiryStatus::Invalid, error: None, read_error: None, fetching: false }
    }
}

/// What one endpoint's args resolve to: the store key, the schema and the
/// staleness rule (worked out once per args, not on every read).
pub(crate) struct Target {
    key: String,
    schema: Option<rdc_core::Schema>,
    invalid_if_stale: bool,
}

impl Target {
    /// The target of `endpoint` for `args`, or why the args do not make a key.
    pub(crate) fn of<C: TypedEndpoint>(endpoint: &C, args: &C::Args) -> Result<Target, String> {
        let key = endpoint.key_for(args).map_err(|e| e.to_string())?;
        Ok(Target::at(endpoint.endpoint(), key))
    }

    /// The target of the JSON endpoint `endpoint` at `key`.
    pub(crate) fn at<E: Endpoint>(endpoint: &E, key: String) -> Target {
        Target { key, schema: endpoint.schema(), invalid_if_stale: endpoint.policy().invalid_if_stale }
    }

    /// The store key.
    pub(crate) fn key(&self) -> &str {
        &self.key
    }
}

/// Reads `target` now (`Err`: args that make no key, shown as the error).
pub(crate) fn read_target<T>(controller: &Controller, target: &Result<Target, String>) -> Snapshot<T>
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    match target {
        Ok(target) => read(controller, target),
        Err(message) => Snapshot { error: Some(message.clone()), ..Snapshot::empty() },
    }
}

/// Reads `target` now.
pub(crate) fn read<T>(controller: &Controller, target: &Target) -> Snapshot<T>
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    let fetching = controller.is_fetching(&target.key);
    match controller.read_key::<T>(&target.key, target.schema.as_ref(), target.invalid_if_stale) {
        Ok(read) => Snapshot {
            data: read.data,
            status: read.status,
            error: read.error.map(|e| e.message),
            read_error: None,
            fetching,
        },
        Err(err) => Snapshot {
            data: None,
            status: ExpiryStatus::Invalid,
            error: None,
            read_error: Some(err.to_string()),
            fetching,
        },
    }
}

/// A signal of the [`Snapshot`] of `endpoint` for the current `args`, updated
/// after store changes only when it differs. Released when the owner is cleaned up.
pub(crate) fn watch<C, T>(
    controller: &Controller,
    endpoint: &C,
    args: Signal<Option<C::Args>>,
) -> ArcRwSignal<Snapshot<T>>
where
    C: TypedEndpoint,
    C::Args: Send + Sync,
    T: DeserializeOwned + Send + Sync + 'static,
{
    watch_with(controller, endpoint, args, Snapshot::empty(), |controller, target| match target {
        Some(target) => read_target(controller, target),
        None => Snapshot::empty(),
    })
    .state
}

/// What [`watch_with`] keeps current, and its listener (to run it again).
pub(crate) struct Watched<S> {
    /// What the reader made of the store, set by its listener.
    pub(crate) state: ArcRwSignal<S>,
    /// The listener that sets `state` (`Controller::run_listener`).
    pub(crate) listener: u64,
}

/// As [`watch`], with what a reader makes of the target (`None`: no args)
/// given by `view`: run by the one listener, so every store read it does is
/// followed. `S` is set only when it differs.
pub(crate) fn watch_with<C, S>(
    controller: &Controller,
    endpoint: &C,
    args: Signal<Option<C::Args>>,
    empty: S,
    view: impl Fn(&Controller, Option<&Result<Target, String>>) -> S + Send + Sync + 'static,
) -> Watched<S>
where
    C: TypedEndpoint,
    C::Args: Send + Sync,
    S: PartialEq + Send + Sync + 'static,
{
    // What the current args read (`None`: no args), and the key this reader
    // keeps from garbage collection while mounted; `aim` sets both.
    let target: Arc<Mutex<Option<Result<Target, String>>>> = Arc::default();
    let retained = Arc::new(Mutex::new(None::<String>));
    let aim = {
        let controller = controller.clone();
        let endpoint = endpoint.clone();
        let (target, retained) = (Arc::clone(&target), Arc::clone(&retained));
        // Returns whether the target changed.
        move |args: Option<&C::Args>| -> bool {
            let aim = args.map(|a| Target::of(&endpoint, a));
            let key = aim.as_ref().and_then(|t| t.as_ref().ok()).map(|t| t.key.clone());
            let error = |t: &Option<Result<Target, String>>| t.as_ref().and_then(|t| t.as_ref().err().cloned());
            let changed = *lock(&retained) != key || error(&lock(&target)) != error(&aim);
            *lock(&target) = aim;
            let mut held = lock(&retained);
            if *held != key {
                if let Some(old) = held.take() {
                    controller.release(&old);
                }
                if let Some(new) = &key {
                    controller.retain(new);
                }
                *held = key;
            }
            changed
        }
    };
    args.with_untracked(|a| aim(a.as_ref()));
    let compute: Arc<dyn Fn() -> S + Send + Sync> = {
        let controller = controller.clone();
        let target = Arc::clone(&target);
        Arc::new(move || view(&controller, lock(&target).as_ref()))
    };
    let state = ArcRwSignal::new(empty);
    let refresh = {
        let state = state.clone();
        move || {
            let next = compute();
            if state.with_untracked(|current| *current != next) {
                state.set(next);
            }
        }
    };
    // Woken only by changes to what the last read depended on.
    let id = controller.listen_reads(refresh);
    // New args: aim and read again (the first run subscribes to them, and reads
    // only if they moved since `listen_reads` read).
    let rerun = controller.clone();
    Effect::new(move |ran: Option<()>| {
        if args.with(|a| aim(a.as_ref())) || ran.is_some() {
            rerun.run_listener(id);
        }
    });
    let cleanup = (controller.clone(), retained);
    on_cleanup(move || {
        let (controller, retained) = &cleanup;
        controller.unlisten(id);
        let key = lock(retained).take();
        if let Some(key) = key {
            controller.release(&key);
        }
    });
    Watched { state, listener: id }
}
