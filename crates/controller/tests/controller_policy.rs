//! Polling, optimistic updates and garbage collection.

mod cells;
mod common;
mod controller_support;

use cells::SyncRefCell;
use common::User;
use controller_support::*;
use rdc_controller::Policy;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, Schema};
use std::sync::Arc;

fn ticker(server: &Arc<SyncRefCell<Server>>, every: u64) -> Api {
    let mut api = Api::new(server, "GET", "/ticker", None);
    api.policy = Policy { poll_ms: Some(every), ..api.policy };
    api
}

fn auto(server: &Arc<SyncRefCell<Server>>) {
    server.borrow_mut().always(json!({ "price": 1 }));
}

#[test]
fn polling_starts_at_last_fetch_plus_frequency_and_follows_the_smallest_frequency() {
    let (c, time, tasks, server) = setup();
    auto(&server);
    let slow = ticker(&server, 2000);
    let fast = ticker(&server, 500);
    spawn_fetch(&c, &tasks, &slow, json!({}), None);
    assert_eq!(server.borrow().requests.len(), 1);
    time.advance(1000);
    let sub = c.subscribe(&slow, json!({})).unwrap();
    assert_eq!(c.poll_interval("GET /ticker"), Some((1, 2000)));
    time.advance(999);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 1, "first poll at last fetch (t=0) + 2000");
    time.advance(1);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 2);
    // A faster subscriber: the one timer runs at 500 ms.
    let fast_sub = c.subscribe(&fast, json!({})).unwrap();
    assert_eq!(c.poll_interval("GET /ticker"), Some((2, 500)));
    assert_eq!(c.poll_timer_count(), 1);
    for _ in 0..4 {
        time.advance(500);
        tasks.run();
    }
    assert_eq!(server.borrow().requests.len(), 6);
    drop(fast_sub);
    assert_eq!(c.poll_interval("GET /ticker"), Some((1, 2000)));
    time.advance(1999);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 6);
    time.advance(1);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 7);
    drop(sub);
    assert_eq!(c.poll_timer_count(), 0);
    assert_eq!(time.pending(), 0, "the timer was cancelled");
    time.advance(10_000);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 7, "no polls after the last subscriber left");
}

#[test]
fn a_hundred_polled_endpoints_keep_their_own_timers() {
    let (c, time, tasks, server) = setup();
    auto(&server);
    let subs: Vec<_> = (0..100)
        .map(|i| {
            let mut api = ticker(&server, 1000 + i * 10);
            api.path = format!("/ticker{i}");
            c.subscribe(&api, json!({})).unwrap()
        })
        .collect();
    assert_eq!(c.poll_timer_count(), 100);
    time.advance(1000 + 99 * 10);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 100);
    drop(subs);
    assert_eq!((c.poll_timer_count(), time.pending()), (0, 0));
}

fn optimistic_rename(args: &Value, body: Option<&Value>) -> Value {
    json!({ "id": args["id"], "name": body.and_then(|b| b.get("name")).cloned().unwrap_or(Value::Null) })
}

#[test]
fn optimistic_updates_show_at_once_then_yield_to_the_real_answer_or_roll_back() {
    let (c, _time, tasks, server) = setup();
    let users = Api::new(&server, "GET", "/users", Some(Schema::array(User::schema())));
    c.set_response(&users, &json!({}), json!([{ "id": "1", "name": "Ada" }])).unwrap();
    let mut rename = Api::new(&server, "PATCH", "/users", Some(User::schema().into()));
    rename.optimistic = Some(optimistic_rename);
    let name = || c.read::<_, Vec<User>>(&users, &json!({})).unwrap().data.unwrap()[0].name.clone();

    spawn_fetch(&c, &tasks, &rename, json!({ "id": "1" }), Some(json!({ "name": "Optimistic" })));
    assert_eq!(name(), "Optimistic");
    server.borrow_mut().answer("PATCH /users/1", Ok(json!({ "id": "1", "name": "Server" })));
    tasks.run();
    assert_eq!(name(), "Server");

    spawn_fetch(&c, &tasks, &rename, json!({ "id": "1" }), Some(json!({ "name": "Doomed" })));
    assert_eq!(name(), "Doomed");
    server.borrow_mut().answer("PATCH /users/1", Err("422 no".into()));
    tasks.run();
    assert_eq!(name(), "Server", "rolled back");
}

