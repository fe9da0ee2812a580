//! `use_list` in headless Chromium: one reader for a list; a rename re-renders
//! its row alone (the other rows' DOM nodes and renders untouched), delete and
//! unshift keep the other rows' nodes, and mounting adds two listeners (none
//! per row) and leaves none behind.
#![cfg(target_arch = "wasm32")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use leptos::prelude::*;
use rdc::core::{Collection, Entity, Schema, SchemaOf};
use rdc::json;
use rdc::leptos::{new_controller, use_list, DataProvider, Row};
use rdc::rest::RestEndpoint;
use rdc_e2e::{mount_point, wait_for_text};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
struct Thing {
    id: u32,
    name: String,
}

fn things() -> SchemaOf<Vec<Thing>> {
    Collection::of("ListHookThings", Thing::schema())
}

fn list() -> RestEndpoint<(), (), Vec<Thing>> {
    RestEndpoint::get("/list-hook/things").args::<()>().body::<()>().schema(things())
}

fn thing(id: u32, name: &str) -> json::Value {
    json!({ "id": id, "name": name })
}

/// Renders of each row's text, by item id (ids 0 to 9).
type Renders = Arc<Vec<AtomicUsize>>;

#[component]
fn ThingRow(row: Row<Thing>, renders: Renders) -> impl IntoView {
    let id = row.get_untracked().id as usize;
    view! {
        <li>{move || {
            if let Some(count) = renders.get(id) {
                count.fetch_add(1, Ordering::SeqCst);
            }
            row.with(|t| format!("[{}]", t.name))
        }}</li>
    }
}

#[component]
fn Things(renders: Renders) -> impl IntoView {
    let rows = use_list(list(), Signal::derive(|| Some(())));
    let each = move || rows.get().map(|rows| rows.to_vec()).unwrap_or_default();
    view! {
        <ul>
            <For each=each key=|row| row.id() let:row>
                <ThingRow row=row renders=Arc::clone(&renders)/>
            </For>
        </ul>
    }
}

/// The `<li>` elements under `root`, in order.
fn items(root: &web_sys::HtmlElement) -> Vec<web_sys::Element> {
    let mut out = Vec::new();
    let mut next = root.query_selector("li").ok().flatten();
    while let Some(li) = next {
        next = li.next_element_sibling();
        out.push(li);
    }
    out
}

fn renders_of(renders: &Renders) -> Vec<usize> {
    renders.iter().map(|c| c.load(Ordering::SeqCst)).collect()
}

#[wasm_bindgen_test]
async fn a_rename_rerenders_its_row_alone_and_delete_and_unshift_keep_the_other_rows() {
    let root = mount_point();
    let controller = new_controller();
    let renders: Renders = Arc::new((0..10).map(|_| AtomicUsize::new(0)).collect());
    let (c, r) = (controller.clone(), Arc::clone(&renders));
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <DataProvider controller=c.clone()><Things renders=Arc::clone(&r)/></DataProvider> }
    });
    let listed = json::Value::Array((1..=5).map(|i| thing(i, &format!("t{i}"))).collect());
    controller.set_response(&list(), &(), listed).unwrap();
    wait_for_text(&root, 2000, |t| t == "[t1][t2][t3][t4][t5]").await;
    let before = items(&root);
    assert_eq!(before.len(), 5);
    assert_eq!(renders_of(&renders)[1..=5], [1, 1, 1, 1, 1]);

    controller.set(&Thing::schema(), thing(3, "renamed")).unwrap();
    let text = wait_for_text(&root, 2000, |t| t.contains("[renamed]")).await;
    assert_eq!(text, "[t1][t2][renamed][t4][t5]");
    assert_eq!(renders_of(&renders)[1..=5], [1, 1, 2, 1, 1], "only the renamed row rendered again");
    let after = items(&root);
    assert!(before.iter().zip(&after).all(|(a, b)| a.is_same_node(Some(b))), "every row kept its node");

    controller.set(&Schema::invalidate::<Thing>(), json!(2)).unwrap();
    wait_for_text(&root, 2000, |t| !t.contains("[t2]")).await;
    controller.set(&Collection::unshift(&things()), thing(9, "t9")).unwrap();
    let text = wait_for_text(&root, 2000, |t| t.contains("[t9]")).await;
    assert_eq!(text, "[t9][t1][renamed][t4][t5]");
    let now = items(&root);
    let kept = [&before[0], &before[2], &before[3], &before[4]];
    assert!(kept.iter().zip(&now[1..]).all(|(a, b)| a.is_same_node(Some(b))), "the other rows kept their nodes");
    assert_eq!(renders_of(&renders)[1..=5], [1, 1, 2, 1, 1], "delete and unshift rendered no other row again");
    assert_eq!(renders_of(&renders)[9], 1);
}

#[wasm_bindgen_test]
async fn fifty_mount_cycles_leave_the_listeners_as_they_were() {
    let root = mount_point();
    let controller = new_controller();
    let listed = json::Value::Array((1..=5).map(|i| thing(i, &format!("t{i}"))).collect());
    controller.set_response(&list(), &(), listed).unwrap();
    let renders: Renders = Arc::new((0..10).map(|_| AtomicUsize::new(0)).collect());
    let show = RwSignal::new(false);
    let (c, r) = (controller.clone(), Arc::clone(&renders));
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let r = Arc::clone(&r);
        view! {
            <DataProvider controller=c.clone()>
                <Show when=move || show.get()><Things renders=Arc::clone(&r)/></Show>
            </DataProvider>
        }
    });
    leptos::task::tick().await;
    let listeners = controller.listener_count();
    for cycle in 0..50 {
        show.set(true);
        let text = wait_for_text(&root, 2000, |t| t == "[t1][t2][t3][t4][t5]").await;
        assert_eq!(text, "[t1][t2][t3][t4][t5]", "cycle {cycle} mounted");
        assert_eq!(controller.listener_count(), listeners + 2, "a reader for the keys, one for the rows: none per row");
        show.set(false);
        wait_for_text(&root, 2000, str::is_empty).await;
    }
    assert_eq!(controller.listener_count(), listeners);
}
