//! A request's time limit: the request's future raced against a timer; and
//! waiting, the same timer alone.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::{LocalFuture, Timers};

/// The timer's side: whether it fired, and the task to wake when it does.
#[derive(Default)]
struct Alarm {
    fired: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

/// `request`'s output, or `None` when `ms` pass first (the request is dropped).
pub(crate) async fn within<T: 'static>(timers: &dyn Timers, ms: u64, request: LocalFuture<T>) -> Option<T> {
    let alarm = Rc::new(Alarm::default());
    let ring = Rc::clone(&alarm);
    let timer = timers.set_timeout(
        ms,
        Box::new(move || {
            ring.fired.set(true);
            if let Some(waker) = ring.waker.borrow_mut().take() {
                waker.wake();
            }
        }),
    );
    let out = Race { alarm, request }.await;
    if out.is_some() {
        timers.cancel(timer);
    }
    out
}

/// Resolves once `ms` have passed (a retry's wait).
pub(crate) async fn sleep(timers: &dyn Timers, ms: u64) {
    within::<()>(timers, ms, Box::pin(std::future::pending())).await;
}

struct Race<T> {
    alarm: Rc<Alarm>,
    request: LocalFuture<T>,
}

impl<T> Future for Race<T> {
    type Output = Option<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        if let Poll::Ready(out) = self.request.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        if self.alarm.fired.get() {
            return Poll::Ready(None);
        }
        *self.alarm.waker.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    }
}
