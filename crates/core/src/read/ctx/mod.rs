//! The context of one read: the state, what the read touched (for memoization),
//! the rows it found, and the entities on the current path (cycles). Recording
//! dependencies is `deps.rs`, reusing a list's previous read `prior.rs`, and
//! entity validity `validity.rs`.

mod validity;

use std::cell::RefCell;

use std::sync::Arc;

use crate::json::Value;

use super::deps::Dep;
use super::prior::{ListSource, ListVerdicts, Prior};
use crate::schema::{All, EntityDef, NestedField, Object, Schema};
use crate::store::{EntityTable, FastMap, State, StoredEntity};
use crate::ByAddress;

/// The positions in `object` of the `count` fields of `nested` that decide
/// validity (past 63, every position counts anyway). Stops at the last one found.
fn required_positions(object: &Object, nested: &[NestedField], count: usize) -> u64 {
    let (mut mask, mut left) = (0, count);
    for (i, key) in object.keys().take(64).enumerate() {
        if left == 0 {
            break;
        }
        if nested.iter().any(|f| decides_validity(f) && f.name == key.as_str()) {
            mask |= 1 << i;
            left -= 1;
        }
    }
    mask
}

/// Whether `schema` is a reference to an entity type with no nested field that
/// decides its validity (its validity is its liveness).
fn leaf_reference(schema: &Schema) -> bool {
    match schema {
        Schema::Entity(def) | Schema::Invalidate(def) => !(def.nested)().iter().any(decides_validity),
        _ => false,
    }
}

thread_local! {
    /// Every entity type's [`TypeValidity`] met so far, by the address of its definition.
    static KNOWN_VALIDITY: RefCell<Vec<(ByAddress<EntityDef>, TypeValidity)>> = const { RefCell::new(Vec::new()) };
}

/// Whether a nested field can make its entity invalid: a required reference
/// (lists, maps and objects of entities are always valid, see `value_valid`).
fn decides_validity(field: &NestedField) -> bool {
    field.required
        && matches!(
            field.schema,
            Schema::Entity(_) | Schema::Invalidate(_) | Schema::Union(_) | Schema::Lazy(_) | Schema::CollectionAdd(..)
        )
}

/// What decides the validity of one entity type's entities.
#[derive(Clone, Copy)]
struct TypeValidity {
    /// Its nested fields; those that [decide its validity](decides_validity)
    /// (required references) can make it invalid. (The type's own static
    /// list, not a copy: a shape is copied freely.)
    nested: &'static [NestedField],
    /// How many of them decide its validity.
    deciding: usize,
    /// Whether those all reference types that require nothing (no cycle can
    /// come back through them).
    leaves_only: bool,
}

/// A primary key looked up among a table's rows: hashed as the row keys are
/// (as a `str`), compared inline (keys are short; a call to `memcmp` per
/// lookup was a twentieth of a long read).
struct RowKey<'k>(&'k str);

impl std::hash::Hash for RowKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl indexmap::Equivalent<crate::json::Text> for RowKey<'_> {
    fn equivalent(&self, key: &crate::json::Text) -> bool {
        super::names::same(self.0, key.as_str())
    }
}

/// A table a read looked up, by its `&'static` type key (compared by address
/// and length), and the index of the row found in it last.
#[derive(Clone, Copy)]
struct Seen<'a> {
    key: &'static str,
    table: Option<&'a EntityTable>,
    last: usize,
}

/// Deepest entity nesting a read follows: below it an entity reads as one met
/// again on its path does (nested lists empty, optional references `None`), so
/// a chain as long as a server makes it reads down to here.
const MAX_DEPTH: usize = 128;

/// How much further required references are followed below [`MAX_DEPTH`]
/// (they cannot be cut) before the read fails: a cycle of required fields.
const REQUIRED_DEPTH: usize = 64;

