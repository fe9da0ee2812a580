//! The list with leptos-fetch 0.4 (the maintained Leptos query library; it caches
//! each query's answer whole and does not normalize), written as its docs show:
//! a `QueryClient` provided at the root, the list as one query read through a
//! local resource, what the server sends set with `set_query_local`, and each
//! edit made to the cached answer with `update_query`. Rows are keyed by the
//! whole item, so a changed item renders its row again.

use std::cell::RefCell;
use std::time::Duration;

use leptos::prelude::*;
use leptos_fetch::{QueryClient, QueryOptions};

use crate::Page;

/// An author, copied into each of their items (nothing is normalized).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Author {
    id: u32,
    name: String,
}

/// A list item.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Item {
    id: u32,
    name: String,
    author: Author,
}

thread_local! {
    /// What the server would answer: the query function reads it.
    static SERVER: RefCell<Vec<Item>> = const { RefCell::new(Vec::new()) };
}

/// The list query.
async fn list_items() -> Vec<Item> {
    SERVER.with(|s| s.borrow().clone())
}

fn item(i: u32, authors: u32, version: u32) -> Item {
    let author = Author { id: i % authors, name: format!("author {} v{version}", i % authors) };
    Item { id: i, name: format!("item {i} v{version}"), author }
}

/// The mounted leptos-fetch page.
pub(crate) struct LfPage {
    client: QueryClient,
    authors: u32,
    detail: RwSignal<Option<u32>>,
    _unmount: Box<dyn std::any::Any>,
}

#[component]
fn LfList() -> impl IntoView {
    let client: QueryClient = expect_context();
    let list = client.local_resource(list_items, || ());
    let items = move || list.get().unwrap_or_default();
    view! {
        <ul>
            <For each=items key=|item| item.clone() let:item>
                <li>{format!("{} by {}", item.name, item.author.name)}</li>
            </For>
        </ul>
    }
}

/// One item on its own page, read from the list's cached answer.
#[component]
fn LfDetail(id: u32) -> impl IntoView {
    let client: QueryClient = expect_context();
    let list = client.local_resource(list_items, || ());
    let shown = move || {
        list.get()
            .and_then(|items| items.into_iter().find(|i| i.id == id))
            .map(|i| format!("detail {}: {} by {}", i.id, i.name, i.author.name))
    };
    view! { <article>{shown}</article> }
}

#[component]
fn LfApp(client: QueryClient, detail: RwSignal<Option<u32>>) -> impl IntoView {
    client.provide();
    move || match detail.get() {
        Some(id) => view! { <LfDetail id=id/> }.into_any(),
        None => view! { <LfList/> }.into_any(),
    }
}

impl LfPage {
    /// Mounts the page under `root`, then sets the list's answer: `n` items by `authors` authors.
    pub fn mount(root: web_sys::HtmlElement, n: u32, authors: u32) -> LfPage {
        // Data changes only through the benchmark's edits: never stale, never refetched behind them.
        let client = QueryClient::new().with_options(QueryOptions::new().with_stale_time(Duration::MAX));
        let detail = RwSignal::new(None);
        let handle = leptos::mount::mount_to(root, move || view! { <LfApp client=client detail=detail/> });
        let items: Vec<Item> = (0..n).map(|i| item(i, authors, 0)).collect();
        SERVER.with(|s| *s.borrow_mut() = items.clone());
        client.set_query_local(list_items, (), items);
        LfPage { client, authors, detail, _unmount: Box::new(handle) }
    }

    /// Changes the cached list (the query is never fetched again: what the
    /// server holds is left as it was at mount).
    fn edit(&self, change: impl Fn(&mut Vec<Item>)) {
        self.client.update_query(list_items, (), |list| {
            if let Some(list) = list {
                change(list);
            }
        });
    }
}

impl Page for LfPage {
    fn update_item(&self, id: u32, version: u32) {
        self.edit(|list| {
            if let Some(item) = list.iter_mut().find(|i| i.id == id) {
                item.name = format!("item {id} v{version}");
            }
        });
    }

    fn update_author(&self, id: u32, version: u32) {
        self.edit(|list| {
            for item in list.iter_mut().filter(|i| i.author.id == id) {
                item.author.name = format!("author {id} v{version}");
            }
        });
    }

    fn delete_item(&self, id: u32) {
        self.edit(|list| list.retain(|i| i.id != id));
    }

    fn unshift_item(&self, id: u32) {
        let new = item(id, self.authors, 0);
        self.edit(|list| list.insert(0, new.clone()));
    }

    fn move_item(&self, from: u32) {
        // The server's new order (the list as shown, one item moved), set as the query's answer.
        let mut list = self.client.get_cached_query(list_items, ()).unwrap_or_default();
        if (from as usize) < list.len() {
            let moved = list.remove(from as usize);
            list.insert(0, moved);
        }
        self.client.set_query_local(list_items, (), list);
    }

    fn show_detail(&self, id: Option<u32>) {
        self.detail.set(id);
    }
}
