//! Uploads: a picked file sent as a multipart form; the server's answer joins
//! the `UploadList` collection without a refetch. `list_rows` hands each row its upload.

use leptos::prelude::*;
use rdc::leptos::{use_mutation, Row};
use rdc::rest::Multipart;

use crate::api::{upload, uploads, Upload};

/// The form to send: the title and the file picked in `input`, if any.
#[cfg(target_arch = "wasm32")]
fn picked_form(input: &web_sys::HtmlInputElement, title: &str) -> Option<Multipart> {
    let file = input.files()?.get(0)?;
    Some(Multipart::new().text("title", title).web_file("file", &file))
}

/// Native builds (the server renderer) have no files to pick.
#[cfg(not(target_arch = "wasm32"))]
fn picked_form(_input: &web_sys::HtmlInputElement, _title: &str) -> Option<Multipart> {
    None
}

/// One upload: its title and file, and the image itself when it is one
/// (again when the row's upload changes).
fn upload_view(row: Row<Upload>) -> impl IntoView {
    move || row.with(upload_item)
}

/// The item of one upload.
fn upload_item(u: &Upload) -> impl IntoView {
    let image = u.content_type.starts_with("image/").then(|| {
        view! { <img src=format!("/api/uploads/{}/content", u.id) alt=u.title.clone() width="48" height="48"/> }
    });
    view! {
        <li data-id=u.id>
            {image}
            <strong>{u.title.clone()}</strong>
            <span class="file">{format!(" {} ({} bytes, {})", u.filename, u.size, u.content_type)}</span>
        </li>
    }
}

#[component]
pub fn Uploads() -> impl IntoView {
    // (Suspends until the list is fetched; one reader for its rows.)
    let list = super::list_rows(uploads(), upload_view);
    let send = use_mutation(upload());
    let title = RwSignal::new(String::new());
    let picker = NodeRef::<leptos::html::Input>::new();
    let picked = RwSignal::new(false);
    view! {
        <section>
            <h2>"Uploads"</h2>
            <p class="hint">"body = Multipart: a FormData with the picked file; the answer joins the UploadList collection."</p>
            <form class="upload" on:submit=move |ev| {
                ev.prevent_default();
                let Some(input) = picker.get_untracked() else { return };
                let Some(form) = picked_form(&input, &title.get_untracked()) else { return };
                send.run(form);
                title.set(String::new());
                input.set_value("");
                picked.set(false);
            }>
                <input id="upload-title" placeholder="Title" prop:value=title on:input=move |ev| title.set(event_target_value(&ev))/>
                <input id="upload-file" type="file" node_ref=picker on:change=move |_| picked.set(true)/>
                <button type="submit" disabled=move || send.pending.get() || !picked.get()>"Upload"</button>
                {move || send.error.get().map(|e| view! { <p class="error">{e.to_string()}</p> })}
            </form>
            <ErrorBoundary fallback=super::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading uploads…"</p> }>
                    <ul class="uploads">
                        {list}
                    </ul>
                </Suspense>
            </ErrorBoundary>
        </section>
    }
}
