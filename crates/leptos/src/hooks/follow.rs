//! `follow_read`: a store read kept in a signal, read again when what it read
//! or its input changes (what `use_query_select` and `use_lazy` share).

use std::sync::Arc;

use leptos::prelude::*;
use rdc_controller::Controller;

/// What `read` gives for the current `input`, in a signal set only when the
/// read hands back another `Arc` (or none). Read again when what it read
/// changes (a read listener) or when `input` does; never fetches.
pub(crate) fn follow_read<I, R>(
    input: Signal<I>,
    read: impl Fn(&Controller, &I) -> Option<Arc<R>> + Send + Sync + 'static,
) -> Signal<Option<Arc<R>>>
where
    I: Send + Sync + 'static,
    R: Send + Sync + 'static,
{
    let controller = crate::provider::use_controller();
    let state = ArcRwSignal::new(None::<Arc<R>>);
    let listener = {
        let (controller, state) = (controller.clone(), state.clone());
        move || {
            let next = input.with_untracked(|input| read(&controller, input));
            let same = state.with_untracked(|now| match (now, &next) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            });
            if !same {
                state.set(next);
            }
        }
    };
    let id = controller.listen_reads(listener);
    // New input: read again. The first run reads too: the input may have
    // moved between `listen_reads` and the effect's first run.
    let rerun = controller.clone();
    Effect::new(move |_| {
        input.track();
        rerun.run_listener(id);
    });
    let cleanup = controller;
    on_cleanup(move || cleanup.unlisten(id));
    Signal::derive(move || state.get())
}
