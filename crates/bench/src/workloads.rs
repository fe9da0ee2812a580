//! The workloads, each a closure over prepared inputs, and the timing loop the
//! JavaScript anchor uses (5 warm-up runs, then samples for at least `min_ms`,
//! median), so both sides are measured the same way.

use std::cell::RefCell;

use rdc_controller::{Controller, Endpoint, FakeTime, LocalFuture, LocalTasks, Policy};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, Entity, MemoCache, NormalizeError, Pk, Schema, State, WriteMeta};

use crate::fixtures::{ListItem, Projects, User};

/// Workload names in the order [`Fixtures::run`] reports them.
pub const WORKLOADS: &[&str] = &[
    "normalizeLong",
    "parse into serde_json::Value",
    "parse into rdc json::Value",
    "parse+normalizeLong",
    "end-to-end",
    "denormalizeLong donotcache",
    "denormalizeLong (fresh memo)",
    "denormalizeLong withCache",
    "denormalizeShort donotcache 500x",
    "denormalizeShort withCache 500x",
    "setOneEntity in 1k store",
    "setOneEntity in 10k store",
    "setOneEntity in 100k store",
    "setOneEntity in 100k store, through a controller",
    "setOneEntity in 100k store, a layer pending",
    "warm read in 100 store",
    "warm read in 100k store",
    "keys of 500 items (fresh memo)",
    "keys of 500 items after one delete",
    "rename one item and read it",
    "delete one of 200 listed items, through a controller",
    "rename one of 100 listed items, through a controller",
];

const META: WriteMeta = WriteMeta { fetched_at: 1, date: 1, expires_at: u64::MAX, seq: 0 };

/// The two fixture files, as text and parsed.
#[derive(Debug)]
pub struct Fixtures {
    projects_text: String,
    projects: Value,
    user: Value,
}

impl Fixtures {
    /// Parses the fixtures written by `gen_fixtures.py`.
    ///
    /// # Errors
    /// When either text is not JSON.
    pub fn new(projects_text: String, user_text: &str) -> Result<Fixtures, serde_json::Error> {
        let projects = Value::parse(projects_text.clone())?;
        let user = Value::parse(user_text.to_owned())?;
        Ok(Fixtures { projects_text, projects, user })
    }

    /// The projects response, parsed.
    pub fn projects(&self) -> &Value {
        &self.projects
    }

    /// The projects response, as text.
    pub fn projects_text(&self) -> &str {
        &self.projects_text
    }

    /// A store holding the projects response.
    ///
    /// # Errors
    /// When the fixture does not normalize.
    pub fn projects_state(&self) -> Result<State, NormalizeError> {
        let mut state = State::default();
        state.write_result("projects", &Projects::schema(), self.projects.clone(), &Value::Null, META)?;
        Ok(state)
    }

    /// A store holding the user.
    ///
    /// # Errors
    /// When the fixture does not normalize.
    pub fn user_state(&self) -> Result<State, NormalizeError> {
        let mut state = State::default();
        state.write_entities(&User::schema(), self.user.clone(), &Value::Null, META)?;
        Ok(state)
    }

