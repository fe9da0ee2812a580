//! The controller's locks: one re-entrant [`Gate`] per controller, and
//! [`Slot`]s (its fields) that are borrowed only through it.
//!
//! Every slot borrow enters the controller's gate first, so one thread at a
//! time holds any of its slots: slot locks never wait on another thread, and
//! a conflicting borrow can only be this thread's own (it panics, as a
//! `RefCell` does). The same thread may enter the gate again (a listener
//! reading the store while a write runs), another thread waits. On one thread
//! (the browser) this behaves exactly as `RefCell`s did.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

thread_local! {
    static TOKEN: u8 = const { 0 };
}

/// This thread's token: the address of a thread-local byte (never 0, and
/// distinct between threads alive at once).
pub(crate) fn thread_token() -> usize {
    TOKEN.with(|byte| byte as *const u8 as usize)
}

/// A re-entrant lock: held by one thread at a time, any number of times.
#[derive(Default)]
pub(crate) struct Gate {
    /// The holding thread's token (0: free) and how many times it entered.
    held: Mutex<(usize, usize)>,
    freed: Condvar,
}

impl Gate {
    fn held(&self) -> MutexGuard<'_, (usize, usize)> {
        // A panic never happens while `held` is locked; recover anyway.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Enters the gate, waiting while another thread holds it.
    pub fn enter(&self) -> Entered<'_> {
        let me = thread_token();
        let mut held = self.held();
        while held.0 != 0 && held.0 != me {
            held = self.freed.wait(held).unwrap_or_else(PoisonError::into_inner);
        }
        held.0 = me;
        held.1 += 1;
        Entered { gate: self }
    }
}

/// The gate entered once; leaving it (on drop) frees it after the last.
pub(crate) struct Entered<'g> {
    gate: &'g Gate,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let mut held = self.gate.held();
        held.1 -= 1;
        if held.1 == 0 {
            held.0 = 0;
            drop(held);
            self.gate.freed.notify_one();
        }
    }
}

/// A controller field: borrowed like a `RefCell`, through the controller's gate.
pub(crate) struct Slot<T> {
    gate: Arc<Gate>,
    name: &'static str,
    value: RwLock<T>,
}

impl<T> Slot<T> {
    /// `value` behind `gate`; `name` is what a conflicting borrow's panic names.
    pub fn new(gate: &Arc<Gate>, name: &'static str, value: T) -> Slot<T> {
        Slot { gate: Arc::clone(gate), name, value: RwLock::new(value) }
    }

    /// Reads the value (this thread may read it again meanwhile, not write it).
    pub fn borrow(&self) -> SlotRef<'_, T> {
        let entered = self.gate.enter();
        let guard = match self.value.try_read() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => self.conflict("mutably"),
        };
        SlotRef { guard, _entered: entered }
    }

    /// Writes the value (nothing else may borrow it meanwhile).
    pub fn borrow_mut(&self) -> SlotMut<'_, T> {
        self.try_borrow_mut().unwrap_or_else(|| self.conflict("already"))
    }

    /// Writes the value unless this thread borrows it already (`None` then).
    pub fn try_borrow_mut(&self) -> Option<SlotMut<'_, T>> {
        let entered = self.gate.enter();
        let guard = match self.value.try_write() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        Some(SlotMut { guard, _entered: entered })
    }

    /// A copy of the value.
    pub fn get(&self) -> T
    where
        T: Copy,
    {
        *self.borrow()
    }

    /// Sets the value.
    pub fn set(&self, value: T) {
        *self.borrow_mut() = value;
    }

    // Only this thread can hold the conflicting borrow (others wait at the gate):
    // the same mistake a `RefCell` reports.
    #[allow(clippy::panic, reason = "a borrow conflict on one thread is a bug, reported as `RefCell` does")]
    fn conflict(&self, how: &str) -> ! {
        panic!("rdc: {} {how} borrowed", self.name)
    }
}

/// A read of a [`Slot`]. The lock guard drops before the gate is left.
pub(crate) struct SlotRef<'s, T> {
    guard: RwLockReadGuard<'s, T>,
    _entered: Entered<'s>,
}

impl<T> std::ops::Deref for SlotRef<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

/// A write of a [`Slot`]. The lock guard drops before the gate is left.
pub(crate) struct SlotMut<'s, T> {
    guard: RwLockWriteGuard<'s, T>,
    _entered: Entered<'s>,
}

impl<T> std::ops::Deref for SlotMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for SlotMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

