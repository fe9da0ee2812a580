//! The action log: a manager noting the controller's last actions, once per controller.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use rdc_controller::{Action, Controller, Manager};

/// How many actions the log keeps.
const KEPT: usize = 200;

/// One noted action: when, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub at: u64,
    pub what: String,
}

/// The log a controller's devtools share, and what to call when it grows.
#[derive(Clone, Default)]
pub(crate) struct ActionLog {
    entries: Rc<RefCell<VecDeque<Entry>>>,
    on_entry: Rc<RefCell<Option<Rc<dyn Fn()>>>>,
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
        self.entries.borrow().iter().rev().cloned().collect()
    }

    /// Calls `wake` after each new entry (`None`: no one).
    pub fn on_entry(&self, wake: Option<Rc<dyn Fn()>>) {
        *self.on_entry.borrow_mut() = wake;
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
        let mut entries = self.0.entries.borrow_mut();
        entries.push_back(Entry { at: controller.now(), what });
        if entries.len() > KEPT {
            entries.pop_front();
        }
        drop(entries);
        let wake = self.0.on_entry.borrow().clone();
        if let Some(wake) = wake {
            wake();
        }
    }
}
