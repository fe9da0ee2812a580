//! The context of one read: the state, the entities on the current path
//! (cycles), and one part per job: finding rows (`rows.rs`), recording what
//! the read depends on ([`Recording`]; the dependencies are `deps.rs`),
//! deciding validity (`validity.rs`) and reusing a list's previous read
//! ([`ListReuse`]; the previous read is `prior.rs`).

mod rows;
mod validity;

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use crate::json::Value;

use super::deps::Dep;
use super::prior::{ListSource, ListVerdicts, Prior};
use crate::schema::{All, EntityDef, Object, Schema};
use crate::store::{EntityTable, State, StoredEntity};
use crate::ByAddress;
use rows::Rows;
use validity::Validities;

/// Deepest entity nesting a read follows (reading is recursive, and wasm's
/// stack is 1 MiB): deeper, the read fails with [`ReadError::TooDeep`]
/// naming the path, so no app is shown a shortened thread as if it were whole.
///
/// [`ReadError::TooDeep`]: crate::ReadError::TooDeep
pub(crate) const MAX_DEPTH: usize = 128;

/// One read: the store it reads, where it is (for errors and cycles), and
/// its four jobs, each in its own part.
pub(crate) struct Ctx<'a> {
    pub state: &'a State,
    /// Where the read failed, if it did.
    pub path: super::path::ErrorPath<'a>,
    /// The entities on the current path (cycles and depth).
    stack: RefCell<Vec<(&'static str, &'a str)>>,
    /// Whether the read failed by going deeper than [`MAX_DEPTH`].
    pub too_deep: Cell<bool>,
    /// The token of the field whose value a visitor ignored last (see `Members`).
    pub ignored: Cell<u32>,
    next_token: Cell<u32>,
    /// Finding rows.
    rows: Rows<'a>,
    /// Recording what the read depends on.
    pub recording: Recording,
    /// Deciding validity.
    validity: Validities,
    /// Reusing a list's previous read.
    pub reuse: ListReuse,
    /// The args the read is made with (scalar fields read their lens from them).
    pub args: Option<Value>,
    /// The lens each scalar met got from `args` (worked out once per read).
    lenses: RefCell<Vec<(&'static str, Option<Arc<str>>)>>,
}

/// What the read depends on, for memoized reads.
pub(crate) struct Recording {
    /// Whether entity dependencies are narrowed to the fields read (memoized reads).
    pub on: bool,
    pub deps: RefCell<Vec<Dep>>,
    /// The liveness dependencies recorded last (a list's items mostly point to
    /// a few entities: each is recorded once, not once per item).
    recent_alive: RefCell<[(ByAddress<str>, usize); 8]>,
    /// While a list item's validity is decided for reuse: record every dependency.
    exact: Cell<bool>,
}

/// The read's top-level list, and the previous read's, whose items' verdicts
/// and dependencies are reused while what decided them holds.
#[derive(Default)]
pub(crate) struct ListReuse {
    /// Whether the read's top-level list keeps verdicts (reads of stored results).
    pub lists: bool,
    /// The read's input (its top-level list is the one tracked), by address.
    root: Cell<usize>,
    /// The stored result the read's input is, if it is one.
    pub result: Option<Arc<Value>>,
    /// The previous read's dependencies and verdicts (a memoized read done again).
    pub prior: Option<Prior>,
    /// Where in the previous read's list the next item is looked for first.
    cursor: Cell<usize>,
    /// This read's top-level list verdicts, for the next read.
    pub list: RefCell<Option<ListVerdicts>>,
}

impl<'a> Ctx<'a> {
    /// A context that records what the read depends on (for memoized reads).
    pub fn new(state: &'a State) -> Self {
        let mut ctx = Ctx::unrecorded(state);
        ctx.recording.on = true;
        ctx
    }

    /// A context for a one-off read: dependencies are not narrowed to fields.
    pub fn unrecorded(state: &'a State) -> Self {
        Ctx {
            state,
            path: super::path::ErrorPath::default(),
            stack: RefCell::default(),
            too_deep: Cell::new(false),
            ignored: Cell::new(0),
            next_token: Cell::new(0),
            rows: Rows::default(),
            recording: Recording {
                on: false,
                deps: RefCell::default(),
                recent_alive: RefCell::new([(ByAddress(""), usize::MAX); 8]),
                exact: Cell::new(false),
            },
            validity: Validities::default(),
            reuse: ListReuse::default(),
            args: None,
            lenses: RefCell::default(),
        }
    }

    /// The lens of `scalar` the read's args give, if any (worked out once per read).
    pub fn lens(&self, scalar: &crate::Scalar) -> Option<Arc<str>> {
        let args = self.args.as_ref()?;
        if let Some((_, lens)) = self.lenses.borrow().iter().find(|(key, _)| *key == scalar.key()) {
            return lens.clone();
        }
        let lens: Option<Arc<str>> = scalar.lens(args).map(Into::into);
        self.lenses.borrow_mut().push((scalar.key(), lens.clone()));
        lens
    }

