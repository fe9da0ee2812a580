//! `use_list`: one reader for a list of entities, handing each row its item
//! through a signal of its own: one reader for the keys, a controller
//! listener per row (no Leptos memo per row).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use rdc_controller::Controller;
use rdc_core::{Entity, FastMap, Pk};
use send_wrapper::SendWrapper;

use crate::hooks::suspense::Readable;
use crate::provider::use_controller;
use crate::watch::{read, watch_with, Target};

/// A row's identity in its list, for `<For>`'s `key`: a small integer, cheap
/// to hash and compare. It stays the same while the row's entity stays in the
/// list (moves included) and the list never gives it to another key.
///
/// ```
/// fn key_of<E>(row: &rdc_leptos::Row<E>) -> rdc_leptos::RowId { row.id() }
/// # let _ = key_of::<()>;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowId(u32);

/// One row of a [`use_list`]: its entity's primary key, its [`RowId`] and its
/// item, a signal the list sets only when that entity changed (the same `Arc`
/// otherwise), so a row re-renders only for its own item.
///
/// ```
/// use leptos::prelude::*;
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[component]
/// fn UserRow(row: rdc_leptos::Row<User>) -> impl IntoView {
///     view! { <li>{move || row.with(|user| user.name.clone())}</li> }
/// }
/// ```
pub struct Row<E> {
    id: RowId,
    pk: Pk,
    item: ArcRwSignal<Arc<E>>,
}

impl<E> Clone for Row<E> {
    fn clone(&self) -> Self {
        Row { id: self.id, pk: self.pk.clone(), item: self.item.clone() }
    }
}

impl<E> std::fmt::Debug for Row<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Row").field("id", &self.id).field("pk", &self.pk).finish_non_exhaustive()
    }
}

impl<E> Row<E> {
    /// The row's id, for `<For>`'s `key`.
    ///
    /// ```
    /// fn key<E>(row: &rdc_leptos::Row<E>) -> rdc_leptos::RowId { row.id() }
    /// # let _ = key::<()>;
    /// ```
    pub fn id(&self) -> RowId {
        self.id
    }

    /// The primary key of the row's entity.
    ///
    /// ```
    /// fn pk<E>(row: &rdc_leptos::Row<E>) -> &str { row.pk().as_str() }
    /// # let _ = pk::<()>;
    /// ```
    pub fn pk(&self) -> &Pk {
        &self.pk
    }
}

impl<E: Send + Sync + 'static> Row<E> {
    /// The item, tracked: a reactive scope that calls it runs again when the
    /// row's entity changes.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// fn name(row: &rdc_leptos::Row<User>) -> String { row.get().name.clone() }
    /// # let _ = name;
    /// ```
    pub fn get(&self) -> Arc<E> {
        self.item.get()
    }

    /// The item, untracked.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// fn name(row: &rdc_leptos::Row<User>) -> String { row.get_untracked().name.clone() }
    /// # let _ = name;
    /// ```
    pub fn get_untracked(&self) -> Arc<E> {
        self.item.get_untracked()
    }

    /// Runs `f` on the item, tracked (no `Arc` cloned).
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// fn name(row: &rdc_leptos::Row<User>) -> String { row.with(|user| user.name.clone()) }
    /// # let _ = name;
    /// ```
    pub fn with<R>(&self, f: impl FnOnce(&E) -> R) -> R {
        self.item.with(|item| f(item))
    }

    /// The item as a read-only signal (to hand to components that take one).
    ///
    /// ```
    /// # use leptos::prelude::*;
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// fn signal(row: &rdc_leptos::Row<User>) -> Signal<std::sync::Arc<User>> { row.signal() }
    /// # let _ = signal;
    /// ```
    pub fn signal(&self) -> Signal<Arc<E>> {
        self.item.read_only().into()
    }
}

/// The rows of a list endpoint's stored result, if any; never fetches (fetch
/// the list with [`use_suspense`](crate::use_suspense) or `Controller::fetch`).
/// One reader follows the list's keys, and each row has a controller listener
/// of its own (no Leptos memo) that reads its entity and sets the row's signal
/// only when that entity changed: an edit wakes the rows whose reads it touched
/// (nested entities included), not every row. Key `<For>` by [`Row::id`]: a
/// rename re-renders its row alone, and the list is rebuilt only when its keys
/// change or a listed entity comes or goes. Listed keys
/// whose entity no longer reads (deleted) and repeated keys are left out.
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_core::{Entity, SchemaOf};
/// use rdc_rest::RestEndpoint;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[component]
/// fn Users() -> impl IntoView {
///     let page = RestEndpoint::get("/api/users").args::<()>().body::<()>().schema(SchemaOf::list(User::schema()));
///     let rows = rdc_leptos::use_list(page, Signal::derive(|| Some(())));
///     let each = move || rows.get().map(|rows| rows.to_vec()).unwrap_or_default();
///     view! {
///         <ul><For each=each key=|row| row.id() let:row>
///             <li>{move || row.with(|user| user.name.clone())}</li>
///         </For></ul>
///     }
/// }
/// ```
pub fn use_list<C, E>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) -> Signal<Option<Arc<Vec<Row<E>>>>>
where
    C: Readable<Result = Vec<E>>,
    E: Entity,
{
    let controller = use_controller();
    let list = Rc::new(RefCell::new(ListState::<E>::default()));
    let reader = Rc::clone(&list);
    let state = watch_with(&controller, &endpoint, args.into(), Shown(None), move |controller, target| {
        Shown(reader.borrow_mut().read(controller, target))
    });
    // The rows' listeners go with the list.
    let cleanup = SendWrapper::new((controller, list));
    on_cleanup(move || {
        let (controller, list) = &*cleanup;
        list.borrow_mut().clear(controller);
    });
    Signal::derive(move || state.with(|s| s.0.clone()))
}

