//! The list in plain Leptos signals: the physical limit rdc is measured against.

use leptos::prelude::*;

use crate::Page;

/// A plain item: id, a signal of its name, its author's index.
type PlainItem = (u32, RwSignal<String>, u32);

/// The mounted plain page.
pub(crate) struct PlainPage {
    items: RwSignal<Vec<PlainItem>>,
    authors: RwSignal<Vec<RwSignal<String>>>,
    detail: RwSignal<Option<u32>>,
    _unmount: Box<dyn std::any::Any>,
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

impl PlainPage {
    /// Mounts `n` items by `authors` authors under `root`.
    pub fn mount(root: web_sys::HtmlElement, n: u32, authors: u32) -> PlainPage {
        let author_names =
            RwSignal::new((0..authors).map(|a| RwSignal::new(format!("author {a} v0"))).collect::<Vec<_>>());
        let items =
            RwSignal::new((0..n).map(|i| (i, RwSignal::new(format!("item {i} v0")), i % authors)).collect::<Vec<_>>());
        let detail = RwSignal::new(None);
        let handle =
            leptos::mount::mount_to(root, move || view! { <PlainApp items=items authors=author_names detail=detail/> });
        PlainPage { items, authors: author_names, detail, _unmount: Box::new(handle) }
    }
}

impl Page for PlainPage {
    fn update_item(&self, id: u32, version: u32) {
        if let Some((_, name, _)) = self.items.with_untracked(|items| items.iter().find(|i| i.0 == id).copied()) {
            name.set(format!("item {id} v{version}"));
        }
    }

    fn update_author(&self, id: u32, version: u32) {
        if let Some(name) = self.authors.with_untracked(|a| a.get(id as usize).copied()) {
            name.set(format!("author {id} v{version}"));
        }
    }

    fn delete_item(&self, id: u32) {
        self.items.update(|items| items.retain(|i| i.0 != id));
    }

    fn unshift_item(&self, id: u32) {
        let count = self.authors.with_untracked(Vec::len) as u32;
        self.items.update(|items| items.insert(0, (id, RwSignal::new(format!("item {id} v0")), id % count)));
    }

    fn move_item(&self, from: u32) {
        self.items.update(|items| {
            let moved = items.remove(from as usize);
            items.insert(0, moved);
        });
    }

    fn show_detail(&self, id: Option<u32>) {
        self.detail.set(id);
    }

    #[cfg(feature = "fetch")]
    fn load(&self, url: String) {
        self.fetch_list(url);
    }
}

/// An item as a server sends it (for `load`).
#[cfg(feature = "fetch")]
#[derive(serde::Deserialize)]
struct WireItem {
    id: u32,
    name: String,
    author: WireAuthor,
}

#[cfg(feature = "fetch")]
#[derive(serde::Deserialize)]
struct WireAuthor {
    id: u32,
    name: String,
}

#[cfg(feature = "fetch")]
impl PlainPage {
    /// Replaces the list with the items at `url`, fetched and parsed by hand: what
    /// an app without a data layer writes (and ships) to load its data.
    pub fn fetch_list(&self, url: String) {
        let (items, authors) = (self.items, self.authors);
        wasm_bindgen_futures::spawn_local(async move {
            let Ok(response) = gloo_net::http::Request::get(&url).send().await else { return };
            let Ok(wire) = response.json::<Vec<WireItem>>().await else { return };
            let count = wire.iter().map(|i| i.author.id + 1).max().unwrap_or(0);
            let mut names = vec![String::new(); count as usize];
            for item in &wire {
                if let Some(slot) = names.get_mut(item.author.id as usize) {
                    slot.clone_from(&item.author.name);
                }
            }
            authors.set(names.into_iter().map(RwSignal::new).collect());
            items.set(wire.into_iter().map(|i| (i.id, RwSignal::new(i.name), i.author.id)).collect());
        });
    }
}
