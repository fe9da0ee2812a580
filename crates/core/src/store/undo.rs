//! Taking writes back: while recording, every write notes what it replaced, so
//! [`State::undo`] can restore the store exactly as it was. The controller shows
//! optimistic layers this way: it writes them over the store itself and takes
//! them back before each real write (and puts them on again after), so a layer
//! costs what it touched, not a copy of the whole store.

use super::changes::fields_changed;
use super::state::{State, StoredEntity};
use super::topic::{sort_rows, Row, RowChange};
use super::undo_log::{Step, UndoLog};
use crate::ByAddress;

/// The rows [`State::take_back_layers`] restored, as readers saw them, for
/// [`State::keep_unchanged`] once the layers are written again.
#[derive(Debug)]
pub struct TakenBack {
    rows: Vec<TakenRow>,
    /// How many row and liveness changes were logged before the take-back.
    since: (usize, usize),
}

/// A row [`State::take_back`] restored, as it was before.
#[derive(Debug)]
struct TakenRow {
    table: &'static str,
    index: usize,
    pk: crate::json::Text,
    row: StoredEntity,
    /// Whether a recorded write had appended it (taking it back removed it).
    appended: bool,
}

impl State {
    /// Starts recording what writes replace, for [`State::undo`].
    ///
    /// ```
    /// # use rdc_core::{Entity, State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// let mut state = State::default();
    /// state.write_entities(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"}), &rdc_core::json::Value::Null, WriteMeta::at(0, 1000)).unwrap();
    /// state.record_undo();
    /// state.write_entities(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada L."}), &rdc_core::json::Value::Null, WriteMeta::at(1, 1000)).unwrap();
    /// state.write_entities(&User::schema(), rdc_core::json!({"id": "2", "name": "Bob"}), &rdc_core::json::Value::Null, WriteMeta::at(1, 1000)).unwrap();
    /// state.undo();
    /// assert_eq!(state.entity("User", "1").unwrap().value.as_ref().unwrap()["name"], "Ada");
    /// assert!(state.entity("User", "2").is_none());
    /// ```
    pub fn record_undo(&mut self) {
        self.undo.get_or_insert_with(Box::default);
    }

    /// Whether writes are being recorded for [`State::undo`].
    pub fn is_recording_undo(&self) -> bool {
        self.undo.is_some()
    }

    /// Restores every row, table, result and error the writes since
    /// [`State::record_undo`] replaced, stops recording, and logs the restored
    /// rows and keys as changes. The store version still moves on (a memoized
    /// read compares it first). Returns whether rows the writes had appended were
    /// removed: their indices may then hold other rows later.
    pub fn undo(&mut self) -> bool {
        let taken = self.take_back();
        taken.iter().any(|row| row.appended)
    }

    /// [`State::undo`] of what optimistic layers wrote, keeping each row it
    /// restored as readers saw it, for [`State::keep_unchanged`] once the
    /// layers are written again (and recorded anew).
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # use rdc_core::Entity;
    /// let mut state = State::default();
    /// state.record_undo();
    /// let layer = rdc_core::json!({"id": "1", "name": "Ada"});
    /// state.write_entities(&User::schema(), layer.clone(), &rdc_core::json::Value::Null, WriteMeta::at(0, 1000))?;
    /// let taken = state.take_back_layers();
    /// assert!(state.entity("User", "1").is_none());
    /// state.record_undo();
    /// state.write_entities(&User::schema(), layer, &rdc_core::json::Value::Null, WriteMeta::at(0, 1000))?;
    /// // Written again as it was, at the same index: no index moved.
    /// assert!(!state.keep_unchanged(taken));
    /// assert!(state.entity("User", "1").is_some());
    /// # Ok::<(), rdc_core::NormalizeError>(())
    /// ```
    pub fn take_back_layers(&mut self) -> TakenBack {
        let since = self.changes.as_ref().map_or((0, 0), |log| (log.rows.len(), log.alive.len()));
        TakenBack { rows: self.take_back(), since }
    }

    /// [`State::undo`], returning each row it restored as it was before.
    fn take_back(&mut self) -> Vec<TakenRow> {
        let Some(log) = self.undo.take() else { return Vec::new() };
        if log.steps.is_empty() {
            return Vec::new();
        }
        self.version += 1;
        let mut changes = self.changes.take();
        let mut taken: Vec<TakenRow> = Vec::new();
        for step in log.steps.into_iter().rev() {
            match step {
                Step::Row { table, index, prior } => {
                    let Some(rows) = self.entities.get_mut(table).map(|t| &mut t.rows) else { continue };
                    // Newest first: the first step met per row finds it as readers
                    // saw it. Older captures of the same row (its state between two
                    // layer writes, which no reader saw) are dropped below.
                    if let Some((pk, row)) = rows.get_index(index) {
                        taken.push(TakenRow {
                            table,
                            index,
                            pk: pk.clone(),
                            row: row.clone(),
                            appended: prior.is_none(),
                        });
                    }
                    let (old, new) = match prior {
                        Some(prior) => match rows.get_index_mut(index) {
                            Some((pk, row)) => {
                                let old = std::mem::replace(row, prior).value;
                                self.indexes.update(table, pk, old.as_deref(), row.value.as_deref());
                                (old, row.value.clone())
                            }
                            None => continue,
                        },
                        None => {
                            debug_assert_eq!(index + 1, rows.len(), "appended rows are taken back last first");
                            let popped = rows.pop();
                            if let Some((pk, row)) = &popped {
                                self.indexes.update(table, pk, row.value.as_deref(), None);
                            }
                            (popped.and_then(|(_, row)| row.value), None)
                        }
                    };
                    if let Some(log) = changes.as_mut() {
                        if old.is_some() != new.is_some() {
                            log.alive.push(Row { table, index });
                        }
                        let mask = fields_changed(old.as_deref(), new.as_deref());
                        if mask != 0 || old.is_none() != new.is_none() {
                            log.rows.push(RowChange { row: Row { table, index }, fields: mask });
                        }
                    }
                }
                Step::Table { table, prior: Some(version) } => {
                    if let Some(t) = self.entities.get_mut(table) {
                        t.version = version;
                    }
                }
                Step::Table { table, prior: None } => {
                    self.entities.remove(table);
                    self.indexes.clear_table(table);
                }
                Step::Result { key, prior } => {
                    match prior {
                        Some(prior) => self.results.insert(key.clone(), prior),
                        None => self.results.remove(&key),
                    };
                    if let Some(log) = changes.as_mut() {
                        log.keys.push(key);
                    }
                }
                Step::Error { key, prior } => {
                    match prior {
                        Some(prior) => self.errors.insert(key.clone(), prior),
                        None => self.errors.remove(&key),
                    };
                    if let Some(log) = changes.as_mut() {
                        log.keys.push(key);
                    }
                }
            }
        }
        self.changes = changes;
        first_per_row(taken)
    }

