//! Polling while mounted: `use_subscription` and `use_live`.

use std::sync::{Arc, Mutex};

use leptos::prelude::*;
use serde::de::DeserializeOwned;

use super::suspense::{use_suspense, DataResult, Readable};
use crate::provider::use_controller;

/// Keeps `endpoint` (which must have a `poll_frequency`) polled for the current
/// `args` while the component is mounted; `None` args pause it.
pub fn use_subscription<C: Readable>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) {
    let args: Signal<Option<C::Args>> = args.into();
    let controller = use_controller();
    let shared = Arc::new(Mutex::new(None));
    let effect_slot = Arc::clone(&shared);
    Effect::new(move |_| {
        let next = args.get().and_then(|a| controller.subscribe(&endpoint, a));
        // Replacing the old subscription unsubscribes it (dropped after the lock).
        let old = std::mem::replace(&mut *crate::lock(&effect_slot), next);
        drop(old);
    });
    on_cleanup(move || {
        let old = crate::lock(&shared).take();
        drop(old);
    });
}

/// [`use_suspense`] plus [`use_subscription`]: live data while mounted.
pub fn use_live<C>(endpoint: C, args: impl Into<Signal<C::Args>>) -> AsyncDerived<DataResult<C>>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<C::Args> = args.into();
    use_subscription(endpoint.clone(), Signal::derive(move || Some(args.get())));
    use_suspense(endpoint, args)
}
