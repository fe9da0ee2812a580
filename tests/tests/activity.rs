//! Mutation callbacks and app-wide activity in headless Chromium against the
//! API server: the callbacks' order on a success and on an HTTP error, and
//! the count of reads in flight going back to 0 after an answer and an error.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::json;
use rdc::leptos::{use_controller, use_is_fetching, use_mutation, use_pending_mutations, use_suspense, DataProvider};
use rdc_e2e::{mount_point, wait_for_text};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[component]
fn Saving() -> impl IntoView {
    let log = RwSignal::new(Vec::<String>::new());
    let push = move |line: String| log.update(|log| log.push(line));
    let create = use_mutation(create_user())
        .on_mutate(move |_: &()| {
            push("mutate".into());
            7
        })
        .on_success(move |user: &User, _, context: &u32| push(format!("success {} {context}", user.name)))
        .on_error(move |error, _, context| push(format!("error {} {context}", error.to_string().contains("422"))))
        .on_settled(move |outcome, _, context| push(format!("settled {} {context}", outcome.is_ok())));
    let (fetching, saving) = (use_is_fetching(), use_pending_mutations());
    let users = use_suspense(list_users(), ());
    let controller = use_controller();
    // A read the server refuses with a 404 (never retried).
    let failing = move |_| {
        let fetch = controller.fetch(&api("GET", "/status/404"), json!(null), None);
        leptos::task::spawn_local(async move {
            if fetch.await.is_err() {
                push("read failed".into());
            }
        });
    };
    view! {
        <button id="create" on:click=move |_| create.run(NewUser { name: "Edsger Dijkstra".into() })>"create"</button>
        <button id="create-bad" on:click=move |_| create.run(NewUser { name: String::new() })>"create bad"</button>
        <button id="failing" on:click=failing>"failing read"</button>
        <p>{move || format!("fetching={} saving={}", fetching.get(), saving.with(Vec::len))}</p>
        <p>{move || format!("log=[{}]", log.get().join(", "))}</p>
        <Suspense fallback=|| "loading">
            <ul>{move || Suspend::new(async move { users.await.map(|u| u.iter().map(|u| view! { <li>{u.name.clone()}</li> }).collect_view()) })}</ul>
        </Suspense>
    }
}

fn click(root: &web_sys::HtmlElement, selector: &str) {
    use wasm_bindgen::JsCast;
    let button = root.query_selector(selector).unwrap().unwrap();
    button.dyn_into::<web_sys::HtmlElement>().unwrap().click();
}

#[wasm_bindgen_test]
async fn mutation_callbacks_run_in_order_on_success_and_on_an_http_error_and_the_fetching_count_returns_to_zero() {
    let root = mount_point();
    let _handle = leptos::mount::mount_to(root.clone(), || view! { <DataProvider><Saving/></DataProvider> });
    let text = wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace") && t.contains("fetching=0")).await;
    assert!(text.contains("fetching=0 saving=0"), "the list's read settled: {text}");

    click(&root, "#create");
    let text = wait_for_text(&root, 5000, |t| t.contains("settled true")).await;
    assert!(text.contains("log=[mutate, success Edsger Dijkstra 7, settled true 7]"), "{text}");
    let text = wait_for_text(&root, 3000, |t| t.contains("saving=0")).await;
    assert!(text.contains("saving=0"), "{text}");

    click(&root, "#create-bad");
    let text = wait_for_text(&root, 5000, |t| t.contains("settled false")).await;
    assert!(
        text.contains("log=[mutate, success Edsger Dijkstra 7, settled true 7, mutate, error true 7, settled false 7]"),
        "the server's 422 reaches on_error, then on_settled: {text}"
    );

    click(&root, "#failing");
    let text = wait_for_text(&root, 5000, |t| t.contains("read failed") && t.contains("fetching=0")).await;
    assert!(
        text.contains("read failed") && text.contains("fetching=0 saving=0"),
        "back to 0 after a failed read: {text}"
    );
}
