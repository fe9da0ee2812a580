//! Managers: app code that sees what the controller does and acts on it (log
//! out on a 401, keep a live stream open while someone reads), as Reactive
//! Data Client's managers do.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::Arc;

use super::sync::{Gate, PerThread, Slot};
use super::{Controller, FetchError};

/// What the controller did, as a [`Manager`] sees it.
#[derive(Debug, Clone, Copy)]
pub enum Action<'a> {
    /// The first mounted reader of `key` came ([`Controller::retain`]).
    Retained {
        /// The endpoint key.
        key: &'a str,
    },
    /// The last mounted reader of `key` left ([`Controller::release`]).
    Released {
        /// The endpoint key.
        key: &'a str,
    },
    /// A request for `key` was sent.
    Sent {
        /// The endpoint key.
        key: &'a str,
    },
    /// A request for `key` answered and its result is stored.
    Resolved {
        /// The endpoint key.
        key: &'a str,
    },
    /// A request for `key` failed (after its retries). `error` is the
    /// [`FetchError`] of the endpoint's error type: see [`Action::error`].
    Failed {
        /// The endpoint key.
        key: &'a str,
        /// A `FetchError<E>` for the endpoint's error type `E`.
        error: &'a dyn Any,
    },
    /// The store was emptied ([`Controller::reset_entire_store`]).
    Reset,
}

impl Action<'_> {
    /// The error of a [`Action::Failed`] from endpoints whose error type is `E`.
    ///
    /// ```
    /// use rdc_controller::{Action, FetchError};
    /// let error = FetchError::Endpoint("refused".to_owned());
    /// let action = Action::Failed { key: "GET /me", error: &error };
    /// assert!(matches!(action.error::<String>(), Some(FetchError::Endpoint(e)) if e == "refused"));
    /// assert!(action.error::<u16>().is_none());
    /// ```
    pub fn error<E: 'static>(&self) -> Option<&FetchError<E>> {
        match self {
            Action::Failed { error, .. } => error.downcast_ref(),
            _ => None,
        }
    }
}

/// Sees each [`Action`] after the controller took it, and may call the
/// controller (reset the store, write to it, fetch).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use rdc_controller::{Action, Controller, FakeTime, LocalTasks, Manager};
/// struct Log(Arc<Mutex<Vec<String>>>);
/// impl Manager for Log {
///     fn on_action(&self, _: &Controller, action: Action<'_>) {
///         if let Action::Retained { key } = action { self.0.lock().unwrap().push(key.to_owned()) }
///     }
/// }
/// let time = FakeTime::default();
/// let controller = Controller::new(time.clone(), time, LocalTasks::default());
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// controller.add_manager(Log(seen.clone()));
/// controller.retain("GET /me");
/// controller.retain("GET /me");
/// assert_eq!(*seen.lock().unwrap(), ["GET /me"], "only the first reader counts");
/// ```
pub trait Manager: Send + Sync {
    /// Called once per action, in the order taken (an action a manager
    /// takes while told of another reaches every manager after that one).
    fn on_action(&self, controller: &Controller, action: Action<'_>);
}

/// The managers, and the actions they took while being told of one: those
/// wait, so every manager hears of an action after the one that caused it.
pub(crate) struct Managers {
    list: Slot<Vec<Arc<dyn Manager>>>,
    /// Per thread, while it tells the managers of an action: what they took
    /// meanwhile (another thread's actions are told on that thread).
    telling: PerThread<VecDeque<Waiting>>,
}

impl Managers {
    pub(crate) fn new(gate: &std::sync::Arc<Gate>) -> Managers {
        Managers { list: Slot::new(gate, "managers", Vec::new()), telling: PerThread::new(gate, "telling") }
    }
}

/// An action taken while managers were being told of another (they hold no
/// borrowed error: a failure always comes from a request's own task).
enum Waiting {
    Retained(String),
    Released(String),
    Sent(String),
    Resolved(String),
    Reset,
}

impl Waiting {
    fn of(action: Action<'_>) -> Option<Waiting> {
        Some(match action {
            Action::Retained { key } => Waiting::Retained(key.to_owned()),
            Action::Released { key } => Waiting::Released(key.to_owned()),
            Action::Sent { key } => Waiting::Sent(key.to_owned()),
            Action::Resolved { key } => Waiting::Resolved(key.to_owned()),
            Action::Reset => Waiting::Reset,
            Action::Failed { .. } => return None,
        })
    }

    fn action(&self) -> Action<'_> {
        match self {
            Waiting::Retained(key) => Action::Retained { key },
            Waiting::Released(key) => Action::Released { key },
            Waiting::Sent(key) => Action::Sent { key },
            Waiting::Resolved(key) => Action::Resolved { key },
            Waiting::Reset => Action::Reset,
        }
    }
}

impl Controller {
    /// Adds `manager`: it sees every action from now on, after those added before it.
    pub fn add_manager(&self, manager: impl Manager + 'static) {
        self.inner.managers.list.borrow_mut().push(Arc::new(manager));
    }

    /// Calls `callback` after `delay_ms` on the controller's timers (fake
    /// time in tests); returns the handle [`Controller::cancel_timer`] takes.
    pub fn set_timer(&self, delay_ms: u64, callback: Box<dyn FnOnce() + Send>) -> u64 {
        self.inner.timers.set_timeout(delay_ms, callback)
    }

    /// Cancels a timer of [`Controller::set_timer`] (nothing when it ran).
    pub fn cancel_timer(&self, handle: u64) {
        self.inner.timers.cancel(handle);
    }

    /// Tells every manager about `action` (none of the controller's state is
    /// borrowed meanwhile, so a manager may call back into it). An action a
    /// manager takes meanwhile is told once every manager heard of this one.
    pub(super) fn dispatch(&self, action: Action<'_>) {
        let managers = &self.inner.managers;
        let telling = managers.telling.is_set();
        if telling {
            if let Some(waiting) = Waiting::of(action) {
                managers.telling.with(|queue| queue.push_back(waiting));
                return;
            }
        } else {
            managers.telling.replace(Some(VecDeque::new()));
        }
        let outer = !telling;
        let _telling = Telling { managers, outer };
        self.tell(action);
        if !outer {
            return;
        }
        loop {
            // Taken out first: a manager told of it may queue another.
            let next = managers.telling.with(VecDeque::pop_front).flatten();
            let Some(waiting) = next else { break };
            self.tell(waiting.action());
        }
    }

    fn tell(&self, action: Action<'_>) {
        let list = self.inner.managers.list.borrow().clone();
        for manager in list {
            manager.on_action(self, action);
        }
    }
}

/// Marks the end of telling, even when a manager panics.
struct Telling<'m> {
    managers: &'m Managers,
    outer: bool,
}

impl Drop for Telling<'_> {
    fn drop(&mut self) {
        if self.outer {
            self.managers.telling.replace(None);
        }
    }
}
