//! Garbage collection: results no mounted reader uses and that are past expiry
//! are dropped, then entities no remaining result reaches and that are expired.

use crate::json::Value;

use super::keys::{self, Keys};
use super::Controller;
use crate::schema::{pk_string_ref, All, EntityDef, Schema};
use crate::store::State;

impl Controller {
    /// Marks `key` as used by a mounted reader (GC keeps it).
    pub fn retain(&self, key: &str) {
        keys::entry(&mut self.inner.keys.borrow_mut(), key).retained += 1;
    }

    /// Releases one [`Controller::retain`].
    pub fn release(&self, key: &str) {
        let mut keys = self.inner.keys.borrow_mut();
        if let Some(state) = keys.get_mut(key) {
            state.retained = state.retained.saturating_sub(1);
            keys::tidy(&mut keys, key);
        }
    }

    /// Number of keys retained by readers (for leak checks).
    pub fn retained_count(&self) -> usize {
        keys::count(&self.inner.keys.borrow(), |k| k.retained > 0)
    }

    /// Number of endpoint keys the controller keeps any state for (for leak checks).
    ///
    /// ```
    /// # use rdc_core::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.retain("GET /users");
    /// assert_eq!(controller.key_count(), 1);
    /// controller.release("GET /users");
    /// assert_eq!(controller.key_count(), 0);
    /// ```
    pub fn key_count(&self) -> usize {
        self.inner.keys.borrow().len()
    }

    /// Drops unused, expired results and the expired entities nothing reaches.
    /// Returns how many results and entities were removed.
    pub fn sweep(&self) -> (usize, usize) {
        let now = self.now();
        let (drop_keys, removed) = self.write_base(|base| sweep_base(base, now, &self.inner.keys.borrow()));
        // Typed copies of errors the store no longer has (expired or replaced) go too.
        let base = self.inner.base.borrow();
        let mut keys = self.inner.keys.borrow_mut();
        keys.retain(|key, state| {
            if state.typed_error.is_some() && base.error(key).is_none() {
                state.typed_error = None;
            }
            if state.unreadable.is_some() && base.result(key).is_none() {
                state.unreadable = None;
            }
            !state.is_empty()
        });
        drop((base, keys));
        if removed > 0 || !drop_keys.is_empty() {
            let mut keys = self.inner.keys.borrow_mut();
            for key in &drop_keys {
                if let Some(state) = keys.get_mut(key) {
                    state.schema = None;
                    keys::tidy(&mut keys, key);
                }
            }
            drop(keys);
            // Row indices moved: memoized dependencies are void.
            self.inner.memo.borrow_mut().clear();
            self.changed();
        } else if self.inner.base.borrow().changes.as_ref().is_some_and(|log| !log.is_empty()) {
            // Nothing went, but optimistic layers were taken back and put on again.
            self.changed();
        }
        (drop_keys.len(), removed)
    }
}

/// Drops from `base` the results no reader retains or awaits that are past
/// expiry, expired errors, and expired entities no remaining result reaches.
/// Returns the dropped result keys and how many entities went.
fn sweep_base(base: &mut State, now: u64, keys: &Keys) -> (Vec<String>, usize) {
    let in_use = |key: &str| keys.get(key).is_some_and(|k| k.retained > 0 || k.inflight.is_some());
    let drop_keys: Vec<String> = base
        .results
        .iter()
        .filter(|(k, r)| !in_use(k) && (r.meta.invalidated || now >= r.meta.expires_at))
        .map(|(k, _)| k.clone())
        .collect();
    for key in &drop_keys {
        base.results.remove(key);
        base.errors.remove(key);
    }
    base.errors.retain(|_, e| now < e.expires_at);
    let reached = reached_from(base, keys, base.results.keys().map(String::as_str));
    let mut removed = 0;
    for (table_key, table) in base.entities.iter_mut() {
        let before = table.rows.len();
        let seen = reached.rows_of(table_key);
        // `retain` visits rows in order: `index` is each row's index.
        let mut index = 0;
        table.rows.retain(|_, row| {
            let keep = now < row.meta.expires_at || seen.is_some_and(|rows| rows.get(index) == Some(&true));
            index += 1;
            keep
        });
        removed += before - table.rows.len();
    }
    base.entities.retain(|_, t| !t.rows.is_empty());
    if removed > 0 || !drop_keys.is_empty() {
        base.version += 1;
        // Row indices moved: every reader reads again.
        base.log(|log| log.everything = true);
    }
    (drop_keys, removed)
}

