//! An in-memory API for controller tests: endpoints whose responses the test
//! releases when it wants (to model slow, overlapping and out-of-order answers).
#![allow(dead_code)]

use crate::cells::SyncRefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rdc_controller::{BoxFuture, Controller, Endpoint, FakeTime, LocalTasks, Policy};
use rdc_core::json::Value;
use rdc_core::{Schema, State};

type Gate = Arc<SyncRefCell<Option<Result<Value, String>>>>;

/// The fake server: every request, and the answers not yet released.
#[derive(Default)]
pub struct Server {
    pub requests: Vec<(String, Option<Value>)>,
    pending: Vec<(String, Gate)>,
    /// When set, requests answer at once with this function's result.
    pub auto: Option<Arc<dyn Fn(&str, Option<&Value>) -> Result<Value, String> + Send + Sync>>,
}

#[derive(Clone)]
pub struct Api {
    pub server: Arc<SyncRefCell<Server>>,
    pub method: &'static str,
    pub path: String,
    pub schema: Option<Schema>,
    pub policy: Policy,
    pub optimistic: Option<fn(&Value, Option<&Value>) -> Value>,
    /// An optimistic response worked out from the store (wins over `optimistic`).
    pub optimistic_from_store: Option<fn(&State, &Value, Option<&Value>) -> Option<Value>>,
    /// How long to wait before retry `attempt` after `error` (`None`: give up).
    pub retry: Option<fn(&str, u32) -> Option<u64>>,
}

impl Api {
    pub fn new(server: &Arc<SyncRefCell<Server>>, method: &'static str, path: &str, schema: Option<Schema>) -> Api {
        let policy = Policy { mutation: method != "GET", ..Policy::default() };
        Api {
            server: Arc::clone(server),
            method,
            path: path.to_owned(),
            schema,
            policy,
            optimistic: None,
            optimistic_from_store: None,
            retry: None,
        }
    }
}

struct Wait(Gate);

impl Future for Wait {
    type Output = Result<Value, String>;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Self::Output> {
        match self.0.borrow_mut().take() {
            Some(result) => Poll::Ready(result),
            None => Poll::Pending,
        }
    }
}

impl Endpoint for Api {
    type Output = Value;
    type Error = String;
    type Body = Value;

    fn key(&self, args: &Value) -> Result<String, String> {
        match args.get("id") {
            Some(id) => Ok(format!(
                "{} {}/{}",
                self.method,
                self.path,
                id.as_str().map(str::to_owned).unwrap_or(id.to_string())
            )),
            None => Ok(format!("{} {}", self.method, self.path)),
        }
    }
    fn schema(&self) -> Option<Schema> {
        self.schema.clone()
    }
    fn policy(&self) -> Policy {
        self.policy
    }
    fn is_soft(&self, error: &String) -> bool {
        error.starts_with('5')
    }
    fn retry_after(&self, error: &String, attempt: u32, _: &rdc_controller::FetchContext) -> Option<u64> {
        self.retry.and_then(|retry| retry(error.as_str(), attempt))
    }
    fn fetch(&self, args: &Value, body: Option<Value>) -> BoxFuture<Result<Value, String>> {
        let key = self.key(args).unwrap_or_default();
        let mut server = self.server.borrow_mut();
        server.requests.push((key.clone(), body.clone()));
        if let Some(auto) = server.auto.clone() {
            let result = auto(&key, body.as_ref());
            return Box::pin(async move { result });
        }
        let gate: Gate = Arc::default();
        server.pending.push((key, Arc::clone(&gate)));
        Box::pin(Wait(gate))
    }
    fn storable(output: &Value) -> Option<Value> {
        Some(output.clone())
    }
    fn optimistic(&self, store: &State, args: &Value, body: Option<&Value>) -> Option<Value> {
        match self.optimistic_from_store {
            Some(f) => f(store, args, body),
            None => self.optimistic.map(|f| f(args, body)),
        }
    }
}

impl Server {
    /// From now on, every request answers at once with `value`.
    pub fn always(&mut self, value: Value) {
        self.auto = Some(Arc::new(move |_, _| Ok(value.clone())));
    }

    /// Releases the oldest pending answer for `key`.
    pub fn answer(&mut self, key: &str, result: Result<Value, String>) {
        let i =
            self.pending.iter().position(|(k, _)| k == key).unwrap_or_else(|| panic!("no pending request for {key}"));
        let (_, gate) = self.pending.remove(i);
        *gate.borrow_mut() = Some(result);
    }

    /// Releases the `n`th pending answer for `key` (0 = oldest).
    pub fn answer_nth(&mut self, key: &str, n: usize, result: Result<Value, String>) {
        let i = self
            .pending
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| k == key)
            .nth(n)
            .map(|(i, _)| i)
            .expect("pending request");
        let (_, gate) = self.pending.remove(i);
        *gate.borrow_mut() = Some(result);
    }

    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

/// A controller on fake time and a local executor.
pub fn setup() -> (Controller, FakeTime, LocalTasks, Arc<SyncRefCell<Server>>) {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let controller = Controller::new(time.clone(), time.clone(), tasks.clone());
    (controller, time, tasks, Arc::default())
}

/// Spawns a fetch whose outcome lands in the returned cell.
pub fn spawn_fetch(
    controller: &Controller,
    tasks: &LocalTasks,
    api: &Api,
    args: Value,
    body: Option<Value>,
) -> Arc<SyncRefCell<Option<Result<Value, rdc_controller::FetchError<String>>>>> {
    let out = Arc::new(SyncRefCell::new(None));
    let slot = Arc::clone(&out);
    let fetch = controller.fetch(api, args, body);
    rdc_controller::Spawn::spawn(tasks, Box::pin(async move { *slot.borrow_mut() = Some(fetch.await) }));
    tasks.run();
    out
}
