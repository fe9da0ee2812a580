//! The context of one read: the state, the dependencies the read touched (for
//! memoization), entity validity, and the entities on the current path (cycles).

use std::cell::RefCell;

use std::sync::Arc;

use crate::json::Value;

use crate::schema::{All, EntityDef, NestedField, Object, Schema};
use crate::store::{EntityTable, FastMap, State, StoredEntity};

/// Something a read looked at, with the version it saw.
#[derive(Debug, Clone)]
pub(crate) enum Dep {
    /// One entity row, by table key and row index (rows are never reordered).
    /// With `seen`, the read looked only at the fields (by position) whose bit
    /// is set in `read` (positions past 63 always count): a new version that
    /// keeps the same keys and those fields' values changes nothing it showed.
    Entity { key: &'static str, index: usize, version: u64, seen: Option<Arc<Object>>, read: u64 },
    /// Whether a row is live (validity checks look no further than that).
    Alive { key: &'static str, index: usize, alive: bool },
    /// A whole entity table (an `All` read, or a row that was missing);
    /// `0` when the table did not exist.
    Table { key: &'static str, version: u64 },
    /// A dependency that no longer says anything (its row index may now hold
    /// another entity): the read must be done again.
    Void,
}

/// The tables a dependency check looked at last, by the address of their key
/// (consecutive dependencies are mostly rows of a few tables: a list's items and
/// what they reference).
#[derive(Default)]
pub(crate) struct LastTable<'s>([Option<(usize, Option<&'s EntityTable>)>; 4]);

impl<'s> LastTable<'s> {
    fn get(&mut self, state: &'s State, key: &'static str) -> Option<&'s EntityTable> {
        let address = key.as_ptr() as usize;
        if let Some((_, table)) = self.0.iter().flatten().find(|(a, _)| *a == address) {
            return *table;
        }
        let table = state.entities.get(key);
        self.0.rotate_right(1);
        if let Some(first) = self.0.first_mut() {
            *first = Some((address, table));
        }
        table
    }
}

impl Dep {
    /// Whether what the read saw is still so; brings a field-level dependency
    /// up to date when the row changed only in fields the read did not look at.
    pub(crate) fn unchanged<'s>(&mut self, state: &'s State, last: &mut LastTable<'s>) -> bool {
        match self {
            Dep::Entity { key, index, version, seen, read } => {
                let Some((_, row)) = last.get(state, key).and_then(|t| t.rows.get_index(*index)) else {
                    return false;
                };
                if row.version == *version {
                    return true;
                }
                let (Some(old), Some(new)) = (seen.as_deref(), row.value.as_ref()) else { return false };
                if !same_where_read(old, new, *read) {
                    return false;
                }
                *version = row.version;
                *seen = Some(Arc::clone(new));
                true
            }
            Dep::Alive { key, index, alive } => last
                .get(state, key)
                .and_then(|t| t.rows.get_index(*index))
                .is_some_and(|(_, row)| row.value.is_some() == *alive),
            Dep::Table { key, version } => last.get(state, key).map_or(0, |t| t.version) == *version,
            Dep::Void => false,
        }
    }
}

/// Whether `new` has the keys of `old`, in order, and equal values at the
/// positions `read` marks (and at every position past 63).
fn same_where_read(old: &Object, new: &Object, read: u64) -> bool {
    if old.len() != new.len() {
        return false;
    }
    old.iter().zip(new.iter()).enumerate().all(|(i, ((old_key, old_value), (new_key, new_value)))| {
        let looked = i >= 64 || read & (1 << i) != 0;
        old_key == new_key && (!looked || old_value == new_value)
    })
}

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
    /// Every entity type's [`Shape`] met so far, by the address of its definition.
    static KNOWN_SHAPES: RefCell<Vec<(usize, Shape)>> = const { RefCell::new(Vec::new()) };
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

/// The validity of each item of a read's top-level list of references, with
/// the range of the read's dependencies that decided it: a memoized read done
/// again reuses the verdict of the same reference in the previous list while
/// none of those dependencies changed, so a list re-read after one item went,
/// came or moved checks that item only.
#[derive(Debug, Clone)]
pub(crate) struct ListVerdicts {
    /// What holds the list: its items are the references the verdicts are for.
    source: ListSource,
    /// Per position: valid, and its dependencies `start..end`; `None` when not decided.
    verdicts: Vec<Option<(bool, u32, u32)>>,
}

