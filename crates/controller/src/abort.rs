//! Cancelling a request: an [`Abort`] handle the controller passes to the endpoint.

use std::sync::{Arc, Mutex, MutexGuard};

#[derive(Default)]
struct Inner {
    aborted: bool,
    on_abort: Vec<Box<dyn FnOnce() + Send>>,
}

/// A cancellation handle: clones share it; [`Abort::abort`] runs the callbacks
/// registered with [`Abort::on_abort`] once (the browser client aborts its `fetch`).
///
/// ```
/// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
/// let abort = rdc_controller::Abort::default();
/// let hit = Arc::new(AtomicBool::new(false));
/// let h = hit.clone();
/// abort.on_abort(move || h.store(true, Ordering::SeqCst));
/// abort.abort();
/// assert!(abort.is_aborted() && hit.load(Ordering::SeqCst));
/// ```
#[derive(Clone, Default)]
pub struct Abort {
    inner: Arc<Mutex<Inner>>,
}

impl std::fmt::Debug for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Abort").field("aborted", &self.is_aborted()).finish()
    }
}

impl PartialEq for Abort {
    fn eq(&self, other: &Abort) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for Abort {}

impl Abort {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Cancels: runs the registered callbacks (once).
    pub fn abort(&self) {
        let callbacks = {
            let mut inner = self.lock();
            if inner.aborted {
                return;
            }
            inner.aborted = true;
            std::mem::take(&mut inner.on_abort)
        };
        for callback in callbacks {
            callback();
        }
    }

    /// Whether [`Abort::abort`] was called.
    pub fn is_aborted(&self) -> bool {
        self.lock().aborted
    }

    /// Runs `callback` on abort (at once if already aborted).
    pub fn on_abort(&self, callback: impl FnOnce() + Send + 'static) {
        // Checked and kept under one lock: an abort between the two would never run it.
        let mut inner = self.lock();
        if inner.aborted {
            drop(inner);
            callback();
        } else {
            inner.on_abort.push(Box::new(callback));
        }
    }
}
