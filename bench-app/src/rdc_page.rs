//! The list with rdc: items and authors normalized in the store, the list read
//! once through `use_list`, which hands each row its item (a signal per row).

use std::cell::RefCell;

use leptos::prelude::*;
use rdc::controller::Controller;
use rdc::core::{Collection, Entity, Schema, SchemaOf};
use rdc::json;
use rdc::json::Value;
use rdc::rest::RestEndpoint;
use serde::Deserialize;

use crate::Page;

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

/// The list: a collection, so new items can join it without a refetch.
fn items_collection() -> SchemaOf<Vec<Item>> {
    Collection::of("BenchItems", Item::schema())
}

fn list_endpoint() -> RestEndpoint<(), (), Vec<Item>> {
    RestEndpoint::get("/bench/items").args::<()>().body::<()>().schema(items_collection())
}

fn item_json(i: u32, authors: u32, version: u32) -> Value {
    json!({ "id": i, "name": format!("item {i} v{version}"), "author": { "id": i % authors, "name": format!("author {} v{version}", i % authors) } })
}

/// `n` items by `authors` authors.
fn items_json(n: u32, authors: u32, version: u32) -> Value {
    Value::Array((0..n).map(|i| item_json(i, authors, version)).collect())
}

thread_local! {
    /// The store `mount_shared` reuses.
    static SHARED: Controller = rdc::leptos::new_controller();
}

/// Entities in the shared store, its listeners, and browser timeouts pending.
pub(crate) fn shared_counts() -> String {
    SHARED.with(|c| {
        format!(
            "{} {} {}",
            c.with_state(rdc::core::State::entity_count),
            c.listener_count(),
            rdc::leptos::pending_timeouts()
        )
    })
}

/// The mounted rdc page.
pub(crate) struct RdcPage {
    controller: Controller,
    /// The list's order as the server would send it (for move-item).
    order: RefCell<Vec<u32>>,
    authors: u32,
    detail: RwSignal<Option<u32>>,
    _unmount: Box<dyn std::any::Any>,
}

#[component]
fn RdcRow(row: rdc::leptos::Row<Item>) -> impl IntoView {
    view! { <li>{move || row.with(|i| format!("{} by {}", i.name, i.author.name))}</li> }
}

#[component]
fn RdcList() -> impl IntoView {
    // One reader for the list; each row's signal changes only with its item.
    let list = rdc::leptos::use_list(list_endpoint(), Signal::derive(|| Some(())));
    let rows = move || list.get().map(|rows| rows.to_vec()).unwrap_or_default();
    view! { <ul><For each=rows key=|row| row.id() let:row><RdcRow row=row/></For></ul> }
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

/// The optional features the build turned on, each used minimally, so
/// `scripts/bundle-size` sees what a page using it ships (none of them at
/// benchmark time: a row per feature, built alone).
#[allow(unused_variables)]
fn uses_features(controller: &Controller, n: u32) {
    #[cfg(feature = "persist")]
    {
        let restored = rdc::leptos::persist(controller, "rdc-bench", rdc::controller::Persist::new(1).entity::<Item>());
        leptos::task::spawn_local(async move {
            let _ = restored.await;
        });
    }
    #[cfg(feature = "sync-tabs")]
    rdc::leptos::sync_tabs(controller, "rdc-bench");
    #[cfg(feature = "live")]
    controller.add_manager(rdc::controller::LiveFeed::new(
        rdc::rest::EventSourceStream::new("/bench/live"),
        Item::schema().into(),
        |key| key.contains("/bench/items"),
    ));
    // An upload the page could send (never, at these sizes).
    #[cfg(feature = "multipart")]
    if n == u32::MAX {
        let upload = RestEndpoint::post("/bench/uploads").args::<()>().body::<rdc::rest::Multipart>();
        let sent = controller.fetch(&upload, (), rdc::rest::Multipart::new().text("title", "bench"));
        leptos::task::spawn_local(async move {
            let _ = sent.await;
        });
    }
}

impl RdcPage {
    /// Mounts the page under `root`, then stores `n` items by `authors` authors.
    pub fn mount(root: web_sys::HtmlElement, n: u32, authors: u32) -> RdcPage {
        Self::mount_with(root, rdc::leptos::new_controller(), n, authors)
    }

    /// Mounts the page over the one store kept across mounts (the memory cycle:
    /// what a mount leaves behind stays in that store and its listeners).
    pub fn mount_shared(root: web_sys::HtmlElement, n: u32, authors: u32) -> RdcPage {
        Self::mount_with(root, SHARED.with(|s| s.clone()), n, authors)
    }

    fn mount_with(root: web_sys::HtmlElement, controller: Controller, n: u32, authors: u32) -> RdcPage {
        let c = controller.clone();
        let detail = RwSignal::new(None);
        let handle = leptos::mount::mount_to(root, move || {
            view! { <rdc::leptos::DataProvider controller=c.clone()><RdcApp detail=detail/></rdc::leptos::DataProvider> }
        });
        uses_features(&controller, n);
        let _ = controller.set_response(&list_endpoint(), &(), items_json(n, authors, 0));
        RdcPage {
            controller: controller.clone(),
            order: RefCell::new((0..n).collect()),
            authors,
            detail,
            _unmount: Box::new(handle),
        }
    }
}

impl Page for RdcPage {
    fn update_item(&self, id: u32, version: u32) {
        // The same author as before: only the name changes.
        let author = id % self.authors;
        let item = json!({ "id": id, "name": format!("item {id} v{version}"), "author": { "id": author } });
        let _ = self.controller.set(&Item::schema(), item);
    }

    fn update_author(&self, id: u32, version: u32) {
        let _ = self.controller.set(&Author::schema(), json!({ "id": id, "name": format!("author {id} v{version}") }));
    }

    fn delete_item(&self, id: u32) {
        let _ = self.controller.set(&Schema::invalidate::<Item>(), json!(id));
    }

    fn unshift_item(&self, id: u32) {
        self.order.borrow_mut().insert(0, id);
        let _ = self.controller.set(&Collection::unshift(&items_collection()), item_json(id, self.authors, 0));
    }

    fn move_item(&self, from: u32) {
        let mut order = self.order.borrow_mut();
        let moved = order.remove(from as usize);
        order.insert(0, moved);
        let list: Vec<Value> = order.iter().map(|i| item_json(*i, self.authors, 0)).collect();
        let _ = self.controller.set_response(&list_endpoint(), &(), Value::Array(list));
    }

    fn show_detail(&self, id: Option<u32>) {
        self.detail.set(id);
    }

    fn counts(&self) -> String {
        format!("{} {}", self.controller.with_state(rdc::core::State::entity_count), self.controller.listener_count())
    }
}