    /// Runs every workload (or those whose names start with `only`), reporting
    /// `(name, median microseconds)` to `report`.
    /// `now` returns milliseconds (`performance.now()` in the browser or Node).
    ///
    /// # Errors
    /// When a fixture does not normalize (nothing would be measured).
    pub fn run(
        &self,
        min_ms: f64,
        only: Option<&str>,
        now: &dyn Fn() -> f64,
        report: &mut dyn FnMut(&str, f64),
    ) -> Result<(), NormalizeError> {
        let schema = Projects::schema();
        let wanted = |name: &str| only.is_none_or(|o| name.starts_with(o));
        if wanted("normalizeLong") {
            let us = median_us_with(min_ms, now, &mut || Box::new(self.projects.clone()), &mut |input| {
                let mut state = State::default();
                if let Ok(value) = input.downcast::<Value>() {
                    state.write_result("projects", &schema, *value, &Value::Null, META).ok();
                }
                Box::new(state)
            });
            report("normalizeLong", us);
        }
        // The same text parsed into `serde_json::Value` and into rdc's own
        // value (whose strings are ranges of the text, moved in as a response's
        // body would be; its copy is made before the clock starts).
        let text = || -> Keep { Box::new(self.projects_text.clone()) };
        let owned = |input: Keep| input.downcast::<String>().map(|t| *t).unwrap_or_default();
        if wanted("parse into serde_json::Value") {
            let us = median_us_with(min_ms, now, &mut || text(), &mut |input| {
                Box::new(serde_json::from_str::<serde_json::Value>(&owned(input)).ok())
            });
            report("parse into serde_json::Value", us);
        }
        if wanted("parse into rdc json::Value") {
            let us =
                median_us_with(min_ms, now, &mut || text(), &mut |input| Box::new(Value::parse(owned(input)).ok()));
            report("parse into rdc json::Value", us);
        }
        let parsed = |input: Keep| Value::parse(owned(input)).ok();
        if wanted("parse+normalizeLong") {
            let us = median_us_with(min_ms, now, &mut || text(), &mut |input| {
                let mut state = State::default();
                if let Some(value) = parsed(input) {
                    state.write_result("projects", &schema, value, &Value::Null, META).ok();
                }
                Box::new(state)
            });
            report("parse+normalizeLong", us);
        }
        if wanted("end-to-end") {
            let us = median_us_with(min_ms, now, &mut || text(), &mut |input| {
                let mut state = State::default();
                if let Some(value) = parsed(input) {
                    state.write_result("projects", &schema, value, &Value::Null, META).ok();
                }
                let mut memo = MemoCache::default();
                let read = memo.read_result::<Projects>(&state, "projects", &schema);
                Box::new((state, memo, read))
            });
            report("end-to-end", us);
        }
        let mut t = |name: &str, f: &mut dyn FnMut() -> Keep| {
            if wanted(name) {
                report(name, median_us(min_ms, now, f))
            }
        };

        let state = self.projects_state()?;
        let result = state.result("projects").map(|r| r.value.clone()).unwrap_or_default();
        t("denormalizeLong donotcache", &mut || Box::new(denormalize::<Projects>(&state, &schema, &result)));
        t("denormalizeLong (fresh memo)", &mut || {
            let mut memo = MemoCache::default();
            let read = memo.read_result::<Projects>(&state, "projects", &schema);
            Box::new((memo, read))
        });
        let mut memo = MemoCache::default();
        let _ = memo.read_result::<Projects>(&state, "projects", &schema);
        t("denormalizeLong withCache", &mut || Box::new(memo.read_result::<Projects>(&state, "projects", &schema)));
        let user_state = self.user_state()?;
        let user_schema = User::schema();
        let login = json!("octocat");
        t("denormalizeShort donotcache 500x", &mut || {
            let reads: Vec<_> = (0..500).map(|_| denormalize::<User>(&user_state, &user_schema, &login)).collect();
            Box::new(reads)
        });
        let mut user_memo = MemoCache::default();
        t("denormalizeShort withCache 500x", &mut || {
            let reads: Vec<_> = (0..500).map(|_| user_memo.entity::<User>(&user_state, "octocat")).collect();
            Box::new(reads)
        });
        for n in [1_000, 10_000, 100_000] {
            if !wanted("setOneEntity") {
                break;
            }
            let mut state = self.users_store(n)?;
            let mut i = 0u64;
            t(&format!("setOneEntity in {}k store", n / 1000), &mut || {
                i += 1;
                let user = self.numbered_user(i % n as u64, i);
                Box::new(state.write_entities(&user_schema, user, &Value::Null, META))
            });
        }
        if wanted("setOneEntity") {
            let (controller, tasks) = self.users_controller(100_000)?;
            let mut i = 0u64;
            t("setOneEntity in 100k store, through a controller", &mut || {
                i += 1;
                Box::new(controller.set(&user_schema, self.numbered_user(i % 100_000, i)))
            });
            // A mutation whose request never answers keeps its optimistic layer on.
            let pending = controller.fetch(&RENAME, Value::Null, Some(self.numbered_user(5, 1)));
            tasks.run();
            let mut i = 0u64;
            t("setOneEntity in 100k store, a layer pending", &mut || {
                i += 1;
                Box::new(controller.set(&user_schema, self.numbered_user(i % 100_000, i)))
            });
            drop(pending);
        }
        for n in [100, 100_000] {
            if !wanted("warm read") {
                break;
            }
            let state = self.users_store(n)?;
            let mut memo = MemoCache::default();
            let _ = memo.entity::<User>(&state, "user7");
            let label = if n >= 1000 { format!("{}k", n / 1000) } else { n.to_string() };
            t(&format!("warm read in {label} store"), &mut || Box::new(memo.entity::<User>(&state, "user7")));
        }
        if wanted("keys of 500") {
            self.keyed_list(min_ms, now, report)?;
        }
        if wanted("delete one") {
            report("delete one of 200 listed items, through a controller", listed_delete(min_ms, now)?);
        }
        if wanted("rename one") {
            report("rename one of 100 listed items, through a controller", listed_rename(min_ms, now)?);
        }
        Ok(())
    }

