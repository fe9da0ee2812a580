//! Writes into the store. Each public write normalizes first and commits only
//! when the whole input normalized, so a bad response leaves the store as it was.

use std::sync::Arc;

use crate::json::{Text, Value};

use super::changes::{fields_changed, Changes};
use super::state::{
    EntityMeta, EntityTable, ErrorEntry, FastMap, ResultEntry, ResultMeta, State, StoredEntity, WriteMeta,
};
use super::undo_log::UndoLog;
use crate::error::NormalizeError;
use crate::normalize::{join_path, Normalizer, Staged, StagedListEdit};
use crate::schema::{join_pages, ListEdit, Object, Schema};
use crate::{ByAddress, EntityDef, FieldMask, Row, RowChange};

impl State {
    /// Normalizes `value` (the response of endpoint `key`, called with `args`)
    /// and stores its entities and its result. On error nothing changes.
    ///
    /// ```
    /// # use rdc_core::{Entity, Schema, State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// let mut state = State::default();
    /// let bad = rdc_core::json!([{ "name": "no id" }]);
    /// let err = state.write_result("GET /users", &Schema::array(User::schema()), bad, &rdc_core::json!(null), WriteMeta::at(0, 1000));
    /// assert_eq!(err.unwrap_err().to_string(), "User at [0] has no primary key");
    /// assert_eq!(state.version(), 0);
    /// ```
    pub fn write_result(
        &mut self,
        key: &str,
        schema: &Schema,
        value: Value,
        args: &Value,
        meta: WriteMeta,
    ) -> Result<(), NormalizeError> {
        let mut normalizer = Normalizer::new(args);
        let result = normalizer.normalize(schema, value, &Value::Null, "")?;
        // Its scalar fields read the lens of these args.
        let args = normalizer.met_scalar.then(|| Arc::new(args.clone()));
        self.commit(normalizer.staged, meta)?;
        self.store_result(key, result, args, meta);
        Ok(())
    }

    /// Stores `value` as the result of `key` as it is (no schema, no entities).
    pub fn write_plain_result(&mut self, key: &str, value: Value, meta: WriteMeta) {
        self.version += 1;
        self.journal.quiet(self.version);
        self.store_result(key, value, None, meta);
    }

    /// Stores an (already normalized) result at the current version, unless the
    /// stored one was fetched later; an equal value keeps its identity. Clears the
    /// key's error.
    fn store_result(&mut self, key: &str, value: Value, args: Option<Arc<Value>>, meta: WriteMeta) {
        self.note_key(key, true, true);
        let version = self.version;
        let result_meta = ResultMeta {
            fetched_at: meta.fetched_at,
            date: meta.date,
            expires_at: meta.expires_at,
            invalidated: false,
            seq: meta.seq,
        };
        match self.results.get_mut(key) {
            Some(existing) if (existing.meta.fetched_at, existing.meta.seq) > (meta.fetched_at, meta.seq) => {}
            Some(existing) if *existing.value == value && existing.args == args => existing.meta = result_meta,
            _ => {
                let entry = ResultEntry { value: Arc::new(value), meta: result_meta, version, args };
                self.results.insert(key.to_owned(), entry);
            }
        }
        self.errors.remove(key);
        self.touch_key(key);
    }

    /// Normalizes `value` and stores its entities, without storing a result
    /// (the controller's `set`).
    pub fn write_entities(
        &mut self,
        schema: &Schema,
        value: Value,
        args: &Value,
        meta: WriteMeta,
    ) -> Result<Value, NormalizeError> {
        let mut normalizer = Normalizer::new(args);
        let result = normalizer.normalize(schema, value, &Value::Null, "")?;
        self.commit(normalizer.staged, meta)?;
        Ok(result)
    }

    /// Records an error for endpoint `key`; the data already stored stays.
    pub fn set_error(&mut self, key: &str, message: impl Into<String>, date: u64, expires_at: u64) {
        self.version += 1;
        self.journal.quiet(self.version);
        self.note_key(key, false, true);
        self.errors.insert(key.to_owned(), ErrorEntry { message: message.into(), date, expires_at });
        self.touch_key(key);
    }

    /// Marks the result of `key` invalid: a read must fetch before using it.
    pub fn invalidate_result(&mut self, key: &str) {
        if self.results.contains_key(key) {
            self.note_key(key, true, false);
        }
        if let Some(entry) = self.results.get_mut(key) {
            entry.meta.invalidated = true;
            self.version += 1;
            self.journal.quiet(self.version);
            entry.version = self.version;
            self.touch_key(key);
        }
    }

