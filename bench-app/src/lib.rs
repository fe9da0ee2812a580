//! The browser benchmark page (Step 7): one list of items, each showing its name and
//! its author, written twice: with rdc (store, `use_suspense` for the list,
//! `use_entity` per row) and with plain Leptos signals (the physical limit: a signal
//! per row and per user, no data layer). `scripts/bench-browser` drives it.

use std::cell::RefCell;

use leptos::prelude::*;
use rdc::core::{Controller, Entity, Schema};
use rdc::rest::RestEndpoint;
use serde::Deserialize;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// An author, shared by many items.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Author {
    /// Primary key.
    pub id: u32,
    /// Shown in every row of their items.
    pub name: String,
}

/// A list item.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Item {
    /// Primary key.
    pub id: u32,
    /// Shown in its row.
    pub name: String,
    /// The author.
    #[entity(nested)]
    pub author: Author,
}

fn list_endpoint() -> RestEndpoint {
    RestEndpoint::get("/bench/items").schema(Schema::array(Item::schema()))
}

/// `n` items by `authors` authors.
fn items_json(n: u32, authors: u32, version: u32) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({ "id": i, "name": format!("item {i} v{version}"), "author": { "id": i % authors, "name": format!("author {} v{version}", i % authors) } }))
            .collect(),
    )
}

thread_local! {
    static STATE: RefCell<Option<Bench>> = const { RefCell::new(None) };
}

/// What is mounted now.
enum Bench {
    Rdc {
        controller: Controller,
        _unmount: Box<dyn std::any::Any>,
    },
    Plain {
        items: RwSignal<Vec<(u32, RwSignal<String>, u32)>>,
        authors: RwSignal<Vec<RwSignal<String>>>,
        _unmount: Box<dyn std::any::Any>,
    },
}

fn root() -> web_sys::HtmlElement {
    let document = window().document().expect("a document");
    let el = document.get_element_by_id("root").expect("#root");
    wasm_bindgen::JsCast::unchecked_into(el)
}

#[component]
fn RdcRow(id: u32) -> impl IntoView {
    let item = rdc::leptos::use_entity::<Item>(id.to_string());
    view! { <li>{move || item.get().map(|i| format!("{} by {}", i.name, i.author.name))}</li> }
}

#[component]
fn RdcList() -> impl IntoView {
    let list = rdc::leptos::use_cache::<_, Vec<Item>>(list_endpoint(), Signal::derive(|| Some(json!({}))));
    let ids = move || list.get().map(|items| items.iter().map(|i| i.id).collect::<Vec<_>>()).unwrap_or_default();
    view! { <ul><For each=ids key=|id| *id let:id><RdcRow id=id/></For></ul> }
}

/// Clears `#root` and drops what was mounted.
#[wasm_bindgen]
pub fn unmount() {
    STATE.with(|s| s.borrow_mut().take());
    root().set_inner_html("");
}

/// Mounts the rdc list with `n` items by `authors` authors (set through the controller).
#[wasm_bindgen]
pub fn mount_rdc(n: u32, authors: u32) {
    unmount();
    let controller = rdc::leptos::new_controller();
    let c = controller.clone();
    let handle = leptos::mount::mount_to(
        root(),
        move || view! { <rdc::leptos::DataProvider controller=c.clone()><RdcList/></rdc::leptos::DataProvider> },
    );
    let _ = controller.set_response(&list_endpoint(), &json!({}), items_json(n, authors, 0));
    STATE
        .with(|s| *s.borrow_mut() = Some(Bench::Rdc { controller: (*controller).clone(), _unmount: Box::new(handle) }));
}

/// Mounts the plain-signals list with `n` items by `authors` authors.
#[wasm_bindgen]
pub fn mount_plain(n: u32, authors: u32) {
    unmount();
    let author_names = RwSignal::new((0..authors).map(|a| RwSignal::new(format!("author {a} v0"))).collect::<Vec<_>>());
    let items =
        RwSignal::new((0..n).map(|i| (i, RwSignal::new(format!("item {i} v0")), i % authors)).collect::<Vec<_>>());
    let handle = leptos::mount::mount_to(root(), move || {
        view! {
            <ul>
                <For each=move || items.get() key=|(id, _, _)| *id let:item>
                    {
                        let (_, name, author) = item;
                        view! { <li>{move || format!("{} by {}", name.get(), author_names.with(|a| a[author as usize].get()))}</li> }
                    }
                </For>
            </ul>
        }
    });
    STATE.with(|s| *s.borrow_mut() = Some(Bench::Plain { items, authors: author_names, _unmount: Box::new(handle) }));
}

/// Renames item `id` (one row changes).
#[wasm_bindgen]
pub fn update_item(id: u32, version: u32) {
    STATE.with(|s| match s.borrow().as_ref() {
        Some(Bench::Rdc { controller, .. }) => {
            let _ = controller.set(
                &Item::schema(),
                json!({ "id": id, "name": format!("item {id} v{version}"), "author": { "id": 0 } }),
            );
        }
        Some(Bench::Plain { items, .. }) => {
            if let Some((_, name, _)) = items.with_untracked(|items| items.iter().find(|i| i.0 == id).cloned()) {
                name.set(format!("item {id} v{version}"));
            }
        }
        None => {}
    });
}

/// Renames author `id` (every row of theirs changes).
#[wasm_bindgen]
pub fn update_author(id: u32, version: u32) {
    STATE.with(|s| match s.borrow().as_ref() {
        Some(Bench::Rdc { controller, .. }) => {
            let _ = controller.set(&Author::schema(), json!({ "id": id, "name": format!("author {id} v{version}") }));
        }
        Some(Bench::Plain { authors, .. }) => {
            if let Some(name) = authors.with_untracked(|a| a.get(id as usize).copied()) {
                name.set(format!("author {id} v{version}"));
            }
        }
        None => {}
    });
}

/// Removes item `id` from the list.
#[wasm_bindgen]
pub fn delete_item(id: u32) {
    STATE.with(|s| match s.borrow().as_ref() {
        Some(Bench::Rdc { controller, .. }) => {
            let _ = controller.set(&Schema::invalidate::<Item>(), json!(id));
        }
        Some(Bench::Plain { items, .. }) => items.update(|items| items.retain(|i| i.0 != id)),
        None => {}
    });
}

/// Store entities and controller listeners now (memory checks).
#[wasm_bindgen]
pub fn rdc_counts() -> String {
    STATE.with(|s| match s.borrow().as_ref() {
        Some(Bench::Rdc { controller, .. }) => {
            format!("{} {}", controller.snapshot().entity_count(), controller.listener_count())
        }
        _ => String::new(),
    })
}