    /// The browser benchmark's list read natively: 500 items by 10 authors read
    /// as keys (`Vec<Pk>`, each item's validity checked), first read and re-read
    /// after an item went (or came back: each sample toggles one item).
    fn keyed_list(
        &self,
        min_ms: f64,
        now: &dyn Fn() -> f64,
        report: &mut dyn FnMut(&str, f64),
    ) -> Result<(), NormalizeError> {
        let schema = Schema::array(ListItem::schema());
        let item = |i: u32| json!({ "id": i, "name": format!("item {i}"), "author": { "id": i % 10, "name": format!("author {}", i % 10) } });
        let state = RefCell::new(State::default());
        state.borrow_mut().write_result(
            "items",
            &schema,
            Value::Array((0..500).map(item).collect()),
            &Value::Null,
            META,
        )?;
        report(
            "keys of 500 items (fresh memo)",
            median_us(min_ms, now, &mut || {
                let mut memo = MemoCache::default();
                let read = memo.read_result::<Vec<Pk>>(&state.borrow(), "items", &schema);
                Box::new((memo, read))
            }),
        );
        let memo = RefCell::new(MemoCache::default());
        let mut deleted = false;
        let mut toggle = || {
            let mut state = state.borrow_mut();
            let write = if deleted {
                (ListItem::schema().into_schema(), item(250))
            } else {
                (Schema::invalidate::<ListItem>(), json!(250))
            };
            deleted = !deleted;
            Box::new(state.write_entities(&write.0, write.1, &Value::Null, META)) as Keep
        };
        let us = median_us_with(min_ms, now, &mut toggle, &mut |_| {
            Box::new(memo.borrow_mut().read_result::<Vec<Pk>>(&state.borrow(), "items", &schema))
        });
        report("keys of 500 items after one delete", us);
        // The browser's update-entity: one item renamed, then its row's read.
        let mut version = 0;
        let us = median_us(min_ms, now, &mut || {
            version += 1;
            let renamed = json!({ "id": 5, "name": format!("item 5 v{version}"), "author": { "id": 5 } });
            let written = state.borrow_mut().write_entities(&ListItem::schema(), renamed, &Value::Null, META);
            let read = memo.borrow_mut().entity::<ListItem>(&state.borrow(), "5");
            Box::new((written, read))
        });
        report("rename one item and read it", us);
        Ok(())
    }

    /// A controller whose store holds `n` users, and its task queue.
    ///
    /// # Errors
    /// When the fixture does not normalize.
    pub fn users_controller(&self, n: usize) -> Result<(Controller, LocalTasks), NormalizeError> {
        let time = FakeTime::default();
        let tasks = LocalTasks::default();
        let controller = Controller::new(time.clone(), time, tasks.clone());
        let users: Vec<Value> = (0..n as u64).map(|i| self.numbered_user(i, 0)).collect();
        controller.set(&Schema::array(User::schema()), Value::Array(users))?;
        Ok((controller, tasks))
    }

