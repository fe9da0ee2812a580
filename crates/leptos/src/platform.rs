//! Time, timers and spawning for the controller: the browser's in wasm.

use rdc_controller::{BoxFuture, Clock, Spawn, Timers};

/// `Date.now()`, `setTimeout` and `spawn_local`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Browser;

impl Clock for Browser {
    fn now(&self) -> u64 {
        #[cfg(target_arch = "wasm32")]
        return js_sys::Date::now() as u64;
        #[cfg(not(target_arch = "wasm32"))]
        return std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
    }

    fn random(&self) -> u64 {
        #[cfg(target_arch = "wasm32")]
        return (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
        #[cfg(not(target_arch = "wasm32"))]
        return std::hash::BuildHasher::hash_one(&std::collections::hash_map::RandomState::new(), self.now());
    }
}

impl Timers for Browser {
    #[cfg(target_arch = "wasm32")]
    fn set_timeout(&self, delay_ms: u64, callback: Box<dyn FnOnce() + Send>) -> u64 {
        timeouts::set(delay_ms, callback)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn set_timeout(&self, _delay_ms: u64, _callback: Box<dyn FnOnce() + Send>) -> u64 {
        // Natively (server-side code, unit tests) nothing polls.
        0
    }

    fn cancel(&self, handle: u64) {
        #[cfg(target_arch = "wasm32")]
        timeouts::cancel(handle);
        #[cfg(not(target_arch = "wasm32"))]
        let _ = handle;
    }
}

/// Browser timeouts whose callbacks are dropped when they fire or are cancelled
/// (a `Closure::once_into_js` that never runs would leak its callback, and what
/// the callback holds).
#[cfg(target_arch = "wasm32")]
mod timeouts {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    thread_local! {
        /// Timeouts not yet fired, by handle.
        static PENDING: RefCell<rdc_core::FastMap<i32, Closure<dyn FnMut()>>> = RefCell::default();
        /// Closures of fired timeouts: dropped later, never while one runs.
        static FIRED: RefCell<Vec<Closure<dyn FnMut()>>> = RefCell::default();
        static RUNNING: Cell<bool> = const { Cell::new(false) };
    }

    fn drop_fired() {
        if !RUNNING.with(Cell::get) {
            let fired = FIRED.with(|f| std::mem::take(&mut *f.borrow_mut()));
            drop(fired);
        }
    }

    pub fn set(delay_ms: u64, callback: Box<dyn FnOnce()>) -> u64 {
        drop_fired();
        let handle_slot: Rc<Cell<Option<i32>>> = Rc::default();
        let own_handle = Rc::clone(&handle_slot);
        let mut callback = Some(callback);
        let closure = Closure::wrap(Box::new(move || {
            if let Some(handle) = own_handle.get() {
                if let Some(own) = PENDING.with(|p| p.borrow_mut().remove(&handle)) {
                    FIRED.with(|f| f.borrow_mut().push(own));
                }
            }
            if let Some(callback) = callback.take() {
                let outer = RUNNING.with(|r| r.replace(true));
                callback();
                RUNNING.with(|r| r.set(outer));
            }
        }) as Box<dyn FnMut()>);
        // setTimeout takes an i32: clamp (about 24.8 days).
        let delay = i32::try_from(delay_ms).unwrap_or(i32::MAX);
        let handle = web_sys::window().and_then(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(closure.as_ref().unchecked_ref(), delay).ok()
        });
        match handle {
            Some(handle) => {
                handle_slot.set(Some(handle));
                PENDING.with(|p| p.borrow_mut().insert(handle, closure));
                u64::try_from(handle).unwrap_or(0)
            }
            None => 0,
        }
    }

    pub fn cancel(handle: u64) {
        if let (Some(window), Ok(handle)) = (web_sys::window(), i32::try_from(handle)) {
            window.clear_timeout_with_handle(handle);
            let pending = PENDING.with(|p| p.borrow_mut().remove(&handle));
            drop(pending);
        }
        drop_fired();
    }