#[test]
fn with_an_optimistic_update_pending_the_controller_can_be_read_and_invalidated_as_usual() {
    let (c, _time, tasks, server) = setup();
    let users = Api::new(&server, "GET", "/users", Some(Schema::array(User::schema())));
    c.set_response(&users, &json!({}), json!([{ "id": "1", "name": "Ada" }])).unwrap();
    let mut rename = Api::new(&server, "PATCH", "/users", Some(User::schema().into()));
    rename.optimistic = Some(optimistic_rename);
    spawn_fetch(&c, &tasks, &rename, json!({ "id": "1" }), Some(json!({ "name": "Optimistic" })));
    // A snapshot is data only: what readers see, with no way to take the layer back.
    let snapshot = c.snapshot();
    assert!(!snapshot.is_recording_undo());
    assert_eq!(snapshot.entity("User", "1").unwrap().value.as_ref().unwrap()["name"], "Optimistic");
    // A predicate may read through the controller while the store is being written.
    c.invalidate_all(|key| key.starts_with("GET") && !c.needs_fetch(key, Policy::default()));
    c.expire_all(|key| c.is_fetching(key) || key.starts_with("GET"));
    assert!(c.needs_fetch("GET /users", Policy::default()));
    assert_eq!(c.read::<_, Vec<User>>(&users, &json!({})).unwrap().data.unwrap()[0].name, "Optimistic");
    server.borrow_mut().answer("PATCH /users/1", Ok(json!({ "id": "1", "name": "Server" })));
    tasks.run();
    assert_eq!(c.read::<_, Vec<User>>(&users, &json!({})).unwrap().data.unwrap()[0].name, "Server");
}

#[test]
fn overlapping_optimistic_updates_answered_out_of_order_end_with_the_last_answer() {
    let (c, time, tasks, server) = setup();
    let users = Api::new(&server, "GET", "/users", Some(Schema::array(User::schema())));
    c.set_response(&users, &json!({}), json!([{ "id": "1", "name": "Ada" }])).unwrap();
    let mut rename = Api::new(&server, "PATCH", "/users", Some(User::schema().into()));
    rename.optimistic = Some(optimistic_rename);
    let name = || c.read::<_, Vec<User>>(&users, &json!({})).unwrap().data.unwrap()[0].name.clone();
    time.advance(1);
    spawn_fetch(&c, &tasks, &rename, json!({ "id": "1" }), Some(json!({ "name": "First" })));
    time.advance(1);
    spawn_fetch(&c, &tasks, &rename, json!({ "id": "1" }), Some(json!({ "name": "Second" })));
    assert_eq!(name(), "Second");
    // The newer request (the second pending one) answers first.
    let mut s = server.borrow_mut();
    s.answer_nth("PATCH /users/1", 1, Ok(json!({ "id": "1", "name": "Second" })));
    drop(s);
    tasks.run();
    // The first mutation's layer is still pending, but it started before the
    // confirmed second answer, so it cannot hide it.
    assert_eq!(name(), "Second");
    server.borrow_mut().answer("PATCH /users/1", Ok(json!({ "id": "1", "name": "First" })));
    tasks.run();
    assert_eq!(name(), "Second", "the older request's late answer does not overwrite the newer one");
}

