//! Test helpers for apps: a controller on fake time whose REST endpoints are
//! answered from fixtures by endpoint and args (answers now, after a delay,
//! or when the test says), natively, with no browser and no server; and
//! rdc's hooks run on it ([`MockApp::hooks`]).
//!
//! ```
//! use rdc::prelude::*;
//! use rdc::testing::MockApp;
//!
//! #[derive(Debug, Clone, serde::Deserialize, Entity)]
//! struct User { id: String, name: String }
//! #[derive(Debug, Clone, serde::Serialize)]
//! struct UserId { id: String }
//! fn user() -> RestEndpoint<UserId, (), User> { rdc::rest!(GET "/api/users/:id" -> User, args = UserId) }
//!
//! let app = MockApp::new();
//! let ada = UserId { id: "1".into() };
//! app.fixture(&user(), &ada, rdc::json!({ "id": "1", "name": "Ada" }));
//! assert_eq!(app.fetch(&user(), ada, ()).unwrap().name, "Ada");
//!
//! // A response held back: what the app shows meanwhile, then the answer.
//! let grace = UserId { id: "2".into() };
//! let held = app.hold(&user(), &grace);
//! let pending = app.start(&user(), grace.clone(), ());
//! assert!(pending.result().is_none() && app.controller().is_fetching("GET /api/users/2"));
//! held.answer(rdc::json!({ "id": "2", "name": "Grace" }));
//! app.run();
//! assert_eq!(pending.result().unwrap().unwrap().name, "Grace");
//! assert_eq!(app.requests(), ["GET /api/users/1", "GET /api/users/2"]);
//! ```

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use rdc_controller::{Controller, FakeTime, FetchError, LocalTasks, Spawn, TypedEndpoint};
use rdc_core::json::Value;
use rdc_rest::{BoxFuture, BytesBody, HttpClient, HttpRequest, HttpResponse, RestCall};

mod hooks;

/// A controller on fake time with a mock API (see the [module docs](self)).
#[derive(Debug)]
pub struct MockApp {
    controller: Controller,
    time: FakeTime,
    tasks: LocalTasks,
    server: MockServer,
    /// The owners of hooks run with [`MockApp::hooks`]: mounted while the app lives.
    owners: RefCell<Vec<leptos::prelude::Owner>>,
}

impl Default for MockApp {
    fn default() -> Self {
        MockApp::new()
    }
}

impl MockApp {
    /// An empty store, time at 0, and no fixtures: every request fails as
    /// unanswered until a fixture covers it.
    pub fn new() -> MockApp {
        let (time, tasks) = (FakeTime::default(), LocalTasks::default());
        let controller = Controller::new(time.clone(), time.clone(), tasks.clone());
        let server = MockServer::default();
        rdc_rest::provide_client(&controller, server.clone());
        MockApp { controller, time, tasks, server, owners: RefCell::default() }
    }

    /// The controller, to read, fetch, mutate and listen as the app does.
    pub fn controller(&self) -> &Controller {
        &self.controller
    }

    /// Answers `endpoint` called with `args` with `json` (status 200) from now on.
    ///
    /// # Panics
    /// When the args make no URL (a path param missing): the fixture is wrong.
    pub fn fixture<C: TypedEndpoint<Endpoint = RestCall>>(&self, endpoint: &C, args: &C::Args, json: Value) {
        self.answer(endpoint, args, Answer::Now(Reply::json(200, json)));
    }

    /// Answers `endpoint` called with `args` with HTTP `status` and `json` as the body.
    ///
    /// # Panics
    /// As [`MockApp::fixture`].
    pub fn error<C: TypedEndpoint<Endpoint = RestCall>>(&self, endpoint: &C, args: &C::Args, status: u16, json: Value) {
        self.answer(endpoint, args, Answer::Now(Reply::json(status, json)));
    }

    /// Answers `endpoint` called with `args` with `json`, `ms` of fake time
    /// after each request ([`MockApp::advance`] moves time).
    ///
    /// # Panics
    /// As [`MockApp::fixture`].
    pub fn delayed<C: TypedEndpoint<Endpoint = RestCall>>(&self, endpoint: &C, args: &C::Args, ms: u64, json: Value) {
        self.answer(endpoint, args, Answer::After(ms, Reply::json(200, json)));
    }

    /// Holds the answers to `endpoint` called with `args` until the returned
    /// [`Held`] gives one.
    ///
    /// # Panics
    /// As [`MockApp::fixture`].
    pub fn hold<C: TypedEndpoint<Endpoint = RestCall>>(&self, endpoint: &C, args: &C::Args) -> Held {
        let held = Held { reply: Arc::default(), server: self.server.clone() };
        self.answer(endpoint, args, Answer::Held(Arc::clone(&held.reply)));
        held
    }

    /// Fetches as `controller().fetch` does and runs until the answer.
    ///
    /// # Panics
    /// When the answer is held or delayed (use [`MockApp::start`]).
    pub fn fetch<C: TypedEndpoint>(
        &self,
        endpoint: &C,
        args: C::Args,
        body: C::Body,
    ) -> Result<C::Result, FetchError<C::Error>>
    where
        C::Result: Clone,
        C::Error: Clone,
    {
        let pending = self.start(endpoint, args, body);
        pending.result().unwrap_or_else(|| panic!("the answer is held or delayed: use MockApp::start"))
    }

    /// Starts a fetch; its result shows once answered (after [`MockApp::run`] or [`MockApp::advance`]).
    pub fn start<C: TypedEndpoint>(&self, endpoint: &C, args: C::Args, body: C::Body) -> Pending<C> {
        let slot = Arc::new(Mutex::new(None));
        let out = Arc::clone(&slot);
        let fetch = self.controller.fetch(endpoint, args, body);
        self.tasks
            .spawn(Box::pin(async move { *out.lock().unwrap_or_else(PoisonError::into_inner) = Some(fetch.await) }));
        self.tasks.run();
        Pending { slot }
    }

