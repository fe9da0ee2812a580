//! Files: a blob download saved under the filename the server sent (recipe 5).

use leptos::prelude::*;
use rdc::leptos::{use_controller, use_loading};

use crate::api::{download, FileId};

/// Saves a blob through a temporary `<a download>` link.
#[cfg(target_arch = "wasm32")]
fn save(blob: &rdc::rest::Blob, filename: &str) -> Result<(), String> {
    let blob = blob.as_web();
    let url = web_sys::Url::create_object_url_with_blob(blob).map_err(|e| format!("{e:?}"))?;
    use wasm_bindgen::JsCast;
    let anchor: web_sys::HtmlAnchorElement =
        document().create_element("a").map_err(|e| format!("{e:?}"))?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Native builds (checks, tests) have no browser to save into.
#[cfg(not(target_arch = "wasm32"))]
fn save(_blob: &rdc::rest::Blob, _filename: &str) -> Result<(), String> {
    Err("saving a file needs a browser".to_owned())
}

#[component]
pub fn Files() -> impl IntoView {
    let controller = use_controller();
    let saved = RwSignal::new(None::<(String, f64)>);
    let endpoint = download();
    let fetch = use_loading(move |id: String| {
        let request = controller.fetch(&endpoint, FileId { id }, ());
        async move {
            let file = request.await.map_err(|e| e.to_string())?;
            save(&file.blob, &file.filename)?;
            saved.set(Some((file.filename, file.blob.size() as f64)));
            Ok::<(), String>(())
        }
    });
    view! {
        <section>
            <h2>"Files"</h2>
            <p class="hint">"content: blob, data expiry 0: the file is never kept in the store."</p>
            <button id="download" on:click=move |_| fetch.run.run("42".to_owned()) disabled=move || fetch.pending.get()>
                "Download report 42"
            </button>
            {move || saved.get().map(|(name, size)| view! { <p class="saved">"Saved as " <strong>{name}</strong> {format!(" ({size} bytes)")}</p> })}
            {move || fetch.error.get().map(|e| view! { <p class="error">{e}</p> })}
        </section>
    }
}