    /// Timeouts not yet fired (for leak checks).
    pub fn pending() -> usize {
        PENDING.with(|p| p.borrow().len())
    }
}

/// Timeouts set through [`Browser`] that have not fired or been cancelled.
///
/// ```
/// assert_eq!(rdc_leptos::pending_timeouts(), 0);
/// ```
pub fn pending_timeouts() -> usize {
    #[cfg(target_arch = "wasm32")]
    return timeouts::pending();
    #[cfg(not(target_arch = "wasm32"))]
    return 0;
}

/// A browser interval that stops, and drops its callback, when dropped.
/// (Leptos' `set_interval_with_handle` leaks its callback, and with it what the
/// callback holds, such as a whole store.)
#[cfg(target_arch = "wasm32")]
pub(crate) struct Interval {
    inner: Option<(i32, wasm_bindgen::closure::Closure<dyn FnMut()>)>,
}

#[cfg(target_arch = "wasm32")]
impl Interval {
    /// Calls `callback` every `every_ms` until dropped.
    pub fn start(every_ms: u64, callback: impl FnMut() + 'static) -> Interval {
        use wasm_bindgen::JsCast;
        let closure = wasm_bindgen::closure::Closure::wrap(Box::new(callback) as Box<dyn FnMut()>);
        let every = i32::try_from(every_ms).unwrap_or(i32::MAX);
        let handle = web_sys::window().and_then(|w| {
            w.set_interval_with_callback_and_timeout_and_arguments_0(closure.as_ref().unchecked_ref(), every).ok()
        });
        Interval { inner: handle.map(|h| (h, closure)) }
    }
}

#[cfg(target_arch = "wasm32")]
impl Drop for Interval {
    fn drop(&mut self) {
        if let (Some((handle, _)), Some(window)) = (self.inner.as_ref(), web_sys::window()) {
            window.clear_interval_with_handle(*handle);
        }
    }
}

/// Window listeners for the moments an app's data may have changed behind
/// its back (focus regained, the page visible again, the network back) and
/// for when polling is wasted (the page hidden, the browser offline).
/// Removed when dropped.
#[cfg(target_arch = "wasm32")]
pub(crate) struct WakeUps {
    listening: Vec<(web_sys::EventTarget, &'static str, wasm_bindgen::closure::Closure<dyn FnMut()>)>,
}

#[cfg(target_arch = "wasm32")]
impl WakeUps {
    /// Calls `wake(false)` when the window regains focus or the page becomes
    /// visible, `wake(true)` when the browser comes back online, and
    /// `away(hidden, offline)` now and whenever either changes, until dropped.
    pub fn listen(wake: impl Fn(bool) + 'static, away: impl Fn(bool, bool) + 'static) -> WakeUps {
        use std::cell::Cell;
        use std::rc::Rc;
        use wasm_bindgen::JsCast;
        let Some(window) = web_sys::window() else { return WakeUps { listening: Vec::new() } };
        let wake = Rc::new(wake);
        // (hidden, offline), and what pausing follows from them.
        let hidden = window.document().is_some_and(|d| d.visibility_state() != web_sys::VisibilityState::Visible);
        let offline = !window.navigator().on_line();
        let pause = Rc::new(move |(hidden, offline): (bool, bool)| away(hidden, offline));
        let away = Rc::new(Cell::new((hidden, offline)));
        pause(away.get());
        let mut listening = Vec::new();
        let mut on = |target: web_sys::EventTarget, event: &'static str, callback: Box<dyn FnMut()>| {
            let closure = wasm_bindgen::closure::Closure::wrap(callback);
            if target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref()).is_ok() {
                listening.push((target, event, closure));
            }
        };
        let focused = Rc::clone(&wake);
        on(window.clone().into(), "focus", Box::new(move || focused(false)));
        for (event, offline) in [("online", false), ("offline", true)] {
            let (wake, away, pause) = (Rc::clone(&wake), Rc::clone(&away), Rc::clone(&pause));
            let changed = move || {
                away.set((away.get().0, offline));
                pause(away.get());
                if !offline {
                    wake(true);
                }
            };
            on(window.clone().into(), event, Box::new(changed));
        }
        if let Some(document) = window.document() {
            let seen = document.clone();
            let changed = move || {
                let hidden = seen.visibility_state() != web_sys::VisibilityState::Visible;
                away.set((hidden, away.get().1));
                pause(away.get());
                if !hidden {
                    wake(false);
                }
            };
            on(document.into(), "visibilitychange", Box::new(changed));
        }
        WakeUps { listening }
    }
}

#[cfg(target_arch = "wasm32")]
impl Drop for WakeUps {
    fn drop(&mut self) {
        use wasm_bindgen::JsCast;
        for (target, event, closure) in &self.listening {
            let _ = target.remove_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
        }
    }
}

impl Spawn for Browser {
    fn spawn(&self, future: BoxFuture<()>) {
        // Requests need no reactive context: the browser's microtask queue runs
        // them even where no Leptos executor was set up.
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_futures::spawn_local(future);
        #[cfg(not(target_arch = "wasm32"))]
        leptos::task::spawn(future);
    }
}
