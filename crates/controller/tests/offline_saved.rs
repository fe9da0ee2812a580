//! The offline queue saved with the store (`Persist::replay`): mutations
//! held offline come back after a reload with their optimistic layers, go
//! out in order once online, and leave the saved queue when they answer;
//! a saved queue that does not read gives a typed error and takes up nothing.

mod cells;
mod controller_support;

use cells::SyncRefCell;
use std::sync::Arc;

use controller_support::*;
use rdc_controller::{
    BoxFuture, Controller, Endpoint, FakeTime, LocalTasks, MemoryStorage, Persist, Policy, QueueError, Restored,
    SavedBody, SavedMutation,
};
use rdc_core::{json, json::Value, Entity, Schema, State};

#[derive(Debug, serde::Deserialize, Entity)]
struct Todo {
    #[allow(dead_code)]
    id: u32,
    title: String,
}

/// `POST /todos`, shown at once as the todo it sends; tried again a second
/// later after a `503`, up to 3 times.
fn add_todo(server: &Arc<SyncRefCell<Server>>) -> Api {
    let mut add = Api::new(server, "POST", "/todos", Some(Todo::schema().into()));
    add.optimistic = Some(|_, body| body.cloned().unwrap_or(Value::Null));
    add.retry = Some(|error, attempt| (error == "503" && attempt < 3).then_some(1000));
    add
}

/// A new title: the body of [`Rename`], saved as a JSON string.
#[derive(Clone)]
struct Title(String);

impl SavedBody for Title {
    fn to_saved(&self) -> Option<Value> {
        Some(Value::from(self.0.as_str()))
    }
    fn from_saved(saved: Value) -> Result<Title, String> {
        saved.as_str().map(|title| Title(title.to_owned())).ok_or_else(|| "expected a title (a string)".to_owned())
    }
}

/// `PATCH /todos/{id}` with a [`Title`]: its args need a numeric `id`.
#[derive(Clone)]
struct Rename(Api);

impl Endpoint for Rename {
    type Output = Value;
    type Error = String;
    type Body = Title;
    fn key(&self, args: &Value) -> Result<String, String> {
        let id = args.get("id").and_then(Value::as_u64).ok_or("args: `id` must be a number")?;
        Ok(format!("PATCH /todos/{id}"))
    }
    fn schema(&self) -> Option<Schema> {
        Some(Todo::schema().into())
    }
    fn policy(&self) -> Policy {
        Policy { mutation: true, ..Policy::default() }
    }
    fn is_soft(&self, _: &String) -> bool {
        false
    }
    fn fetch(&self, args: &Value, body: Option<Title>) -> BoxFuture<Result<Value, String>> {
        self.0.fetch(args, body.map(|title| json!({ "title": title.0 })))
    }
    fn storable(output: &Value) -> Option<Value> {
        Some(output.clone())
    }
    fn optimistic(&self, _: &State, args: &Value, body: Option<&Title>) -> Option<Value> {
        Some(json!({ "id": args.get("id")?.clone(), "title": body?.0.clone() }))
    }
}

/// One page load on the shared clock and storage, with its own server.
struct Page {
    c: Controller,
    tasks: LocalTasks,
    server: Arc<SyncRefCell<Server>>,
    restored: Restored,
}

/// What a page registers: adding todos (and renaming them when `rename`).
fn persist(server: &Arc<SyncRefCell<Server>>, rename: bool) -> Persist {
    let persist = Persist::new(1).entity::<Todo>().replay("todos.add", &add_todo(server));
    match rename {
        true => persist.replay("todos.rename", &Rename(Api::new(server, "PATCH", "/todos", None))),
        false => persist,
    }
}

/// A page loaded offline (as the browser says at start), restoring from `storage`.
fn load_offline(time: &FakeTime, storage: &MemoryStorage, rename: bool) -> Page {
    let (tasks, server) = (LocalTasks::default(), Arc::<SyncRefCell<Server>>::default());
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    c.set_online(false);
    let restored = tasks.block_on(c.persist(persist(&server, rename), storage.clone()));
    Page { c, tasks, server, restored }
}

fn title(page: &Page, id: &str) -> Option<String> {
    page.c.entity::<Todo>(id).unwrap().map(|todo| todo.title.clone())
}

