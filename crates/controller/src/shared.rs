//! A result many waiters share: the in-flight request of identical concurrent reads.

use std::any::{Any, TypeId};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// Type-erased outcome: `Ok(output)` or `Err(error)`, each an `Arc<dyn Any + Send + Sync>`.
pub(crate) type Outcome = Result<Arc<dyn Any + Send + Sync>, Arc<dyn Any + Send + Sync>>;

pub(crate) struct Shared {
    /// The endpoint type that made the request: only the same type joins it.
    pub endpoint: TypeId,
    /// The args it was sent with: only a call with the same args joins it
    /// (a key can leave an arg out, as a paginated list's page).
    pub args: rdc_core::json::Value,
    /// The outcome once known, and the tasks waiting for it (one lock: an
    /// outcome between a waiter's check and its wait would be lost).
    state: std::sync::Mutex<(Option<Outcome>, Vec<Waker>)>,
}

impl Shared {
    /// A request of endpoint type `E` sent with `args`.
    pub fn of<E: 'static>(args: rdc_core::json::Value) -> Shared {
        Shared { endpoint: TypeId::of::<E>(), args, state: Default::default() }
    }

    /// Whether a call of endpoint type `E` with `args` would send what this
    /// request sent, so may wait for its answer instead.
    pub fn sends_as<E: 'static>(&self, args: &rdc_core::json::Value) -> bool {
        self.endpoint == TypeId::of::<E>() && self.args == *args
    }

    pub fn resolve(&self, outcome: Outcome) {
        let wakers = {
            let mut state = super::sync::lock(&self.state);
            state.0 = Some(outcome);
            std::mem::take(&mut state.1)
        };
        // Woken after the lock is let go.
        for waker in wakers {
            waker.wake();
        }
    }
}

/// Waits for a [`Shared`] outcome.
pub(crate) struct Wait(pub Arc<Shared>);

impl Future for Wait {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let mut state = super::sync::lock(&self.0.state);
        if let Some(outcome) = state.0.as_ref() {
            return Poll::Ready(outcome.clone());
        }
        state.1.push(cx.waker().clone());
        Poll::Pending
    }
}