    /// Merges staged entities with what is stored and checks every merged object
    /// against its Rust type (so a partial nested object such as `{"id": 2}` is
    /// fine when the store already has the rest). Changes nothing.
    fn plan(&self, staged: Staged, meta: WriteMeta) -> Result<Plan, NormalizeError> {
        let incoming = meta.entity_meta();
        let Staged { entities, paths, deletes, list_edits } = staged;
        let mut writes = Vec::with_capacity(entities.len());
        // A response holds many entities of few types: look each table up once.
        let mut tables: Vec<(ByAddress<str>, Option<&EntityTable>)> = Vec::new();
        for ((key, pk), (def, object, path)) in entities {
            let address = ByAddress(key);
            let table = match tables.iter().find(|(a, _)| *a == address) {
                Some((_, table)) => *table,
                None => {
                    let table = self.entities.get(key);
                    tables.push((address, table));
                    table
                }
            };
            let row = table.and_then(|t| t.rows.get(&pk));
            // A page that starts a list, or joins one never fetched whole: the
            // list's own fetch, when it answers, still goes in front.
            let unfetched = def.drops_older && row.is_none_or(|r| r.listed == Some(NEVER_FETCHED));
            // `changed`: the merged object is known to differ from the stored one.
            let (merged, newer, changed) = match row {
                Some(row) => {
                    let newer = (def.should_update)(&row.meta, &incoming);
                    match &row.value {
                        // The default merge changes the stored object exactly when
                        // some incoming field is new or different.
                        Some(existing) if newer && def.default_merge => {
                            if existing.includes(&object) {
                                // Nothing a reader sees changes; only the times move forward.
                                writes.push(Write { key, pk, value: None, newer, new: false, unfetched, def });
                                continue;
                            }
                            (Some(existing.overlaid(&object)), true, true)
                        }
                        // Replaced whole: the incoming object is moved in.
                        Some(_) if newer && def.replaces => (Some(object), true, false),
                        Some(existing) if newer => (Some((def.merge)(existing, &object)), true, false),
                        // A page asked for before its list was last fetched is
                        // dropped; one overtaken only by an edit still joins.
                        Some(_) if def.drops_older && !row.fetched_not_after(&incoming) => continue,
                        Some(existing) if def.drops_older => (Some((def.merge)(existing, &object)), false, false),
                        // A list fetched after the list's last fetch but answered
                        // after pages or edits: its items go in front of theirs.
                        Some(existing)
                            if def.replaces
                                && row.listed.is_some_and(|at| at < (incoming.fetched_at, incoming.seq)) =>
                        {
                            (Some(join_pages(&object, existing)), false, false)
                        }
                        Some(existing) => (Some((def.merge)(&object, existing)), false, false),
                        // A deletion tombstone: only newer data brings the entity back.
                        None if newer => (Some(object), true, true),
                        None => (None, false, false),
                    }
                }
                None => (Some(object), true, true),
            };
            let Some(merged) = merged else { continue };
            if !changed && row.and_then(|r| r.value.as_deref()) == Some(&merged) {
                // Nothing a reader sees changes; only the times move forward.
                writes.push(Write { key, pk, value: None, newer, new: false, unfetched, def });
                continue;
            }
            let merged = Value::Object(merged);
            (def.check_fields)(&merged).map_err(|e| NormalizeError::InvalidField {
                entity: def.key,
                path: join_path(path.of(&paths), &e.path),
                message: e.message,
            })?;
            let Value::Object(merged) = merged else { continue };
            writes.push(Write { key, pk, value: Some(Arc::new(merged)), newer, new: row.is_none(), unfetched, def });
        }
        // A moving item's lists are decided by what it matched before this write.
        let list_edits = list_edits
            .into_iter()
            .map(|edit| {
                let before =
                    (edit.edit == ListEdit::Move).then(|| self.stored_item(&edit.collection.item, &edit.reference));
                (edit, before.flatten())
            })
            .collect();
        Ok(Plan { writes, deletes, list_edits, meta: incoming })
    }