pub(crate) struct Ctx<'a> {
    pub state: &'a State,
    /// Whether entity dependencies are narrowed to the fields read (memoized reads).
    pub record: bool,
    /// Where the read failed, if it did.
    pub path: super::path::ErrorPath<'a>,
    pub deps: RefCell<Vec<Dep>>,
    /// Validity by (table, row index), and the order it was decided in.
    /// (Made on first use: a read without cycles never needs it.)
    valid: RefCell<Option<FastMap<(ByAddress<str>, usize), bool>>>,
    valid_order: RefCell<Vec<(ByAddress<str>, usize)>>,
    stack: RefCell<Vec<(&'static str, &'a str)>>,
    /// How many validity checks of entities with required references are under way.
    checking: std::cell::Cell<usize>,
    /// Tables already looked up (a read touches few tables and many rows: this
    /// saves hashing the type key), with the row found in each last.
    tables: RefCell<Vec<Seen<'a>>>,
    /// The first table looked up (kept out of `tables`).
    first_table: std::cell::Cell<Option<Seen<'a>>>,
    /// The token of the field whose value a visitor ignored last (see `Members`).
    pub ignored: std::cell::Cell<u32>,
    next_token: std::cell::Cell<u32>,
    /// Per entity type (by the address of its definition), its [`TypeValidity`].
    validities: RefCell<Vec<(ByAddress<EntityDef>, TypeValidity)>>,
    /// The first type's shape (kept out of `validities`).
    first_validity: RefCell<Option<(ByAddress<EntityDef>, TypeValidity)>>,
    /// The liveness dependencies recorded last (a list's items mostly point to
    /// a few entities: each is recorded once, not once per item).
    recent_alive: RefCell<[(ByAddress<str>, usize); 8]>,
    /// While a list item's validity is decided for reuse: record every dependency.
    exact: std::cell::Cell<bool>,
    /// The read's input (its top-level list is the one tracked), by address.
    root: std::cell::Cell<usize>,
    /// The stored result the read's input is, if it is one.
    pub result: Option<Arc<Value>>,
    /// Where in the previous read's list the next item is looked for first.
    cursor: std::cell::Cell<usize>,
    /// Whether the read's top-level list keeps verdicts (reads of stored results).
    pub lists: bool,
    /// The previous read's dependencies and verdicts (a memoized read done again).
    pub prior: Option<Prior>,
    /// This read's top-level list verdicts, for the next read.
    pub list: RefCell<Option<ListVerdicts>>,
}

impl<'a> Ctx<'a> {
    /// A context that records what the read depends on (for memoized reads).
    pub fn new(state: &'a State) -> Self {
        Ctx { record: true, ..Ctx::unrecorded(state) }
    }

    /// A context for a one-off read: dependencies are not narrowed to fields.
    pub fn unrecorded(state: &'a State) -> Self {
        Ctx {
            record: false,
            state,
            path: super::path::ErrorPath::default(),
            deps: RefCell::default(),
            valid: RefCell::default(),
            valid_order: RefCell::default(),
            stack: RefCell::default(),
            checking: std::cell::Cell::new(0),
            tables: RefCell::default(),
            first_table: std::cell::Cell::new(None),
            first_validity: RefCell::new(None),
            validities: RefCell::default(),
            recent_alive: RefCell::new([(ByAddress(""), usize::MAX); 8]),
            exact: std::cell::Cell::new(false),
            root: std::cell::Cell::new(0),
            result: None,
            cursor: std::cell::Cell::new(0),
            lists: false,
            prior: None,
            list: RefCell::default(),
            ignored: std::cell::Cell::new(0),
            next_token: std::cell::Cell::new(0),
        }
    }

    /// The [`TypeValidity`] of `def`'s entities (worked out once per type and read).
    fn validity_of(&self, def: &'static EntityDef) -> TypeValidity {
        // By the definition's address: two types may share a type key's text.
        let address = ByAddress(def);
        // The first type read is kept apart (most reads meet one or two types:
        // no list to allocate for them).
        let mut first = self.first_validity.borrow_mut();
        match first.as_ref() {
            Some((a, shape)) if *a == address => return *shape,
            _ => {}
        }
        let mut validities = self.validities.borrow_mut();
        if let Some((_, shape)) = validities.iter().find(|(a, _)| *a == address) {
            return *shape;
        }
        // A type's shape never changes (its nested fields are static): worked out
        // once per thread, then shared by every read (a list's rows each read once).
        let shape = KNOWN_VALIDITY.with(|known| {
            let mut known = known.borrow_mut();
            if let Some((_, shape)) = known.iter().find(|(a, _)| *a == address) {
                return *shape;
            }
            let nested = (def.nested)();
            let deciding = nested.iter().filter(|f| decides_validity(f)).count();
            let leaves_only = nested.iter().filter(|f| decides_validity(f)).all(|f| leaf_reference(&f.schema));
            let shape = TypeValidity { nested, deciding, leaves_only };
            known.push((address, shape));
            shape
        });
        if first.is_none() {
            *first = Some((address, shape));
        } else {
            validities.push((address, shape));
        }
        shape
    }

