//! `use_list`: one reader for a list of entities, handing each row its item
//! through a signal of its own: a listener for the keys and one for the rows
//! (none and no Leptos memo per row), told which store rows (and fields) each
//! change changed: only the rows that read those fields are read again.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use leptos::prelude::*;
use rdc_controller::Controller;
use rdc_core::{Changes, Entity, FastMap, FieldMask, Pk, State, TopicFields, TopicKind};

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
    /// Its key and signal, shared: a row is copied into each list built
    /// (one count to bump, not two).
    inner: Arc<(Pk, ArcRwSignal<Arc<E>>)>,
}

impl<E> Clone for Row<E> {
    fn clone(&self) -> Self {
        Row { id: self.id, inner: Arc::clone(&self.inner) }
    }
}

impl<E> std::fmt::Debug for Row<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Row").field("id", &self.id).field("pk", &self.inner.0).finish_non_exhaustive()
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
        &self.inner.0
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
        self.inner.1.get()
    }

    /// The item, untracked.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// fn name(row: &rdc_leptos::Row<User>) -> String { row.get_untracked().name.clone() }
    /// # let _ = name;
    /// ```
    pub fn get_untracked(&self) -> Arc<E> {
        self.inner.1.get_untracked()
    }

    /// Runs `f` on the item, tracked (no `Arc` cloned).
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// fn name(row: &rdc_leptos::Row<User>) -> String { row.with(|user| user.name.clone()) }
    /// # let _ = name;
    /// ```
    pub fn with<R>(&self, f: impl FnOnce(&E) -> R) -> R {
        self.inner.1.with(|item| f(item))
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
        self.inner.1.read_only().into()
    }
}

/// The rows of a list endpoint's stored result, if any; never fetches (fetch
/// the list with [`use_suspense`](crate::use_suspense) or `Controller::fetch`).
/// Two controller listeners per list, none per row (and no Leptos memo): one
/// follows the list's keys; the other, told after each store change which
/// store rows and fields changed, reads again only the listed entities that
/// read those fields (nested entities included) and sets a row's signal
/// only when its entity's `Arc` changed: an edit costs what it changed and
/// re-renders the rows it touched, not every row. Key `<For>` by [`Row::id`]:
/// a rename re-renders its row alone, and the list is rebuilt only when its
/// keys change or a listed entity comes or goes. Listed keys whose entity no
/// longer reads (deleted) and repeated keys are left out.
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
    let list = Arc::new(Mutex::new(ListState::<E>::default()));
    // Changes the rows' listener could not look at: every row is read again.
    let missed = Arc::new(AtomicBool::new(false));
    // The store version the keys' reader last began reading at.
    let read_at = Arc::new(AtomicU64::new(u64::MAX));
    let (reader, seen, began) = (Arc::clone(&list), Arc::clone(&missed), Arc::clone(&read_at));
    let watched = watch_with(&controller, &endpoint, args.into(), Shown(None), move |controller, target| {
        let at = controller.store_version();
        let shown = Shown(crate::lock(&reader).read(controller, target, seen.swap(false, Ordering::SeqCst)));
        began.store(at, Ordering::SeqCst);
        shown
    });
    // The rows' one listener: told what each change changed, it costs that.
    let follower = controller.clone();
    let id = controller.listen_changes(move |changes, version| match list.try_lock() {
        Ok(mut list) => list.follow(&follower, changes, version),
        // (Not while the keys' reader runs: the rows are read again then.)
        Err(_) => missed.store(true, Ordering::SeqCst),
    });
    let cleanup = (controller.clone(), id);
    on_cleanup(move || cleanup.0.unlisten(cleanup.1));
    let (state, keys_listener) = (watched.state, watched.listener);
    Signal::derive(move || {
        // A server may read the rows as soon as the list's fetch resolves,
        // before another worker ran the listeners of its write: read again
        // then. (In the browser, one thread: a write's listeners ran before it returned.)
        if cfg!(not(target_arch = "wasm32")) && controller.store_version() != read_at.load(Ordering::SeqCst) {
            controller.run_listener(keys_listener);
        }
        state.with(|s| s.0.clone())
    })
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

