//! `Controller::persist`: what asks to outlive the page is saved after writes
//! and taken up at the next start with its expiry; versioned, capped, cleared
//! by a reset.

mod cells;
mod common;
mod controller_support;

use cells::{SyncCell, SyncRefCell};
use std::sync::Arc;

use common::User;
use controller_support::*;
use rdc_controller::{
    BoxFuture, Controller, ExpiryStatus, FakeTime, LocalTasks, MemoryStorage, Persist, PersistStorage, Restored,
};
use rdc_core::json;
use rdc_core::{Entity, Schema};

/// The users list, kept across page loads.
fn users_api(server: &Arc<SyncRefCell<Server>>) -> Api {
    let mut api = Api::new(server, "GET", "/users", Some(Schema::array(User::schema())));
    api.policy.persist = true;
    api
}

/// One page load: a controller on the shared clock, its own server, persisting into `storage`.
struct Page {
    c: Controller,
    tasks: LocalTasks,
    server: Arc<SyncRefCell<Server>>,
    restored: Restored,
}

fn load<S: PersistStorage + Clone>(time: &FakeTime, storage: &S, persist: Persist) -> Page {
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let restored = tasks.block_on(c.persist(persist, storage.clone()));
    Page { c, tasks, server: Arc::default(), restored }
}

fn fetch_users(page: &Page, users: rdc_core::json::Value) {
    page.server.borrow_mut().always(users);
    page.tasks.block_on(page.c.fetch(&users_api(&page.server), json!({}), None)).unwrap();
}

/// `/users/me`, a second kept result.
fn me_api(server: &Arc<SyncRefCell<Server>>) -> Api {
    let mut me = users_api(server);
    me.path = "/users/me".into();
    me
}

/// Fetches `/users/me`.
fn fetch_me(page: &Page) {
    page.server.borrow_mut().always(json!([{ "id": "3", "name": "Me" }]));
    page.tasks.block_on(page.c.fetch(&me_api(&page.server), json!({}), None)).unwrap();
}

/// A page load under `version` that fetched the users list (Ada) and saved it.
fn saved_by_a_first_load<S: PersistStorage + Clone>(time: &FakeTime, storage: &S, version: u32) -> Page {
    let first = load(time, storage, Persist::new(version));
    fetch_users(&first, json!([{ "id": "1", "name": "Ada" }]));
    time.advance(100);
    first
}

fn names(page: &Page) -> Vec<String> {
    let read = page.c.read::<_, Vec<User>>(&users_api(&page.server), &json!({})).unwrap();
    read.data.map(|users| users.iter().map(|u| u.name.clone()).collect()).unwrap_or_default()
}

#[test]
fn a_kept_list_shows_at_the_next_start_and_is_fetched_again_only_once_stale() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let first = load(&time, &storage, Persist::new(1));
    assert_eq!(first.restored, Restored::Nothing);
    fetch_users(&first, json!([{ "id": "1", "name": "Ada" }, { "id": "2", "name": "Grace" }]));
    assert!(storage.text().is_none(), "saved once the writes settle, not at each one");
    time.advance(100);
    assert!(storage.text().is_some());

    time.advance(10_000);
    let second = load(&time, &storage, Persist::new(1));
    assert_eq!(second.restored, Restored::Taken { results: 1, entities: 2, replayed: 0, unknown: vec![] });
    assert_eq!(names(&second), ["Ada", "Grace"]);
    let read = second.c.read::<_, Vec<User>>(&users_api(&second.server), &json!({})).unwrap();
    assert_eq!(read.status, ExpiryStatus::Valid, "fresh for the 50 s it had left: not fetched");

    time.advance(50_000);
    let third = load(&time, &storage, Persist::new(1));
    let read = third.c.read::<_, Vec<User>>(&users_api(&third.server), &json!({})).unwrap();
    assert_eq!(read.status, ExpiryStatus::Stale, "shown at once and fetched again");
    assert_eq!(names(&third), ["Ada", "Grace"]);
    assert!(third.server.borrow().requests.is_empty());
}

