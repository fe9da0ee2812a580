//! What writes changed since the controller last looked: endpoint keys, entity
//! rows whose content changed, and rows that appeared or disappeared. The
//! controller wakes only the readers of these (targeted notification).

use super::topic::{field_bit, FieldMask, Row, RowChange};

/// A log of changes, kept only when a controller asked for it (see
/// [`State::track_changes`](super::State::track_changes)), so a bare `State`
/// never grows one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Endpoint keys whose result, error, status or request changed.
    pub keys: Vec<String>,
    /// Rows whose stored object changed, with [`fields_changed`] of the old
    /// and new objects.
    pub rows: Vec<RowChange>,
    /// Rows that became live or were deleted.
    pub alive: Vec<Row>,
    /// Something no finer entry describes (a reset, a sweep): wake every reader.
    pub everything: bool,
}

impl Changes {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        !self.everything && self.keys.is_empty() && self.rows.is_empty() && self.alive.is_empty()
    }
}

/// Which fields differ between two versions of a row, as a mask: bit `i` for a
/// different value at position `i` (below 63), [`LAYOUT`](crate::LAYOUT) for different keys or
/// order, a difference at a later position, or a row that appeared or went.
/// A reader that looked at the fields of mask `read` (with [`LAYOUT`](crate::LAYOUT) set) can
/// have seen a change only when `read & fields_changed(..) != 0`.
///
/// ```
/// # use rdc_core::{fields_changed, LAYOUT};
/// let a = rdc_core::json!({"id": 1, "name": "Ada"});
/// let b = rdc_core::json!({"id": 1, "name": "Ada L."});
/// assert_eq!(fields_changed(a.as_object(), b.as_object()), 0b10);
/// assert_eq!(fields_changed(a.as_object(), None), u64::MAX);
/// let c = rdc_core::json!({"id": 1});
/// assert_eq!(fields_changed(a.as_object(), c.as_object()) & LAYOUT, LAYOUT);
/// ```
pub fn fields_changed(old: Option<&crate::Object>, new: Option<&crate::Object>) -> FieldMask {
    let (Some(old), Some(new)) = (old, new) else { return u64::MAX };
    if old.len() != new.len() {
        return u64::MAX;
    }
    let mut mask = 0;
    for (i, ((old_key, old_value), (new_key, new_value))) in old.iter().zip(new.iter()).enumerate() {
        if old_key != new_key {
            return u64::MAX;
        }
        if old_value != new_value {
            mask |= field_bit(i);
        }
    }
    mask
}

impl super::State {
    /// Starts (or keeps) logging changes, for [`State::take_changes`](crate::State::take_changes).
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// let mut state = State::default();
    /// state.track_changes();
    /// state.write_plain_result("GET /a", rdc_core::json!(1), WriteMeta::at(0, 1000));
    /// assert_eq!(state.take_changes().keys, vec!["GET /a".to_string()]);
    /// assert!(state.take_changes().is_empty());
    /// ```
    pub fn track_changes(&mut self) {
        self.changes.get_or_insert_with(Box::default);
    }

    /// The changes logged since the last call (empty when not tracking).
    pub fn take_changes(&mut self) -> Changes {
        match self.changes.as_mut() {
            Some(log) => std::mem::take(&mut **log),
            None => Changes::default(),
        }
    }

    /// Whether changes are logged that [`State::take_changes`](crate::State::take_changes) has not taken.
    pub fn has_changes(&self) -> bool {
        self.changes.as_ref().is_some_and(|log| !log.is_empty())
    }

    /// Adds to the change log, when tracking.
    pub(crate) fn log(&mut self, f: impl FnOnce(&mut Changes)) {
        if let Some(log) = self.changes.as_mut() {
            f(log);
        }
    }

    /// Logs that endpoint `key` changed (its request started or ended, say).
    pub fn touch_key(&mut self, key: &str) {
        self.log(|log| log.keys.push(key.to_owned()));
    }
}
