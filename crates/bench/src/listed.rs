//! The browser benchmark's list scenarios without the browser: a stored list
//! read by tracked listeners (as `use_keys` and a `use_entity` per row do),
//! timed through a controller.

use rdc_controller::{BoxFuture, Controller, Endpoint, FakeTime, LocalTasks, Policy};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, NormalizeError, Pk, Schema};

use crate::fixtures::{ListItem, User};
use crate::timing::median_us;

/// The browser's delete-item without the browser: 200 items by 10 authors in a
/// stored list that a tracked listener reads as keys (as `use_keys` does);
/// each sample deletes item 100 or stores it again (so the list loses it or
/// gets it back) and times the write, the listener's wake-up, its re-read and
/// the update of what it follows.
pub(crate) fn listed_delete(min_ms: f64, now: &dyn Fn() -> f64) -> Result<f64, String> {
    let (controller, list) = (listed(200).map_err(|e| e.to_string())?, ITEM_LIST);
    let item = list_item;
    let (reader, shown) = (controller.clone(), std::sync::Arc::new(std::sync::Mutex::new((0, 0))));
    let seen = std::sync::Arc::clone(&shown);
    let schema = list.schema();
    // Counts its runs and keeps the number of keys it read.
    let id = controller.listen_reads(move || {
        let keys = reader.read_key::<Vec<Pk>>("GET /items", schema.as_ref(), false);
        let len = keys.ok().and_then(|read| read.data).map_or(0, |keys| keys.len());
        let mut seen = seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *seen = (seen.0 + 1, len);
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
        crate::timing::kept(written)
    })?;
    controller.unlisten(id);
    // The listener ran once when it started and once per sample (the list lost
    // or got back its item each time), and last read 200 or 199 keys.
    let (runs, len) = *shown.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match runs == samples + 1 && (199..=200).contains(&len) {
        true => Ok(us),
        false => Err(format!("the list's listener ran {runs} times for {samples} samples, last reading {len} keys")),
    }
}

/// The browser's update-entity without the browser: 100 items by 10 authors in
/// a stored list read as keys by one tracked listener, and each item by a
/// listener of its own (as `use_keys` and a `use_entity` per row do); each
/// sample renames item 5 and times the write, the wake-up of its row's listener
/// (the list's is not woken: its keys did not change) and that row's re-read.
pub(crate) fn listed_rename(min_ms: f64, now: &dyn Fn() -> f64) -> Result<f64, String> {
    let (controller, list) = (listed(100).map_err(|e| e.to_string())?, ITEM_LIST);
    let runs = std::sync::Arc::new(std::sync::Mutex::new((0usize, 0usize)));
    let (reader, seen, schema) = (controller.clone(), std::sync::Arc::clone(&runs), list.schema());
    let mut ids = vec![controller.listen_reads(move || {
        let _ = reader.read_key::<Vec<Pk>>("GET /items", schema.as_ref(), false);
        seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).0 += 1;
    })];
    for i in 0..100 {
        let (reader, seen, pk) = (controller.clone(), std::sync::Arc::clone(&runs), i.to_string());
        ids.push(controller.listen_reads(move || {
            let _ = reader.entity::<ListItem>(&pk);
            seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).1 += 1;
        }));
    }
    let mut version = 0;
    let us = median_us(min_ms, now, &mut || {
        version += 1;
        let renamed = json!({ "id": 5, "name": format!("item 5 v{version}"), "author": { "id": 5 } });
        crate::timing::kept(controller.set(&ListItem::schema(), renamed))
    })?;
    for id in ids {
        controller.unlisten(id);
    }
    // The list's listener ran once (when it started), the rows' once each and
    // then once per rename.
    let (list_runs, row_runs) = *runs.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match list_runs == 1 && row_runs == 100 + version {
        true => Ok(us),
        false => Err(format!("the list's listener ran {list_runs} times, the rows' {row_runs} for {version} renames")),
    }
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
pub(crate) struct Never {
    key: &'static str,
    schema: fn() -> Schema,
    /// A mutation shows its body at once (an optimistic layer that stays on).
    mutation: bool,
}

/// The stored list of [`listed_delete`] and [`listed_rename`].
const ITEM_LIST: Never = Never { key: "GET /items", schema: || Schema::array(ListItem::schema()), mutation: false };

/// A user rename shown at once whose request never answers: its layer stays on
/// while the workload writes.
pub(crate) const RENAME: Never = Never { key: "PUT /user", schema: || User::schema().into(), mutation: true };

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

    fn fetch(&self, _: &Value, _: Option<Value>) -> BoxFuture<Result<Value, String>> {
        Box::pin(std::future::pending())
    }

    fn storable(output: &Value) -> Option<Value> {
        Some(output.clone())
    }

    fn optimistic(&self, _: &rdc_core::State, _: &Value, body: Option<&Value>) -> Option<Value> {
        self.mutation.then(|| body.cloned()).flatten()
    }
}