#[test]
fn only_endpoints_and_entity_types_that_ask_are_kept() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let page = load(&time, &storage, Persist::new(1));
    let secret = Api::new(&page.server, "GET", "/secret", Some(Schema::array(User::schema())));
    page.server.borrow_mut().always(json!([{ "id": "9", "name": "Private" }]));
    page.tasks.block_on(page.c.fetch(&secret, json!({}), None)).unwrap();
    fetch_users(&page, json!([{ "id": "1", "name": "Ada" }]));
    time.advance(100);
    let text = storage.text().unwrap();
    assert!(text.contains("Ada") && !text.contains("Private") && !text.contains("/secret"), "{text}");

    // Naming the type keeps each of its rows, whichever result reached them.
    let storage = MemoryStorage::default();
    let page = load(&time, &storage, Persist::new(1).entity::<User>());
    let secret = Api::new(&page.server, "GET", "/secret", Some(Schema::array(User::schema())));
    page.server.borrow_mut().always(json!([{ "id": "9", "name": "Private" }]));
    page.tasks.block_on(page.c.fetch(&secret, json!({}), None)).unwrap();
    time.advance(100);
    let text = storage.text().unwrap();
    assert!(text.contains("Private") && !text.contains("/secret"), "{text}");
}

#[test]
fn data_saved_under_another_version_or_unreadable_is_dropped_and_cleared() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    saved_by_a_first_load(&time, &storage, 1);

    let next = load(&time, &storage, Persist::new(2));
    assert_eq!(next.restored, Restored::OtherVersion { found: 1 });
    assert!(next.c.read::<_, Vec<User>>(&users_api(&next.server), &json!({})).unwrap().data.is_none());
    assert!(storage.text().is_none(), "cleared");

    for text in ["{\"version\": 2, \"store\": 7}", "not json", "{\"version\": 2"] {
        storage.save(text.to_owned());
        let next = load(&time, &storage, Persist::new(2));
        assert!(matches!(next.restored, Restored::Unreadable { .. }), "{text}: {:?}", next.restored);
        assert!(storage.text().is_none());
    }
}

#[test]
fn a_reset_clears_what_was_kept_and_drops_a_save_under_way() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let page = saved_by_a_first_load(&time, &storage, 1);
    fetch_users(&page, json!([{ "id": "1", "name": "Ada L." }]));
    page.c.reset_entire_store();
    assert!(storage.text().is_none(), "nothing of this user's data left for the next");
    time.advance(1_000);
    assert!(storage.text().is_none(), "the save the write asked for was dropped");
}

/// Storage whose load answers when the test says (IndexedDB is slow to open).
#[derive(Clone, Default)]
struct SlowStorage {
    kept: MemoryStorage,
    released: Arc<SyncRefCell<bool>>,
}

impl PersistStorage for SlowStorage {
    fn load(&self) -> BoxFuture<Result<Option<String>, String>> {
        let (kept, released) = (self.kept.clone(), self.released.clone());
        Box::pin(std::future::poll_fn(move |_| match *released.borrow() {
            true => std::task::Poll::Ready(Ok(kept.text())),
            false => std::task::Poll::Pending,
        }))
    }
    fn save(&self, text: String) {
        self.kept.save(text)
    }
    fn clear(&self) {
        self.kept.clear()
    }
}

/// A page whose storage has not answered yet, and the cell its restore lands in.
fn loading(time: &FakeTime, storage: &SlowStorage) -> (Page, Arc<SyncRefCell<Option<Restored>>>) {
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let out = Arc::new(SyncRefCell::new(None));
    let slot = out.clone();
    let restore = c.persist(Persist::new(1), storage.clone());
    rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { *slot.borrow_mut() = Some(restore.await) }));
    tasks.run();
    (Page { c, tasks, server: Arc::default(), restored: Restored::Nothing }, out)
}

fn saved_by_an_earlier_page(time: &FakeTime, storage: &SlowStorage) {
    *storage.released.borrow_mut() = true;
    saved_by_a_first_load(time, storage, 1);
    *storage.released.borrow_mut() = false;
}

#[test]
fn what_loads_after_a_reset_is_dropped() {
    let (time, storage) = (FakeTime::default(), SlowStorage::default());
    saved_by_an_earlier_page(&time, &storage);
    let (page, restored) = loading(&time, &storage);
    page.c.reset_entire_store();
    *storage.released.borrow_mut() = true;
    page.tasks.run();
    assert_eq!(*restored.borrow(), Some(Restored::ResetMeanwhile));
    assert!(page.c.entity::<User>("1").unwrap().is_none());
    assert!(storage.kept.text().is_none());
}