/// What the reader shows: the rows, compared by identity.
struct Shown<E>(Option<Arc<Vec<Row<E>>>>);

impl<E> PartialEq for Shown<E> {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// The list reader's own state: its rows in order, each row by key, and the
/// next row id.
struct ListState<E> {
    rows: Option<Arc<Vec<Row<E>>>>,
    by_pk: FastMap<Pk, Kept<E>>,
    next_id: u32,
    /// Counts rebuilds: a row whose `seen` is not the current one was not
    /// listed by this rebuild (yet).
    pass: u32,
}

/// A row of the list, the id of the controller listener that follows its
/// entity, and the last rebuild that listed it.
struct Kept<E> {
    row: Row<E>,
    listener: u64,
    seen: u32,
}

impl<E> Default for ListState<E> {
    fn default() -> Self {
        ListState { rows: None, by_pk: FastMap::default(), next_id: 0, pass: 0 }
    }
}

impl<E: Entity> ListState<E> {
    /// Reads the list's keys (followed) and builds the rows for them; the
    /// entities are read untracked here (each row's own listener follows its
    /// entity), so only a change to the keys, or an entity listed coming or
    /// going, runs this again.
    fn read(&mut self, controller: &Controller, target: Option<&Result<Target, String>>) -> Option<Arc<Vec<Row<E>>>> {
        let keys = match target {
            Some(Ok(target)) => read::<Vec<Pk>>(controller, target).data,
            _ => None,
        };
        let Some(keys) = keys else {
            self.clear(controller);
            return None;
        };
        controller.untracked(|| self.rebuild(controller, &keys));
        self.rows.clone()
    }

    /// Drops every row and its listener.
    fn clear(&mut self, controller: &Controller) {
        for (_, kept) in self.by_pk.drain() {
            controller.unlisten(kept.listener);
        }
        self.rows = None;
    }

    /// Builds the rows for `keys`, keeping the row (id, signal and listener)
    /// of each key still listed (one map look-up each); rows of keys no longer
    /// listed (the keys leave out deleted entities) go with their listeners.
    /// Only new rows read their entity: a kept row's own listener sets its item.
    fn rebuild(&mut self, controller: &Controller, keys: &[Pk]) {
        self.pass = self.pass.wrapping_add(1);
        let pass = self.pass;
        let mut rows = Vec::with_capacity(keys.len());
        for pk in keys {
            if let Some(kept) = self.by_pk.get_mut(pk) {
                // (Seen already in this pass: a repeated key, left out.)
                if kept.seen != pass {
                    kept.seen = pass;
                    rows.push(kept.row.clone());
                }
                continue;
            }
            let Some((item, listener)) = follow::<E>(controller, pk) else { continue };
            let row = Row { id: RowId(self.next_id), pk: pk.clone(), item };
            self.next_id = self.next_id.wrapping_add(1);
            rows.push(row.clone());
            self.by_pk.insert(pk.clone(), Kept { row, listener, seen: pass });
        }
        if self.by_pk.len() != rows.len() {
            self.by_pk.retain(|_, kept| {
                let listed = kept.seen == pass;
                if !listed {
                    controller.unlisten(kept.listener);
                }
                listed
            });
        }
        // The same rows in the same order: the same `Arc` (`<For>` has nothing to do).
        let same = self
            .rows
            .as_ref()
            .is_some_and(|old| old.len() == rows.len() && old.iter().zip(&rows).all(|(a, b)| a.id == b.id));
        if !same {
            self.rows = Some(Arc::new(rows));
        }
    }
}

/// Starts the controller listener of a new row: it reads the row's entity
/// (its reads, nested entities included, are what wakes it) and sets the
/// row's signal when the entity's `Arc` changed. Its first run makes the
/// signal; `None` (and no listener) when the entity does not read. An entity
/// that no longer reads later is left to the list (it is woken too, and drops
/// the row).
fn follow<E: Entity>(controller: &Controller, pk: &Pk) -> Option<(ArcRwSignal<Arc<E>>, u64)> {
    let reader = controller.clone();
    let slot: Rc<RefCell<Option<ArcRwSignal<Arc<E>>>>> = Rc::default();
    let (pk, made) = (pk.clone(), Rc::clone(&slot));
    let id = controller.listen_reads(move || {
        let Some(next) = reader.entity::<E>(pk.as_str()).ok().flatten() else { return };
        // (Not set while `made` is borrowed.)
        let item = made.borrow().clone();
        match item {
            Some(item) if !item.with_untracked(|current| Arc::ptr_eq(current, &next)) => item.set(next),
            Some(_) => {}
            None => *made.borrow_mut() = Some(ArcRwSignal::new(next)),
        }
    });
    let item = slot.borrow().clone();
    if item.is_none() {
        controller.unlisten(id);
    }
    item.map(|item| (item, id))
}
