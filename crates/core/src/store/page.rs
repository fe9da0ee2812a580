//! A store sent with a server-rendered page: the copy taken on the server and
//! how the browser's store takes it up.

use crate::store::State;
use crate::Millis;

/// The longest an error taken up from elsewhere counts (then a read asks again).
const TAKEN_ERROR_MS: Millis = 60_000;

/// The longest data taken up from elsewhere stays fresh after it was fetched
/// (a day): a far-future or "never" `expires_at` does not pin it.
const TAKEN_FRESH_MS: Millis = 24 * 60 * 60 * 1000;

impl State {
    /// The data alone, without the change log or undo record (for inspection
    /// or saving).
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// let mut state = State::default();
    /// state.track_changes();
    /// state.write_plain_result("GET /a", rdc_core::json!(1), WriteMeta::at(0, 1000));
    /// let mut copy = state.data_copy();
    /// assert!(copy.take_changes().is_empty());
    /// assert_eq!(copy.result("GET /a").map(|r| (*r.value).clone()), Some(rdc_core::json!(1)));
    /// ```
    pub fn data_copy(&self) -> State {
        State {
            entities: self.entities.clone(),
            results: self.results.clone(),
            errors: self.errors.clone(),
            version: self.version,
            changes: None,
            undo: None,
            journal: Default::default(),
            // Derived data: a copy builds its own when it needs them.
            indexes: Default::default(),
        }
    }

    /// What a server-rendered page carries: [`State::data_copy`] without the
    /// errors of keys that have a result.
    pub fn page_copy(&self) -> State {
        let mut copy = self.data_copy();
        let State { results, errors, .. } = &mut copy;
        errors.retain(|key, _| !results.contains_key(key));
        copy
    }

    /// Empties the store: a new version, every reader told, change tracking
    /// kept as it was.
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// let mut state = State::default();
    /// state.track_changes();
    /// state.write_plain_result("GET /a", rdc_core::json!(1), WriteMeta::at(0, 1000));
    /// let version = state.version();
    /// state.clear();
    /// assert!(state.result("GET /a").is_none() && state.version() > version);
    /// assert!(state.take_changes().everything);
    /// ```
    pub fn clear(&mut self) {
        let tracking = self.changes.is_some();
        *self = State { version: self.version + 1, ..State::default() };
        if tracking {
            self.track_changes();
            self.log(|log| log.everything = true);
        }
    }

    /// Takes up `page`, a store taken elsewhere, each of its times moved by
    /// `shift` onto this store's clock, which reads `now`. Nothing taken up
    /// is later than `now`: a row, result or error whose fetch or arrival
    /// time still is has all its times moved back by as much (its freshness
    /// kept), so it never counts as newer than what is fetched from now on;
    /// what is taken up stays fresh for a day after its fetch at most (a
    /// far-future `expires_at` does not pin it), and an error counts for a
    /// minute at most. Newer data wins, in the
    /// order writes use (fetch time, then sequence number, which no two
    /// stores share): a row or result held already is kept unless the
    /// page's was fetched after it, and then the page's replaces it whole
    /// (it is the other store's merged row: no field merge or entity hook
    /// runs again). An error is taken only for a key holding nothing.
    /// Returns how many results were new.
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// let mut server = State::default();
    /// server.write_plain_result("GET /a", rdc_core::json!("new"), WriteMeta::at(1_000, 60_000));
    /// let mut browser = State::default();
    /// // The browser's clock is 500 ms behind the server's.
    /// assert_eq!(browser.take_up(server.page_copy(), |at| at - 500, 600), 1);
    /// assert_eq!(browser.result("GET /a").map(|r| r.meta.fetched_at), Some(500));
    /// // A page whose times are ahead of the clock is moved back.
    /// let mut behind = State::default();
    /// behind.take_up(server.page_copy(), |at| at, 400);
    /// let meta = behind.result("GET /a").map(|r| r.meta);
    /// assert_eq!(meta.map(|m| (m.fetched_at, m.expires_at)), Some((400, 60_400)));
    /// ```
    pub fn take_up(&mut self, page: State, shift: impl Fn(Millis) -> Millis, now: Millis) -> usize {
        // Shifted onto this clock, then back by as much as the first two are
        // still ahead of `now` ("never" is not shifted, only capped).
        let rebase = |times: [&mut Millis; 3]| {
            let [first, second, until] = times;
            for at in [&mut *first, &mut *second, &mut *until] {
                if *at != Millis::MAX {
                    *at = shift(*at);
                }
            }
            let ahead = (*first).max(*second).saturating_sub(now);
            for at in [&mut *first, &mut *second, &mut *until] {
                if *at != Millis::MAX {
                    *at = at.saturating_sub(ahead);
                }
            }
            // Fresh for a day after it was fetched at most.
            *until = (*until).min(first.saturating_add(TAKEN_FRESH_MS));
            ahead
        };
        let mut taken = 0;
        // Local versions only: what the page counted says nothing here (and may be anything).
        self.version += 1;
        let version = self.version;
        for (type_key, table) in page.entities {
            let own = self.entities.entry(type_key.clone()).or_default();
            let covered = self.indexes.covers(&type_key);
            for (pk, mut row) in table.rows {
                let meta = &mut row.meta;
                let ahead = rebase([&mut meta.fetched_at, &mut meta.date, &mut meta.expires_at]);
                if let Some((listed, _)) = &mut row.listed {
                    *listed = shift(*listed).saturating_sub(ahead).min(meta.fetched_at);
                }
                if own.rows.get(&pk).is_some_and(|held| held.meta.not_older_than(&row.meta)) {
                    continue;
                }
                row.version = version;
                let new = covered.then(|| row.value.clone());
                let (at, old) = own.rows.insert_full(pk, row);
                // The index holds the key the table keeps.
                if let (Some(new), Some((pk, _))) = (new, own.rows.get_index(at)) {
                    self.indexes.update(&type_key, pk, old.and_then(|o| o.value).as_deref(), new.as_deref());
                }
            }
            own.version = version;
        }
        for (key, mut result) in page.results {
            let meta = &mut result.meta;
            rebase([&mut meta.fetched_at, &mut meta.date, &mut meta.expires_at]);
            let held = self.results.get(&key).map(|r| (r.meta.fetched_at, r.meta.seq));
            if held.is_some_and(|held| held >= (result.meta.fetched_at, result.meta.seq)) {
                continue;
            }
            result.version = version;
            taken += usize::from(self.results.insert(key, result).is_none());
        }
        for (key, mut error) in page.errors {
            if self.results.contains_key(&key) || self.errors.contains_key(&key) {
                continue;
            }
            let mut date = error.date;
            rebase([&mut error.date, &mut date, &mut error.expires_at]);
            error.expires_at = error.expires_at.min(now.saturating_add(TAKEN_ERROR_MS));
            self.errors.insert(key, error);
        }
        self.log(|log| log.everything = true);
        taken
    }

