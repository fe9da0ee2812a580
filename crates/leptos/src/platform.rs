//! Time, timers and spawning for the controller: the browser's in wasm.

use rdc_core::{Clock, LocalFuture, Spawn, Timers};

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
}

impl Timers for Browser {
    #[cfg(target_arch = "wasm32")]
    fn set_timeout(&self, delay_ms: u64, callback: Box<dyn FnOnce()>) -> u64 {
        use wasm_bindgen::JsCast;
        let callback = wasm_bindgen::closure::Closure::once_into_js(callback);
        // setTimeout takes an i32: clamp (about 24.8 days).
        let delay = i32::try_from(delay_ms).unwrap_or(i32::MAX);
        web_sys::window()
            .and_then(|w| w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), delay).ok())
            .map_or(0, |handle| u64::try_from(handle).unwrap_or(0))
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn set_timeout(&self, _delay_ms: u64, _callback: Box<dyn FnOnce()>) -> u64 {
        // Natively (server-side code, unit tests) nothing polls.
        0
    }

    fn cancel(&self, handle: u64) {
        #[cfg(target_arch = "wasm32")]
        if let (Some(window), Ok(handle)) = (web_sys::window(), i32::try_from(handle)) {
            window.clear_timeout_with_handle(handle);
        }
        #[cfg(not(target_arch = "wasm32"))]
        let _ = handle;
    }
}

impl Spawn for Browser {
    fn spawn(&self, future: LocalFuture<()>) {
        // Requests need no reactive context: the browser's microtask queue runs
        // them even where no Leptos executor was set up.
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_futures::spawn_local(future);
        #[cfg(not(target_arch = "wasm32"))]
        leptos::task::spawn_local(future);
    }
}