/// What holds a tracked list (kept by the next read to match its items to
/// these, by reference rather than position).
#[derive(Debug, Clone)]
pub(crate) enum ListSource {
    /// A stored result that is the list.
    Result(Arc<Value>),
    /// A collection's row, whose `items` is the list (at the place given:
    /// looked for once, not once per item).
    Row(Arc<Object>, usize),
}

impl ListSource {
    /// The source of a collection's row.
    pub fn row(row: Arc<Object>) -> ListSource {
        let at = row.position("items").unwrap_or(usize::MAX);
        ListSource::Row(row, at)
    }

    fn items(&self) -> &[Value] {
        let list = match self {
            ListSource::Result(value) => value.as_array(),
            ListSource::Row(row, at) => row.value_at(*at).and_then(Value::as_array),
        };
        list.map_or(&[], Vec::as_slice)
    }
}

/// What the previous read of a memo entry leaves the next one: its dependencies,
/// which of them changed, and its list's verdicts.
pub(crate) struct Prior {
    pub deps: RefCell<PriorDeps>,
    pub changed: Vec<bool>,
    pub list: ListVerdicts,
}

impl Prior {
    pub fn new(deps: Vec<Dep>, changed: Vec<bool>, list: ListVerdicts) -> Prior {
        let deps = PriorDeps { rest: deps, front: 0, at: 0, run: None };
        Prior { deps: RefCell::new(deps), changed, list }
    }
}

/// The previous read's dependencies, moved (not copied) into the new read's
/// as its items reuse them. Reused ranges mostly follow one another (a list
/// read again after one item changed): they gather into one pending run,
/// moved at once when something else is recorded or the read ends. A range
/// before what was moved already (a repeated reference) is decided anew.
pub(crate) struct PriorDeps {
    /// Those not moved yet, from `front` on (before it: moved out, or passed).
    rest: Vec<Dep>,
    front: usize,
    /// The index, among the previous dependencies, of `rest[front]`.
    at: usize,
    /// A reused range not moved yet.
    run: Option<(usize, usize)>,
}

impl PriorDeps {
    /// Reuses previous dependencies `from..to` (after the new read's last
    /// ones); `false` when they were passed already.
    fn reuse(&mut self, from: usize, to: usize, deps: &RefCell<Vec<Dep>>) -> bool {
        match self.run {
            _ if from < self.run.map_or(self.at, |(_, end)| end) || to < from => false,
            Some((start, end)) if end == from => {
                self.run = Some((start, to));
                true
            }
            _ => {
                self.flush(&mut deps.borrow_mut());
                self.run = Some((from, to));
                true
            }
        }
    }

    /// Dependencies reused but not moved yet.
    fn pending(&self) -> usize {
        self.run.map_or(0, |(start, end)| end - start)
    }

    /// Moves the pending run to the end of `deps` (the ones skipped before it
    /// are left to drop with the rest), in time linear in what moves: a first
    /// run becomes `deps` in place (what is left copied once), a last run is
    /// appended as one copy, runs between move one by one.
    fn flush(&mut self, deps: &mut Vec<Dep>) {
        let Some((start, end)) = self.run.take() else { return };
        self.front = (self.front + (start - self.at)).min(self.rest.len());
        let to = (self.front + (end - start)).min(self.rest.len());
        if deps.is_empty() && self.front == 0 {
            let left = self.rest.split_off(to);
            *deps = std::mem::replace(&mut self.rest, left);
        } else if to == self.rest.len() {
            deps.append(&mut self.rest.split_off(self.front));
            self.rest.clear();
            self.front = 0;
        } else {
            #[allow(clippy::indexing_slicing, reason = "front <= to <= rest.len(): both were clamped above")]
            let run = &mut self.rest[self.front..to];
            deps.extend(run.iter_mut().map(|dep| std::mem::replace(dep, Dep::Void)));
            self.front = to;
        }
        self.at = end;
    }
}