/// A store row's fields (its index), whether it is live (its index with
/// [`ALIVE`] set) or a whole table (`usize::MAX`) a row's entity read
/// depended on, by the table key's text.
type StoreRow = (&'static str, usize);

/// The bit of a [`StoreRow`]'s index that makes it about the row being live.
const ALIVE: usize = 1 << (usize::BITS - 1);

/// What a row's entity read depended on, with the fields it looked at there
/// (all of them for a table or a row being live).
type Dep = (StoreRow, FieldMask);

/// Keys a list may change by (gone and come, in one stretch) and still have
/// its rows patched where they changed (past that, they are built again).
const MAX_PATCH: usize = 64;

/// The list reader's own state: its rows in order, each row by key, which
/// rows each store row feeds, and the next row id.
struct ListState<E> {
    rows: Option<Arc<Vec<Row<E>>>>,
    /// The keys `rows` were built for, when each has its row there at its
    /// own position (none left out): the next keys are patched in where
    /// they differ from these.
    keys: Option<Arc<Vec<Pk>>>,
    by_pk: FastMap<Pk, Kept<E>>,
    /// The listed keys whose entity read depended on each store row or
    /// table, with the fields it looked at there.
    feeds: FastMap<StoreRow, Fed>,
    /// Every row was read at this store version or later (all rows were
    /// new then): a change up to it concerns none of them.
    fresh_at: u64,
    next_id: u32,
    /// Counts rebuilds: a row whose `seen` is not the current one was not
    /// listed by this rebuild (yet).
    pass: u32,
}

/// A row of the list, what its entity read depended on, the store version
/// it was read at, and the last rebuild that listed it.
struct Kept<E> {
    row: Row<E>,
    deps: Vec<Dep>,
    read_at: u64,
    seen: u32,
}

impl<E> Default for ListState<E> {
    fn default() -> Self {
        ListState {
            rows: None,
            keys: None,
            by_pk: FastMap::default(),
            feeds: FastMap::default(),
            fresh_at: 0,
            next_id: 0,
            pass: 0,
        }
    }
}

impl<E: Entity> ListState<E> {
    /// Reads the list's keys (followed) and builds the rows for them (with
    /// `missed`, reading every kept row again first). The entities are read
    /// untracked: only a change to the keys, or an entity listed coming or
    /// going, runs this again (the rows' listener follows the rest).
    fn read(
        &mut self,
        controller: &Controller,
        target: Option<&Result<Target, String>>,
        missed: bool,
    ) -> Option<Arc<Vec<Row<E>>>> {
        let keys = match target {
            Some(Ok(target)) => read::<Vec<Pk>>(controller, target).data,
            _ => None,
        };
        let Some(keys) = keys else {
            self.clear();
            return None;
        };
        controller.untracked(|| {
            if missed {
                let all: Vec<Pk> = self.by_pk.keys().cloned().collect();
                self.reread(controller, all);
            }
            self.rebuild(controller, &keys);
        });
        self.rows.clone()
    }

    /// Reads again the entities of the rows that depended on a store row
    /// `changes` names, on a field it changed (any, for a row that came or
    /// went or a table; every row after a reset, a sweep or a store taken
    /// up), but for rows read at store `version` or later (they saw it).
    fn follow(&mut self, controller: &Controller, changes: &Changes, version: u64) {
        // (A list just read whole, by the change that brought it.)
        if version <= self.fresh_at {
            return;
        }
        let mut dirty: Vec<Pk> = Vec::new();
        if changes.everything {
            dirty.extend(self.by_pk.keys().cloned());
        } else {
            let mut wake = |at: StoreRow, changed: FieldMask| {
                if let Some(fed) = self.feeds.get(&at) {
                    fed.each(|pk, read| {
                        if read & changed != 0 {
                            dirty.push(pk.clone());
                        }
                    });
                }
            };
            for change in &changes.rows {
                wake((change.row.table, change.row.index), change.fields);
                wake((change.row.table, usize::MAX), FieldMask::MAX);
            }
            for row in &changes.alive {
                for at in [row.index, row.index | ALIVE, usize::MAX] {
                    wake((row.table, at), FieldMask::MAX);
                }
            }
        }
        dirty.retain(|pk| self.by_pk.get(pk).is_some_and(|kept| kept.read_at < version));
        if !dirty.is_empty() {
            controller.untracked(|| self.reread(controller, dirty));
        }
    }

    /// Reads the entities of the rows of `dirty` again, setting a row's
    /// signal when its entity's `Arc` changed, and what each row feeds on.
    /// A pk `dirty` names twice is read once: its row's `read_at` says it
    /// was (`follow` passes only rows read before the change, so before now).
    fn reread(&mut self, controller: &Controller, dirty: Vec<Pk>) {
        let now = controller.with_state(State::version);
        for pk in &dirty {
            let Some(kept) = self.by_pk.get_mut(pk) else { continue };
            if kept.read_at == now {
                continue;
            }
            kept.read_at = now;
            // (No longer read: deleted; the keys' reader drops the row.)
            let Some(next) = controller.entity::<E>(pk.as_str()).ok().flatten() else { continue };
            if !kept.row.inner.1.with_untracked(|current| Arc::ptr_eq(current, &next)) {
                kept.row.inner.1.set(next);
            }
            let deps = deps_of::<E>(controller, pk);
            if deps != kept.deps {
                let old = std::mem::replace(&mut kept.deps, deps);
                unfeed(&mut self.feeds, pk, &old);
                feed(&mut self.feeds, pk, &kept.deps);
            }
        }
    }

    /// Drops every row.
    fn clear(&mut self) {
        self.by_pk.clear();
        self.feeds.clear();
        self.fresh_at = 0;
        self.rows = None;
        self.keys = None;
    }

    /// Builds the rows for `keys`: patched where they differ from the keys
    /// the rows were built for (see [`ListState::patch`]), else built whole,
    /// keeping the row (id and signal) of each key still listed (one map
    /// look-up each); rows of keys no longer listed (the keys leave out
    /// deleted entities) go. Only new rows read their entity (the rows'
    /// listener keeps the others up to date).
    fn rebuild(&mut self, controller: &Controller, keys: &Arc<Vec<Pk>>) {
        if self.patch(controller, keys) {
            return;
        }
        let now = controller.with_state(State::version);
        self.pass = self.pass.wrapping_add(1);
        let pass = self.pass;
        let mut rows = Vec::with_capacity(keys.len());
        let mut new = 0;
        if self.by_pk.is_empty() {
            // Every row new: each map grown once (a row feeds on about two store rows).
            self.by_pk.reserve(keys.len());
            self.feeds.reserve(2 * keys.len());
        }
        for pk in keys.iter() {
            if let Some(kept) = self.by_pk.get_mut(pk) {
                // (Seen already in this pass: a repeated key, left out.)
                if kept.seen != pass {
                    kept.seen = pass;
                    rows.push(kept.row.clone());
                }
                continue;
            }
            let Some(item) = controller.entity::<E>(pk.as_str()).ok().flatten() else { continue };
            new += 1;
            rows.push(self.add(controller, pk, item, now));
        }
        if new == rows.len() {
            self.fresh_at = now;
        }
        if self.by_pk.len() != rows.len() {
            let feeds = &mut self.feeds;
            self.by_pk.retain(|pk, kept| {
                let listed = kept.seen == pass;
                if !listed {
                    unfeed(feeds, pk, &kept.deps);
                }
                listed
            });
        }
        // The same rows in the same order: the same `Arc` (`<For>` has nothing to do).
        let same = self
            .rows
            .as_ref()
            .is_some_and(|old| old.len() == rows.len() && old.iter().zip(&rows).all(|(a, b)| a.id == b.id));
        self.keys = (rows.len() == keys.len()).then(|| Arc::clone(keys));
        if !same {
            self.rows = Some(Arc::new(rows));
        }
    }

    /// Patches the rows where `keys` differ from the keys they were built
    /// for (a push, unshift, remove or move: one stretch of at most
    /// [`MAX_PATCH`] keys gone and come): the rows before and after it are
    /// copied, no key of theirs looked up. False, changing nothing, when it
    /// cannot tell (a key listed twice, an entity that does not read, a
    /// longer stretch): the rows are then built whole.
    fn patch(&mut self, controller: &Controller, keys: &Arc<Vec<Pk>>) -> bool {
        let (Some(old), Some(rows)) = (self.keys.as_ref(), self.rows.as_ref()) else { return false };
        if Arc::ptr_eq(old, keys) {
            return true;
        }
        let prefix = old.iter().zip(keys.iter()).take_while(|(a, b)| a == b).count();
        let room = old.len().min(keys.len()) - prefix;
        let suffix = old.iter().rev().zip(keys.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
        let (Some(gone), Some(came)) = (old.get(prefix..old.len() - suffix), keys.get(prefix..keys.len() - suffix))
        else {
            return false;
        };
        if gone.len() + came.len() > MAX_PATCH {
            return false;
        }
        // The rows of the keys that came: moved within the stretch, or new.
        let mut middle = Vec::with_capacity(came.len());
        for (i, pk) in came.iter().enumerate() {
            if came.get(..i).is_some_and(|before| before.contains(pk)) {
                return false;
            }
            match self.by_pk.get(pk) {
                Some(kept) if gone.contains(pk) => middle.push(Ok(kept.row.clone())),
                // (Listed before or after the stretch too.)
                Some(_) => return false,
                None => match controller.entity::<E>(pk.as_str()).ok().flatten() {
                    Some(item) => middle.push(Err(item)),
                    None => return false,
                },
            }
        }
        let (head, tail) =
            (rows.get(..prefix).unwrap_or_default(), rows.get(rows.len() - suffix..).unwrap_or_default());
        let mut next = Vec::with_capacity(keys.len());
        next.extend_from_slice(head);
        let tail = tail.to_vec();
        let changed = !(gone.is_empty() && came.is_empty());
        for pk in gone.iter().filter(|pk| !came.contains(pk)) {
            if let Some(kept) = self.by_pk.remove(pk) {
                unfeed(&mut self.feeds, pk, &kept.deps);
            }
        }
        let now = controller.with_state(State::version);
        for (pk, found) in came.iter().zip(middle) {
            next.push(match found {
                Ok(row) => row,
                Err(item) => self.add(controller, pk, item, now),
            });
        }
        next.extend(tail);
        if changed {
            self.rows = Some(Arc::new(next));
        }
        self.keys = Some(Arc::clone(keys));
        true
    }

    /// A new row for `pk` showing `item` (read at store version `now`), kept
    /// with what its entity read depended on.
    fn add(&mut self, controller: &Controller, pk: &Pk, item: Arc<E>, now: u64) -> Row<E> {
        let row = Row { id: RowId(self.next_id), inner: Arc::new((pk.clone(), ArcRwSignal::new(item))) };
        self.next_id = self.next_id.wrapping_add(1);
        let deps = deps_of::<E>(controller, pk);
        feed(&mut self.feeds, pk, &deps);
        self.by_pk.insert(pk.clone(), Kept { row: row.clone(), deps, read_at: now, seen: self.pass });
        row
    }
}

/// The store rows and tables the last read of `E` at `pk` depended on, each
/// once, with the fields it looked at there (joined).
fn deps_of<E: Entity>(controller: &Controller, pk: &Pk) -> Vec<Dep> {
    let mut deps: Vec<Dep> = controller
        .entity_topics::<E>(pk.as_str())
        .into_iter()
        .map(|TopicFields { topic, fields }| match topic.kind() {
            TopicKind::Fields(index) => ((topic.table_key(), index), fields),
            TopicKind::Alive(index) => ((topic.table_key(), index | ALIVE), fields),
            TopicKind::Table => ((topic.table_key(), usize::MAX), fields),
        })
        .collect();
    // rdc's small sort: a read's topics are few, and the standard one is
    // kilobytes of wasm per element type.
    rdc_core::json::sort::sort(&mut deps);
    deps.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 |= later.1;
        }
        same
    });
    deps
}

