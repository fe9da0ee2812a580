//! The action log: a manager noting the controller's last actions, once per controller.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rdc_controller::{Action, Controller, Manager};

/// How many actions the log keeps.
const KEPT: usize = 200;

/// What a new entry calls (the open panel re-renders).
pub(crate) type Wake = Arc<dyn Fn() + Send + Sync>;

/// Locks `mutex`, recovering it from a panic elsewhere.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One noted action: when, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub at: u64,
    pub what: String,
}

/// The log a controller's devtools share, and what to call when it grows.
#[derive(Clone, Default)]
pub(crate) struct ActionLog {
    entries: Arc<Mutex<VecDeque<Entry>>>,
    on_entry: Arc<Mutex<Option<Wake>>>,
}

impl ActionLog {
    /// `controller`'s log, started (and its manager added) on first use.
    pub fn of(controller: &Controller) -> ActionLog {
        if let Some(log) = controller.service::<ActionLog>() {
            return log;
        }
        let log = ActionLog::default();
        controller.add_manager(Noting(log.clone()));
        controller.provide(log.clone());
        log
    }

    /// The entries, newest first.
    pub fn newest_first(&self) -> Vec<Entry> {
        lock(&self.entries).iter().rev().cloned().collect()
    }

    /// Calls `wake` after each new entry (`None`: no one).
    pub fn on_entry(&self, wake: Option<Wake>) {
        *lock(&self.on_entry) = wake;
    }
}

struct Noting(ActionLog);

impl Manager for Noting {
    fn on_action(&self, controller: &Controller, action: Action<'_>) {
        let what = match action {
            Action::Retained { key } => format!("first reader of {key}"),
            Action::Released { key } => format!("last reader left {key}"),
            Action::Sent { key } => format!("sent {key}"),
            Action::Resolved { key } => format!("stored {key}"),
            Action::Failed { key, .. } => format!("failed {key}"),
            Action::Reset => "store reset".to_owned(),
        };
        let mut entries = lock(&self.0.entries);
        entries.push_back(Entry { at: controller.now(), what });
        if entries.len() > KEPT {
            entries.pop_front();
        }
        drop(entries);
        let wake = lock(&self.0.on_entry).clone();
        if let Some(wake) = wake {
            wake();
        }
    }
}
