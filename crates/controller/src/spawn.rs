//! Running background work (polls) without choosing an executor: the binding
//! passes `wasm_bindgen_futures::spawn_local`; tests pass [`LocalTasks`].

use std::sync::{Arc, Mutex};

use super::sync::lock;
use std::task::{Context, Poll, Waker};

use super::endpoint::BoxFuture;

/// Starts a future on the current thread.
pub trait Spawn: Send + Sync {
    /// Runs `future` to completion in the background.
    fn spawn(&self, future: BoxFuture<()>);
}

/// A minimal single-threaded executor for tests: spawned futures run when
/// [`LocalTasks::run`] is called, until none can make progress.
///
/// ```
/// use rdc_controller::{LocalTasks, Spawn};
/// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
/// let tasks = LocalTasks::default();
/// let done = Arc::new(AtomicBool::new(false));
/// let d = done.clone();
/// tasks.spawn(Box::pin(async move { d.store(true, Ordering::SeqCst) }));
/// tasks.run();
/// assert!(done.load(Ordering::SeqCst));
/// ```
#[derive(Clone, Default)]
pub struct LocalTasks {
    tasks: Arc<Mutex<Vec<BoxFuture<()>>>>,
}

impl std::fmt::Debug for LocalTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalTasks").field("pending", &lock(&self.tasks).len()).finish()
    }
}

impl LocalTasks {
    /// Polls every task until a whole pass completes none (the rest wait on
    /// something outside, e.g. a response a test has not released yet).
    pub fn run(&self) {
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            let mut tasks = std::mem::take(&mut *lock(&self.tasks));
            let before = tasks.len();
            tasks.retain_mut(|task| task.as_mut().poll(&mut cx) == Poll::Pending);
            let progressed = tasks.len() < before;
            // Tasks spawned while polling were pushed to the (emptied) queue.
            lock(&self.tasks).extend(tasks);
            let spawned_more = lock(&self.tasks).len() > before;
            if !progressed && !spawned_more {
                break;
            }
        }
    }

    /// Runs the tasks until `future` is ready, and returns its output.
    ///
    /// # Panics
    /// When `future` is still pending once no task can make progress (it waits
    /// on something outside, e.g. a response a test has not released).
    ///
    /// ```
    /// let tasks = rdc_controller::LocalTasks::default();
    /// assert_eq!(tasks.block_on(async { 7 }), 7);
    /// ```
    #[allow(clippy::panic, reason = "a test helper: a future that cannot finish is a bug in the test")]
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        // Each round may start more tasks (a call awaiting another): a few
        // rounds finish any test's chain; a thousand mean it never will.
        for _ in 0..1000 {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return out;
            }
            self.run();
        }
        panic!("LocalTasks::block_on: the future waits on something no task will do")
    }

    /// Tasks not finished.
    pub fn pending(&self) -> usize {
        lock(&self.tasks).len()
    }
}

impl Spawn for LocalTasks {
    fn spawn(&self, future: BoxFuture<()>) {
        lock(&self.tasks).push(future);
    }
}
