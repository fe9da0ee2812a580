//! Mutations made offline in headless Chromium: shown at once, counted by
//! `use_queued_mutations`, nothing sent until the browser is back online, then
//! sent in the order they were made.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::json;
use rdc::leptos::{new_controller, use_mutation, use_queued_mutations, use_suspense, DataProvider};
use rdc_e2e::{api_url, mount_point, sleep, wait_for_text};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Dispatches `online` or `offline` on the window.
fn network(event: &str) {
    let _ = web_sys::window().unwrap().dispatch_event(&web_sys::Event::new(event).unwrap());
}

/// The API server's request log: how many `POST /api/users` it served.
async fn user_posts() -> usize {
    let log = gloo_net::http::Request::get(&api_url("/requests")).send().await.unwrap();
    let log: Vec<String> = log.json().await.unwrap();
    log.iter().filter(|line| line.starts_with("POST /api/users")).count()
}

/// The users' names on the server, in order.
async fn server_names() -> Vec<String> {
    let users = gloo_net::http::Request::get(&api_url("/users")).send().await.unwrap();
    let users: Vec<serde_json::Value> = users.json().await.unwrap();
    users.iter().filter_map(|u| u["name"].as_str().map(str::to_owned)).collect()
}

#[wasm_bindgen_test]
async fn mutations_made_offline_show_at_once_and_go_out_in_order_when_back_online() {
    let tag = (js_sys::Math::random() * 1e9) as u64;
    let names = [format!("Offline A {tag}"), format!("Offline B {tag}")];
    let create = create_user().optimistic(|_, body| {
        let name = body.map(|b| b["name"].clone()).unwrap_or_default();
        json!({ "id": format!("draft-{name}"), "name": name })
    });
    let run = RwSignal::new(None::<String>);
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let create = create.clone();
        view! {
            <DataProvider controller=c.clone()>
                {move || {
                    let users = use_suspense(list_users(), ());
                    let waiting = use_queued_mutations();
                    let add = use_mutation(create.clone());
                    Effect::new(move |_| if let Some(name) = run.get() { add.run(NewUser { name }) });
                    view! {
                        <p>{move || format!("waiting={}|", waiting.get())}</p>
                        <Suspense fallback=|| "loading">
                            {move || Suspend::new(async move {
                                users.await.map(|all| all.iter().map(|u| format!("{}|", u.name)).collect::<String>())
                            })}
                        </Suspense>
                    }
                }}
            </DataProvider>
        }
    });
    wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace")).await;
    let posts = user_posts().await;
    network("offline");
    for name in &names {
        run.set(Some(name.clone()));
        sleep(20).await;
    }
    let text = wait_for_text(&root, 2000, |t| names.iter().all(|n| t.contains(n.as_str()))).await;
    assert!(text.contains("waiting=2|"), "both shown at once, both waiting: {text}");
    sleep(300).await;
    assert_eq!(user_posts().await, posts, "nothing is sent offline");

    network("online");
    let text = wait_for_text(&root, 3000, |t| t.contains("waiting=0|")).await;
    assert!(names.iter().all(|n| text.contains(n.as_str())), "{text}");
    sleep(200).await;
    assert_eq!(user_posts().await, posts + 2, "both sent once online");
    let on_server = server_names().await;
    let at = |name: &String| on_server.iter().position(|n| n == name);
    assert!(at(&names[0]) < at(&names[1]) && at(&names[0]).is_some(), "sent in order: {on_server:?}");
}