/// The mutations saved in `storage` now.
fn saved_queue(storage: &MemoryStorage) -> Vec<SavedMutation> {
    let saved: Value = storage.text().expect("a saved store").parse().unwrap();
    match saved.get("queue") {
        Some(queue) => serde_json::from_str(&queue.to_string()).unwrap(),
        None => Vec::new(),
    }
}

/// The bodies sent so far.
fn sent(page: &Page) -> Vec<Option<Value>> {
    page.server.borrow().requests.iter().map(|(_, body)| body.clone()).collect()
}

/// A first page that added milk and eggs offline, saved (the page then closed).
fn two_added_offline(time: &FakeTime, storage: &MemoryStorage) -> Page {
    let first = load_offline(time, storage, false);
    let add = add_todo(&first.server);
    for (id, name) in [(1, "milk"), (2, "eggs")] {
        spawn_fetch(&first.c, &first.tasks, &add, json!(null), Some(json!({ "id": id, "title": name })));
    }
    time.advance(100); // saved 100 ms after the change
    first
}

#[test]
fn a_reload_shows_the_held_mutations_at_once_and_sends_them_in_order_once_online() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let first = two_added_offline(&time, &storage);
    assert_eq!(first.c.queued_mutations(), 2);
    let names: Vec<_> = saved_queue(&storage).into_iter().map(|m| (m.name, m.key, m.body)).collect();
    assert_eq!(
        names,
        [
            (Some("todos.add".into()), "POST /todos".into(), Some(json!({ "id": 1, "title": "milk" }))),
            (Some("todos.add".into()), "POST /todos".into(), Some(json!({ "id": 2, "title": "eggs" }))),
        ]
    );
    drop(first);

    let page = load_offline(&time, &storage, false);
    let Restored::Taken { replayed: 2, unknown, .. } = &page.restored else { panic!("{:?}", page.restored) };
    assert!(unknown.is_empty());
    page.tasks.run();
    assert_eq!((title(&page, "1"), title(&page, "2")), (Some("milk".into()), Some("eggs".into())), "shown at once");
    assert_eq!((page.server.borrow().requests.len(), page.c.queued_mutations()), (0, 2), "held, nothing sent");

    page.c.set_online(true);
    page.tasks.run();
    assert_eq!(sent(&page), [Some(json!({ "id": 1, "title": "milk" }))], "the first goes alone");
    page.server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 1, "title": "milk" })));
    page.tasks.run();
    assert_eq!(sent(&page).len(), 2, "then the second");
    assert_eq!(sent(&page)[1], Some(json!({ "id": 2, "title": "eggs" })));
    time.advance(100);
    assert_eq!(saved_queue(&storage).len(), 1, "the answered one left the saved queue; the one on the wire stays");
    page.server.borrow_mut().answer("POST /todos", Err("409 taken".into()));
    page.tasks.run();
    assert_eq!((title(&page, "1"), title(&page, "2")), (Some("milk".into()), None), "the failed one's layer went");
    time.advance(100);
    assert!(saved_queue(&storage).is_empty(), "a failed one leaves it too");
    drop(page);

    let again = load_offline(&time, &storage, false);
    assert!(matches!(again.restored, Restored::Taken { replayed: 0, .. }), "{:?}", again.restored);
    again.c.set_online(true);
    again.tasks.run();
    assert!(again.server.borrow().requests.is_empty(), "nothing is sent twice");
}

#[test]
fn a_reload_while_online_sends_the_first_at_once_and_keeps_it_saved_until_it_answers() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    drop(two_added_offline(&time, &storage));
    let (tasks, server) = (LocalTasks::default(), Arc::<SyncRefCell<Server>>::default());
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let restored = tasks.block_on(c.persist(persist(&server, false), storage.clone()));
    assert!(matches!(restored, Restored::Taken { replayed: 2, .. }), "{restored:?}");
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 1, "one at a time");
    time.advance(100);
    assert_eq!(saved_queue(&storage).len(), 2, "the one on the wire is kept until it answers");
    server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 1, "title": "milk" })));
    tasks.run();
    server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 2, "title": "eggs" })));
    tasks.run();
    time.advance(100);
    assert!(saved_queue(&storage).is_empty());
    assert_eq!(c.entity::<Todo>("2").unwrap().map(|t| t.title.clone()), Some("eggs".into()));
}

