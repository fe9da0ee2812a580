//! The workloads, each a closure over prepared inputs, timed by `timing.rs`.

use std::cell::RefCell;

use rdc_controller::{Controller, FakeTime, LocalTasks};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, Entity, MemoCache, NormalizeError, Pk, Schema, State, WriteMeta};

use crate::fixtures::{ListItem, Projects, User};
use crate::listed::{listed_delete, listed_rename, RENAME};
use crate::timing::{kept, kept_some, median_us, median_us_with, set_up, Keep};

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
    "denormalizeLong withCache after an unrelated write",
    "denormalizeShort donotcache 500x",
    "denormalizeShort withCache 500x",
    "setOneEntity in 1k store",
    "setOneEntity in 10k store",
    "setOneEntity in 100k store",
    "setOneEntity in 100k store, through a controller",
    "setOneEntity in 100k store, a layer pending",
    "warm read in 100 store",
    "warm read in 100k store",
    "warm read in 100k store after an unrelated write",
    "keys of 500 items (fresh memo)",
    "keys of 500 items after one delete",
    "rename one item and read it",
    "keys of 10000 items after one delete",
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
    /// The first workload whose work failed (nothing it timed would mean anything).
    pub fn run(
        &self,
        min_ms: f64,
        only: Option<&str>,
        now: &dyn Fn() -> f64,
        report: &mut dyn FnMut(&str, f64),
    ) -> Result<(), BenchError> {
        let wanted = |name: &str| only.is_none_or(|o| name.starts_with(o));
        let outer = RefCell::new(report);
        let report = |name: &str, us: Result<f64, String>| {
            let us = us.map_err(|message| BenchError { workload: name.to_owned(), message })?;
            (outer.borrow_mut())(name, us);
            Ok::<(), BenchError>(())
        };
        let schema = Projects::schema();
        if wanted("normalizeLong") {
            let us = median_us_with(min_ms, now, &mut || Box::new(self.projects.clone()), &mut |input| {
                let mut state = State::default();
                let value = input.downcast::<Value>().map(|v| *v).unwrap_or_default();
                kept(state.write_result("projects", &schema, value, &Value::Null, META).map(|()| state))
            });
            report("normalizeLong", us)?;
        }
        // The same text parsed into `serde_json::Value` and into rdc's own
        // value (whose strings are ranges of the text, moved in as a response's
        // body would be; its copy is made before the clock starts).
        let text = || -> Keep { Box::new(self.projects_text.clone()) };
        let owned = |input: Keep| input.downcast::<String>().map(|t| *t).unwrap_or_default();
        if wanted("parse into serde_json::Value") {
            let us = median_us_with(min_ms, now, &mut || text(), &mut |input| {
                kept(serde_json::from_str::<serde_json::Value>(&owned(input)))
            });
            report("parse into serde_json::Value", us)?;
        }
        if wanted("parse into rdc json::Value") {
            let us = median_us_with(min_ms, now, &mut || text(), &mut |input| kept(Value::parse(owned(input))));
            report("parse into rdc json::Value", us)?;
        }
        // Text into the store, and with `read` also read back through a fresh memo.
        let into_store = |input: Keep, read: bool| -> Result<Keep, String> {
            let value = Value::parse(owned(input)).map_err(|e| e.to_string())?;
            let mut state = State::default();
            state.write_result("projects", &schema, value, &Value::Null, META).map_err(|e| e.to_string())?;
            if !read {
                return Ok(Box::new(state));
            }
            let mut memo = MemoCache::default();
            let projects = memo.read_result::<Projects>(&state, "projects", &schema).map_err(|e| e.to_string())?;
            Ok(Box::new((state, memo, projects.ok_or("no projects read")?)))
        };
        if wanted("parse+normalizeLong") {
            let us = median_us_with(min_ms, now, &mut || text(), &mut |input| kept(into_store(input, false)));
            report("parse+normalizeLong", us)?;
        }
        if wanted("end-to-end") {
            let us = median_us_with(min_ms, now, &mut || text(), &mut |input| kept(into_store(input, true)));
            report("end-to-end", us)?;
        }
        let t = |name: &str, f: &mut dyn FnMut() -> Keep| match wanted(name) {
            true => report(name, median_us(min_ms, now, f)),
            false => Ok(()),
        };

        let state = self.projects_state()?;
        let result = state.result("projects").map(|r| r.value.clone()).unwrap_or_default();
        t("denormalizeLong donotcache", &mut || kept_some(denormalize::<Projects>(&state, &schema, &result)))?;
        t("denormalizeLong (fresh memo)", &mut || {
            let mut memo = MemoCache::default();
            let read = memo.read_result::<Projects>(&state, "projects", &schema);
            kept_some(read.map(|read| read.map(|read| (memo, read))))
        })?;
        let mut memo = MemoCache::default();
        let _ = memo.read_result::<Projects>(&state, "projects", &schema);
        t("denormalizeLong withCache", &mut || kept_some(memo.read_result::<Projects>(&state, "projects", &schema)))?;
        if wanted("denormalizeLong withCache after") {
            // Each sample's store took one write to a table the projects do not reach.
            let state = RefCell::new(state);
            let mut i = 0;
            let mut unrelated = || {
                i += 1;
                set_up(state.borrow_mut().write_entities(
                    &User::schema(),
                    self.numbered_user(i % 1000, i),
                    &Value::Null,
                    META,
                ))
            };
            let us = median_us_with(min_ms, now, &mut unrelated, &mut |_| {
                kept_some(memo.read_result::<Projects>(&state.borrow(), "projects", &schema))
            });
            report("denormalizeLong withCache after an unrelated write", us)?;
        }
        let user_state = self.user_state()?;
        let user_schema = User::schema();
        let login = json!("octocat");
        t("denormalizeShort donotcache 500x", &mut || {
            let reads: Result<Vec<_>, _> =
                (0..500).map(|_| denormalize::<User>(&user_state, &user_schema, &login)).collect();
            kept_some(reads.map(|reads| reads.iter().all(Option::is_some).then_some(reads)))
        })?;
        let mut user_memo = MemoCache::default();
        t("denormalizeShort withCache 500x", &mut || {
            let reads: Result<Vec<_>, _> = (0..500).map(|_| user_memo.entity::<User>(&user_state, "octocat")).collect();
            kept_some(reads.map(|reads| reads.iter().all(Option::is_some).then_some(reads)))
        })?;
        for n in [1_000, 10_000, 100_000] {
            if !wanted("setOneEntity") {
                break;
            }
            let mut state = self.users_store(n)?;
            let mut i = 0u64;
            t(&format!("setOneEntity in {}k store", n / 1000), &mut || {
                i += 1;
                let user = self.numbered_user(i % n as u64, i);
                kept(state.write_entities(&user_schema, user, &Value::Null, META))
            })?;
        }
        if wanted("setOneEntity") {
            let (controller, tasks) = self.users_controller(100_000)?;
            let mut i = 0u64;
            t("setOneEntity in 100k store, through a controller", &mut || {
                i += 1;
                kept(controller.set(&user_schema, self.numbered_user(i % 100_000, i)))
            })?;
            // A mutation whose request never answers keeps its optimistic layer on.
            let pending = controller.fetch(&RENAME, Value::Null, Some(self.numbered_user(5, 1)));
            tasks.run();
            let mut i = 0u64;
            t("setOneEntity in 100k store, a layer pending", &mut || {
                i += 1;
                kept(controller.set(&user_schema, self.numbered_user(i % 100_000, i)))
            })?;
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
            t(&format!("warm read in {label} store"), &mut || kept_some(memo.entity::<User>(&state, "user7")))?;
            if n == 100_000 {
                // Each sample's store took one write to another user.
                let state = RefCell::new(state);
                let mut i = 0u64;
                let mut unrelated = || {
                    i += 1;
                    let other = self.numbered_user(8 + i % 1000, i);
                    set_up(state.borrow_mut().write_entities(&user_schema, other, &Value::Null, META))
                };
                let us = median_us_with(min_ms, now, &mut unrelated, &mut |_| {
                    kept_some(memo.entity::<User>(&state.borrow(), "user7"))
                });
                report("warm read in 100k store after an unrelated write", us)?;
            }
        }
        if wanted("keys of 500") {
            self.keyed_list(min_ms, now, &report)?;
        }
        if wanted("keys of 10000") {
            report("keys of 10000 items after one delete", keys_after_one_delete(10_000, min_ms, now))?;
        }
        if wanted("delete one") {
            report("delete one of 200 listed items, through a controller", listed_delete(min_ms, now))?;
        }
        if wanted("rename one") {
            report("rename one of 100 listed items, through a controller", listed_rename(min_ms, now))?;
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
        report: &dyn Fn(&str, Result<f64, String>) -> Result<(), BenchError>,
    ) -> Result<(), BenchError> {
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
                kept_some(read.map(|read| read.map(|read| (memo, read))))
            }),
        )?;
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
            set_up(state.write_entities(&write.0, write.1, &Value::Null, META))
        };
        let us = median_us_with(min_ms, now, &mut toggle, &mut |_| {
            kept_some(memo.borrow_mut().read_result::<Vec<Pk>>(&state.borrow(), "items", &schema))
        });
        report("keys of 500 items after one delete", us)?;
        // The browser's update-entity: one item renamed, then its row's read.
        let mut version = 0;
        let us = median_us(min_ms, now, &mut || {
            version += 1;
            let renamed = json!({ "id": 5, "name": format!("item 5 v{version}"), "author": { "id": 5 } });
            let written = state.borrow_mut().write_entities(&ListItem::schema(), renamed, &Value::Null, META);
            let read = written
                .map_err(|e| e.to_string())
                .and_then(|_| memo.borrow_mut().entity::<ListItem>(&state.borrow(), "5").map_err(|e| e.to_string()));
            kept_some(read)
        });
        report("rename one item and read it", us)?;
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

