//! What a recording store notes of each write: the prior rows, tables, results
//! and errors, for `State::undo` (`undo.rs`).

use super::state::{ErrorEntry, ResultEntry, StoredEntity};

/// What one write replaced, in the order the writes happened.
#[derive(Debug, Clone, Default)]
pub(crate) struct UndoLog {
    pub(super) steps: Vec<Step>,
}

#[derive(Debug, Clone)]
pub(super) enum Step {
    /// A row of table `table` at `index` was replaced (`Some`) or appended (`None`).
    Row {
        table: &'static str,
        index: usize,
        prior: Option<StoredEntity>,
    },
    /// The version of table `table` before a write, or `None` when the write created it.
    Table {
        table: &'static str,
        prior: Option<u64>,
    },
    Result {
        key: String,
        prior: Option<ResultEntry>,
    },
    Error {
        key: String,
        prior: Option<ErrorEntry>,
    },
}
