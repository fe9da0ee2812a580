//! What is in flight app-wide: every request from when its task starts until
//! it settles (answered, failed, timed out, aborted or dropped by a reset),
//! so a page can show one spinner or a "saving…" bar.

use super::sync::{Gate, Slot};

use rdc_core::json::Value;

use super::{Controller, TypedEndpoint};

/// The endpoint key tracked listeners read to hear of activity: it is no
/// URL, so no endpoint makes it.
const ACTIVITY: &str = "\u{0}rdc in flight";

/// A request in flight, as [`Controller::in_flight`] lists it.
///
/// ```
/// # use rdc_controller::{Controller, FakeTime, LocalTasks};
/// # let time = FakeTime::default();
/// let controller = Controller::new(time.clone(), time, LocalTasks::default());
/// let saving = controller.in_flight().iter().filter(|request| request.mutation).count();
/// assert_eq!(saving, 0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct InFlight {
    /// Distinct for each request.
    pub id: u64,
    /// The endpoint key (method and URL for REST).
    pub key: String,
    /// The args it was sent with, as JSON.
    pub args: Value,
    /// Whether it is a mutation (else a read).
    pub mutation: bool,
    /// When its task started ([`Controller::now`]); a mutation held offline counts from then.
    pub since: u64,
}

/// The requests in flight, oldest first.
pub(crate) struct Activity(Slot<Vec<InFlight>>);

impl Activity {
    pub(crate) fn new(gate: &std::sync::Arc<Gate>) -> Activity {
        Activity(Slot::new(gate, "activity", Default::default()))
    }
}

/// Marks a request in flight until dropped (so a request that ends in any
/// way, even a panic, is no longer counted).
pub(crate) struct Active {
    controller: Controller,
    id: u64,
}

impl Drop for Active {
    fn drop(&mut self) {
        self.controller.inner.activity.0.borrow_mut().retain(|request| request.id != self.id);
        self.controller.touch_key(ACTIVITY);
    }
}

impl Controller {
    /// Counts a request of `key` in flight until the returned mark drops;
    /// its listeners hear of it now.
    pub(crate) fn begin_activity(&self, key: &str, args: &Value, mutation: bool) -> Active {
        let id = self.next_id();
        let since = self.now();
        let request = InFlight { id, key: key.to_owned(), args: args.clone(), mutation, since };
        self.inner.activity.0.borrow_mut().push(request);
        self.touch_key(ACTIVITY);
        self.changed();
        Active { controller: self.clone(), id }
    }

    /// Every request in flight, reads and mutations, oldest first: a
    /// [`listen_reads`](Controller::listen_reads) listener that calls it
    /// hears when one starts or settles.
    ///
    /// ```
    /// use rdc_controller::{from_fn, Controller, FakeTime, LocalTasks, Spawn};
    /// let (time, tasks) = (FakeTime::default(), LocalTasks::default());
    /// let controller = Controller::new(time.clone(), time, tasks.clone());
    /// async fn slow(n: u32) -> Result<u32, String> { std::future::pending().await }
    /// let fetch = controller.fetch(&from_fn("slow", slow), 1, ());
    /// tasks.run();
    /// assert_eq!(controller.in_flight().len(), 1);
    /// assert_eq!(controller.in_flight()[0].key, "slow 1");
    /// # drop(fetch);
    /// ```
    pub fn in_flight(&self) -> Vec<InFlight> {
        self.note_key(ACTIVITY);
        self.inner.activity.0.borrow().clone()
    }

    /// How many reads are in flight (identical reads share one request,
    /// counted once), for one spinner for the whole page (TanStack's
    /// `useIsFetching`). Tracked as [`Controller::in_flight`].
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// assert_eq!(controller.fetching_count(), 0);
    /// ```
    pub fn fetching_count(&self) -> usize {
        self.note_key(ACTIVITY);
        self.inner.activity.0.borrow().iter().filter(|request| !request.mutation).count()
    }

    /// How many reads of `endpoint` (any args) are in flight: those whose
    /// args make their key through it.
    ///
    /// ```
    /// # use rdc_controller::{from_fn, Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// async fn square(n: u32) -> Result<u32, String> { Ok(n * n) }
    /// assert_eq!(controller.fetching_count_of(&from_fn("square", square)), 0);
    /// ```
    pub fn fetching_count_of<C: TypedEndpoint>(&self, endpoint: &C) -> usize {
        self.note_key(ACTIVITY);
        let list = self.inner.activity.0.borrow().clone();
        list.iter().filter(|request| !request.mutation && makes(endpoint, &request.key, &request.args)).count()
    }

    /// The mutations sent and not yet settled (held offline too), oldest
    /// first: for a "saving…" bar (TanStack's `useMutationState`). Tracked
    /// as [`Controller::in_flight`].
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// assert!(controller.pending_mutations().is_empty());
    /// ```
    pub fn pending_mutations(&self) -> Vec<InFlight> {
        self.note_key(ACTIVITY);
        self.inner.activity.0.borrow().iter().filter(|request| request.mutation).cloned().collect()
    }
}

/// Whether `endpoint` makes `key` from `args`: the key is one of its reads.
pub(crate) fn makes<C: TypedEndpoint>(endpoint: &C, key: &str, args: &Value) -> bool {
    super::Endpoint::key(endpoint.endpoint(), args).is_ok_and(|made| made == key)
}