    /// Plans and applies staged entities and deletions as one new store version.
    pub(crate) fn commit(&mut self, staged: Staged, meta: WriteMeta) -> Result<(), NormalizeError> {
        let plan = self.plan(staged, meta)?;
        self.version += 1;
        let version = self.version;
        self.journal.quiet(version);
        let mut log = self.changes.take();
        // Grouped by table, so each table is looked up once.
        let mut groups: Vec<(&'static str, Vec<Write>)> = Vec::new();
        for write in plan.writes {
            match groups.iter_mut().find(|(key, _)| ByAddress(*key) == ByAddress(write.key)) {
                Some((_, group)) => group.push(write),
                None => groups.push((write.key, vec![write])),
            }
        }
        for (key, mut group) in groups {
            self.note_table(key);
            detach_new_keys(&mut group);
            // A type's first write into this store builds the indexes it
            // declares; whether the table has any is decided once for the group.
            let fields = group.first().map_or(&[][..], |w| w.def.indexes);
            if !fields.is_empty() {
                self.indexes.ensure(key, fields, self.entities.get(key));
            }
            let covered = self.indexes.covers(key);
            let table = table_mut(&mut self.entities, key);
            // A response of many new entities grows the table once.
            table.rows.reserve(group.iter().filter(|w| w.new).count());
            for write in group {
                let undo = self.undo.as_deref_mut();
                let out = (log.as_deref_mut(), undo, &mut self.journal, &mut self.indexes);
                Self::apply(table, write, (plan.meta, version, covered), out);
            }
        }
        for (key, pk) in plan.deletes {
            self.note_table(key);
            let table = table_mut(&mut self.entities, key);
            let tombstone = StoredEntity { value: None, meta: plan.meta, version, listed: None };
            let undo = self.undo.as_deref_mut();
            let (index, was_alive) = match table.rows.get_full_mut(&pk) {
                Some((_, _, row)) if !plan.meta.not_older_than(&row.meta) => continue,
                Some((index, pk, row)) => {
                    Self::note_row(undo, key, index, Some(row));
                    let old = std::mem::replace(row, tombstone).value;
                    self.indexes.update(key, pk, old.as_deref(), None);
                    (index, old.is_some())
                }
                None => {
                    Self::note_row(undo, key, table.rows.len(), None);
                    (table.rows.insert_full(pk, tombstone).0, false)
                }
            };
            table.version = version;
            self.journal.row(version, Row { table: key, index });
            if let Some(log) = log.as_mut() {
                log.rows.push(RowChange { row: Row { table: key, index }, fields: FieldMask::MAX });
                if was_alive {
                    log.alive.push(Row { table: key, index });
                }
            }
        }
        self.changes = log;
        for (edit, before) in plan.list_edits {
            self.edit_lists_with(&edit, before.as_deref(), plan.meta);
        }
        Ok(())
    }
}

impl State {
    /// Applies one planned write to its table, logging what changed (in the
    /// change log, undo log and journal, when kept) and keeping the indexes.
    /// `covered`: whether the table has indexes.
    fn apply(table: &mut EntityTable, write: Write, at: (EntityMeta, u64, bool), out: ApplyOut<'_>) {
        let (meta, version, covered) = at;
        let (log, undo, journal, indexes) = out;
        // Only a table with indexes needs the key past the entry.
        let indexed = covered && write.value.is_some();
        // A new row's key was copied out of the response's text already
        // (`detach_new_keys`); a row that exists keeps its own key, and the
        // index holds that key, never the response's.
        let entry = table.rows.entry(write.pk);
        let pk = indexed.then(|| entry.key().clone());
        let index = entry.index();
        if undo.is_some() {
            let prior = match &entry {
                indexmap::map::Entry::Occupied(row) => Some(row.get()),
                indexmap::map::Entry::Vacant(_) => None,
            };
            Self::note_row(undo, write.key, index, prior);
        }
        let row = entry.or_insert(StoredEntity { value: None, meta, version, listed: None });
        if write.newer {
            row.meta = meta;
            row.listed = write.unfetched.then_some(NEVER_FETCHED);
        } else if write.value.is_some() && row.listed.is_some_and(|at| at < (meta.fetched_at, meta.seq)) {
            // A page that joined a list edited since it was asked for.
            row.listed = Some((meta.fetched_at, meta.seq));
        }
        if let Some(value) = write.value {
            let old = row.value.replace(value);
            if let Some(pk) = &pk {
                indexes.update(write.key, pk, old.as_deref(), row.value.as_deref());
            }
            row.version = version;
            table.version = version;
            journal.row(version, Row { table: write.key, index });
            if let Some(log) = log {
                let fields = fields_changed(old.as_deref(), row.value.as_deref());
                log.rows.push(RowChange { row: Row { table: write.key, index }, fields });
                if old.is_none() {
                    log.alive.push(Row { table: write.key, index });
                }
            }
        }
    }
}

/// Copies the keys of the new rows among `writes` into one buffer of their own
/// (one allocation for the lot): a row's key then keeps that small text alive,
/// not the whole response its pk was parsed from.
fn detach_new_keys(writes: &mut [Write]) {
    let size: usize = writes.iter().filter(|w| w.new).map(|w| w.pk.len()).sum();
    if size == 0 {
        return;
    }
    let mut text = String::with_capacity(size);
    for write in writes.iter().filter(|w| w.new) {
        text.push_str(&write.pk);
    }
    let buf: Arc<str> = Arc::from(text);
    let mut at = 0;
    for write in writes.iter_mut().filter(|w| w.new) {
        let len = write.pk.len();
        write.pk = Text::slice(&buf, at, len);
        at += len;
    }
}

/// The table of `key`, created when missing (the key is allocated only then).
fn table_mut<'a>(entities: &'a mut FastMap<String, EntityTable>, key: &str) -> &'a mut EntityTable {
    entities.entry_ref(key).or_default()
}

