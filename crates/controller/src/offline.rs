//! Mutations made offline: shown at once by their optimistic layer, held in
//! order, and sent one after another once the browser is online again.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use super::sync::{lock, Gate, Slot};
use super::{Abort, Controller};

/// The key readers of the queue's length note, so they wake when it changes.
const QUEUE_KEY: &str = "rdc:offline-queue";

/// A held mutation: whether it may go, and the task to wake when it may.
#[derive(Default)]
pub(crate) struct Ticket {
    /// Whether it may go, and the task waiting for that (one lock: a release
    /// between the check and the wait would be lost).
    go: Mutex<(bool, Option<Waker>)>,
    /// The mutation as saved with the store (`replay.rs`).
    #[cfg(feature = "persist")]
    saved: Option<crate::SavedMutation>,
}

impl Ticket {
    fn release(&self) {
        let waker = {
            let mut go = lock(&self.go);
            go.0 = true;
            go.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The held mutations, oldest first, and the one on the wire.
pub(crate) struct Queue {
    offline: Slot<bool>,
    held: Slot<VecDeque<Arc<Ticket>>>,
    sending: Slot<Option<Arc<Ticket>>>,
    /// Whether the next mutation takes a ticket even when it could go at
    /// once: the first sent again after a reload, so it stays saved until
    /// it answers, as it was before.
    #[cfg(feature = "persist")]
    ticket_next: Slot<bool>,
}

impl Queue {
    pub(crate) fn new(gate: &std::sync::Arc<Gate>) -> Queue {
        Queue {
            offline: Slot::new(gate, "queue.offline", false),
            held: Slot::new(gate, "queue.held", VecDeque::new()),
            sending: Slot::new(gate, "queue.sending", None),
            #[cfg(feature = "persist")]
            ticket_next: Slot::new(gate, "queue.ticket_next", false),
        }
    }
}

impl Controller {
    /// Tells the controller whether the browser is online (`DataProvider`
    /// does, from the `online` and `offline` events). Offline, mutations wait
    /// with their optimistic updates shown; online again, they are sent in the
    /// order they were made, each after the one before it answered (or timed
    /// out: a mutation without a time limit whose server never answers holds
    /// the ones behind it).
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

    /// A mutation's turn to be sent: at once when online with none held or
    /// on the wire before it; else when the ones before it answered.
    /// Held, it is saved with the store as `saved` makes it (not when `None`).
    pub(super) fn turn_to_send(
        &self,
        abort: Option<&Abort>,
        #[cfg(feature = "persist")] saved: impl FnOnce() -> Option<crate::SavedMutation>,
    ) -> Turn {
        let queue = &self.inner.queue;
        // Checked and queued at once (no other thread's mutation between).
        let at_once = self.inner.gate.enter();
        #[cfg(feature = "persist")]
        let free = !std::mem::replace(&mut *queue.ticket_next.borrow_mut(), false);
        #[cfg(not(feature = "persist"))]
        let free = true;
        if free && !queue.offline.get() && queue.sending.borrow().is_none() && queue.held.borrow().is_empty() {
            return Turn { ticket: None, abort: None, watching: AtomicBool::new(false) };
        }
        #[cfg(feature = "persist")]
        let ticket = Arc::new(Ticket { saved: saved(), ..Ticket::default() });
        #[cfg(not(feature = "persist"))]
        let ticket = Arc::new(Ticket::default());
        queue.held.borrow_mut().push_back(Arc::clone(&ticket));
        drop(at_once);
        self.queue_changed();
        // Online with none before it (a mutation sent again after a reload), it goes at once.
        self.send_next_held();
        Turn { ticket: Some(ticket), abort: abort.cloned(), watching: AtomicBool::new(false) }
    }

    /// After a turn ends: a held mutation that was let go is now on the wire
    /// (the guard lets the next go when dropped, once it answered); one that
    /// was aborted while held leaves the queue.
    pub(super) fn took_turn(&self, turn: &Turn) -> Option<OnTheWire> {
        let ticket = turn.ticket.as_ref()?;
        let queue = &self.inner.queue;
        let at_once = self.inner.gate.enter();
        if queue.sending.borrow().as_ref().is_some_and(|sending| Arc::ptr_eq(sending, ticket)) {
            return Some(OnTheWire { controller: self.clone(), ticket: Arc::clone(ticket) });
        }
        let held = queue.held.borrow().iter().position(|t| Arc::ptr_eq(t, ticket));
        if let Some(at) = held {
            queue.held.borrow_mut().remove(at);
            drop(at_once);
            self.queue_changed();
        }
        None
    }

    /// Lets every held mutation go at once, after a store reset: each finds
    /// the store reset and is not sent (nothing of one session goes out in
    /// the next). The one on the wire no longer holds the queue: the next
    /// session's mutations do not wait for the last one's answer.
    pub(super) fn drop_held(&self) {
        let at_once = self.inner.gate.enter();
        self.inner.queue.sending.borrow_mut().take();
        // The next session's first mutation is not one sent again after a reload.
        #[cfg(feature = "persist")]
        self.inner.queue.ticket_next.set(false);
        let held: Vec<Arc<Ticket>> = self.inner.queue.held.borrow_mut().drain(..).collect();
        drop(at_once);
        if held.is_empty() {
            return;
        }
        held.iter().for_each(|ticket| ticket.release());
        self.queue_changed();
    }

    /// Lets the oldest held mutation go, when online and none is on the wire.
    fn send_next_held(&self) {
        let queue = &self.inner.queue;
        let at_once = self.inner.gate.enter();
        if queue.offline.get() || queue.sending.borrow().is_some() {
            return;
        }
        let Some(ticket) = queue.held.borrow_mut().pop_front() else { return };
        *queue.sending.borrow_mut() = Some(Arc::clone(&ticket));
        drop(at_once);
        ticket.release();
        self.queue_changed();
    }

    /// Makes the next mutation take a ticket (see `Queue::ticket_next`).
    #[cfg(feature = "persist")]
    pub(super) fn ticket_next_mutation(&self) {
        self.inner.queue.ticket_next.set(true);
    }

    /// The mutations of the queue as saved with the store, oldest first:
    /// the one on the wire (kept until it answers), then the held ones.
    #[cfg(feature = "persist")]
    pub(super) fn saved_queue(&self) -> Vec<crate::SavedMutation> {
        let queue = &self.inner.queue;
        let sending = queue.sending.borrow().clone();
        let held = queue.held.borrow();
        sending.iter().chain(held.iter()).filter_map(|ticket| ticket.saved.clone()).collect()
    }

    fn queue_changed(&self) {
        self.touch_key(QUEUE_KEY);
        self.changed();
        #[cfg(feature = "persist")]
        self.queue_saved_changed();
    }
}

/// A held mutation on the wire: when dropped (it answered, or its task
/// went), the next held one may go.
pub(crate) struct OnTheWire {
    controller: Controller,
    ticket: Arc<Ticket>,
}

impl Drop for OnTheWire {
    fn drop(&mut self) {
        let queue = &self.controller.inner.queue;
        let at_once = self.controller.inner.gate.enter();
        let mine = queue.sending.borrow().as_ref().is_some_and(|sending| Arc::ptr_eq(sending, &self.ticket));
        if mine {
            *queue.sending.borrow_mut() = None;
            drop(at_once);
            // It answered: it leaves the saved queue.
            self.controller.queue_changed();
            self.controller.send_next_held();
        }
    }
}

/// A mutation's turn: ready at once (never held), when its ticket is let go,
/// or when its request is aborted while it waits.
pub(crate) struct Turn {
    ticket: Option<Arc<Ticket>>,
    abort: Option<Abort>,
    /// Whether the abort handle wakes this turn already.
    watching: AtomicBool,
}

impl Future for &Turn {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let Some(ticket) = &self.ticket else { return Poll::Ready(()) };
        {
            // The check and the waker under one lock: a release between them would be lost.
            let mut go = lock(&ticket.go);
            if go.0 {
                return Poll::Ready(());
            }
            go.1 = Some(cx.waker().clone());
        }
        if self.abort.as_ref().is_some_and(Abort::is_aborted) {
            return Poll::Ready(());
        }
        // `on_abort` runs the waker at once when it was aborted meanwhile.
        if let (Some(abort), false) = (&self.abort, self.watching.swap(true, Ordering::SeqCst)) {
            let waker = cx.waker().clone();
            abort.on_abort(move || waker.wake());
        }
        Poll::Pending
    }
}