/// A workload whose work failed, so it measured nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchError {
    /// The workload's name.
    pub workload: String,
    /// What failed.
    pub message: String,
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.workload, self.message)
    }
}

impl std::error::Error for BenchError {}

impl From<NormalizeError> for BenchError {
    fn from(error: NormalizeError) -> BenchError {
        BenchError { workload: "the fixtures".to_owned(), message: error.to_string() }
    }
}

/// Keys (`Vec<Pk>`) of a list of `n` items by 10 authors read again after one
/// item went (or came back: each sample toggles the middle item), as the
/// browser's delete-item-10000 does.
fn keys_after_one_delete(n: u32, min_ms: f64, now: &dyn Fn() -> f64) -> Result<f64, String> {
    let schema = Schema::array(ListItem::schema());
    let item = |i: u32| json!({ "id": i, "name": format!("item {i}"), "author": { "id": i % 10, "name": format!("author {}", i % 10) } });
    let state = RefCell::new(State::default());
    let items = Value::Array((0..n).map(item).collect());
    state.borrow_mut().write_result("items", &schema, items, &Value::Null, META).map_err(|e| e.to_string())?;
    let memo = RefCell::new(MemoCache::default());
    let mut deleted = false;
    let mut toggle = || {
        let mut state = state.borrow_mut();
        let write = match deleted {
            true => (ListItem::schema().into_schema(), item(n / 2)),
            false => (Schema::invalidate::<ListItem>(), json!(n / 2)),
        };
        deleted = !deleted;
        set_up(state.write_entities(&write.0, write.1, &Value::Null, META))
    };
    median_us_with(min_ms, now, &mut toggle, &mut |_| {
        kept_some(memo.borrow_mut().read_result::<Vec<Pk>>(&state.borrow(), "items", &schema))
    })
}
