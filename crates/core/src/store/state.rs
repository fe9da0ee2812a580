//! The store's data: entities by (type key, pk) with meta, results per endpoint
//! key, errors, and a version counter reads are memoized against.

use std::sync::Arc;

use crate::json::{Text, Value};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::schema::Object;

pub use rdc_json::FastMap;

pub use crate::schema::{EntityMeta, Millis};

/// Times for one write, from the request that produced it.
///
/// ```
/// let meta = rdc_core::WriteMeta::at(1_000, 60_000);
/// assert_eq!(meta.expires_at, 61_000);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteMeta {
    /// Request start.
    pub fetched_at: Millis,
    /// Response arrival.
    pub date: Millis,
    /// Freshness deadline.
    pub expires_at: Millis,
    /// Order among writes fetched in the same millisecond (see [`EntityMeta::seq`]).
    #[serde(default)]
    pub seq: u64,
}

impl WriteMeta {
    /// A write fetched and answered at `now`, fresh for `expiry_ms`.
    pub fn at(now: Millis, expiry_ms: Millis) -> WriteMeta {
        WriteMeta { fetched_at: now, date: now, expires_at: now.saturating_add(expiry_ms), seq: 0 }
    }

    pub(crate) fn entity_meta(&self) -> EntityMeta {
        EntityMeta { fetched_at: self.fetched_at, date: self.date, expires_at: self.expires_at, seq: self.seq }
    }
}

/// One stored entity: its normalized object (nested entities replaced by
/// references), its meta, and the store version that last wrote it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredEntity {
    /// The normalized object; `None` once deleted (a tombstone keeps its place).
    pub value: Option<Arc<Object>>,
    /// Fetch times.
    pub meta: EntityMeta,
    /// Store version of the last write.
    pub version: u64,
    /// A list's last fetch (`fetched_at`, `seq`) when an edit (push, remove,
    /// move) has moved `meta` past it since; `None` when `meta` is that fetch;
    /// `(0, 0)` while only pages have written the list. A further page asked
    /// for before this is dropped, one asked before an edit is not; a fetch of
    /// the list asked for after this but answered late goes in front.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<(Millis, u64)>,
}

impl StoredEntity {
    /// Whether data fetched with `meta` was asked for no earlier than this
    /// row's last fetch (edits of a list do not count).
    ///
    /// ```
    /// use rdc_core::{EntityMeta, StoredEntity};
    /// let at = |fetched_at| EntityMeta { fetched_at, ..EntityMeta::default() };
    /// let row = StoredEntity { value: None, meta: at(5), version: 1, listed: Some((3, 0)) };
    /// assert!(row.fetched_not_after(&at(4)) && !row.fetched_not_after(&at(2)));
    /// ```
    pub fn fetched_not_after(&self, meta: &EntityMeta) -> bool {
        self.listed.unwrap_or((self.meta.fetched_at, self.meta.seq)) <= (meta.fetched_at, meta.seq)
    }
}

/// All entities of one type key, in first-stored order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EntityTable {
    /// Store version of the last write to any entity of this type.
    pub version: u64,
    /// Entities by primary key.
    pub rows: IndexMap<Text, StoredEntity, foldhash::fast::RandomState>,
}

/// Times of a stored endpoint result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultMeta {
    /// Request start.
    pub fetched_at: Millis,
    /// Response arrival.
    pub date: Millis,
    /// Freshness deadline.
    pub expires_at: Millis,
    /// Set by invalidation: the result must be fetched again before use.
    pub invalidated: bool,
    /// Order among results fetched in the same millisecond (see [`EntityMeta::seq`]).
    #[serde(default)]
    pub seq: u64,
}

/// The normalized result of one endpoint key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResultEntry {
    /// The response with entities replaced by references.
    pub value: Arc<Value>,
    /// Fetch times.
    pub meta: ResultMeta,
    /// Store version of the write.
    pub version: u64,
    /// The args it was written with, kept when its schema met a
    /// [`Scalar`](crate::Scalar): its reads read their lens (also once taken
    /// up by another store). Absent in stores saved before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Arc<Value>>,
}

/// The last error of one endpoint key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorEntry {
    /// The error, as text (typed errors live with the caller).
    pub message: String,
    /// When it happened.
    pub date: Millis,
    /// When the error stops counting (then a read fetches again).
    pub expires_at: Millis,
}

/// The whole store. Serializable, so it can be inspected, saved or sent.
///
/// ```
/// let state = rdc_core::State::default();
/// assert_eq!(state.version(), 0);
/// assert!(state.entity("User", "1").is_none());
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    pub(crate) entities: FastMap<String, EntityTable>,
    pub(crate) results: FastMap<String, ResultEntry>,
    pub(crate) errors: FastMap<String, ErrorEntry>,
    pub(crate) version: u64,
    /// What changed since the controller last looked (only when tracking).
    #[serde(skip)]
    pub(crate) changes: Option<Box<super::Changes>>,
    /// What writes replaced since [`State::record_undo`] (only when recording).
    #[serde(skip)]
    pub(crate) undo: Option<Box<super::undo_log::UndoLog>>,
    /// The rows the last writes changed (see [`State::rows_changed_since`]).
    #[serde(skip)]
    pub(crate) journal: super::journal::Journal,
    /// Declared unique indexes, kept by every write (see `index.rs`).
    #[serde(skip)]
    pub(crate) indexes: super::index::Indexes,
}

impl State {
    /// Increments on every write; a read memoized at this version is still valid.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The stored (not deleted) entity `key`/`pk`.
    pub fn entity(&self, key: &str, pk: &str) -> Option<&StoredEntity> {
        self.row(key, pk).filter(|row| row.value.is_some())
    }

    /// The stored row, including a deletion tombstone.
    pub(crate) fn row(&self, key: &str, pk: &str) -> Option<&StoredEntity> {
        self.entities.get(key)?.rows.get(pk)
    }

    /// Every entity table, by type key.
    pub fn tables(&self) -> &FastMap<String, EntityTable> {
        &self.entities
    }

    /// The stored result of an endpoint key.
    pub fn result(&self, key: &str) -> Option<&ResultEntry> {
        self.results.get(key)
    }

    /// Every endpoint key with a stored result.
    pub fn result_keys(&self) -> impl Iterator<Item = &String> {
        self.results.keys()
    }

    /// The last error of an endpoint key.
    pub fn error(&self, key: &str) -> Option<&ErrorEntry> {
        self.errors.get(key)
    }

    /// Number of live (not deleted) entities across all types.
    pub fn entity_count(&self) -> usize {
        self.entities.values().map(|t| t.rows.values().filter(|r| r.value.is_some()).count()).sum()
    }
}
