//! Parallel reads: `use_dle_each`, one [`use_dle`] per args of a list known
//! only at run time (TanStack's `useQueries`).

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use serde::de::DeserializeOwned;

use crate::hooks::cache::{use_dle, Dle};
use crate::hooks::suspense::Readable;

/// One mounted read of the list: its store key (or position, for args that
/// make no key), the owner its hooks live in, and what it shows.
struct Row<T: Send + Sync + 'static, E: Send + Sync + 'static> {
    id: String,
    owner: Owner,
    dle: Dle<T, E>,
}

/// [`use_dle`] for each args of a list that may change: one entry per args, in
/// order, each with its own data, loading and error. Every entry fetches
/// through the controller as `use_dle` does, so a request is shared with any
/// other read of its key (equal args in the list share one entry). Args that
/// join the list start a read; args that leave it stop theirs; args that stay
/// keep theirs. (TanStack's `useQueries`.)
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct UserId { id: String }
/// let user = RestEndpoint::get("/api/users/:id").args::<UserId>().body::<()>();
/// let ids = RwSignal::new(vec![UserId { id: "1".into() }, UserId { id: "2".into() }]);
/// let users = rdc_leptos::use_dle_each(user, ids);
/// let loading = move || users.get().iter().filter(|u| u.loading.get()).count();
/// # let _ = loading;
/// ```
pub fn use_dle_each<C>(endpoint: C, args: impl Into<Signal<Vec<C::Args>>>) -> Signal<Vec<Dle<C::Result, C::Error>>>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<Vec<C::Args>> = args.into();
    let parent = Owner::current().unwrap_or_default();
    let rows: Rc<RefCell<Vec<Row<C::Result, C::Error>>>> = Rc::default();
    let shown = ArcRwSignal::new(Vec::new());
    let last_ids = Rc::new(RefCell::new(None::<Vec<String>>));
    let update = {
        let shown = shown.clone();
        move |list: &[C::Args]| {
            let mut old = std::mem::take(&mut *rows.borrow_mut());
            let mut next: Vec<Row<C::Result, C::Error>> = Vec::new();
            let mut ids = Vec::with_capacity(list.len());
            let mut out = Vec::with_capacity(list.len());
            for (position, args) in list.iter().enumerate() {
                let id = endpoint.key_for(args).unwrap_or_else(|_| format!("#{position}"));
                let dle = if let Some(row) = next.iter().find(|row| row.id == id) {
                    row.dle
                } else {
                    let row = match old.iter().position(|row| row.id == id) {
                        Some(at) => old.swap_remove(at),
                        None => {
                            let owner = parent.child();
                            let (endpoint, args) = (endpoint.clone(), args.clone());
                            let dle = owner.with(|| untrack(|| use_dle(endpoint, Signal::stored(Some(args)))));
                            Row { id: id.clone(), owner, dle }
                        }
                    };
                    let dle = row.dle;
                    next.push(row);
                    dle
                };
                ids.push(id);
                out.push(dle);
            }
            // Args that left the list: their reads stop.
            for row in old {
                row.owner.cleanup();
            }
            *rows.borrow_mut() = next;
            if last_ids.borrow().as_ref() != Some(&ids) {
                *last_ids.borrow_mut() = Some(ids);
                shown.set(out);
            }
        }
    };
    args.with_untracked(|list| untrack(|| update(list)));
    Effect::new(move |_| args.with(|list| untrack(|| update(list))));
    Signal::derive(move || shown.get())
}
