//! The browser benchmark page (Step 7): one list of items, each showing its name and
//! its author, written twice: with rdc (store, `use_cache` of the ids for the list,
//! `use_entity` per row) and with plain Leptos signals (the physical limit: a signal
//! per row and per user, no data layer). `scripts/bench-browser` drives it.

use std::cell::RefCell;

use leptos::prelude::*;
use rdc::core::{Collection, Controller, Entity, Schema};
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

/// What the list shows: ids only (each row reads its own item), so the list's
/// read depends on its items' rows, not on their authors.
#[derive(Debug, Deserialize)]
pub struct ItemId {
    /// Primary key.
    pub id: u32,
}

/// The list: a collection, so new items can join it without a refetch.
fn items_collection() -> Schema {
    Collection::of("BenchItems", Item::schema())
}

fn list_endpoint() -> RestEndpoint {
    RestEndpoint::get("/bench/items").schema(items_collection())
}

fn item_json(i: u32, authors: u32, version: u32) -> Value {
    json!({ "id": i, "name": format!("item {i} v{version}"), "author": { "id": i % authors, "name": format!("author {} v{version}", i % authors) } })
}

/// `n` items by `authors` authors.
fn items_json(n: u32, authors: u32, version: u32) -> Value {
    Value::Array((0..n).map(|i| item_json(i, authors, version)).collect())
}

thread_local! {
    static STATE: RefCell<Option<Bench>> = const { RefCell::new(None) };
}

/// What is mounted now.
enum Bench {
    Rdc {
        controller: Controller,
        /// The list's order as the server would send it (for move-item).
        order: RefCell<Vec<u32>>,
        authors: u32,
        detail: RwSignal<Option<u32>>,
        _unmount: Box<dyn std::any::Any>,
    },
    Plain {
        items: RwSignal<Vec<PlainItem>>,
        authors: RwSignal<Vec<RwSignal<String>>>,
        detail: RwSignal<Option<u32>>,
        _unmount: Box<dyn std::any::Any>,
    },
}

fn root() -> web_sys::HtmlElement {
    let document = window().document().expect("a document");
    let el = document.get_element_by_id("root").expect("#root");
    wasm_bindgen::JsCast::unchecked_into(el)
}

/// A plain item: id, a signal of its name, its author's index.
type PlainItem = (u32, RwSignal<String>, u32);

#[component]
fn RdcRow(id: u32) -> impl IntoView {
    let item = rdc::leptos::use_entity::<Item>(id.to_string());
    view! { <li>{move || item.get().map(|i| format!("{} by {}", i.name, i.author.name))}</li> }
}

#[component]
fn RdcList() -> impl IntoView {
    let list = rdc::leptos::use_cache::<_, Vec<ItemId>>(list_endpoint(), Signal::derive(|| Some(json!({}))));
    let ids = move || list.get().map(|items| items.iter().map(|i| i.id).collect::<Vec<_>>()).unwrap_or_default();
    view! { <ul><For each=ids key=|id| *id let:id><RdcRow id=id/></For></ul> }
}

/// One item on its own page.
#[component]
fn RdcDetail(id: u32) -> impl IntoView {
    let item = rdc::leptos::use_entity::<Item>(id.to_string());
    view! { <article>{move || item.get().map(|i| format!("detail {}: {} by {}", i.id, i.name, i.author.name))}</article> }
}

#[component]
fn RdcApp(detail: RwSignal<Option<u32>>) -> impl IntoView {
    move || match detail.get() {
        Some(id) => view! { <RdcDetail id=id/> }.into_any(),
        None => view! { <RdcList/> }.into_any(),
    }
}

#[component]
fn PlainList(items: RwSignal<Vec<PlainItem>>, authors: RwSignal<Vec<RwSignal<String>>>) -> impl IntoView {
    view! {
        <ul>
            <For each=move || items.get() key=|(id, _, _)| *id let:item>
                {
                    let (_, name, author) = item;
                    view! { <li>{move || format!("{} by {}", name.get(), authors.with(|a| a[author as usize].get()))}</li> }
                }
            </For>
        </ul>
    }
}