    /// Lowers every sequence number (of rows and results) above `max` to
    /// `max`, so that the taker can still order its own writes after them.
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// let mut state = State::default();
    /// let meta = WriteMeta { seq: u64::MAX, ..WriteMeta::at(1_000, 60_000) };
    /// state.write_plain_result("GET /a", rdc_core::json!(1), meta);
    /// state.cap_seqs(7);
    /// assert_eq!(state.result("GET /a").map(|r| r.meta.seq), Some(7));
    /// ```
    pub fn cap_seqs(&mut self, max: u64) {
        let rows = self.entities.values_mut().flat_map(|table| table.rows.values_mut());
        for row in rows {
            row.meta.seq = row.meta.seq.min(max);
            if let Some((_, seq)) = &mut row.listed {
                *seq = (*seq).min(max);
            }
        }
        for result in self.results.values_mut() {
            result.meta.seq = result.meta.seq.min(max);
        }
    }

    /// Makes the results at `keys` stale (shown, but fetched again on next use).
    pub fn expire_results(&mut self, keys: impl IntoIterator<Item = String>) {
        self.version += 1;
        for key in keys {
            if let Some(result) = self.results.get_mut(&key) {
                result.meta.expires_at = 0;
                self.log(|log| log.keys.push(key));
            }
        }
    }
}

/// Where the change log stood: [`State::changed_since`] takes what came after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeMark {
    rows: usize,
    alive: usize,
    keys: usize,
}

impl State {
    /// Where the change log stands now (`None` when changes are not tracked).
    pub fn change_mark(&self) -> Option<ChangeMark> {
        let log = self.changes.as_deref()?;
        Some(ChangeMark { rows: log.rows.len(), alive: log.alive.len(), keys: log.keys.len() })
    }

    /// A store holding what changed since `mark`: the rows written (live or
    /// deleted) and the results written, as they now stand (another tab takes
    /// it up as a page's store, newer data winning).
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// let mut state = State::default();
    /// state.track_changes();
    /// state.write_plain_result("GET /a", rdc_core::json!(1), WriteMeta::at(0, 1000));
    /// let mark = state.change_mark().unwrap();
    /// state.write_plain_result("GET /b", rdc_core::json!(2), WriteMeta::at(1, 1000));
    /// let slice = state.changed_since(mark);
    /// assert_eq!((slice.result("GET /a").is_some(), slice.result("GET /b").is_some()), (false, true));
    /// ```
    pub fn changed_since(&self, mark: ChangeMark) -> State {
        let mut slice = State::default();
        let Some(log) = self.changes.as_deref() else { return slice };
        let rows =
            log.rows.iter().skip(mark.rows).map(|change| change.row).chain(log.alive.iter().skip(mark.alive).copied());
        for row in rows {
            let Some((pk, stored)) = self.entities.get(row.table).and_then(|t| t.rows.get_index(row.index)) else {
                continue;
            };
            slice.entities.entry(row.table.to_owned()).or_default().rows.insert(pk.clone(), stored.clone());
        }
        for key in log.keys.iter().skip(mark.keys) {
            if let Some(result) = self.results.get(key) {
                slice.results.insert(key.clone(), result.clone());
            }
        }
        slice.version = self.version;
        slice
    }

    /// Whether rows or results were written since `mark` (a key whose error
    /// or request alone changed does not count).
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// let mut state = State::default();
    /// state.track_changes();
    /// let mark = state.change_mark().unwrap();
    /// assert!(!state.wrote_data_since(mark));
    /// state.write_plain_result("GET /a", rdc_core::json!(1), WriteMeta::at(0, 1000));
    /// assert!(state.wrote_data_since(mark));
    /// ```
    pub fn wrote_data_since(&self, mark: ChangeMark) -> bool {
        let Some(log) = self.changes.as_deref() else { return false };
        log.rows.len() > mark.rows
            || log.alive.len() > mark.alive
            || log.keys.iter().skip(mark.keys).any(|key| self.results.contains_key(key))
    }

    /// Whether the store holds no rows and no results.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty() && self.entities.values().all(|t| t.rows.is_empty())
    }
}