    /// Runs whatever can run now (answers given, timers due).
    pub fn run(&self) {
        if !self.owners.borrow().is_empty() {
            self.drive_leptos_tasks();
        }
        self.tasks.run();
    }

    /// Moves fake time `ms` forward (expiry, polls, retries, delayed
    /// answers) and runs what that lets go.
    pub fn advance(&self, ms: u64) {
        if !self.owners.borrow().is_empty() {
            self.drive_leptos_tasks();
        }
        self.time.advance(ms);
        self.server.advance(ms);
        self.tasks.run();
    }

    /// Every request sent, as `METHOD url`, in order.
    pub fn requests(&self) -> Vec<String> {
        self.server.lock().sent.clone()
    }

    fn answer<C: TypedEndpoint<Endpoint = RestCall>>(&self, endpoint: &C, args: &C::Args, answer: Answer) {
        let call = endpoint.endpoint();
        let wrong = |e: &dyn std::fmt::Display| -> ! { panic!("a fixture for {} makes no URL: {e}", call.name()) };
        let json = endpoint.encode_args(args).unwrap_or_else(|e| wrong(&e));
        let url = call.url(json.as_object().unwrap_or(&rdc_core::json::Map::new())).unwrap_or_else(|e| wrong(&e));
        self.server.lock().routes.insert(0, (format!("{} {url}", call.method_name()), answer));
    }
}

/// A fetch started by [`MockApp::start`].
#[derive(Debug)]
pub struct Pending<C: TypedEndpoint> {
    slot: Arc<Mutex<Option<Result<C::Result, FetchError<C::Error>>>>>,
}

impl<C: TypedEndpoint> Pending<C>
where
    C::Result: Clone,
{
    /// The result, once answered.
    pub fn result(&self) -> Option<Result<C::Result, FetchError<C::Error>>> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// Answers held by [`MockApp::hold`]: every request waiting on it gets the
/// reply given, and so do later ones.
#[derive(Debug, Clone)]
pub struct Held {
    reply: Arc<Mutex<Option<Reply>>>,
    server: MockServer,
}

impl Held {
    /// Answers with `json` (status 200). Run the app to let it land.
    pub fn answer(&self, json: Value) {
        self.give(Reply::json(200, json));
    }

    /// Answers with HTTP `status` and `json` as the body.
    pub fn fail(&self, status: u16, json: Value) {
        self.give(Reply::json(status, json));
    }

    fn give(&self, reply: Reply) {
        *lock(&self.reply) = Some(reply);
        self.server.wake_all();
    }
}

/// A canned reply.
#[derive(Debug, Clone)]
struct Reply {
    status: u16,
    body: String,
}

impl Reply {
    fn json(status: u16, json: Value) -> Reply {
        Reply { status, body: rdc_core::json_text(&json) }
    }
}

#[derive(Debug, Clone)]
enum Answer {
    Now(Reply),
    After(u64, Reply),
    Held(Arc<Mutex<Option<Reply>>>),
}

/// The mock API: routes by `METHOD url`, its own clock (moved with the
/// app's), and the requests waiting on it. Shared with the controller as
/// its HTTP client, so it is `Send` (behind a mutex).
#[derive(Debug, Clone, Default)]
struct MockServer {
    inner: Arc<Mutex<ServerState>>,
}

#[derive(Debug, Default)]
struct ServerState {
    routes: Vec<(String, Answer)>,
    sent: Vec<String>,
    now: u64,
    waiting: Vec<Waker>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl MockServer {
    fn lock(&self) -> MutexGuard<'_, ServerState> {
        lock(&self.inner)
    }

    fn advance(&self, ms: u64) {
        self.lock().now += ms;
        self.wake_all();
    }

    fn wake_all(&self) {
        let waiting = std::mem::take(&mut self.lock().waiting);
        waiting.into_iter().for_each(Waker::wake);
    }
}

impl HttpClient for MockServer {
    fn send(&self, request: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, String>> {
        let line = format!("{} {}", request.method, request.url);
        let mut state = self.lock();
        state.sent.push(line.clone());
        let answer = state.routes.iter().find(|(route, _)| *route == line).map(|(_, answer)| answer.clone());
        let due = match &answer {
            Some(Answer::After(ms, _)) => state.now + ms,
            _ => 0,
        };
        drop(state);
        let server = self.clone();
        let url = request.url;
        Box::pin(async move {
            let reply = match answer {
                None => return Err(format!("no fixture for {line}")),
                Some(Answer::Now(reply)) => reply,
                Some(Answer::After(_, reply)) => {
                    Wait(&server, |state: &ServerState| (state.now >= due).then(|| reply.clone())).await
                }
                Some(Answer::Held(slot)) => Wait(&server, |_: &ServerState| lock(&slot).clone()).await,
            };
            let body = BytesBody { bytes: reply.body.into_bytes(), mime: "application/json".into() };
            Ok(HttpResponse {
                status: reply.status,
                url,
                headers: vec![("content-type".into(), "application/json".into())],
                body: Box::new(body),
            })
        })
    }
}

/// Waits until `ready` gives a reply, woken whenever the server's time moves or a held reply is given.
struct Wait<'s, F>(&'s MockServer, F);

impl<F: FnMut(&ServerState) -> Option<Reply> + Unpin> Future for Wait<'_, F> {
    type Output = Reply;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply> {
        let server = self.0.clone();
        let mut state = server.lock();
        match (self.1)(&state) {
            Some(reply) => Poll::Ready(reply),
            None => {
                state.waiting.push(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
