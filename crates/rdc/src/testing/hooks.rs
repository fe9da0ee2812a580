//! rdc's hooks run natively: under a Leptos owner holding the mock app's
//! controller, the tasks Leptos spawns (effects, mutations) run on the mock
//! app's executor, so fake time drives them as it drives fetches.

use std::cell::RefCell;
use std::sync::OnceLock;

use any_spawner::{CustomExecutor, Executor, PinnedFuture, PinnedLocalFuture};
use leptos::prelude::Owner;
use rdc_controller::{LocalTasks, Spawn};

use super::MockApp;

thread_local! {
    /// Where the tasks Leptos spawns on this thread go: the tasks of the
    /// mock app that last ran hooks or time here.
    static TASKS: RefCell<Option<LocalTasks>> = const { RefCell::new(None) };
}

/// Leptos' executor under mock apps (one per process, as Leptos allows):
/// each thread's tasks go to its mock app's.
struct ToMockApp;

impl CustomExecutor for ToMockApp {
    fn spawn(&self, task: PinnedFuture<()>) {
        self.spawn_local(task);
    }

    #[allow(clippy::panic, reason = "a Leptos task with no mock app to run it would never run: say so")]
    fn spawn_local(&self, task: PinnedLocalFuture<()>) {
        TASKS.with(|tasks| match &*tasks.borrow() {
            // Polled and dropped on this thread only (the mock app's): made to look `Send`.
            Some(tasks) => tasks.spawn(Box::pin(send_wrapper::SendWrapper::new(task))),
            None => panic!("a Leptos task was spawned on a thread where no live MockApp ran hooks"),
        });
    }

    fn poll_local(&self) {}
}

impl MockApp {
    /// Runs `hooks` as a component body would (under a reactive owner, the
    /// controller provided as `DataProvider` provides it) and returns what
    /// they give (signals, a mutation); their effects and fetches run at
    /// once and whenever [`MockApp::run`] or [`MockApp::advance`] is called.
    /// They stay mounted as long as the mock app. Leptos' effects must be on
    /// (its `csr` or `hydrate` feature, as in the app).
    ///
    /// # Panics
    /// When Leptos was given another executor before in this process:
    /// hooks' tasks must run on fake time. Once a test has run hooks, a
    /// Leptos task spawned on a thread where no live mock app ran hooks panics
    /// (it would never run): keep such tests in a test binary of their own.
    ///
    /// ```
    /// use leptos::prelude::*;
    /// use rdc::prelude::*;
    /// # #[derive(Debug, Clone, serde::Deserialize, Entity)] struct User { id: String, name: String }
    /// # #[derive(Debug, Clone, PartialEq, serde::Serialize)] struct UserId { id: String }
    /// let user = rdc::rest!(GET "/api/users/:id" -> User, args = UserId);
    /// let app = rdc::testing::MockApp::new();
    /// app.fixture(&user, &UserId { id: "1".into() }, rdc::json!({ "id": "1", "name": "Ada" }));
    /// let ada = app.hooks(|| use_dle(user.clone(), Signal::derive(|| Some(UserId { id: "1".into() }))));
    /// assert_eq!(ada.data.get_untracked().map(|u| u.name.clone()).as_deref(), Some("Ada"));
    /// ```
    pub fn hooks<R>(&self, hooks: impl FnOnce() -> R) -> R {
        self.drive_leptos_tasks();
        let owner = Owner::new();
        let out = owner.with(|| {
            rdc_leptos::provide_controller(self.controller.clone());
            hooks()
        });
        self.owners.borrow_mut().push(owner);
        self.tasks.run();
        out
    }

    /// Sends the tasks Leptos spawns on this thread to this mock app.
    pub(super) fn drive_leptos_tasks(&self) {
        static OURS: OnceLock<bool> = OnceLock::new();
        let ours = *OURS.get_or_init(|| Executor::init_custom_executor(ToMockApp).is_ok());
        assert!(ours, "Leptos was given another executor: MockApp::hooks runs hooks' tasks on fake time itself");
        TASKS.with(|tasks| tasks.replace(Some(self.tasks.clone())));
    }
}

impl Drop for MockApp {
    fn drop(&mut self) {
        // Its hooks are unmounted; Leptos' tasks on this thread have no app until another runs hooks.
        if !self.owners.get_mut().is_empty() {
            self.owners.get_mut().clear();
            TASKS.with(|tasks| tasks.replace(None));
        }
    }
}