#[test]
fn writes_made_while_it_loads_are_not_saved_over_it_and_both_are_kept() {
    let (time, storage) = (FakeTime::default(), SlowStorage::default());
    saved_by_an_earlier_page(&time, &storage);
    let before = storage.kept.text();
    let (page, restored) = loading(&time, &storage);
    page.c.set(&User::schema(), json!({ "id": "2", "name": "Grace" })).unwrap();
    fetch_me(&page);
    time.advance(1_000);
    assert_eq!(storage.kept.text(), before, "nothing saved before what was kept is read");

    *storage.released.borrow_mut() = true;
    page.tasks.run();
    assert_eq!(*restored.borrow(), Some(Restored::Taken { results: 1, entities: 1, replayed: 0, unknown: vec![] }));
    assert_eq!(names(&page), ["Ada"]);
    time.advance(100);
    let text = storage.kept.text().unwrap();
    assert!(text.contains("Ada") && text.contains("Me"), "{text}");
}

#[test]
fn over_the_cap_the_results_fetched_longest_ago_are_left_out() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let page = load(&time, &storage, Persist::new(1).max_bytes(1_500));
    for i in 0..20 {
        let mut api = users_api(&page.server);
        api.path = format!("/users/{i}");
        page.server
            .borrow_mut()
            .always(json!([{ "id": format!("{i}"), "name": format!("user-{i}-{}", "x".repeat(40)) }]));
        page.tasks.block_on(page.c.fetch(&api, json!({}), None)).unwrap();
        time.advance(10);
    }
    time.advance(100);
    let text = storage.text().unwrap();
    assert!(text.len() <= 1_500, "{} bytes", text.len());
    assert!(text.contains("GET /users/19") && text.contains("user-19-"), "the newest kept: {text}");
    assert!(!text.contains("GET /users/0\"") && !text.contains("user-0-"), "the oldest left out: {text}");

    let next = load(&time, &storage, Persist::new(1));
    let Restored::Taken { results, entities, .. } = next.restored else { panic!("{:?}", next.restored) };
    assert!(results > 1 && results < 20 && results == entities, "{results} results, {entities} entities");

    // In memory, what the save left out goes with the GC as any stale, unused data; what it kept stays.
    time.advance(60_000);
    assert_eq!(page.c.sweep(), (20 - results, 20 - entities));
    assert!(page.c.with_state(|s| s.result("GET /users/19").is_some()));
}

#[test]
fn a_kept_result_no_reader_has_read_yet_keeps_its_entities_through_the_next_save() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    saved_by_a_first_load(&time, &storage, 1);

    // The next page writes something else kept before anyone reads the list.
    let second = load(&time, &storage, Persist::new(1));
    fetch_me(&second);
    time.advance(100);

    let third = load(&time, &storage, Persist::new(1));
    assert_eq!(names(&third), ["Ada"], "the list still reads whole");
}

#[test]
fn data_the_store_fetched_after_what_was_kept_wins() {
    let (time, storage) = (FakeTime::default(), SlowStorage::default());
    saved_by_an_earlier_page(&time, &storage);
    let (page, _) = loading(&time, &storage);
    time.advance(5);
    fetch_users(&page, json!([{ "id": "1", "name": "Ada (new)" }]));
    *storage.released.borrow_mut() = true;
    page.tasks.run();
    assert_eq!(names(&page), ["Ada (new)"]);
    assert_eq!(page.c.entity::<User>("1").unwrap().unwrap().name, "Ada (new)");
}

#[test]
fn an_optimistic_update_waiting_for_its_answer_is_not_kept() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let page = load(&time, &storage, Persist::new(1).entity::<User>());
    fetch_users(&page, json!([{ "id": "1", "name": "Ada" }]));
    page.server.borrow_mut().auto = None;
    let mut rename = Api::new(&page.server, "PATCH", "/users", Some(User::schema().into()));
    rename.optimistic = Some(|_, _| json!({ "id": "1", "name": "Ada (not saved yet)" }));
    let _pending = spawn_fetch(&page.c, &page.tasks, &rename, json!({ "id": "1" }), Some(json!({})));
    assert_eq!(page.c.entity::<User>("1").unwrap().unwrap().name, "Ada (not saved yet)", "shown");
    page.c.set(&User::schema(), json!({ "id": "2", "name": "Grace" })).unwrap();
    time.advance(100);
    let text = storage.text().unwrap();
    assert!(text.contains("Grace") && text.contains("Ada") && !text.contains("not saved yet"), "{text}");
}

