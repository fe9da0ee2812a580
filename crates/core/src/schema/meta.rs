//! The times an entity is stored with: what entity hooks (`should_update`) are
//! given to decide which data is newer.

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch. Core never reads a clock: callers pass `now`.
pub type Millis = u64;

/// Times attached to a stored entity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityMeta {
    /// When the request that brought this data started.
    pub fetched_at: Millis,
    /// When its response arrived.
    pub date: Millis,
    /// When it stops being fresh.
    pub expires_at: Millis,
    /// Order among data fetched in the same millisecond (the controller's
    /// request sequence; 0 outside a controller).
    #[serde(default)]
    pub seq: u64,
}

impl EntityMeta {
    /// Whether data with this meta was fetched after `other`'s (or with it):
    /// by `fetched_at`, then `seq`. Newer data wins (`Entity::should_update`).
    ///
    /// ```
    /// use rdc_core::EntityMeta;
    /// let first = EntityMeta { fetched_at: 5, seq: 1, ..EntityMeta::default() };
    /// let second = EntityMeta { fetched_at: 5, seq: 2, ..EntityMeta::default() };
    /// assert!(second.not_older_than(&first) && !first.not_older_than(&second));
    /// ```
    pub fn not_older_than(&self, other: &EntityMeta) -> bool {
        (self.fetched_at, self.seq) >= (other.fetched_at, other.seq)
    }
}