/// The listed keys whose entity read depended on one store row, with the
/// fields each looked at there: most store rows (a listed entity's own)
/// feed one row, kept without a map of its own.
enum Fed {
    One(Pk, FieldMask),
    Many(FastMap<Pk, FieldMask>),
}

impl Fed {
    /// Calls `f` with each key fed and the fields it looked at.
    fn each(&self, mut f: impl FnMut(&Pk, FieldMask)) {
        match self {
            Fed::One(pk, read) => f(pk, *read),
            Fed::Many(pks) => pks.iter().for_each(|(pk, read)| f(pk, *read)),
        }
    }

    /// Notes that `pk` looked at `fields` here (in place of what it looked at before).
    fn insert(&mut self, pk: &Pk, fields: FieldMask) {
        match self {
            Fed::One(one, read) if one == pk => *read = fields,
            Fed::One(one, read) => {
                let mut pks = FastMap::default();
                pks.insert(one.clone(), *read);
                pks.insert(pk.clone(), fields);
                *self = Fed::Many(pks);
            }
            Fed::Many(pks) => {
                pks.insert(pk.clone(), fields);
            }
        }
    }

    /// Takes `pk` off; whether none is left.
    fn remove(&mut self, pk: &Pk) -> bool {
        match self {
            Fed::One(one, _) => one == pk,
            Fed::Many(pks) => {
                pks.remove(pk);
                pks.is_empty()
            }
        }
    }
}

/// Notes that the row of `pk` depends on `deps`.
fn feed(feeds: &mut FastMap<StoreRow, Fed>, pk: &Pk, deps: &[Dep]) {
    for (at, fields) in deps {
        match feeds.get_mut(at) {
            Some(fed) => fed.insert(pk, *fields),
            None => {
                feeds.insert(*at, Fed::One(pk.clone(), *fields));
            }
        }
    }
}

/// Takes the row of `pk` off the store rows of `deps`.
fn unfeed(feeds: &mut FastMap<StoreRow, Fed>, pk: &Pk, deps: &[Dep]) {
    for (dep, _) in deps {
        if feeds.get_mut(dep).is_some_and(|fed| fed.remove(pk)) {
            feeds.remove(dep);
        }
    }
}