#[test]
fn a_result_another_tab_shared_stays_kept_through_this_tabs_saves() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let (one, other) = (load(&time, &storage, Persist::new(1)), load(&time, &storage, Persist::new(1)));
    let outbox = Arc::new(SyncRefCell::new(Vec::new()));
    let out = outbox.clone();
    one.c.share_writes(move |slice| out.borrow_mut().push(slice.clone()));
    fetch_users(&one, json!([{ "id": "1", "name": "Ada" }]));
    for slice in outbox.borrow_mut().drain(..) {
        other.c.take_shared(slice);
    }
    // The other tab saves after a write of its own, its whole store in place of the first's.
    time.advance(100);
    fetch_me(&other);
    time.advance(100);
    let next = load(&time, &storage, Persist::new(1));
    assert_eq!(names(&next), ["Ada"], "{:?}", storage.text());
}

#[test]
fn a_hostile_or_oversized_saved_text_is_refused_or_taken_without_harm() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let huge_version = r#"{"version":1,"store":{"taken_at":0,"state":{"entities":{},"results":{},"errors":{},"version":18446744073709551615}}}"#;
    storage.save(huge_version.to_owned());
    let page = load(&time, &storage, Persist::new(1));
    assert_eq!(page.restored, Restored::Taken { results: 0, entities: 0, replayed: 0, unknown: vec![] });
    page.c.set(&User::schema(), json!({ "id": "1", "name": "Ada" })).unwrap();
    assert_eq!(page.c.entity::<User>("1").unwrap().unwrap().name, "Ada", "the store still takes writes");

    storage.save(format!(r#"{{"version":1,"pad":"{}"}}"#, "x".repeat(3_000)));
    let page = load(&time, &storage, Persist::new(1).max_bytes(1_000));
    assert!(matches!(page.restored, Restored::Unreadable { .. }), "{:?}", page.restored);
    assert!(storage.text().is_none());
}

#[test]
fn data_saved_while_the_clock_was_ahead_is_not_held_as_newer_than_what_is_fetched_now() {
    let storage = MemoryStorage::default();
    let ahead = FakeTime::default();
    ahead.advance(10_000_000);
    saved_by_a_first_load(&ahead, &storage, 1);

    let now = FakeTime::default();
    now.advance(5_000_000); // the clock was set back
    let next = load(&now, &storage, Persist::new(1));
    let read = next.c.read::<_, Vec<User>>(&users_api(&next.server), &json!({})).unwrap();
    assert_eq!(read.status, ExpiryStatus::Valid, "as fresh as it was when saved");
    now.advance(60_000);
    fetch_users(&next, json!([{ "id": "1", "name": "Ada (fetched now)" }]));
    assert_eq!(names(&next), ["Ada (fetched now)"]);
}

#[test]
fn a_tab_of_an_older_version_leaves_a_newer_versions_data_alone() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    saved_by_a_first_load(&time, &storage, 2);
    let kept = storage.text();
    let older = load(&time, &storage, Persist::new(1));
    assert_eq!(older.restored, Restored::OtherVersion { found: 2 });
    fetch_users(&older, json!([{ "id": "1", "name": "Ada (old shape)" }]));
    time.advance(100);
    assert_eq!(storage.text(), kept, "neither cleared nor saved over");
}

/// Storage that counts its saves.
#[derive(Clone, Default)]
struct CountedSaves {
    kept: MemoryStorage,
    saves: Arc<SyncCell<u32>>,
}

impl PersistStorage for CountedSaves {
    fn load(&self) -> BoxFuture<Result<Option<String>, String>> {
        self.kept.load()
    }
    fn save(&self, text: String) {
        self.saves.set(self.saves.get() + 1);
        self.kept.save(text)
    }
    fn clear(&self) {
        self.kept.clear()
    }
}

