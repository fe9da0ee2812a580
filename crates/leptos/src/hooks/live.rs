//! Polling while mounted: `use_subscription` and `use_live`.

use leptos::prelude::*;
use rdc_core::json::Value;
use rdc_core::Endpoint;
use send_wrapper::SendWrapper;
use serde::de::DeserializeOwned;

use super::suspense::{use_suspense, DataResult};
use crate::provider::use_controller;

/// Keeps `endpoint` (which must have a `poll_frequency`) polled for the current
/// `args` while the component is mounted; `None` args pause it.
pub fn use_subscription<E>(endpoint: E, args: impl Into<Signal<Option<Value>>>)
where
    E: Endpoint + Clone,
{
    let args: Signal<Option<Value>> = args.into();
    let controller = SendWrapper::new(use_controller());
    let subscription = SendWrapper::new(std::cell::RefCell::new(None));
    let shared = std::rc::Rc::new(subscription);
    let effect_slot = std::rc::Rc::clone(&shared);
    Effect::new(move |_| {
        let next = args.get().and_then(|a| controller.subscribe(&endpoint, a));
        // Replacing the old subscription unsubscribes it.
        *effect_slot.borrow_mut() = next;
    });
    let cleanup = SendWrapper::new(shared);
    on_cleanup(move || {
        cleanup.borrow_mut().take();
    });
}

/// [`use_suspense`] plus [`use_subscription`]: live data while mounted.
pub fn use_live<E, T>(endpoint: E, args: impl Into<Signal<Value>>) -> AsyncDerived<DataResult<T, E>, LocalStorage>
where
    E: Endpoint + Clone,
    E::Error: Send + Sync,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let args: Signal<Value> = args.into();
    use_subscription(endpoint.clone(), Signal::derive(move || Some(args.get())));
    use_suspense(endpoint, args)
}
