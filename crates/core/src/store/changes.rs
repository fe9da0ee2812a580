//! What writes changed since the controller last looked: endpoint keys, entity
//! rows whose content changed, and rows that appeared or disappeared. The
//! controller wakes only the readers of these (targeted notification).

/// A log of changes, kept only when a controller asked for it (see
/// [`State::track_changes`](super::State::track_changes)), so a bare `State`
/// never grows one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Endpoint keys whose result, error, status or request changed.
    pub keys: Vec<String>,
    /// Rows (table key, row index) whose stored object changed.
    pub rows: Vec<(&'static str, usize)>,
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

impl super::State {
    /// Starts (or keeps) logging changes, for [`State::take_changes`].
    ///
    /// ```
    /// # use rdc_core::{State, WriteMeta};
    /// let mut state = State::default();
    /// state.track_changes();
    /// state.write_plain_result("GET /a", serde_json::json!(1), WriteMeta::at(0, 1000));
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