#[test]
fn a_sweep_drops_unused_expired_results_and_unreachable_entities() {
    let (c, time, _tasks, server) = setup();
    let users = Api::new(&server, "GET", "/users", Some(Schema::array(User::schema())));
    let one = Api::new(&server, "GET", "/users", Some(User::schema().into()));
    c.set_response(&users, &json!({}), json!([{ "id": "1", "name": "A" }, { "id": "2", "name": "B" }])).unwrap();
    time.advance(1);
    c.set_response(&one, &json!({ "id": "3" }), json!({ "id": "3", "name": "C" })).unwrap();
    c.retain("GET /users");
    time.advance(30_000);
    assert_eq!(c.sweep(), (0, 0), "nothing is expired yet");
    time.advance(31_000);
    // /users is retained (mounted); /users/3 is not and expired: dropped, and user 3 with it.
    assert_eq!(c.sweep(), (1, 1));
    let snap = c.snapshot();
    assert!(snap.result("GET /users").is_some() && snap.result("GET /users/3").is_none());
    assert_eq!(snap.entity_count(), 2);
    c.release("GET /users");
    assert_eq!(c.retained_count(), 0);
    assert_eq!(c.sweep(), (1, 2));
    assert_eq!(c.snapshot().entity_count(), 0);
}

#[derive(Debug, serde::Deserialize, rdc_core::Entity)]
struct Author {
    id: u32,
    name: String,
    /// Authors and their posts point at each other (a cycle for the sweep's walk).
    #[entity(nested)]
    #[serde(default)]
    featured: Option<Box<Post>>,
}

#[derive(Debug, serde::Deserialize, rdc_core::Entity)]
struct Post {
    id: u32,
    #[entity(nested)]
    author: Author,
}

#[derive(Debug, serde::Deserialize, rdc_core::Entity)]
struct Tag {
    id: u32,
}

/// A sweep keeps every expired entity some kept result still reaches (through
/// nested fields, cycles, collections and `All`) and drops the others, whatever
/// the order their rows were stored in.
#[test]
fn a_sweep_keeps_what_results_reach_through_nesting_collections_and_all() {
    let (c, time, _tasks, server) = setup();
    // Rows stored interleaved: posts 0..6 by authors 0..6, authors featuring posts.
    let posts = Schema::array(Post::schema());
    let everything = Api::new(&server, "GET", "/everything", Some(posts.clone()));
    let all: Vec<Value> =
        (0..6).map(|i| json!({ "id": i, "author": { "id": i, "name": format!("a{i}"), "featured": i } })).collect();
    c.set_response(&everything, &json!({}), Value::Array(all)).unwrap();
    // Kept results: posts 1 and 4 by a list, post 2 through a collection, every tag by `All`.
    let some = Api::new(&server, "GET", "/some", Some(posts));
    c.set_response(&some, &json!({}), json!([1, 4])).unwrap();
    let feed = rdc_core::Collection::of("SweepFeed", Post::schema());
    let feed_api = Api::new(&server, "GET", "/feed", Some(feed.into()));
    c.set_response(&feed_api, &json!({}), json!([2])).unwrap();
    c.set(&Tag::schema(), json!({ "id": 7 })).unwrap();
    let tags = Api::new(&server, "GET", "/tags", Some(rdc_core::All::of::<Tag>().into()));
    c.set_response(&tags, &json!({}), json!([])).unwrap();
    for key in ["GET /some", "GET /feed", "GET /tags"] {
        c.retain(key);
    }
    time.advance(120_000);
    // `/everything` is not retained and expired: dropped, and every post and author
    // no kept result reaches with it (posts and authors 0, 3 and 5).
    let (results, entities) = c.sweep();
    assert_eq!((results, entities), (1, 6));
    let snap = c.snapshot();
    let kept = |key: &str| {
        let mut pks: Vec<u32> =
            (0..8).filter(|i| snap.entity(key, &i.to_string()).is_some_and(|r| r.value.is_some())).collect();
        pks.sort_unstable();
        pks
    };
    assert_eq!(kept("Post"), vec![1, 2, 4]);
    assert_eq!(kept("Author"), vec![1, 2, 4]);
    assert_eq!(kept("Tag"), vec![7]);
    // What is kept still reads whole (each author featuring their post: the cycle).
    let read = c.read::<_, Vec<Post>>(&some, &json!({})).unwrap().data.unwrap();
    let shown: Vec<_> =
        read.iter().map(|p| (p.id, p.author.id, p.author.name.as_str(), p.author.featured.is_some())).collect();
    assert_eq!(shown, [(1, 1, "a1", true), (4, 4, "a4", true)]);
    assert_eq!(c.query::<Vec<Tag>>("tags", &rdc_core::All::of::<Tag>().into()).unwrap().unwrap()[0].id, 7);
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize, rdc_core::Entity)]
struct Counter {
    id: String,
    count: u64,
}

