//! Writes into the store. Each public write normalizes first and commits only
//! when the whole input normalized, so a bad response leaves the store as it was.

use std::sync::Arc;

use serde_json::Value;

use super::state::{ErrorEntry, ResultEntry, ResultMeta, State, StoredEntity, WriteMeta};
use crate::error::NormalizeError;
use crate::normalize::{Normalizer, Staged};
use crate::schema::Schema;

impl State {
    /// Normalizes `value` (the response of endpoint `key`, called with `args`)
    /// and stores its entities and its result. On error nothing changes.
    ///
    /// ```
    /// # use rdc_core::{Entity, Schema, State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// let mut state = State::default();
    /// let bad = serde_json::json!([{ "name": "no id" }]);
    /// let err = state.write_result("GET /users", &Schema::array(User::schema()), bad, &serde_json::json!(null), WriteMeta::at(0, 1000));
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
        self.commit(normalizer.staged, meta);
        let version = self.version;
        let result_meta = ResultMeta {
            fetched_at: meta.fetched_at,
            date: meta.date,
            expires_at: meta.expires_at,
            invalidated: false,
        };
        match self.results.get_mut(key) {
            Some(existing) if existing.meta.fetched_at > meta.fetched_at => {}
            Some(existing) if *existing.value == result => existing.meta = result_meta,
            _ => {
                self.results
                    .insert(key.to_owned(), ResultEntry { value: Arc::new(result), meta: result_meta, version });
            }
        }
        self.errors.remove(key);
        Ok(())
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
        self.commit(normalizer.staged, meta);
        Ok(result)
    }

    /// Records an error for endpoint `key`; the data already stored stays.
    pub fn set_error(&mut self, key: &str, message: impl Into<String>, date: u64, expires_at: u64) {
        self.version += 1;
        self.errors.insert(key.to_owned(), ErrorEntry { message: message.into(), date, expires_at });
    }

    /// Marks the result of `key` invalid: a read must fetch before using it.
    pub fn invalidate_result(&mut self, key: &str) {
        if let Some(entry) = self.results.get_mut(key) {
            entry.meta.invalidated = true;
            self.version += 1;
            entry.version = self.version;
        }
    }

    /// Applies staged entities and deletions as one new store version.
    pub(crate) fn commit(&mut self, staged: Staged, meta: WriteMeta) {
        self.version += 1;
        let version = self.version;
        let incoming_meta = meta.entity_meta();
        for ((key, pk), (def, object)) in staged.entities {
            let table = self.entities.entry(key.to_owned()).or_default();
            match table.rows.get_mut(&pk) {
                Some(row) => {
                    let newer = (def.should_update)(&row.meta, &incoming_meta);
                    let merged = match &row.value {
                        Some(existing) if newer => (def.merge)(existing, &object),
                        Some(existing) => (def.merge)(&object, existing),
                        // A deletion tombstone: only newer data brings the entity back.
                        None if newer => object,
                        None => continue,
                    };
                    if newer {
                        row.meta = incoming_meta;
                    }
                    if row.value.as_deref() != Some(&merged) {
                        row.value = Some(Arc::new(merged));
                        row.version = version;
                        table.version = version;
                    }
                }
                None => {
                    table.rows.insert(pk, StoredEntity { value: Some(Arc::new(object)), meta: incoming_meta, version });
                    table.version = version;
                }
            }
        }
        for (key, pk) in staged.deletes {
            let table = self.entities.entry(key.to_owned()).or_default();
            let tombstone = StoredEntity { value: None, meta: incoming_meta, version };
            match table.rows.get_mut(&pk) {
                Some(row) if row.meta.fetched_at > incoming_meta.fetched_at => {}
                Some(row) => *row = tombstone,
                None => {
                    table.rows.insert(pk, tombstone);
                }
            }
            table.version = version;
        }
    }
}