/// Where [`State::apply`] records what it changed: the change log, the undo
/// log, the journal and the indexes.
type ApplyOut<'a> =
    (Option<&'a mut Changes>, Option<&'a mut UndoLog>, &'a mut super::journal::Journal, &'a mut super::index::Indexes);

/// One entity write decided by `plan`.
struct Write {
    key: &'static str,
    pk: Text,
    /// The new object, or `None` when it equals what is stored.
    value: Option<Arc<Object>>,
    /// Whether the incoming times replace the stored ones.
    newer: bool,
    /// Whether the table has no row for it yet.
    new: bool,
    /// A page written to a list no fetch has written whole (see [`NEVER_FETCHED`]).
    unfetched: bool,
    /// Its type (for the unique indexes it declares).
    def: &'static EntityDef,
}

/// The `listed` of a list only pages have written: its own fetch, whenever it
/// answers, is later than this.
const NEVER_FETCHED: (crate::Millis, u64) = (0, 0);

/// Everything one commit will do, decided before anything changes.
struct Plan {
    writes: Vec<Write>,
    deletes: Vec<(&'static str, Text)>,
    /// Each list edit, with the item's stored object before the write (moves only).
    list_edits: Vec<(StagedListEdit, Option<Arc<Object>>)>,
    meta: EntityMeta,
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::json::{Map, Text, Value};
    use crate::{Entity, State, WriteMeta};

    /// Newer data replaces the stored object whole (its field names too).
    #[derive(serde::Deserialize, crate::Entity)]
    #[entity(key = "Keyed", merge = "newest")]
    #[allow(dead_code)]
    struct Keyed {
        id: String,
        name: String,
    }

    fn newest(_: &crate::Object, incoming: &crate::Object) -> crate::Object {
        incoming.clone()
    }

    /// A response whose strings are ranges of `buf` (as `Value::parse` makes them).
    fn response(buf: &Arc<str>) -> Value {
        let mut object = Map::new();
        object.insert(Text::slice(buf, 0, 2), Value::String(Text::slice(buf, 2, 3)));
        object.insert(Text::slice(buf, 5, 4), Value::String(Text::slice(buf, 9, 3)));
        Value::Object(object)
    }

    #[test]
    fn a_new_rows_key_does_not_keep_its_response_alive() {
        let buf: Arc<str> = Arc::from("idu-1nameAda");
        let mut state = State::default();
        state.write_entities(&Keyed::schema(), response(&buf), &Value::Null, WriteMeta::at(0, 1000)).unwrap();
        assert_eq!(
            state.entity("Keyed", "u-1").and_then(|r| r.value.as_ref()).map(|o| o["name"].clone()),
            Some("Ada".into())
        );
        // The object replaced by a later response of strings of their own: only
        // the row's key could still hold the first response's text.
        let later = crate::json!({"id": "u-1", "name": "Bea"});
        state.write_entities(&Keyed::schema(), later, &Value::Null, WriteMeta::at(1, 1000)).unwrap();
        assert_eq!(Arc::strong_count(&buf), 1, "nothing in the store holds the first response's text");
    }

    /// As `Keyed`, with a unique index on its name.
    #[derive(serde::Deserialize, crate::Entity)]
    #[entity(key = "Indexed", merge = "newest", index = "name")]
    #[allow(dead_code)]
    struct Indexed {
        id: String,
        name: String,
    }

    #[test]
    fn an_indexed_rows_key_does_not_keep_a_later_response_alive() {
        let buf: Arc<str> = Arc::from("idu-1nameAda");
        let mut state = State::default();
        let first = crate::json!({"id": "u-1", "name": "Old"});
        state.write_entities(&Indexed::schema(), first, &Value::Null, WriteMeta::at(0, 1000)).unwrap();
        // The row exists: this response changes its indexed name.
        state.write_entities(&Indexed::schema(), response(&buf), &Value::Null, WriteMeta::at(1, 1000)).unwrap();
        assert_eq!(state.pk_where("Indexed", "name", &"Ada".into()).map(|pk| pk.to_string()).as_deref(), Some("u-1"));
        // The same name again, in strings of their own: only the index could
        // still hold the response's text.
        let later = crate::json!({"id": "u-1", "name": "Ada", "seen": true});
        state.write_entities(&Indexed::schema(), later, &Value::Null, WriteMeta::at(2, 1000)).unwrap();
        assert_eq!(Arc::strong_count(&buf), 1, "the index holds the row's own key");
    }
}
