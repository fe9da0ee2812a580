//! Write order: when each answer counts as fetched, so newer data wins.
//!
//! A read's answer counts from when its request was sent: what it shows was
//! true then or later. A mutation's answer is the server's word on a write we
//! made: it counts from when it arrived, so it beats every read sent before
//! then (the server may have served such a read before the write). Mutations
//! keep the order they were sent in: the late answer of an older one counts
//! just before the answer of a newer one that came first.
//!
//! The order is total: a stamp is a time on the controller's clock, which
//! never goes back (`Controller::now`), then a sequence number holding a
//! count within the millisecond, room for late answers, and the
//! controller's origin (random), so no two controllers (tabs) give equal
//! stamps. Stamps taken up from elsewhere move the count on (`Order::saw`):
//! what a tab writes after taking another's write up is newer than it (a
//! count taken up is first lowered below the last one, `MAX_TAKEN_SEQ`).

use std::sync::Mutex;

use super::sync::lock;

/// When an answer counts as fetched: a time and a sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Stamp {
    pub at: u64,
    pub seq: u64,
}

/// The low bits of a sequence number: the origin of the controller that gave it.
const ORIGIN_BITS: u32 = 24;

/// One late answer's room below the stamp after it (20 bits of room, so
/// late answers of older mutations find room just below a newer one's).
const ROOM: u64 = 1 << ORIGIN_BITS;

/// The count within a millisecond sits above the room (20 bits).
const COUNT_SHIFT: u32 = ORIGIN_BITS + 20;

/// The highest sequence number taken up from elsewhere: the last of the
/// count before the cap, so a stamp given after it still has a count to go.
pub(crate) const MAX_TAKEN_SEQ: u64 = ((u64::MAX >> COUNT_SHIFT) << COUNT_SHIFT) - 1;

/// Mutations remembered at most: one that never answers (no time limit) must
/// not keep every later one. Past this, the oldest are forgotten; an answer
/// that comes for one then counts from when it arrived.
const MAX_SENT: usize = 1024;

/// A mutation sent, and the stamp its answer counts from once answered.
struct Sent {
    sent: Stamp,
    answer: Option<Stamp>,
}

/// The controller's last stamp and the mutations that can still order an answer.
pub(crate) struct Order {
    /// This controller's origin (low bits of each sequence number it gives).
    origin: u64,
    /// The latest stamp given or seen, and the mutations sent, oldest first,
    /// from the oldest unanswered one on. One lock: stamps given on two
    /// threads at once still differ and only go up.
    state: Mutex<(Stamp, Vec<Sent>)>,
}

impl Order {
    /// An order whose stamps carry `origin` (its low 24 bits).
    pub fn new(origin: u64) -> Order {
        Order { origin: origin & (ROOM - 1), state: Mutex::new((Stamp { at: 0, seq: 0 }, Vec::new())) }
    }

    /// A stamp for now: a read sent, or a direct write. After every stamp
    /// given or seen, even when `at` is earlier than the last one's time.
    pub fn now(&self, at: u64) -> Stamp {
        self.next(&mut lock(&self.state).0, at)
    }

    /// `now`, with the state locked.
    fn next(&self, last_given: &mut Stamp, at: u64) -> Stamp {
        let last = *last_given;
        let stamp = if at > last.at {
            Stamp { at, seq: (1 << COUNT_SHIFT) | self.origin }
        } else {
            // Past the last count (a full millisecond keeps its last count: ties go to the later write).
            let count = (last.seq >> COUNT_SHIFT).saturating_add(1).min(u64::MAX >> COUNT_SHIFT);
            Stamp { at: last.at, seq: (count << COUNT_SHIFT) | self.origin }
        };
        *last_given = stamp.max(last);
        stamp
    }

    /// A stamp taken up from elsewhere: every stamp given from now on is after it.
    pub fn saw(&self, stamp: Stamp) {
        let mut state = lock(&self.state);
        state.0 = state.0.max(stamp);
    }

    /// A mutation sent at `at`: its stamp, for [`Order::answered`].
    pub fn mutation(&self, at: u64) -> Stamp {
        let mut state = lock(&self.state);
        let (last, list) = &mut *state;
        let sent = self.next(last, at);
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
        let mut state = lock(&self.state);
        let (last, list) = &mut *state;
        let mut stamp = self.next(last, at);
        let later = list.iter().filter(|m| m.sent > sent).filter_map(|m| m.answer);
        if let Some(first) = later.min() {
            stamp = stamp.min(Stamp { at: first.at, seq: first.seq.saturating_sub(ROOM) });
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
        let order = Order::new(7);
        let _hung = order.mutation(0);
        for at in 1..10_000 {
            let sent = order.mutation(at);
            order.answered(sent, at);
        }
        assert!(lock(&order.state).1.len() <= MAX_SENT);
    }

    #[test]
    fn a_late_answer_counts_just_before_the_newer_one_that_came_first() {
        let order = Order::new(7);
        let first = order.mutation(1);
        let second = order.mutation(2);
        let newer = order.answered(second, 3);
        let older = order.answered(first, 4);
        assert!(older < newer && older > second, "{older:?} {newer:?}");
        assert!(lock(&order.state).1.is_empty(), "nothing pending: nothing kept");
    }
}

#[cfg(test)]
mod total {
    use super::*;

    #[test]
    fn two_origins_never_give_equal_stamps_and_a_stamp_seen_comes_before_the_next_given() {
        let (a, b) = (Order::new(1), Order::new(2));
        let (x, y) = (a.now(5), b.now(5));
        assert_ne!(x, y);
        b.saw(a.now(5));
        let after = b.now(5);
        assert!(after > a.now(4) && after.at == 5, "{after:?}");
        // The clock going back gives no earlier stamp.
        assert!(b.now(3) > after);
    }
}
