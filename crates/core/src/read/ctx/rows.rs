//! Finding rows: the tables a read looked up, each with the row found in it
//! last, so a read of many rows of few tables hashes little.

use std::cell::{Cell, RefCell};

use crate::schema::EntityDef;
use crate::store::{EntityTable, State, StoredEntity};
use crate::ByAddress;

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
        crate::read::names::same(self.0, key.as_str())
    }
}

/// A table a read looked up, by its `&'static` type key (see [`ByAddress`]),
/// and the index of the row found in it last.
#[derive(Clone, Copy)]
struct Seen<'a> {
    key: &'static str,
    table: Option<&'a EntityTable>,
    last: usize,
}

/// A row found: its index, its primary key and the row.
pub(super) type Found<'a> = (usize, &'a str, &'a StoredEntity);

/// The tables one read looked up.
#[derive(Default)]
pub(super) struct Rows<'a> {
    /// The first table looked up (most reads meet one or two: no list to
    /// allocate for them).
    first: Cell<Option<Seen<'a>>>,
    /// The others.
    tables: RefCell<Vec<Seen<'a>>>,
}

impl<'a> Rows<'a> {
    /// The table of `def` in `state` and, when stored, the row `pk`.
    ///
    /// The row found last in the table is tried first (a validity check is
    /// followed by a read of the same row), then the one after it (a list is
    /// mostly read in the order its entities were stored), before the table's
    /// index is searched.
    pub fn find(
        &self,
        state: &'a State,
        def: &'static EntityDef,
        pk: &str,
    ) -> (Option<&'a EntityTable>, Option<Found<'a>>) {
        let seen = self.seen(state, def.key);
        let Some(table) = seen.table else { return (None, None) };
        for at in [seen.last, seen.last.wrapping_add(1)] {
            if let Some((key, row)) = table.rows.get_index(at) {
                if crate::read::names::same(key.as_str(), pk) {
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

    /// The table of `key` (a type key from an `EntityDef`) in `state`.
    pub fn table(&self, state: &'a State, key: &'static str) -> Option<&'a EntityTable> {
        self.seen(state, key).table
    }

    /// Remembers that row `index` was found last in the table of `key`.
    fn found_in(&self, key: &'static str, index: usize) {
        match self.first.get() {
            Some(first) if ByAddress(first.key) == ByAddress(key) => {
                self.first.set(Some(Seen { last: index, ..first }))
            }
            _ => {
                if let Some(seen) = self.tables.borrow_mut().iter_mut().find(|t| ByAddress(t.key) == ByAddress(key)) {
                    seen.last = index;
                }
            }
        }
    }

    /// The table of `key` as this read has seen it so far.
    fn seen(&self, state: &'a State, key: &'static str) -> Seen<'a> {
        let first = self.first.get();
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
        let seen = Seen { key, table: state.entities.get(key), last: usize::MAX };
        if first.is_none() {
            self.first.set(Some(seen));
        } else {
            tables.push(seen);
        }
        seen
    }
}