#[test]
fn a_failed_request_that_stored_nothing_saves_nothing() {
    let time = FakeTime::default();
    let storage = CountedSaves::default();
    let page = load(&time, &storage, Persist::new(1));
    fetch_users(&page, json!([{ "id": "1", "name": "Ada" }]));
    time.advance(100);
    assert_eq!(storage.saves.get(), 1, "the list saved");
    page.server.borrow_mut().auto = Some(Arc::new(|_, _| Err("offline".into())));
    assert!(page.tasks.block_on(page.c.fetch(&me_api(&page.server), json!({}), None)).is_err());
    time.advance(1_000);
    assert_eq!(storage.saves.get(), 1, "an error alone changes nothing kept: no save");
}

#[test]
fn the_garbage_collector_leaves_kept_data_no_reader_has_shown_yet() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    saved_by_a_first_load(&time, &storage, 1);
    // A day later, offline: the app opens on another page, and the GC runs
    // before anyone shows the list.
    time.advance(86_400_000);
    let second = load(&time, &storage, Persist::new(1));
    assert_eq!(second.c.sweep(), (0, 0), "kept data is not dropped for being stale and unused");
    fetch_me(&second);
    time.advance(100);
    second.c.sweep();

    let third = load(&time, &storage, Persist::new(1));
    assert_eq!(names(&third), ["Ada"], "still kept, whole, by the save after the sweep");

    // Rows of a kept type too, whichever result (or none) reaches them; not
    // what is left of a deleted one.
    let storage = MemoryStorage::default();
    let page = load(&time, &storage, Persist::new(1).entity::<User>());
    page.c.set(&User::schema(), json!({ "id": "7", "name": "Draft" })).unwrap();
    page.c.set(&User::schema(), json!({ "id": "8", "name": "Deleted" })).unwrap();
    page.c.set(&Schema::invalidate::<User>(), json!("8")).unwrap();
    time.advance(86_400_000);
    let saved = storage.text().unwrap();
    assert!(saved.contains("Draft") && !saved.contains("\"8\""), "no tombstone saved: {saved}");
    assert_eq!(page.c.sweep(), (0, 1), "the deleted one's tombstone goes");
    assert_eq!(page.c.entity::<User>("7").unwrap().map(|u| u.name.clone()), Some("Draft".into()));

    // An endpoint that asks to be kept, in an app that keeps nothing: swept as any other.
    let page = load_without_persisting(&time);
    fetch_users(&page, json!([{ "id": "1", "name": "Ada" }]));
    time.advance(86_400_000);
    assert_eq!(page.c.sweep(), (1, 1));
}

/// A page load that never calls `persist`.
fn load_without_persisting(time: &FakeTime) -> Page {
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    Page { c, tasks, server: Arc::default(), restored: Restored::Nothing }
}

/// Storage that holds a saved store but cannot read it.
#[derive(Clone, Default)]
struct Unreadable {
    kept: MemoryStorage,
    saves: Arc<SyncCell<u32>>,
}

impl PersistStorage for Unreadable {
    fn load(&self) -> BoxFuture<Result<Option<String>, String>> {
        Box::pin(async { Err("refused".to_owned()) })
    }
    fn save(&self, text: String) {
        self.saves.set(self.saves.get() + 1);
        self.kept.save(text)
    }
    fn clear(&self) {
        self.kept.clear()
    }
}

#[test]
fn a_load_that_failed_says_so_and_is_not_read_as_nothing_kept() {
    let time = FakeTime::default();
    let storage = Unreadable::default();
    let kept = saved_by_a_first_load(&time, &storage.kept, 1);
    assert!(kept.c.entity::<User>("1").unwrap().is_some());
    let next = load(&time, &storage, Persist::new(1));
    assert_eq!(next.restored, Restored::LoadFailed { reason: "refused".into() });
    assert!(names(&next).is_empty(), "nothing taken up");
    assert!(storage.kept.text().is_some(), "what was kept is left as it is");
    // This session's writes are not saved over what was never read.
    let before = (storage.saves.get(), storage.kept.text());
    fetch_users(&next, json!([{ "id": "2", "name": "Grace" }]));
    time.advance(60_000);
    assert_eq!((storage.saves.get(), storage.kept.text()), before, "no save after a failed load");
}