/// The rows a sweep found reachable: per table key, a flag per row index (no
/// key is copied or hashed per row, so a sweep of a large store stays cheap).
#[derive(Default)]
pub(super) struct Reached(Vec<(&'static str, Vec<bool>)>);

/// The rows the results at `keys` reach, read through the schemas they were
/// written with (a result of unknown schema reaches nothing).
pub(super) fn reached_from<'k>(base: &State, keys: &Keys, results: impl IntoIterator<Item = &'k str>) -> Reached {
    let mut reached = Reached::default();
    for key in results {
        if let (Some(result), Some(Some(schema))) =
            (base.results.get(key), keys.get(key).and_then(|k| k.schema.as_ref()))
        {
            mark(base, schema, &result.value, &mut reached);
        }
    }
    reached
}

impl Reached {
    /// Per row index of table `key`, whether it was reached (`None`: no row was).
    pub(super) fn rows_of(&self, key: &str) -> Option<&[bool]> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, rows)| rows.as_slice())
    }

    /// Marks row `index` of table `key` (of `len` rows); `false` if it already was.
    fn mark(&mut self, key: &'static str, len: usize, index: usize) -> bool {
        let at = match self.0.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                self.0.push((key, vec![false; len]));
                self.0.len() - 1
            }
        };
        match self.0.get_mut(at).and_then(|(_, rows)| rows.get_mut(index)) {
            Some(seen) if !*seen => {
                *seen = true;
                true
            }
            _ => false,
        }
    }
}

/// What is left to mark: a value read through a schema, or a stored row.
enum Mark<'a> {
    Value(Schema, &'a Value),
    Row(&'static EntityDef, usize),
}

/// Adds every entity `value` (read through `schema`) reaches to `out`. The
/// walk keeps its own stack: a chain of references as long as a server makes
/// it (a reply thread) costs heap, not call depth.
fn mark<'a>(state: &'a State, schema: &Schema, value: &'a Value, out: &mut Reached) {
    let mut todo = vec![Mark::Value(schema.clone(), value)];
    while let Some(next) = todo.pop() {
        match next {
            Mark::Value(schema, value) => mark_value(state, schema, value, out, &mut todo),
            Mark::Row(def, index) => mark_row(state, def, index, out, &mut todo),
        }
    }
}

/// Marks what `value` reaches directly; what lies further goes on `todo`.
fn mark_value<'a>(state: &'a State, schema: Schema, value: &'a Value, out: &mut Reached, todo: &mut Vec<Mark<'a>>) {
    match schema {
        Schema::Entity(def) | Schema::Invalidate(def) => {
            if let Some(index) = pk_string_ref(value).and_then(|pk| row_index(state, def, &pk)) {
                todo.push(Mark::Row(def, index));
            }
        }
        Schema::Array(inner) => {
            for item in value.as_array().into_iter().flatten() {
                todo.push(Mark::Value((*inner).clone(), item));
            }
        }
        Schema::Values(inner) => {
            for item in value.as_object().into_iter().flat_map(|m| m.values()) {
                todo.push(Mark::Value((*inner).clone(), item));
            }
        }
        Schema::Object(fields) => {
            for (name, field) in fields.iter() {
                if let Some(item) = value.get(name) {
                    todo.push(Mark::Value(field.clone(), item));
                }
            }
        }
        Schema::Union(poly) => {
            if let Some((def, pk)) = poly.reference(value) {
                if let Some(index) = row_index(state, def, &pk) {
                    todo.push(Mark::Row(def, index));
                }
            }
        }
        Schema::All(all) => {
            let defs = match all.as_ref() {
                All::Single(def) => vec![*def],
                All::Poly(_) => all.entity_defs(),
            };
            for def in defs {
                let rows = state.entities.get(def.key).map_or(0, |t| t.rows.len());
                todo.extend((0..rows).map(|index| Mark::Row(def, index)));
            }
        }
        Schema::Collection(collection) => {
            let Some(pk) = pk_string_ref(value) else { return };
            let Some(table) = state.entities.get(collection.def.key) else { return };
            let Some((index, _, row)) = table.rows.get_full(pk.as_ref()) else { return };
            if !out.mark(collection.def.key, table.rows.len(), index) {
                return;
            }
            if let Some(items) = row.value.as_ref().and_then(|r| r.get("items")) {
                todo.push(Mark::Value(Schema::array(collection.item().clone()), items));
            }
        }
        Schema::Lazy(_) => todo.push(Mark::Value(schema.resolved().into_owned(), value)),
        Schema::CollectionAdd(c, _) => todo.push(Mark::Value(c.item.clone(), value)),
    }
}

/// The index of entity `def`/`pk` in its table, if stored.
fn row_index(state: &State, def: &'static EntityDef, pk: &str) -> Option<usize> {
    state.entities.get(def.key).and_then(|t| t.rows.get_index_of(pk))
}

/// Marks row `index` of `def`'s table; its nested fields go on `todo`.
fn mark_row<'a>(state: &'a State, def: &'static EntityDef, index: usize, out: &mut Reached, todo: &mut Vec<Mark<'a>>) {
    let Some(table) = state.entities.get(def.key) else { return };
    let Some((_, row)) = table.rows.get_index(index) else { return };
    if !out.mark(def.key, table.rows.len(), index) {
        return;
    }
    let Some(object) = row.value.as_deref() else { return };
    for field in (def.nested)() {
        if let Some(value) = object.get(field.name) {
            todo.push(Mark::Value(field.schema.clone(), value));
        }
    }
}