/// "One more than stored", from the store as it stands.
fn one_more(store: &rdc_core::State, args: &Value, _: Option<&Value>) -> Option<Value> {
    let id = args["id"].as_str()?;
    let count = store.entity("Counter", id)?.value.as_ref()?.get("count")?.as_u64()?;
    Some(json!({ "id": id, "count": count + 1 }))
}

/// An optimistic update worked out from the store: shown at once, worked out
/// again when data fetched meanwhile lands (a read sent before it: one more
/// than what was fetched), replaced by the answer; with nothing to count
/// from, no layer.
#[test]
fn an_optimistic_update_reads_the_store_as_it_stands() {
    let (c, _time, tasks, server) = setup();
    let counter = Api::new(&server, "GET", "/counters", Some(Counter::schema().into()));
    let mut increment = Api::new(&server, "POST", "/counters", Some(Counter::schema().into()));
    increment.optimistic_from_store = Some(one_more);
    let count = |id: &str| c.entity::<Counter>(id).unwrap().map(|counter| counter.count);
    c.set_response(&counter, &json!({ "id": "1" }), json!({ "id": "1", "count": 5 })).unwrap();

    // A refetch is in flight when the increment is sent.
    spawn_fetch(&c, &tasks, &counter, json!({ "id": "1" }), None);
    spawn_fetch(&c, &tasks, &increment, json!({ "id": "1" }), None);
    assert_eq!(count("1"), Some(6), "shown at once");
    // Another client counted meanwhile: the refetch brings 10.
    server.borrow_mut().answer("GET /counters/1", Ok(json!({ "id": "1", "count": 10 })));
    tasks.run();
    assert_eq!(count("1"), Some(11), "one more than what was fetched since");
    server.borrow_mut().answer("POST /counters/1", Ok(json!({ "id": "1", "count": 11 })));
    tasks.run();
    assert_eq!(count("1"), Some(11));

    spawn_fetch(&c, &tasks, &increment, json!({ "id": "2" }), None);
    assert_eq!(count("2"), None, "nothing stored to count from: no layer");
    server.borrow_mut().answer("POST /counters/2", Ok(json!({ "id": "2", "count": 1 })));
    tasks.run();
    assert_eq!(count("2"), Some(1));
}

/// Paused (page hidden, browser offline), a due poll waits; resumed, a poll
/// already due goes at once and the interval runs on from it.
#[test]
fn paused_polls_wait_and_resume_at_once_when_due() {
    let (c, time, tasks, server) = setup();
    auto(&server);
    let quote = ticker(&server, 1000);
    spawn_fetch(&c, &tasks, &quote, json!({}), None);
    let _sub = c.subscribe(&quote, json!({})).unwrap();
    time.advance(1000);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 2, "polling");
    c.pause_polls(true);
    for _ in 0..5 {
        time.advance(1000);
        tasks.run();
    }
    assert_eq!(server.borrow().requests.len(), 2, "no poll while paused");
    assert_eq!(time.pending(), 0, "and no timer ticking for nothing");
    c.pause_polls(false);
    // A timer of no delay: due at once.
    time.advance(0);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 3, "due already: at once");
    time.advance(1000);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 4, "then every second again");
}
