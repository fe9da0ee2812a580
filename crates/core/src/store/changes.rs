//! What writes changed since the controller last looked: endpoint keys, entity
//! rows whose content changed, and rows that appeared or disappeared. The
//! controller wakes only the readers of these (targeted notification).

use crate::ByAddress;

/// A log of changes, kept only when a controller asked for it (see
/// [`State::track_changes`](super::State::track_changes)), so a bare `State`
/// never grows one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Endpoint keys whose result, error, status or request changed.
    pub keys: Vec<String>,
    /// Rows (table key, row index, changed fields) whose stored object changed;
    /// the mask is [`fields_changed`] of the old and new objects.
    pub rows: Vec<(&'static str, usize, u64)>,
    /// Rows (table key, row index) that became live or were deleted.
    pub alive: Vec<(&'static str, usize)>,
    /// Something no finer entry describes (a reset, a sweep): wake every reader.
    pub everything: bool,
}

impl Changes {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        !self.everything && self.keys.is_empty() && self.rows.is_empty() && self.alive.is_empty()
    }
}

/// The bit a change sets when an object's keys changed (or a field at position
/// 63 or later): every reader of the row must look again.
pub const LAYOUT: u64 = 1 << 63;

/// Which fields differ between two versions of a row, as a mask: bit `i` for a
/// different value at position `i` (below 63), [`LAYOUT`] for different keys or
/// order, a difference at a later position, or a row that appeared or went.
/// A reader that looked at the fields of mask `read` (with [`LAYOUT`] set) can
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
pub fn fields_changed(old: Option<&crate::Object>, new: Option<&crate::Object>) -> u64 {
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
            mask |= if i < 63 { 1 << i } else { LAYOUT };
        }
    }
    mask
}

/// A row by its table's key and its index, with a number beside it (the
/// fields read or changed, as a [`fields_changed`] mask, or an ordinal).
pub type RowWith = ((&'static str, usize), u64);

/// A liveness topic's index: its row's index with this bit set. Topics are
/// what readers depend on and writes change: a row's fields at the row's
/// index, whether it is live at `index | ALIVE`, and a whole table at [`TABLE`].
pub const ALIVE: usize = 1 << (usize::BITS - 1);
/// A whole table's topic index (see [`ALIVE`]).
pub const TABLE: usize = usize::MAX;

/// Sorts rows by the address of their table key, then index, then the number
/// beside them (one sort for every such list in rdc: one copy in the binary).
/// Rows mostly come in runs of increasing index, which
/// [`merge_runs`](crate::sort::merge_runs) merges in about linear time.
/// Repeats of a row keep their order when the numbers do (an undo's entries
/// number their places).
pub fn sort_rows(rows: &mut [RowWith]) {
    let key = |&((key, index), n): &RowWith| (ByAddress(key), index, n);
    if rows.len() <= 16 {
        // A few rows: an insertion sort in place (no copies to allocate).
        for i in 1..rows.len() {
            let mut j = i;
            while j > 0 && rows.get(j - 1).map(key) > rows.get(j).map(key) {
                rows.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    let mut keyed: Vec<(ByAddress<str>, usize, u64)> = rows.iter().map(key).collect();
    crate::sort::merge_runs(&mut keyed);
    for (row, (key, index, n)) in rows.iter_mut().zip(keyed) {
        *row = ((key.0, index), n);
    }
}

/// Whether `rows`, sorted by [`sort_rows`], hold `row`.
pub(crate) fn has_row(rows: &[RowWith], (key, index): (&'static str, usize)) -> bool {
    rows.binary_search_by_key(&(ByAddress(key), index), |&((k, i), _)| (ByAddress(k), i)).is_ok()
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

    /// Whether changes are logged that [`State::take_changes`] has not taken.
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