    /// Records that the read looked at whether row `index` of `key` is live,
    /// unless one of the last few such records says the same.
    fn depend_alive(&self, key: &'static str, index: usize, alive: bool) {
        if !self.recording.on {
            return;
        }
        let row = (ByAddress(key), index);
        let mut recent = self.recording.recent_alive.borrow_mut();
        if recent.contains(&row) && !self.recording.exact.get() {
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
        if let Some(Dep::Entity { read, .. }) = self.recording.deps.borrow_mut().get_mut(slot) {
            *read = mask;
        }
    }

    /// The table of `def` and, when stored, the row `pk` with its index.
    fn find(&self, def: &'static EntityDef, pk: &str) -> (Option<&'a EntityTable>, Option<rows::Found<'a>>) {
        self.rows.find(self.state, def, pk)
    }

    /// The table of `key` (a type key from an `EntityDef`).
    fn table(&self, key: &'static str) -> Option<&'a EntityTable> {
        self.rows.table(self.state, key)
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
        let seen = if by_field && self.recording.on { row.value.clone() } else { None };
        let slot = self.depend(Dep::Entity { key: def.key, index, version: row.version, seen, read: u64::MAX });
        row.value.as_deref().map(|object| (pk, object, slot))
    }

    /// Records `dep` (when recording); returns its slot.
    fn depend(&self, dep: Dep) -> usize {
        if !self.recording.on {
            return 0;
        }
        self.flush_prior();
        let mut deps = self.recording.deps.borrow_mut();
        deps.push(dep);
        deps.len() - 1
    }

    /// Moves the previous read's dependencies reused so far into this read's.
    fn flush_prior(&self) {
        if let Some(prior) = &self.reuse.prior {
            prior.deps.borrow_mut().flush(&mut self.recording.deps.borrow_mut());
        }
    }

    /// This read's dependencies, once it is done.
    pub fn into_deps(self) -> Vec<Dep> {
        self.flush_prior();
        self.recording.deps.into_inner()
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
        self.reuse.root.set(input as *const Value as usize);
    }

    /// Whether `value` is the read's input, and its list keeps verdicts.
    pub fn is_root(&self, value: &Value) -> bool {
        self.reuse.lists && self.reuse.root.get() == value as *const Value as usize
    }

    /// Starts tracking the top-level list, held by `source`, of `len` items.
    pub fn track_list(&self, source: ListSource, len: usize) {
        self.reuse.cursor.set(0);
        *self.reuse.list.borrow_mut() = Some(ListVerdicts { source, verdicts: vec![None; len] });
    }

    /// The stored object of row `def`/`pk`, shared (records nothing).
    pub fn row_object(&self, def: &'static EntityDef, pk: &str) -> Option<Arc<Object>> {
        self.find(def, pk).1.and_then(|(_, _, row)| row.value.clone())
    }

    /// The index the next recorded dependency gets.
    pub fn next_dep(&self) -> usize {
        self.recording.deps.borrow().len() + self.reuse.prior.as_ref().map_or(0, |prior| prior.deps.borrow().pending())
    }

    /// Enters an entity. Returns whether what it nests is cut: it is already
    /// on the path (a cycle); nested lists then read empty. `Err` when the
    /// path is [`MAX_DEPTH`] deep (a chain that long, or required references
    /// going round a cycle).
    pub fn enter(&self, key: &'static str, pk: &'a str) -> Result<bool, String> {
        #[cfg(test)]
        probe::mark(self.stack.borrow().len());
        let mut stack = self.stack.borrow_mut();
        if stack.len() >= MAX_DEPTH {
            self.too_deep.set(true);
            return Err(format!(
                "entities nested deeper than {MAX_DEPTH} at {key} {pk:?} (a chain that long, or a cycle of required fields)"
            ));
        }
        let cut = stack.contains(&(key, pk));
        stack.push((key, pk));
        Ok(cut)
    }

    /// Leaves the entity entered last.
    pub fn leave(&self) {
        self.stack.borrow_mut().pop();
    }
}

/// The stack a read uses per entity level (measured in tests).
#[cfg(test)]
mod probe {
    use std::cell::Cell;

    use crate::Entity;

    thread_local! {
        /// The stack address at the first entity entered, and at the deepest.
        static AT: Cell<(usize, usize, usize)> = const { Cell::new((0, 0, 0)) };
    }

    /// Notes the stack address at entering an entity `depth` deep.
    #[inline(never)]
    pub fn mark(depth: usize) {
        let here = 0u8;
        let addr = std::hint::black_box(std::ptr::addr_of!(here)) as usize;
        AT.with(|at| {
            let (first, _, _) = at.get();
            at.set(if depth == 0 { (addr, addr, 0) } else { (first, addr, depth) });
        });
    }

    /// Bytes of stack per entity level over the last read.
    pub fn per_level() -> usize {
        let (first, last, depth) = AT.with(Cell::get);
        first.abs_diff(last) / depth.max(1)
    }

    #[derive(Debug, serde::Deserialize, crate::Entity)]
    struct Reply {
        #[allow(dead_code)]
        id: String,
        #[entity(nested)]
        #[allow(dead_code)]
        parent: Option<Box<Reply>>,
    }

    #[test]
    fn stack_per_entity_level() {
        let mut state = crate::State::default();
        let n = 100usize;
        let items = (0..n)
            .map(|i| match i {
                0 => crate::json!({"id": "0"}),
                _ => crate::json!({"id": i.to_string(), "parent": {"id": (i - 1).to_string()}}),
            })
            .collect();
        let schema = crate::Schema::array(Reply::schema());
        let meta = crate::WriteMeta::at(0, 1000);
        state.write_entities(&schema, crate::json::Value::Array(items), &crate::json::Value::Null, meta).unwrap();
        let read = crate::MemoCache::default().entity::<Reply>(&state, &(n - 1).to_string()).unwrap();
        assert!(read.is_some());
        let per_level = per_level();
        eprintln!("stack per entity level: {per_level} bytes");
        // Measured natively: the bound must fit in wasm's 1 MiB stack with room to spare.
        assert!((1..(1 << 20) / 2).contains(&(per_level * super::MAX_DEPTH)), "{per_level} bytes per level");
    }
}