#[component]
fn PlainApp(
    items: RwSignal<Vec<PlainItem>>,
    authors: RwSignal<Vec<RwSignal<String>>>,
    detail: RwSignal<Option<u32>>,
) -> impl IntoView {
    move || match detail.get() {
        Some(id) => {
            let item = items.with_untracked(|items| items.iter().find(|i| i.0 == id).copied());
            view! {
                <article>
                    {move || item.map(|(id, name, author)| format!("detail {id}: {} by {}", name.get(), authors.with(|a| a[author as usize].get())))}
                </article>
            }
            .into_any()
        }
        None => view! { <PlainList items=items authors=authors/> }.into_any(),
    }
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
    let detail = RwSignal::new(None);
    let handle = leptos::mount::mount_to(
        root(),
        move || view! { <rdc::leptos::DataProvider controller=c.clone()><RdcApp detail=detail/></rdc::leptos::DataProvider> },
    );
    let _ = controller.set_response(&list_endpoint(), &json!({}), items_json(n, authors, 0));
    STATE.with(|s| {
        *s.borrow_mut() = Some(Bench::Rdc {
            controller: (*controller).clone(),
            order: RefCell::new((0..n).collect()),
            authors,
            detail,
            _unmount: Box::new(handle),
        })
    });
}

/// Mounts the plain-signals list with `n` items by `authors` authors.
#[wasm_bindgen]
pub fn mount_plain(n: u32, authors: u32) {
    unmount();
    let author_names = RwSignal::new((0..authors).map(|a| RwSignal::new(format!("author {a} v0"))).collect::<Vec<_>>());
    let items =
        RwSignal::new((0..n).map(|i| (i, RwSignal::new(format!("item {i} v0")), i % authors)).collect::<Vec<_>>());
    let detail = RwSignal::new(None);
    let handle = leptos::mount::mount_to(root(), move || view! { <PlainApp items=items authors=author_names detail=detail/> });
    STATE.with(|s| {
        *s.borrow_mut() = Some(Bench::Plain { items, authors: author_names, detail, _unmount: Box::new(handle) })
    });
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

/// Adds a new item `id` at the front of the list.
#[wasm_bindgen]
pub fn unshift_item(id: u32) {
    STATE.with(|s| match s.borrow().as_ref() {
        Some(Bench::Rdc { controller, authors, order, .. }) => {
            order.borrow_mut().insert(0, id);
            let _ = controller.set(&Collection::unshift(&items_collection()), item_json(id, *authors, 0));
        }
        Some(Bench::Plain { items, authors, .. }) => {
            let count = authors.with_untracked(Vec::len) as u32;
            items.update(|items| items.insert(0, (id, RwSignal::new(format!("item {id} v0")), id % count)));
        }
        None => {}
    });
}

/// Moves the item at position `from` to the front (the server's new order).
#[wasm_bindgen]
pub fn move_item(from: u32) {
    STATE.with(|s| match s.borrow().as_ref() {
        Some(Bench::Rdc { controller, authors, order, .. }) => {
            let mut order = order.borrow_mut();
            let moved = order.remove(from as usize);
            order.insert(0, moved);
            let list: Vec<Value> = order.iter().map(|i| item_json(*i, *authors, 0)).collect();
            let _ = controller.set_response(&list_endpoint(), &json!({}), Value::Array(list));
        }
        Some(Bench::Plain { items, .. }) => items.update(|items| {
            let moved = items.remove(from as usize);
            items.insert(0, moved);
        }),
        None => {}
    });
}

/// Shows item `id` alone (`Some`) or the list (`None`).
#[wasm_bindgen]
pub fn show_detail(id: Option<u32>) {
    STATE.with(|s| match s.borrow().as_ref() {
        Some(Bench::Rdc { detail, .. } | Bench::Plain { detail, .. }) => detail.set(id),
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
