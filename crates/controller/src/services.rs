//! Services: values an app gives a controller for its endpoints to use (the
//! HTTP client a server-side render fetches with, carrying that request's
//! cookies), handed to each fetch in its [`FetchContext`].

use std::any::{Any, TypeId};
use std::sync::Arc;

use super::{Abort, Controller};
use rdc_core::FastMap;

/// The services of one controller, by type.
pub(crate) type Services = FastMap<TypeId, Arc<dyn Any + Send + Sync>>;

/// What a fetch gets from the controller besides its args and body.
///
/// ```
/// use rdc_controller::{Abort, FetchContext};
/// let context = FetchContext::default();
/// assert!(context.abort().is_none() && context.service::<String>().is_none());
/// ```
#[derive(Clone, Default)]
pub struct FetchContext {
    abort: Option<Abort>,
    services: Arc<Services>,
    clock: Option<Arc<dyn super::Clock>>,
}

impl std::fmt::Debug for FetchContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchContext").field("abort", &self.abort).field("services", &self.services.len()).finish()
    }
}

impl FetchContext {
    /// A random number from the controller's clock ([`Clock::random`](super::Clock::random):
    /// `Math.random` in the browser, repeatable on fake time), to spread
    /// retries; 0 outside a controller.
    pub fn random(&self) -> u64 {
        self.clock.as_ref().map_or(0, |clock| clock.random())
    }

    /// Fires when the request is no longer wanted (`None`: it cannot be cancelled).
    pub fn abort(&self) -> Option<&Abort> {
        self.abort.as_ref()
    }

    /// The service of type `T` the controller was given, if any.
    pub fn service<T: Any + Clone + Send + Sync>(&self) -> Option<T> {
        self.services.get(&TypeId::of::<T>()).and_then(|s| s.downcast_ref::<T>()).cloned()
    }
}

impl Controller {
    /// Gives this controller's endpoints a service of type `T` (one per type;
    /// a second replaces the first). `rdc_rest` looks for its HTTP client here,
    /// so a server can render each request with a client of its own.
    ///
    /// ```
    /// use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.provide(String::from("token"));
    /// assert_eq!(controller.service::<String>().as_deref(), Some("token"));
    /// ```
    pub fn provide<T: Any + Send + Sync>(&self, service: T) {
        let mut services = self.inner.services.borrow_mut();
        Arc::make_mut(&mut services).insert(TypeId::of::<T>(), Arc::new(service));
    }

    /// The service of type `T`, if one was provided.
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// assert_eq!(controller.service::<u32>(), None);
    /// ```
    pub fn service<T: Any + Clone + Send + Sync>(&self) -> Option<T> {
        self.fetch_context(None).service()
    }

    /// The context of a fetch made now.
    pub(crate) fn fetch_context(&self, abort: Option<Abort>) -> FetchContext {
        FetchContext {
            abort,
            services: Arc::clone(&self.inner.services.borrow()),
            clock: Some(Arc::clone(&self.inner.clock)),
        }
    }
}