    /// After the rows of `taken` were written again: each row that reads
    /// as it did before, at the same index, gets its object and version back
    /// (so memoized reads stay identical), and the changes logged for it since
    /// they were taken back are dropped (no reader could see one).
    /// Returns whether some index a taken row had now holds another row or none
    /// (memoized reads must then stop trusting field comparisons).
    pub fn keep_unchanged(&mut self, taken: TakenBack) -> bool {
        let TakenBack { rows: taken, since } = taken;
        let mut moved = false;
        let mut same: Vec<(ByAddress<str>, usize)> = Vec::new();
        for t in taken {
            let now = self.entities.get_mut(t.table).and_then(|table| table.rows.get_index_mut(t.index));
            match now {
                Some((pk, row)) if *pk == t.pk => {
                    if row.value == t.row.value {
                        row.value = t.row.value;
                        row.version = t.row.version;
                        same.push(Row { table: t.table, index: t.index }.order());
                    }
                }
                _ => moved = true,
            }
        }
        if !same.is_empty() {
            sort_rows(&mut same);
            let unchanged = |row: Row| same.binary_search(&row.order()).is_ok();
            if let Some(log) = self.changes.as_mut() {
                let mut at = 0;
                log.rows.retain(|change| {
                    at += 1;
                    at <= since.0 || !unchanged(change.row)
                });
                let mut at = 0;
                log.alive.retain(|&row| {
                    at += 1;
                    at <= since.1 || !unchanged(row)
                });
            }
        }
        moved
    }

    /// Notes, when recording, that row `index` of `table` is about to be
    /// replaced (`prior`) or appended (`None`).
    pub(super) fn note_row(
        undo: Option<&mut UndoLog>,
        table: &'static str,
        index: usize,
        prior: Option<&StoredEntity>,
    ) {
        if let Some(undo) = undo {
            undo.steps.push(Step::Row { table, index, prior: prior.cloned() });
        }
    }

    /// Notes, when recording, the version of `table` (or its absence) before a write.
    pub(super) fn note_table(&mut self, table: &'static str) {
        if let Some(undo) = self.undo.as_mut() {
            let prior = self.entities.get(table).map(|t| t.version);
            undo.steps.push(Step::Table { table, prior });
        }
    }

    /// Notes, when recording, the result and error of `key` before a write.
    pub(super) fn note_key(&mut self, key: &str, result: bool, error: bool) {
        if let Some(undo) = self.undo.as_mut() {
            if result {
                undo.steps.push(Step::Result { key: key.to_owned(), prior: self.results.get(key).cloned() });
            }
            if error {
                undo.steps.push(Step::Error { key: key.to_owned(), prior: self.errors.get(key).cloned() });
            }
        }
    }
}

/// The first of each row's entries in `taken` (in order), each marked appended
/// if any of its entries was. Linear after one sort, however large the layers.
#[allow(clippy::indexing_slicing, reason = "every place is an index of `taken`, which `keep` and `appended` match")]
fn first_per_row(taken: Vec<TakenRow>) -> Vec<TakenRow> {
    // Each entry's row, then its place: sorted, a row's entries are together,
    // its first one first.
    let mut order: Vec<((ByAddress<str>, usize), usize)> =
        taken.iter().enumerate().map(|(at, t)| (Row { table: t.table, index: t.index }.order(), at)).collect();
    sort_rows(&mut order);
    let mut keep = vec![false; taken.len()];
    let mut appended = vec![false; taken.len()];
    let mut group: Option<((ByAddress<str>, usize), usize)> = None;
    for &(row, at) in &order {
        let is_appended = taken[at].appended;
        match group {
            Some((first_row, first)) if first_row == row => appended[first] |= is_appended,
            _ => {
                group = Some((row, at));
                keep[at] = true;
                appended[at] = is_appended;
            }
        }
    }
    taken
        .into_iter()
        .zip(keep.into_iter().zip(appended))
        .filter(|(_, (kept, _))| *kept)
        .map(|(t, (_, appended))| TakenRow { appended, ..t })
        .collect()
}
