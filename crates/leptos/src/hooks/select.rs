//! `use_select`: a derived, memoized view of a read.

use std::sync::Arc;

use leptos::prelude::*;

/// A view of what `read` shows (any read hook's data signal: `use_cache`,
/// `use_dle`'s `data`, `use_query`, `use_entity`...) derived with `select`,
/// memoized: `select` runs when the read changes, and what reads the memo is
/// woken only when the derived value differs (by `PartialEq`) from the last.
/// `None` while the read has no data. (TanStack Query's `select`.)
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_core::{All, Entity};
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, admin: bool }
/// let users = rdc_leptos::use_query("every user", All::of::<User>());
/// // Re-renders when the number of admins changes, not on every edit of a user.
/// let admins = rdc_leptos::use_select(users, |users: &Vec<User>| users.iter().filter(|u| u.admin).count());
/// let badge = move || view! { <span>{admins.get()}</span> };
/// # let _ = badge;
/// ```
pub fn use_select<T, U>(
    read: impl Into<Signal<Option<Arc<T>>>>,
    select: impl Fn(&T) -> U + Send + Sync + 'static,
) -> Memo<Option<U>>
where
    T: Send + Sync + 'static,
    U: PartialEq + Send + Sync + 'static,
{
    let read: Signal<Option<Arc<T>>> = read.into();
    Memo::new(move |_| read.with(|data| data.as_deref().map(&select)))
}
