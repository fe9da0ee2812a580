//! Following one endpoint key in the store: a signal that changes only when what
//! a reader shows changes (new data `Arc`, status, error or loading flag).

use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use rdc_core::{Controller, Endpoint, ExpiryStatus};
use send_wrapper::SendWrapper;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What a reader of one endpoint key sees.
#[derive(Debug)]
pub struct Snapshot<T> {
    /// The data (possibly stale).
    pub data: Option<Arc<T>>,
    /// Valid, stale or invalid.
    pub status: ExpiryStatus,
    /// The current error's text, if one counts.
    pub error: Option<String>,
    /// Whether a request is in flight.
    pub fetching: bool,
}

impl<T> Clone for Snapshot<T> {
    fn clone(&self) -> Self {
        Snapshot { data: self.data.clone(), status: self.status, error: self.error.clone(), fetching: self.fetching }
    }
}

impl<T> PartialEq for Snapshot<T> {
    fn eq(&self, other: &Self) -> bool {
        let same_data = match (&self.data, &other.data) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_data && self.status == other.status && self.error == other.error && self.fetching == other.fetching
    }
}

impl<T> Snapshot<T> {
    fn empty() -> Self {
        Snapshot { data: None, status: ExpiryStatus::Invalid, error: None, fetching: false }
    }
}

/// Reads `endpoint` for `args` now.
pub(crate) fn snapshot<E, T>(controller: &Controller, endpoint: &E, args: Option<&Value>) -> Snapshot<T>
where
    E: Endpoint,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let Some(args) = args else { return Snapshot::empty() };
    let fetching = endpoint.key(args).is_ok_and(|key| controller.is_fetching(&key));
    match controller.read::<E, T>(endpoint, args) {
        Ok(read) => Snapshot { data: read.data, status: read.status, error: read.error.map(|e| e.message), fetching },
        Err(err) => Snapshot { data: None, status: ExpiryStatus::Invalid, error: Some(err.to_string()), fetching },
    }
}

/// A signal of the [`Snapshot`] of `endpoint` for the current `args`, updated
/// after store changes only when it differs. Released when the owner is cleaned up.
pub(crate) fn watch<E, T>(
    controller: &Controller,
    endpoint: &E,
    args: Signal<Option<Value>>,
) -> ArcRwSignal<Snapshot<T>>
where
    E: Endpoint + Clone,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let compute: Rc<dyn Fn() -> Snapshot<T>> = {
        let controller = controller.clone();
        let endpoint = endpoint.clone();
        Rc::new(move || args.with_untracked(|a| snapshot::<E, T>(&controller, &endpoint, a.as_ref())))
    };
    let state = ArcRwSignal::new(Snapshot::empty());
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
    // The key this reader keeps from garbage collection, while mounted.
    let retained = Rc::new(std::cell::RefCell::new(None::<String>));
    let retain = {
        let controller = controller.clone();
        let endpoint = endpoint.clone();
        let retained = Rc::clone(&retained);
        move |args: Option<&Value>| {
            let key = args.and_then(|a| endpoint.key(a).ok());
            let mut held = retained.borrow_mut();
            if *held != key {
                if let Some(old) = held.take() {
                    controller.release(&old);
                }
                if let Some(new) = &key {
                    controller.retain(new);
                }
                *held = key;
            }
        }
    };
    args.with_untracked(|a| retain(a.as_ref()));
    // New args: read again.
    let rerun = SendWrapper::new(controller.clone());
    Effect::new(move |_| {
        args.with(|a| retain(a.as_ref()));
        rerun.run_listener(id);
    });
    let cleanup = SendWrapper::new((controller.clone(), retained));
    on_cleanup(move || {
        let (controller, retained) = &*cleanup;
        controller.unlisten(id);
        if let Some(key) = retained.borrow_mut().take() {
            controller.release(&key);
        }
    });
    state
}
