//! Notes: the key-rename recipe (2). The app's `text` is the API's `body`,
//! renamed on the way out and back. `list_rows` hands each row its note.

use leptos::prelude::*;
use rdc::leptos::{use_mutation, Row};

use crate::api::{create_note, notes, NewNote, Note};

/// One note: its text, again when the row's note changes.
fn note_row(row: Row<Note>) -> impl IntoView {
    let id = row.pk().as_str().to_owned();
    view! { <li data-id=id>{move || row.with(|n| n.text.clone())}</li> }
}

#[component]
pub fn Notes() -> impl IntoView {
    // (Suspends until the list is fetched; one reader for its rows.)
    let list = super::list_rows(notes(), note_row);
    let create = use_mutation(create_note());
    let text = RwSignal::new(String::new());
    view! {
        <section>
            <h2>"Notes"</h2>
            <p class="hint">"The API names the field " <code>"body"</code> "; the app reads and sends " <code>"text"</code> "."</p>
            <ErrorBoundary fallback=super::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading notes…"</p> }>
                    <ul class="notes">
                        {list}
                    </ul>
                </Suspense>
            </ErrorBoundary>
            <form class="note" on:submit=move |ev| {
                ev.prevent_default();
                create.run(NewNote { text: text.get_untracked() });
                text.set(String::new());
            }>
                <input id="new-note" placeholder="Note" prop:value=text on:input=move |ev| text.set(event_target_value(&ev))/>
                <button type="submit" disabled=create.pending>"Add note"</button>
                {move || create.error.get().map(|e| view! { <p class="error">{e.to_string()}</p> })}
            </form>
        </section>
    }
}
