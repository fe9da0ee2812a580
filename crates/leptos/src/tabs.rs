//! Keeping every open tab of an app showing the same data.

use rdc_controller::Controller;

/// Posts each write to `controller`'s fetched data on the `BroadcastChannel`
/// named `channel`, and takes up what the app's other tabs post there, so a
/// change fetched or made in one tab shows in all of them without a refetch
/// (see `Controller::share_writes`). Optimistic updates stay in their tab
/// until their answer comes. A store reset (a logout) resets every tab, so
/// no tab keeps the last user's data. Call it once per controller, before the app
/// mounts; it lasts as long as the page. Natively it does nothing.
///
/// ```no_run
/// let controller = rdc_leptos::new_controller();
/// rdc_leptos::sync_tabs(&controller, "my-app");
/// ```
pub fn sync_tabs(controller: &Controller, channel: &str) {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::closure::Closure;
        use wasm_bindgen::{JsCast, JsValue};
        let Ok(port) = web_sys::BroadcastChannel::new(channel) else { return };
        // Browser objects (the page's one thread): made to look `Send`.
        let sender = send_wrapper::SendWrapper::new(port.clone());
        controller.share_writes(move |slice: &rdc_controller::Dehydrated| {
            // Plain JSON: nothing embeds it in a page (`from_script_text` reads it).
            let Ok(text) = serde_json::to_string(slice) else { return };
            let _ = sender.post_message(&JsValue::from_str(&text));
        });
        // A reset here resets the other tabs, and one from there is not sent back.
        let quiet = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        controller
            .add_manager(ResetsShared { port: send_wrapper::SendWrapper::new(port.clone()), quiet: quiet.clone() });
        let receiver = controller.clone();
        let on_message = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            // Another tab of the same origin; what does not read as a slice is left.
            let Some(text) = event.data().as_string() else { return };
            if let Some(at) = text.strip_prefix(RESET) {
                // When the other tab reset: what the tabs wrote since is the next user's.
                let at = at.trim().parse().unwrap_or(u64::MAX);
                quiet.store(true, std::sync::atomic::Ordering::SeqCst);
                receiver.reset_as_elsewhere(at);
                quiet.store(false, std::sync::atomic::Ordering::SeqCst);
            } else if let Ok(slice) = rdc_controller::Dehydrated::from_script_text(&text) {
                receiver.take_shared(slice);
            }
        });
        port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The channel and its handler live as long as the page.
        on_message.forget();
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (controller, channel);
}

/// What a tab posts when its store was reset, then when (no store slice reads as it).
#[cfg(target_arch = "wasm32")]
const RESET: &str = "rdc:reset";

/// Posts a reset to the other tabs, unless the reset came from one of them.
#[cfg(target_arch = "wasm32")]
struct ResetsShared {
    port: send_wrapper::SendWrapper<web_sys::BroadcastChannel>,
    quiet: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

#[cfg(target_arch = "wasm32")]
impl rdc_controller::Manager for ResetsShared {
    fn on_action(&self, controller: &Controller, action: rdc_controller::Action<'_>) {
        if matches!(action, rdc_controller::Action::Reset) && !self.quiet.load(std::sync::atomic::Ordering::SeqCst) {
            let text = format!("{RESET} {}", controller.reset_at());
            let _ = self.port.post_message(&wasm_bindgen::JsValue::from_str(&text));
        }
    }
}
