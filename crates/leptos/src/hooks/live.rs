//! Polling while mounted: `use_subscription` and `use_live`.

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use serde::de::DeserializeOwned;

use super::suspense::{use_suspense, DataResult, Readable};
use crate::provider::use_controller;

/// Keeps `endpoint` (which must have a `poll_frequency`) polled for the current
/// `args` while the component is mounted; `None` args pause it.
pub fn use_subscription<C: Readable>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) {
    let args: Signal<Option<C::Args>> = args.into();
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
pub fn use_live<C>(endpoint: C, args: impl Into<Signal<C::Args>>) -> AsyncDerived<DataResult<C>, LocalStorage>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<C::Args> = args.into();
    use_subscription(endpoint.clone(), Signal::derive(move || Some(args.get())));
    use_suspense(endpoint, args)
}
