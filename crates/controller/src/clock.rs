//! Time and timers, injected so that core never reads a clock: the browser
//! binding passes `Date.now()` and `setTimeout`; tests pass fakes they advance.

use std::sync::{Arc, Mutex};

use super::sync::lock;

/// Current time in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync {
    /// Now.
    fn now(&self) -> u64;

    /// A random number, to spread reconnects between clients that failed
    /// together (the browser's `Math.random`). The default is worked out from
    /// the time: repeatable, for fakes.
    fn random(&self) -> u64 {
        self.now().wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// The controller's clock: the injected one, except that it never goes
/// back. A step back (NTP, a user) is taken as no time passing; from there
/// it moves on as the clock does. So stored times, all read off it, keep
/// their order, and data stays fresh as long as it had left.
pub(crate) struct Steady {
    /// The last reading of the injected clock, and what it read as here.
    last: std::sync::Mutex<(u64, u64)>,
}

impl Steady {
    /// Starts at `raw`, the injected clock's reading now.
    pub fn new(raw: u64) -> Steady {
        Steady { last: std::sync::Mutex::new((raw, raw)) }
    }

    /// The time for `raw`, the injected clock's reading now.
    pub fn at(&self, raw: u64) -> u64 {
        // Read and moved on under one lock: two threads never both move it from one reading.
        let mut last = super::sync::lock(&self.last);
        let now = last.1.saturating_add(raw.saturating_sub(last.0));
        *last = (raw, now);
        now
    }

    /// How far this clock is ahead of the injected one (the steps back it
    /// held through), as of the last reading.
    pub fn offset(&self) -> u64 {
        let (raw, now) = *super::sync::lock(&self.last);
        now.saturating_sub(raw)
    }
}

/// A process-wide count of controllers, mixed into each one's origin so two
/// controllers on one fake clock (which gives no randomness) differ.
pub(crate) fn origin(clock: &dyn Clock) -> u64 {
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let made = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // An odd multiplier is one to one on the low bits: counts that differ there, differ.
    clock.random() ^ made.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// One-shot timers.
pub trait Timers: Send + Sync {
    /// Calls `callback` after `delay_ms`; returns a handle for [`Timers::cancel`].
    fn set_timeout(&self, delay_ms: u64, callback: Box<dyn FnOnce() + Send>) -> u64;
    /// Cancels a pending timer (no-op when it already ran).
    fn cancel(&self, handle: u64);
}

/// A clock and timers that move only when told: deterministic tests.
///
/// ```
/// use rdc_controller::{Clock, FakeTime, Timers};
/// use std::sync::{atomic::{AtomicU64, Ordering}, Arc};
/// let time = FakeTime::default();
/// let fired = Arc::new(AtomicU64::new(0));
/// let f = fired.clone();
/// time.set_timeout(100, Box::new(move || { f.fetch_add(1, Ordering::SeqCst); }));
/// time.advance(99);
/// assert_eq!(fired.load(Ordering::SeqCst), 0);
/// time.advance(1);
/// assert_eq!((fired.load(Ordering::SeqCst), time.now()), (1, 100));
/// ```
#[derive(Clone, Default)]
pub struct FakeTime {
    inner: Arc<Mutex<FakeInner>>,
}

#[derive(Default)]
struct FakeInner {
    now: u64,
    next_handle: u64,
    pending: Vec<(u64, u64, Box<dyn FnOnce() + Send>)>,
}

impl std::fmt::Debug for FakeTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = lock(&self.inner);
        f.debug_struct("FakeTime").field("now", &inner.now).field("pending", &inner.pending.len()).finish()
    }
}

impl FakeTime {
    /// Moves time forward by `ms`, running due timers in order (timers they set
    /// run too when due). The clock stops at `u64::MAX` ms.
    pub fn advance(&self, ms: u64) {
        let target = lock(&self.inner).now.saturating_add(ms);
        loop {
            let due = {
                let mut inner = lock(&self.inner);
                let next = inner
                    .pending
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.0 <= target)
                    .min_by_key(|(_, t)| (t.0, t.1))
                    .map(|(i, _)| i);
                match next {
                    Some(i) => {
                        let (at, _, callback) = inner.pending.remove(i);
                        inner.now = inner.now.max(at);
                        Some(callback)
                    }
                    None => {
                        inner.now = target;
                        None
                    }
                }
            };
            match due {
                Some(callback) => callback(),
                None => break,
            }
        }
    }

    /// Sets the clock back by `ms`, as NTP or a user may set a wall clock
    /// back. Timers keep the delays they have left (a browser's `setTimeout`
    /// counts elapsed time, not the wall clock), so none runs early or late.
    ///
    /// ```
    /// use rdc_controller::{Clock, FakeTime, Timers};
    /// let time = FakeTime::default();
    /// time.advance(5_000);
    /// time.set_timeout(100, Box::new(|| ()));
    /// time.step_back(3_000);
    /// assert_eq!(time.now(), 2_000);
    /// time.advance(100);
    /// assert_eq!(time.pending(), 0, "the timer ran after its 100 ms");
    /// ```
    pub fn step_back(&self, ms: u64) {
        let mut inner = lock(&self.inner);
        let back = ms.min(inner.now);
        inner.now -= back;
        for timer in &mut inner.pending {
            timer.0 = timer.0.saturating_sub(back);
        }
    }

    /// Timers not yet run.
    pub fn pending(&self) -> usize {
        lock(&self.inner).pending.len()
    }
}

impl Clock for FakeTime {
    fn now(&self) -> u64 {
        lock(&self.inner).now
    }
}

impl Timers for FakeTime {
    fn set_timeout(&self, delay_ms: u64, callback: Box<dyn FnOnce() + Send>) -> u64 {
        let mut inner = lock(&self.inner);
        inner.next_handle += 1;
        let handle = inner.next_handle;
        // A delay past the clock's end (`Duration::MAX` as ms) is due at its end.
        let at = inner.now.saturating_add(delay_ms);
        inner.pending.push((at, handle, callback));
        handle
    }

    fn cancel(&self, handle: u64) {
        lock(&self.inner).pending.retain(|t| t.1 != handle);
    }
}
