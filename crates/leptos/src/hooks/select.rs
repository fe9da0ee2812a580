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

/// The core's `Query` (a memoized selector over a schema, e.g. an `All`) read
/// from the store for the current `args`: `None` until something of its input
/// type is stored. Its reader is woken when what the query reads changes or
/// the args do, and sees a new value only when the query selects anew; never
/// fetches.
///
/// ```no_run
/// # use leptos::prelude::*;
/// use std::sync::Arc;
/// use rdc_core::{All, Query};
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// let named = Arc::new(Query::new("users named", All::of::<User>().into(), |users: &Vec<User>, args| {
///     users.iter().filter(|u| Some(u.name.as_str()) == args["name"].as_str()).count()
/// }));
/// let name = RwSignal::new("Ada".to_string());
/// let count = rdc_leptos::use_query_select(named, Signal::derive(move || rdc_core::json::Value::from(name.get())));
/// # let _ = count;
/// ```
pub fn use_query_select<T, R>(
    query: Arc<rdc_core::Query<T, R>>,
    args: impl Into<Signal<rdc_core::json::Value>>,
) -> Signal<Option<Arc<R>>>
where
    T: serde::de::DeserializeOwned + Send + Sync + 'static,
    R: Send + Sync + 'static,
{
    super::follow::follow_read(args.into(), move |controller, args| controller.select(&query, args).ok().flatten())
}
