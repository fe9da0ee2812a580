//! `use_lazy`: the entities of a lazy field's keys, read on demand.

use std::sync::Arc;

use leptos::prelude::*;
use rdc_core::{LazyKeys, LazyQuery};

/// The entities of the keys `keys` gives (a lazy field's, as its parent read
/// them; a closure, so a signal's keys are followed) read through `query`
/// ([`Lazy::query`](rdc_core::Lazy::query)): `None` while they find nothing.
/// Woken when those entities change or the keys do; the parent's readers are
/// not woken by those entities. Never fetches.
///
/// ```no_run
/// # use leptos::prelude::*;
/// use rdc_core::{Entity, Lazy, Pk};
/// #[derive(Clone, serde::Deserialize, Entity)]
/// struct Building { id: String, name: String }
/// #[derive(Clone, serde::Deserialize, Entity)]
/// struct Department { id: String, #[entity(lazy = "Vec<Building>")] buildings: Vec<Pk> }
///
/// #[component]
/// fn Buildings(dept: Department) -> impl IntoView {
///     let buildings = rdc_leptos::use_lazy(Lazy::<Vec<Building>>::of().query(), move || dept.buildings.clone());
///     move || buildings.get().map(|list| list.iter().map(|b| b.name.clone()).collect::<Vec<_>>().join(", "))
/// }
/// ```
pub fn use_lazy<T, K>(query: LazyQuery<T>, keys: impl Fn() -> K + Send + Sync + 'static) -> Signal<Option<Arc<T>>>
where
    T: serde::de::DeserializeOwned + Send + Sync + 'static,
    K: LazyKeys<T> + Send + Sync + 'static,
{
    super::follow::follow_read(Signal::derive(keys), move |controller, keys| {
        controller.query_lazy(&query, keys).ok().flatten()
    })
}