    /// A store of `n` users.
    ///
    /// # Errors
    /// When the fixture does not normalize.
    pub fn users_store(&self, n: usize) -> Result<State, NormalizeError> {
        let mut state = State::default();
        let users: Vec<Value> = (0..n as u64).map(|i| self.numbered_user(i, 0)).collect();
        state.write_entities(&Schema::array(User::schema()), Value::Array(users), &Value::Null, META)?;
        Ok(state)
    }

    /// The fixture user renamed `user{i}`, with `followers` set to `followers`.
    pub fn numbered_user(&self, i: u64, followers: u64) -> Value {
        let mut user = self.user.clone();
        user["login"] = json!(format!("user{i}"));
        user["followers"] = json!(followers);
        user
    }
}

/// What a timed run produced; dropped after the clock stops. The JavaScript
/// anchor's garbage is collected outside its timings too, so freeing a store or a
/// read is not counted on either side.
type Keep = Box<dyn std::any::Any>;

/// Median of the samples, in microseconds, timed like the JavaScript anchor.
fn median_us(min_ms: f64, now: &dyn Fn() -> f64, f: &mut dyn FnMut() -> Keep) -> f64 {
    median_us_with(min_ms, now, &mut || Box::new(()), &mut |_| f())
}

/// Like `median_us`, with an untimed `setup` making each sample's input (a
/// normalize consumes its parsed input; the anchor's only reads it, so it can
/// reuse one).
fn median_us_with(
    min_ms: f64,
    now: &dyn Fn() -> f64,
    setup: &mut dyn FnMut() -> Keep,
    f: &mut dyn FnMut(Keep) -> Keep,
) -> f64 {
    for _ in 0..5 {
        drop(f(setup()));
    }
    let mut samples = Vec::new();
    let end = now() + min_ms;
    while now() < end || samples.len() < 5 {
        let input = setup();
        let start = now();
        let kept = f(input);
        samples.push(now() - start);
        drop(kept);
    }
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(0.0) * 1000.0
}

/// The browser's delete-item without the browser: 200 items by 10 authors in a
/// stored list that a tracked listener reads as keys (as `use_cache` does);
/// each sample deletes item 100 or stores it again (so the list loses it or
/// gets it back) and times the write, the listener's wake-up, its re-read and
/// the update of what it follows.
fn listed_delete(min_ms: f64, now: &dyn Fn() -> f64) -> Result<f64, NormalizeError> {
    let (controller, list) = (listed(200)?, ITEM_LIST);
    let item = list_item;
    let (reader, shown) = (controller.clone(), std::rc::Rc::new(std::cell::Cell::new((0, 0))));
    let seen = std::rc::Rc::clone(&shown);
    let schema = list.schema();
    // Counts its runs and keeps the number of keys it read.
    let id = controller.listen_reads(move || {
        let keys = reader.read_key::<Vec<Pk>>("GET /items", schema.as_ref(), false);
        let len = keys.ok().and_then(|read| read.data).map_or(0, |keys| keys.len());
        seen.set((seen.get().0 + 1, len));
    });
    let mut deleted = false;
    let mut samples = 0;
    let us = median_us(min_ms, now, &mut || {
        samples += 1;
        let written = if deleted {
            controller.set(&ListItem::schema(), item(100))
        } else {
            controller.set(&Schema::invalidate::<ListItem>(), json!(100))
        };
        deleted = !deleted;
        Box::new(written)
    });
    controller.unlisten(id);
    // The listener ran once when it started and once per sample (the list lost
    // or got back its item each time), and last read 200 or 199 keys.
    let (runs, len) = shown.get();
    Ok(if runs == samples + 1 && (199..=200).contains(&len) { us } else { f64::NAN })
}

