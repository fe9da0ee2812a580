//! Write order: when each answer counts as fetched, so newer data wins.
//!
//! A read's answer counts from when its request was sent: what it shows was
//! true then or later. A mutation's answer is the server's word on a write we
//! made: it counts from when it arrived, so it beats every read sent before
//! then (the server may have served such a read before the write). Mutations
//! keep the order they were sent in: the late answer of an older one counts
//! just before the answer of a newer one that came first. Within a
//! millisecond a per-request sequence number decides.

use std::cell::{Cell, RefCell};

/// When an answer counts as fetched: a time and a sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Stamp {
    pub at: u64,
    pub seq: u64,
}

/// Sequence numbers are given in steps of this, so late answers of older
/// mutations find room just below a newer one's (one number each).
const STEP: u64 = 1 << 20;

/// Mutations remembered at most: one that never answers (no time limit) must
/// not keep every later one. Past this, the oldest are forgotten; an answer
/// that comes for one then counts from when it arrived.
const MAX_SENT: usize = 1024;

/// A mutation sent, and the stamp its answer counts from once answered.
struct Sent {
    sent: Stamp,
    answer: Option<Stamp>,
}

/// The controller's sequence and the mutations that can still order an answer.
#[derive(Default)]
pub(crate) struct Order {
    last: Cell<u64>,
    /// Mutations sent, oldest first, from the oldest unanswered one on.
    sent: RefCell<Vec<Sent>>,
}

impl Order {
    /// A stamp for now: a read sent, or a direct write.
    pub fn now(&self, at: u64) -> Stamp {
        let seq = self.last.get().saturating_add(STEP);
        self.last.set(seq);
        Stamp { at, seq }
    }

    /// A mutation sent at `at`: its stamp, for [`Order::answered`].
    pub fn mutation(&self, at: u64) -> Stamp {
        let sent = self.now(at);
        let mut list = self.sent.borrow_mut();
        if list.len() >= MAX_SENT {
            let excess = list.len() + 1 - MAX_SENT;
            list.drain(..excess);
        }
        list.push(Sent { sent, answer: None });
        sent
    }

    /// The stamp the answer of mutation `sent`, arriving at `at`, counts from:
    /// now, or just before the answer of a mutation sent after it that came first.
    pub fn answered(&self, sent: Stamp, at: u64) -> Stamp {
        let mut stamp = self.now(at);
        let mut list = self.sent.borrow_mut();
        let later = list.iter().filter(|m| m.sent > sent).filter_map(|m| m.answer);
        if let Some(first) = later.min() {
            stamp = stamp.min(Stamp { at: first.at, seq: first.seq.saturating_sub(1) });
        }
        if let Some(own) = list.iter_mut().find(|m| m.sent == sent) {
            own.answer = Some(stamp);
        }
        // Answers before the oldest unanswered mutation can order nothing more.
        let unanswered = list.iter().position(|m| m.answer.is_none()).unwrap_or(list.len());
        list.drain(..unanswered);
        stamp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mutation_that_never_answers_does_not_keep_every_later_one() {
        let order = Order::default();
        let _hung = order.mutation(0);
        for at in 1..10_000 {
            let sent = order.mutation(at);
            order.answered(sent, at);
        }
        assert!(order.sent.borrow().len() <= MAX_SENT);
    }

    #[test]
    fn a_late_answer_counts_just_before_the_newer_one_that_came_first() {
        let order = Order::default();
        let first = order.mutation(1);
        let second = order.mutation(2);
        let newer = order.answered(second, 3);
        let older = order.answered(first, 4);
        assert!(older < newer && older > second, "{older:?} {newer:?}");
        assert!(order.sent.borrow().is_empty(), "nothing pending: nothing kept");
    }
}
