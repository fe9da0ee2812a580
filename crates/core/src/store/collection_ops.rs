//! Growing and shrinking stored collections without refetching.

use std::sync::Arc;

use crate::json::Value;

use super::changes::fields_changed;
use super::state::{EntityMeta, State, WriteMeta};
use super::topic::{field_bit, Row, RowChange};
use crate::error::NormalizeError;
use crate::normalize::StagedListEdit;
use crate::schema::{pk_string_ref, Collection, ListEdit, Object, Schema};

/// Where a new item goes in each list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Front,
    Back,
}

impl State {
    /// Appends `item` to every stored list of `collection` whose arguments match
    /// the item (see [`Collection`]); the item is normalized and stored too.
    ///
    /// # Errors
    /// When the item does not normalize (nothing changes), or `collection` is not a
    /// `Collection` schema.
    pub fn collection_push(&mut self, collection: &Schema, item: Value, meta: WriteMeta) -> Result<(), NormalizeError> {
        self.collection_add(collection, item, meta, End::Back)
    }

    /// Like [`State::collection_push`], at the front.
    ///
    /// # Errors
    /// As [`State::collection_push`].
    pub fn collection_unshift(
        &mut self,
        collection: &Schema,
        item: Value,
        meta: WriteMeta,
    ) -> Result<(), NormalizeError> {
        self.collection_add(collection, item, meta, End::Front)
    }

    /// Removes the item with primary key `pk` from every list of `collection`
    /// (the entity itself stays; delete it with an `Invalidate` schema).
    pub fn collection_remove(&mut self, collection: &Schema, pk: &str) {
        let Schema::Collection(c) = collection else { return };
        let refs = |v: &Value| {
            pk_string_ref(v).is_some_and(|p| p == pk) || v.get("id").and_then(pk_string_ref).is_some_and(|p| p == pk)
        };
        self.edit_lists(c, None, |_, items| without(items, refs));
    }

    fn collection_add(
        &mut self,
        collection: &Schema,
        item: Value,
        meta: WriteMeta,
        end: End,
    ) -> Result<(), NormalizeError> {
        let schema = match end {
            End::Back => Collection::edit(collection, ListEdit::Push),
            End::Front => Collection::edit(collection, ListEdit::Unshift),
        };
        if !matches!(schema, Schema::CollectionEdit(..)) {
            return Err(NormalizeError::UnexpectedShape {
                expected: "a Collection schema",
                found: "another schema",
                path: String::new(),
            });
        }
        self.write_entities(&schema, item, &Value::Null, meta).map(|_| ())
    }

    /// Applies a staged list edit of a write with `meta`; `before` is the
    /// item's stored object before this write (what a move's item matched).
    pub(crate) fn edit_lists_with(&mut self, staged: &StagedListEdit, before: Option<&Object>, meta: EntityMeta) {
        let meta = Some(meta);
        let StagedListEdit { collection, reference, fields, edit } = staged;
        let matches = |args: &Object| collection.accepts(args, fields);
        match edit {
            ListEdit::Push | ListEdit::Unshift => self.edit_lists(collection, meta, |args, items| {
                let Value::Array(items) = items else { return false };
                if !matches(args) || items.contains(reference) {
                    return false;
                }
                if *edit == ListEdit::Unshift {
                    items.insert(0, reference.clone());
                } else {
                    items.push(reference.clone());
                }
                true
            }),
            ListEdit::Remove => self.edit_lists(collection, meta, |_, items| without(items, |item| item == reference)),
            ListEdit::Move => self.edit_lists(collection, meta, |args, items| {
                let Value::Array(items) = items else { return false };
                let (was, is) = (before.is_some_and(|before| collection.accepts(args, before)), matches(args));
                let listed = items.contains(reference);
                if listed && !is {
                    items.retain(|item| item != reference);
                    true
                } else if !listed && is && !was {
                    items.push(reference.clone());
                    true
                } else {
                    false
                }
            }),
            ListEdit::Assign => self.edit_lists(collection, meta, |args, items| {
                let (Value::Object(map), Value::Object(members)) = (items, reference) else { return false };
                if !matches(args) {
                    return false;
                }
                let mut changed = false;
                for (name, member) in members.iter() {
                    if map.get(name) != Some(member) {
                        map.insert(name.clone(), member.clone());
                        changed = true;
                    }
                }
                changed
            }),
        }
    }