/// The browser's update-entity without the browser: 100 items by 10 authors in
/// a stored list read as keys by one tracked listener, and each item by a
/// listener of its own (as `use_cache` and a `use_entity` per row do); each
/// sample renames item 5 and times the write, the wake-up of its row's listener
/// (the list's is not woken: its keys did not change) and that row's re-read.
fn listed_rename(min_ms: f64, now: &dyn Fn() -> f64) -> Result<f64, NormalizeError> {
    let (controller, list) = (listed(100)?, ITEM_LIST);
    let runs = std::rc::Rc::new(std::cell::Cell::new((0usize, 0usize)));
    let (reader, seen, schema) = (controller.clone(), std::rc::Rc::clone(&runs), list.schema());
    let mut ids = vec![controller.listen_reads(move || {
        let _ = reader.read_key::<Vec<Pk>>("GET /items", schema.as_ref(), false);
        seen.set((seen.get().0 + 1, seen.get().1));
    })];
    for i in 0..100 {
        let (reader, seen, pk) = (controller.clone(), std::rc::Rc::clone(&runs), i.to_string());
        ids.push(controller.listen_reads(move || {
            let _ = reader.entity::<ListItem>(&pk);
            seen.set((seen.get().0, seen.get().1 + 1));
        }));
    }
    let mut version = 0;
    let us = median_us(min_ms, now, &mut || {
        version += 1;
        let renamed = json!({ "id": 5, "name": format!("item 5 v{version}"), "author": { "id": 5 } });
        Box::new(controller.set(&ListItem::schema(), renamed))
    });
    for id in ids {
        controller.unlisten(id);
    }
    // The list's listener ran once (when it started), the rows' once each and
    // then once per rename.
    let (list_runs, row_runs) = runs.get();
    Ok(if list_runs == 1 && row_runs == 100 + version { us } else { f64::NAN })
}

/// Item `i` of the listed workloads, by one of 10 authors.
fn list_item(i: u32) -> Value {
    json!({ "id": i, "name": format!("item {i}"), "author": { "id": i % 10, "name": format!("author {}", i % 10) } })
}

/// A controller with `n` items stored as the answer of [`ITEM_LIST`].
fn listed(n: u32) -> Result<Controller, NormalizeError> {
    let time = FakeTime::default();
    let controller = Controller::new(time.clone(), time, LocalTasks::default());
    match controller.set_response(&ITEM_LIST, &Value::Null, Value::Array((0..n).map(list_item).collect())) {
        Err(rdc_controller::FetchError::Normalize(err)) => Err(err),
        // (The list's key never fails: no other error.)
        _ => Ok(controller),
    }
}

/// An endpoint whose request never answers: its data is set by the workloads.
#[derive(Clone)]
struct Never {
    key: &'static str,
    schema: fn() -> Schema,
    /// A mutation shows its body at once (an optimistic layer that stays on).
    mutation: bool,
}

/// The stored list of [`listed_delete`] and [`listed_rename`].
const ITEM_LIST: Never = Never { key: "GET /items", schema: || Schema::array(ListItem::schema()), mutation: false };

/// A user rename shown at once whose request never answers: its layer stays on
/// while the workload writes.
const RENAME: Never = Never { key: "PUT /user", schema: || User::schema().into(), mutation: true };

impl Endpoint for Never {
    type Output = Value;
    type Error = String;
    type Body = Value;

    fn key(&self, _: &Value) -> Result<String, String> {
        Ok(self.key.to_owned())
    }

    fn schema(&self) -> Option<Schema> {
        Some((self.schema)())
    }

    fn policy(&self) -> Policy {
        Policy { mutation: self.mutation, ..Policy::default() }
    }

    fn is_soft(&self, _: &String) -> bool {
        false
    }

    fn fetch(&self, _: &Value, _: Option<Value>) -> LocalFuture<Result<Value, String>> {
        Box::pin(std::future::pending())
    }

    fn storable(output: &Value) -> Option<Value> {
        Some(output.clone())
    }

    fn optimistic(&self, _: &rdc_core::State, _: &Value, body: Option<&Value>) -> Option<Value> {
        self.mutation.then(|| body.cloned()).flatten()
    }
}
