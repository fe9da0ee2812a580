//! `use_loading`: wrap a mutation with pending and error signals.

use std::future::Future;

use leptos::prelude::*;

/// What [`use_loading`] returns.
#[derive(Debug)]
pub struct Loading<A: 'static, E: Send + Sync + 'static> {
    /// Starts the wrapped action.
    pub run: Callback<A>,
    /// Whether it is running.
    pub pending: Signal<bool>,
    /// The last run's error (cleared when a run starts).
    pub error: Signal<Option<E>>,
}

/// Wraps `action` (e.g. a controller fetch of a mutation) so a form can show
/// that it is running and what failed.
///
/// ```no_run
/// # use leptos::prelude::*;
/// let save = rdc_leptos::use_loading(|name: String| async move {
///     if name.is_empty() { Err("empty".to_string()) } else { Ok(()) }
/// });
/// save.run.run("Ada".into());
/// ```
pub fn use_loading<A, E, F, Fut>(action: F) -> Loading<A, E>
where
    A: Send + Sync + 'static,
    E: Clone + Send + Sync + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
{
    let pending = RwSignal::new(false);
    let error = RwSignal::new(None::<E>);
    let run = Callback::new(move |args: A| {
        pending.set(true);
        error.set(None);
        let fut = action(args);
        leptos::task::spawn(async move {
            let result = fut.await;
            if let Err(e) = result {
                error.set(Some(e));
            }
            pending.set(false);
        });
    });
    Loading { run, pending: pending.into(), error: error.into() }
}