#[test]
fn a_held_mutation_of_an_endpoint_not_registered_is_reported_not_sent() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let first = load_offline(&time, &storage, true);
    let rename = Rename(Api::new(&first.server, "PATCH", "/todos", None));
    let add_api = add_todo(&first.server);
    let mut delete = Api::new(&first.server, "DELETE", "/todos", None);
    delete.policy.mutation = true;
    let add = spawn_fetch(&first.c, &first.tasks, &add_api, json!(null), Some(json!({ "id": 1, "title": "milk" })));
    let out = Arc::new(SyncRefCell::new(None));
    let slot = out.clone();
    let renamed = first.c.fetch(&rename, json!({ "id": 1 }), Some(Title("oat milk".into())));
    rdc_controller::Spawn::spawn(&first.tasks, Box::pin(async move { *slot.borrow_mut() = Some(renamed.await) }));
    let _deleted = spawn_fetch(&first.c, &first.tasks, &delete, json!({ "id": 9 }), None);
    first.tasks.run();
    assert_eq!(first.c.queued_mutations(), 3);
    assert!(add.borrow().is_none());
    time.advance(100);
    drop(first);

    // This page registers adding todos only.
    let page = load_offline(&time, &storage, false);
    let Restored::Taken { replayed, unknown, .. } = &page.restored else { panic!("{:?}", page.restored) };
    let unknown: Vec<_> = unknown.iter().map(|m| (m.name.as_deref(), m.key.as_str(), m.body.clone())).collect();
    assert_eq!(*replayed, 1, "the add");
    assert_eq!(
        unknown,
        [(Some("todos.rename"), "PATCH /todos/1", Some(json!("oat milk")))],
        "reported in order, with what they would have sent; the delete, never registered, was not saved"
    );
    page.c.set_online(true);
    page.tasks.run();
    assert_eq!(page.server.borrow().requests.iter().map(|(key, _)| key.as_str()).collect::<Vec<_>>(), ["POST /todos"]);
}

/// The text a first page saved with a rename of todo 1 held, with `edit` applied to its queue.
fn saved_with_a_rename(edit: impl FnOnce(&mut Value)) -> (FakeTime, MemoryStorage) {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let first = load_offline(&time, &storage, true);
    first.c.set(&Todo::schema().into(), json!({ "id": 3, "title": "kept" })).unwrap();
    let rename = Rename(Api::new(&first.server, "PATCH", "/todos", None));
    let renamed = first.c.fetch(&rename, json!({ "id": 1 }), Some(Title("oat milk".into())));
    rdc_controller::Spawn::spawn(&first.tasks, Box::pin(async move { drop(renamed.await) }));
    first.tasks.run();
    time.advance(100);
    let mut saved: Value = storage.text().unwrap().parse().unwrap();
    edit(&mut saved["queue"]);
    rdc_controller::PersistStorage::save(&storage, saved.to_string());
    (time, storage)
}

/// A page that already shows todo 7, then restores from `storage` offline.
fn load_showing_a_todo(time: &FakeTime, storage: &MemoryStorage) -> Page {
    let (tasks, server) = (LocalTasks::default(), Arc::<SyncRefCell<Server>>::default());
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    c.set_online(false);
    c.set(&Todo::schema().into(), json!({ "id": 7, "title": "tea" })).unwrap();
    let restored = tasks.block_on(c.persist(persist(&server, true), storage.clone()));
    tasks.run();
    Page { c, tasks, server, restored }
}

