//! Declared unique indexes ([`Entity::INDEXES`](crate::Entity::INDEXES)): for
//! each indexed table and field, the pks of the live rows holding each value.
//! Every place that changes a row's object tells the index (`Indexes::update`),
//! so a lookup by value is a hash lookup, not a scan. Derived data: not saved,
//! rebuilt from the rows by the first write of the type after a load (or
//! by `State::index_entity`, which `Controller::entity_by` calls).

use std::borrow::Cow;

use indexmap::IndexSet;

use crate::json::{FastMap, Text, Value};
use crate::schema::Object;

use super::state::EntityTable;

/// The indexes of a store, by table.
#[derive(Debug, Clone, Default)]
pub(crate) struct Indexes {
    /// Few tables have indexes: a list, looked through by key.
    tables: Vec<TableIndex>,
}

#[derive(Debug, Clone)]
struct TableIndex {
    table: String,
    fields: Vec<FieldIndex>,
}

#[derive(Debug, Clone)]
struct FieldIndex {
    field: &'static str,
    /// Value text -> the live rows holding it (one, unless the data breaks
    /// the promise of uniqueness): a set, so that many rows sharing a value
    /// still join and leave in constant time.
    holders: FastMap<String, Holders>,
}

/// The pks of the rows holding one value.
type Holders = IndexSet<Text, foldhash::fast::RandomState>;

/// The text a field's value is indexed under: a scalar's text (so `"7"` and
/// `7` meet, as `State::pk_where` compares them); null (which many rows
/// share), a list or an object is not indexed, and a scan answers for it.
pub(crate) fn value_key(value: &Value) -> Option<Cow<'_, str>> {
    match value {
        Value::Null | Value::Array(_) | Value::Object(_) => None,
        Value::String(s) => Some(Cow::Borrowed(s.as_str())),
        other => Some(Cow::Owned(crate::json_text(other))),
    }
}

impl FieldIndex {
    fn key_of<'o>(&self, object: Option<&'o Object>) -> Option<Cow<'o, str>> {
        object?.get(self.field).and_then(value_key)
    }

    fn add(&mut self, key: &str, pk: &Text) {
        self.holders.entry_ref(key).or_default().insert(pk.clone());
    }

    fn remove(&mut self, key: &str, pk: &Text) {
        if let Some(holders) = self.holders.get_mut(key) {
            holders.swap_remove(pk);
            if holders.is_empty() {
                self.holders.remove(key);
            }
        }
    }
}

impl Indexes {
    /// Whether table `table` has an index on `field`.
    pub(crate) fn has(&self, table: &str, field: &str) -> bool {
        self.field(table, field).is_some()
    }

    /// Whether table `table` has any index (so its writes must be told).
    pub(crate) fn covers(&self, table: &str) -> bool {
        !self.tables.is_empty() && self.tables.iter().any(|t| t.table == table)
    }

    fn field(&self, table: &str, field: &str) -> Option<&FieldIndex> {
        self.tables.iter().find(|t| t.table == table)?.fields.iter().find(|f| f.field == field)
    }

    /// Row `pk` of `table` went from `old` to `new` (`None`: no live object).
    pub(crate) fn update(&mut self, table: &str, pk: &Text, old: Option<&Object>, new: Option<&Object>) {
        let Some(index) = self.tables.iter_mut().find(|t| t.table == table) else { return };
        for field in &mut index.fields {
            let (before, after) = (field.key_of(old), field.key_of(new));
            if before == after {
                continue;
            }
            if let Some(before) = before {
                field.remove(&before, pk);
            }
            if let Some(after) = after {
                field.add(&after, pk);
            }
        }
    }

    /// Table `table` went whole: its indexes hold nothing.
    pub(crate) fn clear_table(&mut self, table: &str) {
        for index in self.tables.iter_mut().filter(|t| t.table == table) {
            for field in &mut index.fields {
                field.holders.clear();
            }
        }
    }

    /// Builds each of `fields` of `table_key` not indexed yet from the table's
    /// live rows (once per table and field; writes keep it after).
    pub(crate) fn ensure(&mut self, table_key: &str, fields: &'static [&'static str], table: Option<&EntityTable>) {
        if fields.iter().all(|f| self.has(table_key, f)) {
            return;
        }
        let at = match self.tables.iter().position(|t| t.table == table_key) {
            Some(at) => at,
            None => {
                self.tables.push(TableIndex { table: table_key.to_owned(), fields: Vec::new() });
                self.tables.len() - 1
            }
        };
        let Some(index) = self.tables.get_mut(at) else { return };
        for &name in fields {
            if index.fields.iter().any(|f| f.field == name) {
                continue;
            }
            let mut field = FieldIndex { field: name, holders: FastMap::default() };
            for (pk, row) in table.into_iter().flat_map(|t| t.rows.iter()) {
                if let Some(key) = field.key_of(row.value.as_deref()) {
                    field.add(&key, pk);
                }
            }
            index.fields.push(field);
        }
    }

    /// The pk of the live row of `table` whose `field` is `value`, the one
    /// stored first should several be: `None` when no index answers (not
    /// indexed, or a list or object asked for), `Some(None)` when none holds it.
    pub(crate) fn find<'t>(
        &self,
        table_key: &str,
        field: &str,
        value: &Value,
        table: Option<&'t EntityTable>,
    ) -> Option<Option<&'t Text>> {
        let index = self.field(table_key, field)?;
        let key = value_key(value)?;
        let Some(table) = table else { return Some(None) };
        let holders = index.holders.get(key.as_ref()).into_iter().flatten();
        let first = holders.filter_map(|pk| table.rows.get_index_of(pk)).min();
        Some(first.and_then(|at| table.rows.get_index(at)).map(|(pk, _)| pk))
    }
}
