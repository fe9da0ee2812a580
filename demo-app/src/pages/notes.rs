//! Notes: the key-rename recipe (2). The app's `text` is the API's `body`,
//! renamed on the way out and back. `use_list` hands each row its note.

use leptos::prelude::*;
use rdc::leptos::{use_list, use_mutation, use_suspense, Row};

use crate::api::{create_note, notes, NewNote, Note};

/// One note: its text, again when the row's note changes.
fn note_row(row: Row<Note>) -> impl IntoView {
    let id = row.pk().as_str().to_owned();
    view! { <li data-id=id>{move || row.with(|n| n.text.clone())}</li> }
}

#[component]
pub fn Notes() -> impl IntoView {
    let list = use_suspense(notes(), ());
    let rows = use_list(notes(), Signal::derive(|| Some(())));
    let each = move || rows.get().map(|rows| rows.to_vec()).unwrap_or_default();
    let create = use_mutation(create_note());
    let text = RwSignal::new(String::new());
    view! {
        <section>
            <h2>"Notes"</h2>
            <p class="hint">"The API names the field " <code>"body"</code> "; the app reads and sends " <code>"text"</code> "."</p>
            <ErrorBoundary fallback=super::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading notes…"</p> }>
                    <ul class="notes">
                        // (Suspends until the list is fetched; the rows come from `use_list`.)
                        {move || Suspend::new(async move { list.await.map(|_| ()) })}
                        <For each=each key=|row| row.id() children=note_row/>
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
