//! `DataProvider`: one controller (and its store) for the components inside it.

use leptos::prelude::*;
use rdc_controller::Controller;
#[cfg(target_arch = "wasm32")]
use send_wrapper::SendWrapper;

use crate::platform::Browser;

/// The controller in context (`Send + Sync`: a server renders on any worker).
#[derive(Clone)]
pub(crate) struct Context(pub Controller);

/// Fires when the app's data may have changed behind its back: the window
/// regained focus, the page became visible, or the browser came back online.
/// Reading hooks track it, so their stale data is fetched again then.
#[derive(Clone, Copy)]
pub(crate) struct Revalidate(pub Trigger);

/// Makes the running reactive read (a hook's fetch decision) run again on a
/// [`Revalidate`], when there is a provider.
pub(crate) fn track_revalidation() {
    if let Some(Revalidate(trigger)) = use_context::<Revalidate>() {
        trigger.track();
    }
}

/// Provides a data store and its controller to every rdc hook inside.
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_leptos::DataProvider;
/// # #[component] fn App() -> impl IntoView { view! { <p>"app"</p> } }
/// let _ = view! { <DataProvider><App/></DataProvider> };
/// // Only what the app asks for: no refetch on focus, polls even in a hidden tab.
/// let _ = view! { <DataProvider refetch_on_focus=false pause_polls_when_away=false><App/></DataProvider> };
/// ```
#[component]
pub fn DataProvider(
    /// The app.
    children: Children,
    /// A controller to use instead of a new one (to share or inspect a store).
    #[prop(optional)]
    controller: Option<Controller>,
    /// How often unused, expired data is dropped (default: every 5 minutes; 0: never).
    #[prop(default = 300_000)]
    gc_interval_ms: u64,
    /// Fetch stale data shown again when the window regains focus or the page
    /// becomes visible (default: yes, as TanStack Query).
    #[prop(default = true)]
    refetch_on_focus: bool,
    /// Fetch stale data shown again when the browser comes back online (default: yes).
    #[prop(default = true)]
    refetch_on_reconnect: bool,
    /// Hold polls while the page is hidden or the browser offline, and send a
    /// due one on return (default: yes).
    #[prop(default = true)]
    pause_polls_when_away: bool,
    /// Hold mutations made offline, their optimistic updates shown, and send
    /// them in order once online (default: yes; see `use_queued_mutations`).
    /// Off, a mutation offline fails at once as its request does. (Needs
    /// feature `offline`; without it this prop does nothing.)
    #[prop(default = true)]
    hold_mutations_offline: bool,
) -> impl IntoView {
    let controller = controller.unwrap_or_else(|| Controller::new(Browser, Browser, Browser));
    let revalidate = provide(controller.clone());
    // Garbage collection: a sweep every `gc_interval_ms` while mounted; the
    // interval and its callback go when the provider is cleaned up.
    // (Only in the browser: natively, as in server-side rendering, nothing sweeps.)
    #[cfg(target_arch = "wasm32")]
    {
        let polls = controller.clone();
        let interval = (gc_interval_ms > 0).then(|| {
            crate::platform::Interval::start(gc_interval_ms, move || {
                let _ = controller.sweep();
            })
        });
        let interval = SendWrapper::new(interval);
        on_cleanup(move || drop(interval));
        // Focus, visibility and network: stale data shown is fetched again.
        let listening = SendWrapper::new(crate::platform::WakeUps::listen(
            move |reconnected| {
                if (reconnected && refetch_on_reconnect) || (!reconnected && refetch_on_focus) {
                    revalidate.notify();
                }
            },
            move |hidden, offline| {
                #[cfg(not(feature = "offline"))]
                let _ = hold_mutations_offline;
                polls.pause_polls((hidden || offline) && pause_polls_when_away);
                #[cfg(feature = "offline")]
                polls.set_online(!offline || !hold_mutations_offline);
            },
        ));
        on_cleanup(move || drop(listening));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (controller, gc_interval_ms, revalidate);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (refetch_on_focus, refetch_on_reconnect, pause_polls_when_away, hold_mutations_offline);
    children()
}

/// Gives `controller` to the rdc hooks run under the current reactive owner,
/// as [`DataProvider`] does but with nothing of the browser's (no GC
/// interval, no focus or network listeners): for tests running hooks natively
/// (`rdc::testing::MockApp::hooks`) and for apps that set up their own owner.
///
/// ```
/// use leptos::prelude::*;
/// use rdc_controller::{Controller, FakeTime, LocalTasks};
/// let time = FakeTime::default();
/// let controller = Controller::new(time.clone(), time, LocalTasks::default());
/// Owner::new().with(|| {
///     rdc_leptos::provide_controller(controller.clone());
///     assert_eq!(rdc_leptos::use_controller().now(), 0);
/// });
/// ```
pub fn provide_controller(controller: Controller) {
    provide(controller);
}

/// Provides the controller and the trigger that makes readers revalidate.
fn provide(controller: Controller) -> Trigger {
    provide_context(Context(controller));
    provide_context(crate::hooks::ObjectUrls::new());
    let revalidate = Trigger::new();
    provide_context(Revalidate(revalidate));
    revalidate
}

/// The controller of the nearest [`DataProvider`]: fetch, invalidate, set...
///
/// # Panics
/// Outside a `DataProvider`.
#[allow(clippy::panic, reason = "like Leptos' expect_context: a missing provider is a programming error")]
pub fn use_controller() -> Controller {
    match use_context::<Context>() {
        Some(Context(controller)) => controller,
        None => panic!("use_controller: no <DataProvider> above this component"),
    }
}

/// A controller for tests or apps that manage their own (e.g. to keep a handle
/// for a store inspector): pass it to `DataProvider`'s `controller` prop.
pub fn new_controller() -> Controller {
    Controller::new(Browser, Browser, Browser)
}
