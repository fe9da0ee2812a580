//! A manager that logs out on `401 Unauthorized`: nothing of one user's data
//! stays on screen once the server says the session is gone.

use rdc_controller::{Action, Controller, FetchError, Manager};

use crate::RestError;

/// Empties the store when any REST request answers `401`, then calls
/// `on_logout` (to show a sign-in page, say). Any endpoint counts, a sign-in
/// refusing a wrong password too: its store holds no one's data yet.
///
/// ```
/// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
/// use rdc_controller::{Controller, FakeTime, LocalTasks};
/// use rdc_rest::{FakeClient, FakeResponse, RestEndpoint};
/// let (time, tasks) = (FakeTime::default(), LocalTasks::default());
/// let controller = Controller::new(time.clone(), time, tasks.clone());
/// let signed_out = Arc::new(AtomicBool::new(false));
/// let flag = signed_out.clone();
/// controller.add_manager(rdc_rest::logout_on_401(move |_| flag.store(true, Ordering::SeqCst)));
/// let client = FakeClient::default();
/// client.on("GET", "/me", FakeResponse::status(401));
/// let me = RestEndpoint::get("/me").client(client);
/// assert!(tasks.block_on(controller.fetch(&me, rdc_core::json!(null), None)).is_err());
/// assert!(signed_out.load(Ordering::SeqCst));
/// ```
pub fn logout_on_401(on_logout: impl Fn(&Controller) + Send + Sync + 'static) -> impl Manager {
    LogoutOn401(on_logout)
}

struct LogoutOn401<F>(F);

impl<F: Fn(&Controller) + Send + Sync> Manager for LogoutOn401<F> {
    fn on_action(&self, controller: &Controller, action: Action<'_>) {
        if let Some(FetchError::Endpoint(RestError::Network { source, .. })) = action.error::<RestError>() {
            if source.status == 401 {
                controller.reset_entire_store();
                (self.0)(controller);
            }
        }
    }
}
