//! What a live source holds while its `EventSource` or `WebSocket` is open:
//! the handlers it set and their closures. Dropping it stops the lot.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// An `EventSource` or a `WebSocket` with handlers (`onopen`, ...) set.
/// Dropped, it clears them, closes the connection (nothing listens any more)
/// and only then drops the closures, so no handler can run a dropped one.
pub(crate) struct Listening {
    target: JsValue,
    handlers: Vec<(&'static str, Closure<dyn Fn(JsValue)>)>,
}

impl Listening {
    /// Listening to `target` (with nothing yet).
    pub(crate) fn new(target: impl Into<JsValue>) -> Listening {
        Listening { target: target.into(), handlers: Vec::new() }
    }

    /// Sets handler `name` (`"onmessage"`) to `handler`.
    pub(crate) fn on(mut self, name: &'static str, handler: impl Fn(JsValue) + 'static) -> Listening {
        let closure = Closure::<dyn Fn(JsValue)>::new(handler);
        let _ = js_sys::Reflect::set(&self.target, &name.into(), closure.as_ref());
        self.handlers.push((name, closure));
        self
    }

    /// What closes the connection when called: dropping this.
    pub(crate) fn closer(self) -> Box<dyn FnOnce() + Send> {
        // Browser objects (the page's one thread): made to look `Send`.
        let held = send_wrapper::SendWrapper::new(self);
        Box::new(move || drop(held.take()))
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        for (name, _) in &self.handlers {
            let _ = js_sys::Reflect::set(&self.target, &(*name).into(), &JsValue::NULL);
        }
        // Both have `close()`; closing a socket still connecting is allowed.
        let close = js_sys::Reflect::get(&self.target, &"close".into()).ok();
        if let Some(close) = close.and_then(|close| close.dyn_into::<js_sys::Function>().ok()) {
            let _ = close.call0(&self.target);
        }
        self.handlers.clear();
    }
}
