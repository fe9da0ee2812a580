//! A request's time limit: the request's future raced against a timer; and
//! waiting, the same timer alone.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::{BoxFuture, Timers};

/// The timer's side: whether it fired, and the task to wake when it does.
/// (One lock: a firing between the check and the wait would be lost.)
#[derive(Default)]
struct Alarm(std::sync::Mutex<(bool, Option<Waker>)>);

/// `request`'s output, or `None` when `ms` pass first (the request is dropped).
pub(crate) async fn within<T: 'static>(timers: &dyn Timers, ms: u64, request: BoxFuture<T>) -> Option<T> {
    let alarm = Arc::new(Alarm::default());
    let ring = Arc::clone(&alarm);
    let timer = timers.set_timeout(
        ms,
        Box::new(move || {
            let waker = {
                let mut alarm = super::sync::lock(&ring.0);
                alarm.0 = true;
                alarm.1.take()
            };
            if let Some(waker) = waker {
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
    alarm: Arc<Alarm>,
    request: BoxFuture<T>,
}

impl<T> Future for Race<T> {
    type Output = Option<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        if let Poll::Ready(out) = self.request.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        let mut alarm = super::sync::lock(&self.alarm.0);
        if alarm.0 {
            return Poll::Ready(None);
        }
        alarm.1 = Some(cx.waker().clone());
        Poll::Pending
    }
}