#[test]
fn a_saved_mutation_that_is_not_a_call_of_its_endpoint_gives_a_typed_error_and_takes_up_nothing() {
    // Untouched, the saved store and its rename are taken up.
    let (time, storage) = saved_with_a_rename(|_| {});
    let page = load_showing_a_todo(&time, &storage);
    assert!(matches!(page.restored, Restored::Taken { entities: 1, replayed: 1, .. }), "{:?}", page.restored);
    assert_eq!((title(&page, "3"), title(&page, "1")), (Some("kept".into()), Some("oat milk".into())));

    let cases: [(fn(&mut Value), QueueError); 2] = [
        (
            |queue| queue[0]["args"] = json!({ "id": "../admin" }),
            QueueError::Args { at: 0, name: "todos.rename".into(), reason: "args: `id` must be a number".into() },
        ),
        (
            |queue| queue[0]["body"] = json!({ "title": ["not", "a", "string"] }),
            QueueError::Body { at: 0, name: "todos.rename".into(), reason: "expected a title (a string)".into() },
        ),
    ];
    for (edit, error) in cases {
        let (time, storage) = saved_with_a_rename(edit);
        let page = load_showing_a_todo(&time, &storage);
        assert_eq!(page.restored, Restored::QueueRejected { error: error.clone() });
        let shown = (title(&page, "7"), title(&page, "1"), title(&page, "3"));
        assert_eq!(shown, (Some("tea".into()), None, None), "the store as it was");
        assert_eq!(page.c.queued_mutations(), 0);
        assert_eq!(storage.text(), None, "the saved text was dropped");
        page.c.set_online(true);
        page.tasks.run();
        assert!(page.server.borrow().requests.is_empty());
    }
}

#[test]
fn a_saved_queue_that_does_not_read_is_unreadable_and_takes_up_nothing() {
    for edit in [
        (|queue: &mut Value| *queue = json!(5)) as fn(&mut Value),
        |queue| queue[0]["key"] = json!(null),
        |queue| queue[0] = json!("POST /todos"),
    ] {
        let (time, storage) = saved_with_a_rename(edit);
        let page = load_showing_a_todo(&time, &storage);
        assert!(matches!(page.restored, Restored::Unreadable { .. }), "{:?}", page.restored);
        assert_eq!((title(&page, "7"), title(&page, "1"), title(&page, "3")), (Some("tea".into()), None, None));
        assert_eq!((page.c.queued_mutations(), storage.text()), (0, None));
    }
}

/// The mutations saved in `storage` now, none when nothing is saved.
fn saved_queue_if_any(storage: &MemoryStorage) -> Vec<SavedMutation> {
    storage.text().map_or_else(Vec::new, |_| saved_queue(storage))
}

#[test]
fn a_reset_right_after_the_reload_sends_nothing_of_the_last_session() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    drop(two_added_offline(&time, &storage));
    let page = load_offline(&time, &storage, false);
    assert!(matches!(page.restored, Restored::Taken { replayed: 2, .. }), "{:?}", page.restored);
    // A logout before the replayed requests ran.
    page.c.reset_entire_store();
    page.c.set_online(true);
    page.tasks.run();
    time.advance(100);
    page.tasks.run();
    assert!(page.server.borrow().requests.is_empty(), "nothing of the last user is sent");
    assert_eq!((title(&page, "1"), title(&page, "2")), (None, None), "nor shown");
    assert_eq!(page.c.queued_mutations(), 0);
    assert!(saved_queue_if_any(&storage).is_empty());

    // The next user's mutation goes at once, and is not saved as held.
    let add = add_todo(&page.server);
    spawn_fetch(&page.c, &page.tasks, &add, json!(null), Some(json!({ "id": 5, "title": "tea" })));
    assert_eq!(page.server.borrow().requests.len(), 1);
    time.advance(100);
    assert!(saved_queue_if_any(&storage).is_empty(), "a mutation sent at once is never held");
}

#[test]
fn a_change_to_the_queue_is_saved_at_once_not_after_the_save_delay() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let page = load_offline(&time, &storage, false);
    let add = add_todo(&page.server);
    spawn_fetch(&page.c, &page.tasks, &add, json!(null), Some(json!({ "id": 1, "title": "milk" })));
    // No time passes: a page closed now keeps the held mutation.
    assert_eq!(saved_queue_if_any(&storage).len(), 1, "held: saved at once");
    page.c.set_online(true);
    page.tasks.run();
    assert_eq!(page.server.borrow().requests.len(), 1);
    assert_eq!(saved_queue_if_any(&storage).len(), 1, "on the wire: still saved");
    page.server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 1, "title": "milk" })));
    page.tasks.run();
    // A page closed now does not send it again.
    assert!(saved_queue_if_any(&storage).is_empty(), "answered: its removal saved at once");
}

