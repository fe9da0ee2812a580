//! The context of one read: the state, the dependencies the read touched (for
//! memoization), entity validity, and the entities on the current path (cycles).

use std::cell::RefCell;

use serde_json::Value;

use crate::schema::{All, EntityDef, Object, Schema};
use crate::store::{EntityTable, FastMap, State, StoredEntity};

/// Something a read looked at, with the version it saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dep {
    /// One entity row, by table key and row index (rows are never reordered).
    Entity { key: &'static str, index: usize, version: u64 },
    /// Whether a row is live (validity checks look no further than that).
    Alive { key: &'static str, index: usize, alive: bool },
    /// A whole entity table (an `All` read, or a row that was missing);
    /// `0` when the table did not exist.
    Table { key: &'static str, version: u64 },
}

impl Dep {
    pub(crate) fn unchanged(&self, state: &State) -> bool {
        match *self {
            Dep::Entity { key, index, version } => state
                .entities
                .get(key)
                .and_then(|t| t.rows.get_index(index))
                .is_some_and(|(_, row)| row.version == version),
            Dep::Alive { key, index, alive } => state
                .entities
                .get(key)
                .and_then(|t| t.rows.get_index(index))
                .is_some_and(|(_, row)| row.value.is_some() == alive),
            Dep::Table { key, version } => state.entities.get(key).map_or(0, |t| t.version) == version,
        }
    }
}

/// Deepest entity nesting a read follows before it reports a cycle of required fields.
const MAX_DEPTH: usize = 512;

pub(crate) struct Ctx<'a> {
    pub state: &'a State,
    /// Where the read failed, if it did.
    pub path: super::path::ErrorPath<'a>,
    pub deps: RefCell<Vec<Dep>>,
    /// Validity by (table, row index).
    valid: RefCell<FastMap<(usize, usize), bool>>,
    stack: RefCell<Vec<(&'static str, &'a str)>>,
    /// Tables already looked up, by the address of their `&'static` type key
    /// (a read touches few tables and many rows: this saves hashing the key).
    tables: RefCell<Vec<(usize, Option<&'a EntityTable>)>>,
    /// The row found last (a validity check is followed by a read of the same row).
    last: std::cell::Cell<Option<(usize, &'a str, usize)>>,
}

impl<'a> Ctx<'a> {
    pub fn new(state: &'a State) -> Self {
        Ctx {
            state,
            path: super::path::ErrorPath::default(),
            deps: RefCell::default(),
            valid: RefCell::default(),
            stack: RefCell::default(),
            tables: RefCell::default(),
            last: std::cell::Cell::new(None),
        }
    }

    /// The table of `def` and, when stored, the row `pk` with its index.
    #[allow(clippy::type_complexity)]
    fn find(&self, def: &'static EntityDef, pk: &str) -> (Option<&'a EntityTable>, Option<(usize, &'a str, &'a StoredEntity)>) {
        let table = self.table(def.key);
        let address = def.key.as_ptr() as usize;
        if let (Some(t), Some((a, last_pk, index))) = (table, self.last.get()) {
            if a == address && last_pk == pk {
                return (table, t.rows.get_index(index).map(|(pk, row)| (index, pk.as_str(), row)));
            }
        }
        let found = table.and_then(|t| t.rows.get_full(pk)).map(|(index, pk, row)| (index, pk.as_str(), row));
        if let Some((index, pk, _)) = found {
            self.last.set(Some((address, pk, index)));
        }
        (table, found)
    }

    /// The table of `key` (a type key from an `EntityDef`).
    fn table(&self, key: &'static str) -> Option<&'a EntityTable> {
        let address = key.as_ptr() as usize;
        let mut tables = self.tables.borrow_mut();
        if let Some((_, table)) = tables.iter().find(|(a, _)| *a == address) {
            return *table;
        }
        let table = self.state.entities.get(key);
        tables.push((address, table));
        table
    }

    /// The live row `def`/`pk`, recording the dependency.
    pub fn lookup(&self, def: &'static EntityDef, pk: &str) -> Option<(&'a str, &'a Object)> {
        let (table, found) = self.find(def, pk);
        let Some((index, pk, row)) = found else {
            self.deps.borrow_mut().push(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            return None;
        };
        self.deps.borrow_mut().push(Dep::Entity { key: def.key, index, version: row.version });
        row.value.as_deref().map(|object| (pk, object))
    }

    /// Rows of `all`'s tables, recording the table dependencies; `None` when no
    /// table of theirs was ever written.
    pub fn all_rows(&self, all: &All) -> Option<Vec<(&'static EntityDef, &'a str, &'a StoredEntity)>> {
        let mut rows = Vec::new();
        let mut any = false;
        for def in all.entity_defs() {
            let table = self.table(def.key);
            self.deps.borrow_mut().push(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            if let Some(table) = table {
                any = true;
                rows.extend(table.rows.iter().map(|(pk, row)| (def, pk.as_str(), row)));
            }
        }
        any.then_some(rows)
    }

    /// Whether `pk` names a live entity of `def` whose required nested entities
    /// are valid too. Entities already being checked count as valid (cycles).
    pub fn entity_valid(&self, def: &'static EntityDef, pk: &str) -> bool {
        let (table, found) = self.find(def, pk);
        let Some((index, _, row)) = found else {
            // It may be stored later: any write to its table counts.
            self.deps.borrow_mut().push(Dep::Table { key: def.key, version: table.map_or(0, |t| t.version) });
            return false;
        };
        let alive = Dep::Alive { key: def.key, index, alive: row.value.is_some() };
        let Some(object) = row.value.as_deref() else {
            self.deps.borrow_mut().push(alive);
            return false;
        };
        let nested = (def.nested)();
        if !nested.iter().any(|f| f.required) {
            self.deps.borrow_mut().push(alive);
            return true;
        }
        let slot = (def.key.as_ptr() as usize, index);
        if let Some(known) = self.valid.borrow().get(&slot) {
            // Its dependencies were recorded on the first visit.
            return *known;
        }
        self.deps.borrow_mut().push(alive);
        self.valid.borrow_mut().insert(slot, true);
        let valid = (def.nested)()
            .iter()
            .filter(|f| f.required)
            .all(|field| self.value_valid(&field.schema, object.get(field.name)));
        self.valid.borrow_mut().insert(slot, valid);
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
                Some(value) => match crate::read::de::union_ref(poly, value) {
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

    /// Enters an entity; `Err` when the path is too deep. Returns whether the
    /// entity is already on the path (a cycle: nested lists then read empty).
    pub fn enter(&self, key: &'static str, pk: &'a str) -> Result<bool, String> {
        let mut stack = self.stack.borrow_mut();
        if stack.len() >= MAX_DEPTH {
            return Err(format!("entity nesting deeper than {MAX_DEPTH} at {key} {pk:?}: a cycle of required fields?"));
        }
        let revisit = stack.contains(&(key, pk));
        stack.push((key, pk));
        Ok(revisit)
    }

    /// Leaves the entity entered last.
    pub fn leave(&self) {
        self.stack.borrow_mut().pop();
    }
}