/// What decides the validity of one entity type's entities.
#[derive(Clone, Copy)]
struct Shape {
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
    valid: RefCell<Option<FastMap<(usize, usize), bool>>>,
    valid_order: RefCell<Vec<(usize, usize)>>,
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
    /// Per entity type (by the address of its definition), its [`Shape`].
    shapes: RefCell<Vec<(usize, Shape)>>,
    /// The first type's shape (kept out of `shapes`).
    first_shape: RefCell<Option<(usize, Shape)>>,
    /// The liveness dependencies recorded last (a list's items mostly point to
    /// a few entities: each is recorded once, not once per item).
    recent_alive: RefCell<[(usize, usize); 8]>,
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
            first_shape: RefCell::new(None),
            shapes: RefCell::default(),
            recent_alive: RefCell::new([(0, usize::MAX); 8]),
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

    /// The [`Shape`] of `def`'s entities (worked out once per type and read).
    fn shape_of(&self, def: &'static EntityDef) -> Shape {
        // By the definition's address: two types may share a type key's text.
        let address = def as *const EntityDef as usize;
        // The first type read is kept apart (most reads meet one or two types:
        // no list to allocate for them).
        let mut first = self.first_shape.borrow_mut();
        match first.as_ref() {
            Some((a, shape)) if *a == address => return *shape,
            _ => {}
        }
        let mut shapes = self.shapes.borrow_mut();
        if let Some((_, shape)) = shapes.iter().find(|(a, _)| *a == address) {
            return *shape;
        }
        // A type's shape never changes (its nested fields are static): worked out
        // once per thread, then shared by every read (a list's rows each read once).
        let shape = KNOWN_SHAPES.with(|known| {
            let mut known = known.borrow_mut();
            if let Some((_, shape)) = known.iter().find(|(a, _)| *a == address) {
                return *shape;
            }
            let nested = (def.nested)();
            let deciding = nested.iter().filter(|f| decides_validity(f)).count();
            let leaves_only = nested.iter().filter(|f| decides_validity(f)).all(|f| leaf_reference(&f.schema));
            let shape = Shape { nested, deciding, leaves_only };
            known.push((address, shape));
            shape
        });
        if first.is_none() {
            *first = Some((address, shape));
        } else {
            shapes.push((address, shape));
        }
        shape
    }