/// A value per thread, in a slot (absent: `None`): what one thread sets here
/// (the tracked listener it runs, say) is never seen by another.
pub(crate) struct PerThread<T>(Slot<Vec<(usize, T)>>);

impl<T> PerThread<T> {
    /// Empty on every thread.
    pub fn new(gate: &Arc<Gate>, name: &'static str) -> PerThread<T> {
        PerThread(Slot::new(gate, name, Vec::new()))
    }

    /// Sets this thread's value (`None`: clears it), returning the one it had.
    pub fn replace(&self, value: Option<T>) -> Option<T> {
        let me = thread_token();
        let mut all = self.0.borrow_mut();
        let at = all.iter().position(|(token, _)| *token == me);
        match (at, value) {
            (Some(at), Some(value)) => all.get_mut(at).map(|(_, held)| std::mem::replace(held, value)),
            (Some(at), None) => Some(all.swap_remove(at).1),
            (None, Some(value)) => {
                all.push((me, value));
                None
            }
            (None, None) => None,
        }
    }

    /// Whether this thread has a value.
    pub fn is_set(&self) -> bool {
        let me = thread_token();
        self.0.borrow().iter().any(|(token, _)| *token == me)
    }

    /// Runs `f` on this thread's value, if it has one.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        let me = thread_token();
        let mut all = self.0.borrow_mut();
        all.iter_mut().find(|(token, _)| *token == me).map(|(_, value)| f(value))
    }
}

/// Locks a leaf mutex (one that is never held while calling anything),
/// recovering it from a panic elsewhere.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn the_same_thread_enters_again() {
        let gate = Arc::new(Gate::default());
        let slot = Slot::new(&gate, "slot", 1);
        let outer = slot.borrow();
        let inner = slot.borrow();
        assert_eq!(*outer + *inner, 2);
    }

    #[test]
    #[should_panic(expected = "rdc: slot already borrowed")]
    fn a_conflicting_borrow_on_one_thread_panics_as_refcell_does() {
        let gate = Arc::new(Gate::default());
        let slot = Slot::new(&gate, "slot", 1);
        let _read = slot.borrow();
        let _write = slot.borrow_mut();
    }

    #[test]
    fn another_thread_waits_for_the_gate() {
        let gate = Arc::new(Gate::default());
        let slot = Arc::new(Slot::new(&gate, "slot", 0));
        let other = Arc::new(Slot::new(&gate, "other", 0));
        let held = slot.borrow_mut();
        let (slot2, other2) = (Arc::clone(&slot), Arc::clone(&other));
        // Another slot of the same gate: the thread waits until this one leaves.
        let waiter = std::thread::spawn(move || {
            *other2.borrow_mut() += 1;
            *slot2.borrow()
        });
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(*other.borrow(), 0, "the other thread got in while the gate was held");
        drop(held);
        slot.set(7);
        let seen = waiter.join().unwrap();
        assert!(seen == 0 || seen == 7);
        assert_eq!(other.get(), 1);
    }

    #[test]
    fn a_panic_under_a_borrow_leaves_the_slot_usable() {
        let gate = Arc::new(Gate::default());
        let slot = Arc::new(Slot::new(&gate, "slot", 1));
        let s = Arc::clone(&slot);
        let _ = std::thread::spawn(move || {
            let _write = s.borrow_mut();
            panic!("listener failed");
        })
        .join();
        slot.set(2);
        assert_eq!(slot.get(), 2);
    }

    #[test]
    fn counts_stay_exact_under_threads() {
        let gate = Arc::new(Gate::default());
        let slot = Arc::new(Slot::new(&gate, "slot", 0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let slot = Arc::clone(&slot);
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        let mut value = slot.borrow_mut();
                        *value += 1;
                        // Re-entered while held: no deadlock.
                        drop(slot.gate.enter());
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(slot.get(), 40_000);
    }

    #[test]
    fn per_thread_values_stay_apart() {
        let gate = Arc::new(Gate::default());
        let values = Arc::new(PerThread::<usize>::new(&gate, "values"));
        assert_eq!(values.replace(Some(1)), None);
        let seen = Arc::new(AtomicUsize::new(0));
        let (v, s) = (Arc::clone(&values), Arc::clone(&seen));
        std::thread::spawn(move || {
            s.store(usize::from(v.is_set()) + 10, Ordering::SeqCst);
            v.replace(Some(2));
        })
        .join()
        .unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 10, "another thread saw this one's value");
        assert_eq!(values.with(|v| *v), Some(1));
        assert_eq!(values.replace(None), Some(1));
        assert!(!values.is_set());
    }
}
