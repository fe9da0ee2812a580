//! What a read looked at (`Dep`), with the version it saw, and whether it
//! still reads the same after a write.

use std::sync::Arc;

use crate::schema::Object;
use crate::store::{EntityTable, State};
use crate::{ByAddress, FieldMask, Row, Topic, TopicFields, LAYOUT};

/// Something a read looked at, with the version it saw.
#[derive(Debug, Clone)]
pub(crate) enum Dep {
    /// One entity row, by table key and row index (rows are never reordered).
    /// With `seen`, the read looked only at the fields (by position) whose bit
    /// is set in `read` (positions past 63 always count): a new version that
    /// keeps the same keys and those fields' values changes nothing it showed.
    Entity { key: &'static str, index: usize, version: u64, seen: Option<Arc<Object>>, read: FieldMask },
    /// Whether a row is live (validity checks look no further than that).
    Alive { key: &'static str, index: usize, alive: bool },
    /// A whole entity table (an `All` read, or a row that was missing);
    /// `0` when the table did not exist.
    Table { key: &'static str, version: u64 },
    /// A dependency that no longer says anything (its row index may now hold
    /// another entity): the read must be done again.
    Void,
}

/// The tables a dependency check looked at last, by their key's address
/// (consecutive dependencies are mostly rows of a few tables: a list's items and
/// what they reference).
#[derive(Default)]
pub(crate) struct LastTable<'s>([Option<(ByAddress<str>, Option<&'s EntityTable>)>; 4]);

impl<'s> LastTable<'s> {
    fn get(&mut self, state: &'s State, key: &'static str) -> Option<&'s EntityTable> {
        let address = ByAddress(key);
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
    /// The topic a write must touch to change what this read saw, with the
    /// fields looked at; `None` for [`Dep::Void`]. A read narrowed to fields is
    /// woken by changes to those fields or to the row's keys (what
    /// [`Dep::unchanged`] compares).
    pub(crate) fn topic(&self) -> Option<TopicFields> {
        Some(match *self {
            Dep::Entity { key, index, ref seen, read, .. } => TopicFields {
                topic: Topic::fields(Row { table: key, index }),
                fields: if seen.is_some() { read | LAYOUT } else { FieldMask::MAX },
            },
            Dep::Alive { key, index, .. } => {
                TopicFields { topic: Topic::alive(Row { table: key, index }), fields: FieldMask::MAX }
            }
            Dep::Table { key, .. } => TopicFields { topic: Topic::table(key), fields: FieldMask::MAX },
            Dep::Void => return None,
        })
    }

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