    /// Records that the read looked at whether row `index` of `key` is live,
    /// unless one of the last few such records says the same.
    fn depend_alive(&self, key: &'static str, index: usize, alive: bool) {
        if !self.record {
            return;
        }
        let row = (ByAddress(key), index);
        let mut recent = self.recent_alive.borrow_mut();
        if recent.contains(&row) && !self.exact.get() {
            // Recorded in this read, and rows do not change during a read.
            return;
        }
        recent.rotate_right(1);
        if let Some(first) = recent.first_mut() {
            *first = row;
        }
        drop(recent);
        self.depend(Dep::Alive { key, index, alive });
    }

    /// A token no other object of this read has (never 0).
    pub fn token(&self) -> u32 {
        let token = self.next_token.get().wrapping_add(1).max(1);
        self.next_token.set(token);
        token
    }

    /// Narrows the entity dependency `slot` to the fields marked in `mask` (it
    /// covers every field until the read of the entity finished).
    pub fn fields_read(&self, slot: usize, mask: u64) {
        self.flush_prior();
        if let Some(Dep::Entity { read, .. }) = self.deps.borrow_mut().get_mut(slot) {
            *read = mask;
        }
    }

    /// The table of `def` and, when stored, the row `pk` with its index.
    ///
    /// The row found last in the table is tried first (a validity check is
    /// followed by a read of the same row), then the one after it (a list is
    /// mostly read in the order its entities were stored), before the table's
    /// index is searched.
    #[allow(clippy::type_complexity)]
    fn find(
        &self,
        def: &'static EntityDef,
        pk: &str,
    ) -> (Option<&'a EntityTable>, Option<(usize, &'a str, &'a StoredEntity)>) {
        let seen = self.seen(def.key);
        let Some(table) = seen.table else { return (None, None) };
        for at in [seen.last, seen.last.wrapping_add(1)] {
            if let Some((key, row)) = table.rows.get_index(at) {
                if super::names::same(key.as_str(), pk) {
                    if at != seen.last {
                        self.found_in(seen.key, at);
                    }
                    return (Some(table), Some((at, key.as_str(), row)));
                }
            }
        }
        let found = table.rows.get_full(&RowKey(pk)).map(|(index, pk, row)| (index, pk.as_str(), row));
        if let Some((index, ..)) = found {
            self.found_in(seen.key, index);
        }
        (Some(table), found)
    }

    /// Remembers that row `index` was found last in the table of `key`.
    fn found_in(&self, key: &'static str, index: usize) {
        match self.first_table.get() {
            Some(first) if ByAddress(first.key) == ByAddress(key) => {
                self.first_table.set(Some(Seen { last: index, ..first }))
            }
            _ => {
                if let Some(seen) = self.tables.borrow_mut().iter_mut().find(|t| ByAddress(t.key) == ByAddress(key)) {
                    seen.last = index;
                }
            }
        }
    }

