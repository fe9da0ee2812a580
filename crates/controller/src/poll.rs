//! Polling: one timer per endpoint key, at the smallest frequency any subscriber
//! asked for; the first poll at last fetch + frequency; stopped with the last
//! subscriber.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use super::keys::{self, Keys, PollState};
use super::{BoxFuture, Controller, Endpoint, Inner, TypedEndpoint};

/// Keeps an endpoint polled while alive; dropping it unsubscribes.
#[must_use = "polling stops when the subscription is dropped"]
pub struct Subscription {
    controller: Weak<Inner>,
    key: String,
    id: u64,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription").field("key", &self.key).finish()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(inner) = self.controller.upgrade() {
            Controller { inner }.unsubscribe(&self.key, self.id);
        }
    }
}

impl Controller {
    /// Polls `endpoint` with `args` every `poll_frequency` while the returned
    /// subscription lives. `None` when the endpoint does not poll or the args are invalid.
    pub fn subscribe<C: TypedEndpoint>(&self, endpoint: &C, args: C::Args) -> Option<Subscription> {
        let (args, key) = endpoint.json_and_key(&args).ok()?;
        let endpoint = endpoint.endpoint();
        // A frequency of 0 would poll in a loop: it is refused (no polling).
        let every = endpoint.policy().poll_ms.filter(|ms| *ms > 0)?;
        let id = self.next_id();
        let weak = Arc::downgrade(&self.inner);
        let endpoint = endpoint.clone();
        let refetch: Arc<dyn Fn() -> BoxFuture<()> + Send + Sync> = Arc::new(move || {
            let controller = weak.upgrade().map(|inner| Controller { inner });
            let fetch = controller.map(|c| c.fetch_json(&endpoint, args.clone(), None));
            Box::pin(async move {
                if let Some(fetch) = fetch {
                    // Poll failures are recorded in the store like any fetch error.
                    let _ = fetch.await;
                }
            })
        });
        keys::entry(&mut self.inner.keys.borrow_mut(), &key)
            .poll
            .get_or_insert_with(|| PollState { subscribers: Vec::new(), timer: None, every_ms: None, refetch })
            .subscribers
            .push((id, every));
        self.reschedule(&key, false);
        Some(Subscription { controller: Arc::downgrade(&self.inner), key, id })
    }

    fn unsubscribe(&self, key: &str, id: u64) {
        if let Some(poll) = poll_of(&mut self.inner.keys.borrow_mut(), key) {
            poll.subscribers.retain(|(i, _)| *i != id);
        }
        self.reschedule(key, false);
    }

    /// Live subscriptions for `key` and the interval in use.
    pub fn poll_interval(&self, key: &str) -> Option<(usize, u64)> {
        let keys = self.inner.keys.borrow();
        let poll = keys.get(key)?.poll.as_ref()?;
        Some((poll.subscribers.len(), poll.every_ms?))
    }

    /// Number of keys being polled (each has one timer, or one poll in flight).
    pub fn poll_timer_count(&self) -> usize {
        keys::count(&self.inner.keys.borrow(), |k| k.poll.is_some())
    }

    /// Live subscriptions across all keys.
    pub fn subscription_count(&self) -> usize {
        self.inner.keys.borrow().values().filter_map(|k| k.poll.as_ref()).map(|p| p.subscribers.len()).sum()
    }

    /// Pauses polling (`true`: the page is hidden, the browser offline) or
    /// resumes it: each polled key then polls at its last fetch plus its
    /// interval, at once when that has passed.
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.pause_polls(true);
    /// assert!(controller.polls_paused());
    /// controller.pause_polls(false);
    /// assert!(!controller.polls_paused());
    /// ```
    pub fn pause_polls(&self, paused: bool) {
        if self.inner.polls_paused.swap(paused, Ordering::SeqCst) == paused || paused {
            return;
        }
        let idle: Vec<String> = self
            .inner
            .keys
            .borrow()
            .iter()
            .filter(|(_, state)| state.poll.as_ref().is_some_and(|p| p.timer.is_none() && p.every_ms.is_some()))
            .map(|(key, _)| key.clone())
            .collect();
        for key in idle {
            self.reschedule(&key, true);
        }
    }

    /// Whether polls wait (see [`Controller::pause_polls`]).
    pub fn polls_paused(&self) -> bool {
        self.inner.polls_paused.load(Ordering::SeqCst)
    }

    /// Restarts the timer of `key` when its frequency changed (or after a poll).
    fn reschedule(&self, key: &str, after_poll: bool) {
        let mut keys = self.inner.keys.borrow_mut();
        let Some(poll) = poll_of(&mut keys, key) else { return };
        let every = poll.subscribers.iter().map(|(_, f)| *f).min();
        if every == poll.every_ms && !after_poll {
            return;
        }
        if let Some(timer) = poll.timer.take() {
            self.inner.timers.cancel(timer);
        }
        poll.every_ms = every;
        let Some(every) = every else {
            if let Some(state) = keys.get_mut(key) {
                state.poll = None;
            }
            keys::tidy(&mut keys, key);
            return;
        };
        let now = self.now();
        let last = self.with_state(|s| s.result(key).map(|r| r.meta.fetched_at)).unwrap_or(now);
        let delay = last.saturating_add(every).saturating_sub(now);
        let weak = Arc::downgrade(&self.inner);
        let key_owned = key.to_owned();
        let refetch = Arc::clone(&poll.refetch);
        poll.timer = Some(self.inner.timers.set_timeout(
            delay,
            Box::new(move || {
                let Some(inner) = weak.upgrade() else { return };
                let controller = Controller { inner };
                if let Some(p) = poll_of(&mut controller.inner.keys.borrow_mut(), &key_owned) {
                    p.timer = None;
                }
                // Paused: this poll waits for `pause_polls(false)`.
                if controller.inner.polls_paused.load(Ordering::SeqCst) {
                    return;
                }
                let fetch = refetch();
                let spawner = Arc::clone(&controller.inner.spawner);
                spawner.spawn(Box::pin(async move {
                    fetch.await;
                    controller.reschedule(&key_owned, true);
                }));
            }),
        ));
    }
}

/// The poll of `key`, if it is polled.
fn poll_of<'k>(keys: &'k mut Keys, key: &str) -> Option<&'k mut PollState> {
    keys.get_mut(key).and_then(|k| k.poll.as_mut())
}
