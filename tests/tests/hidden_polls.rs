//! Polls hold while the page is hidden, in headless Chromium against the API
//! server: `document.visibilityState` is made "hidden" for real (what the
//! provider reads), and a second reader that polls regardless shows the polls
//! that were due meanwhile.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::controller::Action;
use rdc::leptos::{new_controller, use_live, DataProvider};
use rdc_e2e::{api_url, mount_point, sleep, wait_for_text, wait_until};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Makes the page hidden (or visible again) as the browser would: the
/// document's `visibilityState` and `hidden`, then a `visibilitychange`.
fn set_hidden(hidden: bool) {
    let document = web_sys::window().unwrap().document().unwrap();
    let object: &js_sys::Object = document.unchecked_ref();
    for (property, value) in [("visibilityState", "'hidden'"), ("hidden", "true")] {
        if hidden {
            let descriptor = js_sys::Object::new();
            let getter = js_sys::Function::new_no_args(&format!("return {value};"));
            js_sys::Reflect::set(&descriptor, &"get".into(), &getter).unwrap();
            js_sys::Reflect::set(&descriptor, &"configurable".into(), &true.into()).unwrap();
            js_sys::Object::define_property(object, &property.into(), &descriptor);
        } else {
            js_sys::Reflect::delete_property(object, &property.into()).unwrap();
        }
    }
    document.dispatch_event(&web_sys::Event::new("visibilitychange").unwrap()).unwrap();
}

/// The page made hidden until this is dropped. A failed assertion must not
/// leave later tests on the page hidden: a panic in wasm aborts without
/// running drops, so a panic hook makes the page visible again too.
struct Hidden {
    /// The panic hook before this one, put back on drop.
    before: std::sync::Arc<Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send>>,
}

impl Hidden {
    fn new() -> Hidden {
        let before = std::sync::Arc::new(std::panic::take_hook());
        let chained = before.clone();
        std::panic::set_hook(Box::new(move |info| {
            set_hidden(false);
            chained(info);
        }));
        set_hidden(true);
        Hidden { before }
    }
}

impl Drop for Hidden {
    fn drop(&mut self) {
        let before = self.before.clone();
        std::panic::set_hook(Box::new(move |info| before(info)));
        set_hidden(false);
    }
}

/// How many ticker requests the server has seen for `product`.
async fn ticker_count(product: &str) -> u64 {
    let response =
        gloo_net::http::Request::get(&api_url(&format!("/products/{product}/ticker/count"))).send().await.unwrap();
    response.json::<serde_json::Value>().await.unwrap()["count"].as_u64().unwrap()
}

/// Mounts a polling ticker reader (every 2 s) of `product` under a provider
/// that holds polls while hidden when `pause_when_hidden`, and waits for its
/// first trade.
async fn mount_polling(product: &str, pause_when_hidden: bool) -> (rdc::controller::Controller, impl Sized) {
    let controller = new_controller();
    let root = mount_point();
    let (c, args) = (controller.clone(), Product { product_id: product.into() });
    let handle = leptos::mount::mount_to(root.clone(), move || {
        let args = args.clone();
        view! {
            // No refetch on return: what is sent on return is the held poll.
            <DataProvider controller=c.clone() refetch_on_focus=false pause_polls_when_away=pause_when_hidden>
                {
                    let read = use_live(ticker(), args);
                    view! {
                        <Suspense fallback=|| "loading">
                            {move || Suspend::new(async move { read.await.map(|t| format!("trade={}", t.trade_id)) })}
                        </Suspense>
                    }
                }
            </DataProvider>
        }
    });
    wait_for_text(&root, 5000, |t| t.contains("trade=")).await;
    (controller.clone(), handle)
}

#[wasm_bindgen_test]
async fn polls_hold_while_the_page_is_hidden_and_resume_when_it_is_visible() {
    let stamp = (js_sys::Math::random() * 1e9) as u64;
    let (held, control) = (format!("HIDDEN-{stamp}"), format!("SEEN-{stamp}"));
    let (controller, held_handle) = mount_polling(&held, true).await;
    let (_, control_handle) = mount_polling(&control, false).await;
    let sent = count_actions(&controller, |action| matches!(action, Action::Sent { .. }));
    let hidden = Hidden::new();
    let hidden_at = ticker_count(&control).await;
    // The control reader polls twice more: a whole 2 s poll interval has passed.
    let mut polled = hidden_at;
    for _ in 0..200 {
        polled = ticker_count(&control).await;
        if polled >= hidden_at + 2 {
            break;
        }
        sleep(50).await;
    }
    assert!(polled >= hidden_at + 2, "the control reader kept polling while hidden ({hidden_at} -> {polled})");
    assert_eq!(sent.get(), 0, "no poll was sent while the page was hidden");
    drop(hidden);
    assert!(wait_until(3000, || sent.get() > 0).await, "the held poll went once the page was visible");
    drop((held_handle, control_handle));
}