    /// Records that the read looked at whether row `index` of `key` is live,
    /// unless one of the last few such records says the same.
    fn depend_alive(&self, key: &'static str, index: usize, alive: bool) {
        if !self.record {
            return;
        }
        let row = (key.as_ptr() as usize, index);
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
            Some(first) if std::ptr::eq(first.key, key) => self.first_table.set(Some(Seen { last: index, ..first })),
            _ => {
                if let Some(seen) = self.tables.borrow_mut().iter_mut().find(|t| std::ptr::eq(t.key, key)) {
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
            if std::ptr::eq(seen.key, key) {
                return seen;
            }
        }
        let mut tables = self.tables.borrow_mut();
        if let Some(seen) = tables.iter().find(|t| std::ptr::eq(t.key, key)) {
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

    /// Whether `pk` names a live entity of `def` whose required nested entities
    /// are valid too. Entities already being checked count as valid (cycles).
    pub fn entity_valid(&self, def: &'static EntityDef, pk: &str) -> bool {
        let (table, found) = self.find(def, pk);
        let Some((index, _, row)) = found else {
            // It may be stored later: any write to its table counts.
            self.depend(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            return false;
        };
        let Some(object) = row.value.as_deref() else {
            self.depend_alive(def.key, index, false);
            return false;
        };
        let shape = self.shape_of(def);
        if shape.deciding == 0 {
            self.depend_alive(def.key, index, true);
            return true;
        }
        // Its validity also depends on where its required references point.
        let references = |ctx: &Self| {
            if ctx.record {
                let read = required_positions(object, shape.nested, shape.deciding);
                ctx.depend(Dep::Entity { key: def.key, index, version: row.version, seen: row.value.clone(), read });
            }
        };
        let references_valid = |ctx: &Self| {
            let mut deciding = shape.nested.iter().filter(|f| decides_validity(f));
            deciding.all(|field| ctx.value_valid(&field.schema, object.get(field.name)))
        };
        if shape.leaves_only {
            // Its required references lead to entities that require nothing:
            // no cycle can come back here, so nothing needs remembering.
            references(self);
            return references_valid(self);
        }
        let slot = (def.key.as_ptr() as usize, index);
        if let Some(known) = self.valid.borrow().as_ref().and_then(|v| v.get(&slot)) {
            // Its dependencies were recorded on the first visit.
            return *known;
        }
        references(self);
        // Provisionally valid, so a cycle back here ends; what is decided on
        // that assumption is forgotten if it turns out false.
        let mark = self.valid_order.borrow().len();
        self.valid.borrow_mut().get_or_insert_with(FastMap::default).insert(slot, true);
        self.valid_order.borrow_mut().push(slot);
        // A chain of required references deeper than a read follows cannot be
        // read whole: its head is invalid (and the walk stays bounded).
        let depth = self.checking.get();
        self.checking.set(depth + 1);
        let valid = depth < MAX_DEPTH && references_valid(self);
        self.checking.set(depth);
        if !valid {
            let later: Vec<_> = self.valid_order.borrow_mut().drain(mark + 1..).collect();
            if let Some(known) = self.valid.borrow_mut().as_mut() {
                for slot in later {
                    known.remove(&slot);
                }
            }
        }
        self.valid.borrow_mut().get_or_insert_with(FastMap::default).insert(slot, valid);
        valid
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

    /// Whether the items of a tracked list of `schema` keep verdicts: only
    /// where a check records every dependency it looked at, references to
    /// entity types whose required references require nothing (others
    /// remember validity within a read, so a later item's check would record
    /// less).
    pub fn keeps_verdicts(&self, schema: &Schema) -> bool {
        match schema {
            Schema::Entity(def) | Schema::Invalidate(def) => self.shape_of(def).leaves_only,
            _ => false,
        }
    }

    /// Whether item `position` of the tracked list resolves (`schema` a
    /// reference that [keeps verdicts](Ctx::keeps_verdicts)): the previous
    /// read's verdict while what decided it holds, otherwise decided again;
    /// either way its dependencies are recorded.
    pub fn item_valid(&self, position: usize, schema: &Schema, item: &Value) -> bool {
        let start = self.next_dep();
        let reused = self.prior.as_ref().and_then(|prior| {
            // The same reference in the previous list: looked for after the last
            // one found, one further (an item went), then at the same position.
            // So a list with items added, removed or one moved reuses the rest.
            let old = prior.list.source.items();
            let cursor = self.cursor.get();
            let at = [cursor, cursor + 1, position].into_iter().find(|&j| old.get(j) == Some(item))?;
            self.cursor.set(at + 1);
            let (valid, from, to) = (*prior.list.verdicts.get(at)?)?;
            let range = from as usize..to as usize;
            let holds = prior.changed.get(range.clone())?.iter().all(|changed| !changed);
            (holds && prior.deps.borrow_mut().reuse(range.start, range.end, &self.deps)).then_some(valid)
        });
        let valid = reused.unwrap_or_else(|| {
            self.exact.set(true);
            let valid = self.value_valid(schema, Some(item));
            self.exact.set(false);
            valid
        });
        let end = self.next_dep();
        if let Some(slot) = self.list.borrow_mut().as_mut().and_then(|l| l.verdicts.get_mut(position)) {
            *slot = Some((valid, u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(end).unwrap_or(u32::MAX)));
        }
        valid
    }

    /// Whether a required nested value resolves.
    pub fn value_valid(&self, schema: &Schema, value: Option<&Value>) -> bool {
        match schema {
            Schema::Entity(def) | Schema::Invalidate(def) => match value.and_then(crate::schema::pk_string_ref) {
                Some(pk) => self.entity_valid(def, &pk),
                None => false,
            },
            Schema::Union(poly) => match value {
                Some(value) => match poly.reference(value) {
                    Some((def, pk)) => self.entity_valid(def, &pk),
                    None => !value.is_null(),
                },
                None => false,
            },
            Schema::Lazy(_) => self.value_valid(&schema.resolved(), value),
            Schema::CollectionAdd(c, _) => self.value_valid(&c.item, value),
            Schema::Array(_) | Schema::Values(_) | Schema::Object(_) | Schema::All(_) | Schema::Collection(_) => true,
        }
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