#[test]
fn a_mutation_sent_again_after_a_reload_is_retried_as_before_it() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    drop(two_added_offline(&time, &storage));
    let page = load_offline(&time, &storage, false);
    page.c.set_online(true);
    page.tasks.run();
    page.server.borrow_mut().answer("POST /todos", Err("503".into()));
    page.tasks.run();
    assert_eq!(sent(&page).len(), 1);
    time.advance(1000);
    page.tasks.run();
    assert_eq!(sent(&page), vec![Some(json!({ "id": 1, "title": "milk" })); 2], "tried again after a second");
    assert_eq!(saved_queue(&storage).len(), 2, "still saved while it is retried");
    page.server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 1, "title": "milk" })));
    page.tasks.run();
    assert_eq!(sent(&page).len(), 3, "then the second goes");
    assert_eq!(title(&page, "1"), Some("milk".into()));
}

#[test]
fn a_queue_over_max_bytes_is_saved_without_the_cached_data_and_taken_up() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let small = |server: &Arc<SyncRefCell<Server>>| persist(server, false).max_bytes(400);
    let (tasks, server) = (LocalTasks::default(), Arc::<SyncRefCell<Server>>::default());
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    c.set_online(false);
    tasks.block_on(c.persist(small(&server), storage.clone()));
    c.set(&Todo::schema().into(), json!({ "id": 9, "title": "cached" })).unwrap();
    time.advance(100);
    assert!(storage.text().is_some_and(|text| text.contains("cached")), "the cache fits alone");
    let add = add_todo(&server);
    for id in 1..=3 {
        spawn_fetch(&c, &tasks, &add, json!(null), Some(json!({ "id": id, "title": "x".repeat(150) })));
    }
    time.advance(100);
    let text = storage.text().expect("the queue is never dropped to fit the cap");
    assert!(text.len() > 400 && !text.contains("cached"), "the queue alone, over the cap: {text}");
    assert_eq!(saved_queue(&storage).len(), 3);
    drop((c, tasks));

    let (tasks, server) = (LocalTasks::default(), Arc::<SyncRefCell<Server>>::default());
    let next = Controller::new(time.clone(), time.clone(), tasks.clone());
    next.set_online(false);
    let restored = tasks.block_on(next.persist(small(&server), storage.clone()));
    assert!(matches!(restored, Restored::Taken { replayed: 3, .. }), "{restored:?}");
    next.set_online(true);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 1, "sent again in turn");
}

#[test]
fn a_held_null_body_is_sent_again_as_null_not_as_no_body() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let first = load_offline(&time, &storage, false);
    let add = add_todo(&first.server);
    spawn_fetch(&first.c, &first.tasks, &add, json!(null), Some(Value::Null));
    spawn_fetch(&first.c, &first.tasks, &add, json!(null), None);
    assert_eq!(saved_queue(&storage).into_iter().map(|m| m.body).collect::<Vec<_>>(), [Some(Value::Null), None]);
    drop(first);
    let page = load_offline(&time, &storage, false);
    page.c.set_online(true);
    page.tasks.run();
    page.server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 1, "title": "milk" })));
    page.tasks.run();
    assert_eq!(sent(&page), [Some(Value::Null), None]);
}

#[test]
#[should_panic(expected = "registered twice")]
fn a_name_registered_twice_is_refused() {
    let server = Arc::<SyncRefCell<Server>>::default();
    let _ = persist(&server, false).replay("todos.add", &add_todo(&server));
}

#[test]
#[should_panic(expected = "not a mutation")]
fn a_read_registered_for_replay_is_refused() {
    let server = Arc::<SyncRefCell<Server>>::default();
    let _ = persist(&server, false).replay("todos.list", &Api::new(&server, "GET", "/todos", None));
}

#[test]
fn two_tabs_on_one_storage_keep_the_queue_of_the_last_to_save() {
    // Documented: one tab at a time; each saves its own queue over the other's.
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let (a, b) = (load_offline(&time, &storage, false), load_offline(&time, &storage, false));
    spawn_fetch(&a.c, &a.tasks, &add_todo(&a.server), json!(null), Some(json!({ "id": 1, "title": "milk" })));
    spawn_fetch(&b.c, &b.tasks, &add_todo(&b.server), json!(null), Some(json!({ "id": 2, "title": "eggs" })));
    let bodies: Vec<_> = saved_queue(&storage).into_iter().map(|m| m.body).collect();
    assert_eq!(bodies, [Some(json!({ "id": 2, "title": "eggs" }))], "the last to save wins");
}
