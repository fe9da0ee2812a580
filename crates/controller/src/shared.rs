//! A result many waiters share: the in-flight request of identical concurrent reads.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Type-erased outcome: `Ok(output)` or `Err(error)`, each an `Rc<dyn Any>`.
pub(crate) type Outcome = Result<Rc<dyn Any>, Rc<dyn Any>>;

pub(crate) struct Shared {
    /// The endpoint type that made the request: only the same type joins it.
    pub endpoint: TypeId,
    /// The args it was sent with: only a call with the same args joins it
    /// (a key can leave an arg out, as a paginated list's page).
    pub args: rdc_core::json::Value,
    outcome: RefCell<Option<Outcome>>,
    wakers: RefCell<Vec<Waker>>,
}

impl Shared {
    /// A request of endpoint type `E` sent with `args`.
    pub fn of<E: 'static>(args: rdc_core::json::Value) -> Shared {
        Shared { endpoint: TypeId::of::<E>(), args, outcome: RefCell::default(), wakers: RefCell::default() }
    }

    /// Whether a call of endpoint type `E` with `args` would send what this
    /// request sent, so may wait for its answer instead.
    pub fn sends_as<E: 'static>(&self, args: &rdc_core::json::Value) -> bool {
        self.endpoint == TypeId::of::<E>() && self.args == *args
    }

    pub fn resolve(&self, outcome: Outcome) {
        *self.outcome.borrow_mut() = Some(outcome);
        for waker in self.wakers.borrow_mut().drain(..) {
            waker.wake();
        }
    }
}

/// Waits for a [`Shared`] outcome.
pub(crate) struct Wait(pub Rc<Shared>);

impl Future for Wait {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        if let Some(outcome) = self.0.outcome.borrow().as_ref() {
            return Poll::Ready(outcome.clone());
        }
        self.0.wakers.borrow_mut().push(cx.waker().clone());
        Poll::Pending
    }
}
