//! The rows the last few writes changed, kept whether or not a controller
//! tracks changes: a memoized read of a list asks which rows changed since
//! it was read, and patches its answer instead of walking the list again.

use super::topic::Row;

/// Most rows kept; past that the journal starts over (a read then falls back
/// to checking everything it depended on).
const CAP: usize = 1024;

/// Every row whose object or liveness changed in the store versions
/// `from + 1 ..= to`, with the version that changed it. A store version that
/// moved without telling the journal (a write that rewrites rows another way)
/// leaves `to` behind the store's version: the journal then says nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Journal {
    from: u64,
    to: u64,
    rows: Vec<(u64, Row)>,
}

impl Journal {
    /// Notes that version `version` changed no row (a result or an error).
    pub fn quiet(&mut self, version: u64) {
        self.at(version);
    }

    /// Notes that version `version` changed `row`.
    pub fn row(&mut self, version: u64, row: Row) {
        self.at(version);
        self.rows.push((version, row));
    }

    /// Moves the journal to `version`, starting over after a gap or when full.
    fn at(&mut self, version: u64) {
        if version == self.to {
            return;
        }
        if version != self.to.wrapping_add(1) || self.rows.len() >= CAP {
            self.rows.clear();
            self.from = version.saturating_sub(1);
        }
        self.to = version;
    }

    /// The rows changed after version `since`, when the journal covers every
    /// write from then to `now` (the store's version).
    pub fn since(&self, since: u64, now: u64) -> Option<impl Iterator<Item = Row> + '_> {
        if self.to != now || since < self.from {
            return None;
        }
        let start = self.rows.partition_point(|(version, _)| *version <= since);
        Some(self.rows.get(start..).unwrap_or(&[]).iter().map(|(_, row)| *row))
    }
}

impl super::State {
    /// The rows (table and index) whose object or liveness changed since the
    /// store was at version `since`, when that is known; `None` when it is not
    /// (too many writes since, or a write the journal does not follow).
    ///
    /// ```
    /// # use rdc_core::{Entity, State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// let mut state = State::default();
    /// state.write_entities(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"}), &rdc_core::json!(null), WriteMeta::at(0, 1000))?;
    /// let before = state.version();
    /// state.write_entities(&User::schema(), rdc_core::json!({"id": "2", "name": "Bo"}), &rdc_core::json!(null), WriteMeta::at(0, 1000))?;
    /// let rows: Vec<_> = state.rows_changed_since(before).unwrap().collect();
    /// assert_eq!((rows.len(), rows[0].index), (1, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rows_changed_since(&self, since: u64) -> Option<impl Iterator<Item = Row> + '_> {
        self.journal.since(since, self.version)
    }
}