    /// The table of `key` (a type key from an `EntityDef`).
    fn table(&self, key: &'static str) -> Option<&'a EntityTable> {
        self.seen(key).table
    }

    /// The table of `key` as this read has seen it so far.
    fn seen(&self, key: &'static str) -> Seen<'a> {
        // The first table is kept apart (no list to allocate for one table).
        let first = self.first_table.get();
        if let Some(seen) = first {
            if ByAddress(seen.key) == ByAddress(key) {
                return seen;
            }
        }
        let mut tables = self.tables.borrow_mut();
        if let Some(seen) = tables.iter().find(|t| ByAddress(t.key) == ByAddress(key)) {
            return *seen;
        }
        // (No row found yet: the first guess is the table's first row.)
        let seen = Seen { key, table: self.state.entities.get(key), last: usize::MAX };
        if first.is_none() {
            self.first_table.set(Some(seen));
        } else {
            tables.push(seen);
        }
        seen
    }

    /// The live row `def`/`pk`, recording a dependency on all of it.
    pub fn lookup(&self, def: &'static EntityDef, pk: &str) -> Option<(&'a str, &'a Object)> {
        self.lookup_fields(def, pk, false).map(|(pk, object, _)| (pk, object))
    }

    /// The live row `def`/`pk`. With `by_field`, the dependency covers only the
    /// fields later marked with [`Ctx::mark_read`] on the returned slot.
    pub fn lookup_fields(
        &self,
        def: &'static EntityDef,
        pk: &str,
        by_field: bool,
    ) -> Option<(&'a str, &'a Object, usize)> {
        let (table, found) = self.find(def, pk);
        let Some((index, pk, row)) = found else {
            self.depend(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            return None;
        };
        let seen = if by_field && self.record { row.value.clone() } else { None };
        let slot = self.depend(Dep::Entity { key: def.key, index, version: row.version, seen, read: u64::MAX });
        row.value.as_deref().map(|object| (pk, object, slot))
    }

    /// Records `dep` (when recording); returns its slot.
    fn depend(&self, dep: Dep) -> usize {
        if !self.record {
            return 0;
        }
        self.flush_prior();
        let mut deps = self.deps.borrow_mut();
        deps.push(dep);
        deps.len() - 1
    }

    /// Moves the previous read's dependencies reused so far into this read's.
    fn flush_prior(&self) {
        if let Some(prior) = &self.prior {
            prior.deps.borrow_mut().flush(&mut self.deps.borrow_mut());
        }
    }

    /// This read's dependencies, once it is done.
    pub fn into_deps(self) -> Vec<Dep> {
        self.flush_prior();
        self.deps.into_inner()
    }

    /// Rows of `all`'s tables, recording the table dependencies; `None` when no
    /// table of theirs was ever written.
    pub fn all_rows(&self, all: &All) -> Option<Vec<(&'static EntityDef, &'a crate::json::Text, &'a StoredEntity)>> {
        let mut rows = Vec::new();
        let mut any = false;
        for def in all.entity_defs() {
            let table = self.table(def.key);
            self.depend(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            if let Some(table) = table {
                any = true;
                rows.extend(table.rows.iter().map(|(pk, row)| (def, pk, row)));
            }
        }
        any.then_some(rows)
    }

    /// Whether any of `all`'s tables was ever written, recording the table
    /// dependencies (what [`Ctx::all_rows`] says without listing the rows).
    pub fn all_stored(&self, all: &All) -> bool {
        let mut any = false;
        for def in all.entity_defs() {
            let table = self.table(def.key);
            self.depend(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            any |= table.is_some();
        }
        any
    }

    /// Marks `input` as the read's input: a list read from it is tracked.
    pub fn set_root(&self, input: &Value) {
        self.root.set(input as *const Value as usize);
    }

    /// Whether `value` is the read's input, and its list keeps verdicts.
    pub fn is_root(&self, value: &Value) -> bool {
        self.lists && self.root.get() == value as *const Value as usize
    }

    /// Starts tracking the top-level list, held by `source`, of `len` items.
    pub fn track_list(&self, source: ListSource, len: usize) {
        self.cursor.set(0);
        *self.list.borrow_mut() = Some(ListVerdicts { source, verdicts: vec![None; len] });
    }

    /// The stored object of row `def`/`pk`, shared (records nothing).
    pub fn row_object(&self, def: &'static EntityDef, pk: &str) -> Option<Arc<Object>> {
        self.find(def, pk).1.and_then(|(_, _, row)| row.value.clone())
    }

    /// The index the next recorded dependency gets.
    pub fn next_dep(&self) -> usize {
        self.deps.borrow().len() + self.prior.as_ref().map_or(0, |prior| prior.deps.borrow().pending())
    }

    /// Enters an entity. Returns whether what it nests is cut: it is already
    /// on the path (a cycle) or the path is [`MAX_DEPTH`] deep; nested lists
    /// then read empty. `Err` when required references lead on past that.
    pub fn enter(&self, key: &'static str, pk: &'a str) -> Result<bool, String> {
        let mut stack = self.stack.borrow_mut();
        if stack.len() >= MAX_DEPTH + REQUIRED_DEPTH {
            return Err(format!("entity nesting deeper than {MAX_DEPTH} at {key} {pk:?}: a cycle of required fields?"));
        }
        let cut = stack.len() >= MAX_DEPTH || stack.contains(&(key, pk));
        stack.push((key, pk));
        Ok(cut)
    }

    /// Leaves the entity entered last.
    pub fn leave(&self) {
        self.stack.borrow_mut().pop();
    }
}
