//! The browser benchmark page (Step 7): one list of items, each showing its name and
//! its author, written three times: with rdc (`rdc_page`: the store, `use_keys` of the
//! ids for the list, `use_entity` per row), with leptos-fetch (`lf_page`, feature
//! `leptos-fetch`: the list as one cached query, edited in place) and with plain Leptos
//! signals (`plain`: the physical limit, a signal per row and per author, no data layer).
//! `scripts/bench-browser` drives it; `scripts/bundle-size` builds it without the
//! `rdc` feature to see what rdc adds to the wasm.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

#[cfg(feature = "leptos-fetch")]
mod lf_page;
mod plain;
#[cfg(feature = "rdc")]
mod rdc_page;

/// What a mounted page does on the benchmark's actions.
trait Page {
    /// Renames item `id` (one row changes).
    fn update_item(&self, id: u32, version: u32);
    /// Renames author `id` (every row of theirs changes).
    fn update_author(&self, id: u32, version: u32);
    /// Removes item `id` from the list.
    fn delete_item(&self, id: u32);
    /// Adds a new item `id` at the front of the list.
    fn unshift_item(&self, id: u32);
    /// Moves the item at position `from` to the front.
    fn move_item(&self, from: u32);
    /// Shows item `id` alone (`Some`) or the list (`None`).
    fn show_detail(&self, id: Option<u32>);
    /// Store entities and listeners, for memory checks (empty without a store).
    fn counts(&self) -> String {
        String::new()
    }
    /// Loads the list from `url` (the plain page's own fetch code).
    #[cfg(feature = "fetch")]
    fn load(&self, _url: String) {}
}

thread_local! {
    static MOUNTED: RefCell<Option<Box<dyn Page>>> = const { RefCell::new(None) };
}

fn root() -> web_sys::HtmlElement {
    let document = leptos::prelude::window().document().expect("a document");
    let el = document.get_element_by_id("root").expect("#root");
    wasm_bindgen::JsCast::unchecked_into(el)
}

fn mount(page: impl Page + 'static) {
    MOUNTED.with(|m| *m.borrow_mut() = Some(Box::new(page)));
}

fn with_page(f: impl FnOnce(&dyn Page)) {
    MOUNTED.with(|m| {
        if let Some(page) = m.borrow().as_deref() {
            f(page);
        }
    });
}

/// Clears `#root` and drops what was mounted.
#[wasm_bindgen]
pub fn unmount() {
    MOUNTED.with(|m| m.borrow_mut().take());
    root().set_inner_html("");
}

/// Mounts the rdc list with `n` items by `authors` authors (set through the controller).
#[cfg(feature = "rdc")]
#[wasm_bindgen]
pub fn mount_rdc(n: u32, authors: u32) {
    unmount();
    mount(rdc_page::RdcPage::mount(root(), n, authors));
}

/// Mounts the rdc list over the store kept across mounts (the memory cycle).
#[cfg(feature = "rdc")]
#[wasm_bindgen]
pub fn mount_rdc_shared(n: u32, authors: u32) {
    unmount();
    mount(rdc_page::RdcPage::mount_shared(root(), n, authors));
}

/// Entities in the shared store, its listeners, and browser timeouts pending.
#[cfg(feature = "rdc")]
#[wasm_bindgen]
pub fn shared_counts() -> String {
    rdc_page::shared_counts()
}

/// Mounts the leptos-fetch list with `n` items by `authors` authors (set as its query's answer).
#[cfg(feature = "leptos-fetch")]
#[wasm_bindgen]
pub fn mount_lf(n: u32, authors: u32) {
    unmount();
    mount(lf_page::LfPage::mount(root(), n, authors));
}

/// Mounts the plain-signals list with `n` items by `authors` authors.
#[wasm_bindgen]
pub fn mount_plain(n: u32, authors: u32) {
    unmount();
    mount(plain::PlainPage::mount(root(), n, authors));
}

/// Replaces the plain page's list with the items at `url` (its own fetch code).
#[cfg(feature = "fetch")]
#[wasm_bindgen]
pub fn load_plain(url: String) {
    MOUNTED.with(|m| {
        if let Some(page) = m.borrow().as_deref() {
            page.load(url);
        }
    });
}

/// Renames item `id` (one row changes).
#[wasm_bindgen]
pub fn update_item(id: u32, version: u32) {
    with_page(|p| p.update_item(id, version));
}

/// Renames author `id` (every row of theirs changes).
#[wasm_bindgen]
pub fn update_author(id: u32, version: u32) {
    with_page(|p| p.update_author(id, version));
}

/// Removes item `id` from the list.
#[wasm_bindgen]
pub fn delete_item(id: u32) {
    with_page(|p| p.delete_item(id));
}

/// Adds a new item `id` at the front of the list.
#[wasm_bindgen]
pub fn unshift_item(id: u32) {
    with_page(|p| p.unshift_item(id));
}

/// Moves the item at position `from` to the front (the server's new order).
#[wasm_bindgen]
pub fn move_item(from: u32) {
    with_page(|p| p.move_item(from));
}

/// Shows item `id` alone (`Some`) or the list (`None`).
#[wasm_bindgen]
pub fn show_detail(id: Option<u32>) {
    with_page(|p| p.show_detail(id));
}

/// Store entities and controller listeners now (memory checks).
#[wasm_bindgen]
pub fn rdc_counts() -> String {
    let mut out = String::new();
    with_page(|p| out = p.counts());
    out
}