    /// The stored object of the item `reference` points to, when the item
    /// schema is an entity's.
    pub(crate) fn stored_item(&self, item: &Schema, reference: &Value) -> Option<Arc<Object>> {
        let Schema::Entity(def) = item else { return None };
        let pk = pk_string_ref(reference)?;
        self.row(def.key, &pk)?.value.clone()
    }

    /// Applies `edit(args, items)` to every stored list (or map); those it
    /// changes get a new version, and the times of the write (`meta`) when
    /// they are not older: a list edited is as new as the edit, so the edit
    /// wins where the list is taken up (another tab).
    fn edit_lists(
        &mut self,
        c: &Collection,
        meta: Option<EntityMeta>,
        mut edit: impl FnMut(&Object, &mut Value) -> bool,
    ) {
        if !self.entities.contains_key(c.name()) {
            return;
        }
        self.note_table(c.def.key);
        let Some(table) = self.entities.get_mut(c.name()) else { return };
        let mut undo = self.undo.as_deref_mut();
        let version = self.version + 1;
        let mut changed = false;
        let mut rows = Vec::new();
        for (index, (pk, row)) in table.rows.iter_mut().enumerate() {
            let Some(object) = row.value.as_deref() else { continue };
            // A list's pk is its args' canonical JSON text.
            let args = match Value::parse(pk.to_string()) {
                Ok(Value::Object(args)) => args,
                _ => Object::new(),
            };
            let empty = || if c.map().is_some() { Value::Object(Object::new()) } else { Value::Array(Vec::new()) };
            let mut items = object.get("items").cloned().unwrap_or_else(empty);
            if edit(&args, &mut items) {
                // The row with its new list (the old one not copied first),
                // and the fields that changed: the list's, when it was there.
                let at = object.keys().position(|key| key.as_str() == "items");
                let updated = match at {
                    Some(at) => Object::from_unique(
                        object
                            .iter()
                            .enumerate()
                            .map(|(i, (key, value))| {
                                let value = if i == at { std::mem::take(&mut items) } else { value.clone() };
                                (key.clone(), value)
                            })
                            .collect(),
                    ),
                    None => {
                        let mut updated = object.clone();
                        updated.insert("items".to_owned(), items);
                        updated
                    }
                };
                let fields = match at {
                    Some(at) if at < 63 => field_bit(at),
                    _ => fields_changed(Some(object), Some(&updated)),
                };
                Self::note_row(undo.as_deref_mut(), c.def.key, index, Some(row));
                row.value = Some(Arc::new(updated));
                row.version = version;
                if let Some(meta) = meta.filter(|meta| meta.not_older_than(&row.meta)) {
                    // An edit is not a fetch: the list's last fetch is kept.
                    row.listed.get_or_insert((row.meta.fetched_at, row.meta.seq));
                    row.meta = meta;
                }
                changed = true;
                rows.push(RowChange { row: Row { table: c.def.key, index }, fields });
            }
        }
        if changed {
            table.version = version;
            self.version = version;
            for change in &rows {
                self.journal.row(version, change.row);
            }
            self.log(|log| log.rows.extend(rows));
        }
    }
}

/// Drops the items (of a list) or members (of a map) `gone` accepts; whether any went.
fn without(items: &mut Value, gone: impl Fn(&Value) -> bool) -> bool {
    match items {
        Value::Array(list) => {
            let count = list.len();
            list.retain(|item| !gone(item));
            list.len() != count
        }
        Value::Object(map) if map.values().any(&gone) => {
            let kept = map.iter().filter(|(_, member)| !gone(member)).map(|(k, v)| (k.clone(), v.clone())).collect();
            *map = Object::from_unique(kept);
            true
        }
        _ => false,
    }
}
