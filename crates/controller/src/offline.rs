//! Mutations made offline: shown at once by their optimistic layer, held in
//! order, and sent one after another once the browser is online again.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::Controller;

/// The key readers of the queue's length note, so they wake when it changes.
const QUEUE_KEY: &str = "rdc:offline-queue";

/// A held mutation: whether it may go, and the task to wake when it may.
#[derive(Default)]
struct Ticket {
    go: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

/// The held mutations, oldest first, and whether one of them is on the wire.
#[derive(Default)]
pub(crate) struct Queue {
    offline: Cell<bool>,
    held: RefCell<VecDeque<Rc<Ticket>>>,
    sending: Cell<bool>,
}

impl Controller {
    /// Tells the controller whether the browser is online (`DataProvider`
    /// does, from the `online` and `offline` events). Offline, mutations wait
    /// with their optimistic updates shown; online again, they are sent in the
    /// order they were made, each after the one before it answered.
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.set_online(false);
    /// assert!(!controller.is_online());
    /// ```
    pub fn set_online(&self, online: bool) {
        self.inner.queue.offline.set(!online);
        if online {
            self.send_next_held();
        }
    }

    /// Whether the controller takes the browser to be online.
    pub fn is_online(&self) -> bool {
        !self.inner.queue.offline.get()
    }

    /// How many mutations wait to be sent (made offline, or made while those
    /// were still going out). A [`Controller::listen_reads`] listener reading
    /// it wakes when it changes.
    pub fn queued_mutations(&self) -> usize {
        self.note_key(QUEUE_KEY);
        self.inner.queue.held.borrow().len()
    }

    /// Resolves when a mutation may be sent: at once when online with none
    /// held before it; else when its turn comes.
    pub(super) fn turn_to_send(&self) -> Turn {
        let queue = &self.inner.queue;
        if !queue.offline.get() && !queue.sending.get() && queue.held.borrow().is_empty() {
            return Turn(None);
        }
        let ticket = Rc::new(Ticket::default());
        queue.held.borrow_mut().push_back(Rc::clone(&ticket));
        self.queue_changed();
        Turn(Some(ticket))
    }

    /// Called when a mutation whose turn came (a held one) has its answer: the next may go.
    pub(super) fn held_one_answered(&self) {
        self.inner.queue.sending.set(false);
        self.send_next_held();
    }

    /// Lets every held mutation go at once, after a store reset: each finds
    /// the store reset and is not sent (nothing of one session goes out in the next).
    pub(super) fn drop_held(&self) {
        let held: Vec<Rc<Ticket>> = self.inner.queue.held.borrow_mut().drain(..).collect();
        for ticket in held {
            ticket.go.set(true);
            if let Some(waker) = ticket.waker.borrow_mut().take() {
                waker.wake();
            }
        }
    }

    /// Lets the oldest held mutation go, when online and none is on the wire.
    fn send_next_held(&self) {
        let queue = &self.inner.queue;
        if queue.offline.get() || queue.sending.get() {
            return;
        }
        let Some(ticket) = queue.held.borrow_mut().pop_front() else { return };
        queue.sending.set(true);
        ticket.go.set(true);
        if let Some(waker) = ticket.waker.borrow_mut().take() {
            waker.wake();
        }
        self.queue_changed();
    }

    fn queue_changed(&self) {
        self.touch_key(QUEUE_KEY);
        self.changed();
    }
}

/// A mutation's turn: ready at once (`None`: it was never held) or when its
/// ticket is let go. [`Turn::was_held`] says whether to call
/// `held_one_answered` once it has its answer.
pub(crate) struct Turn(Option<Rc<Ticket>>);

impl Turn {
    pub(crate) fn was_held(&self) -> bool {
        self.0.is_some()
    }
}

impl Future for &Turn {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match &self.0 {
            Some(ticket) if !ticket.go.get() => {
                *ticket.waker.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            }
            _ => Poll::Ready(()),
        }
    }
}
