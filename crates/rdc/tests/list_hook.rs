//! `use_list` run natively: one reader for a list, a signal per row set only
//! when that row's item changed (no listener per row), integer row ids kept
//! across edits, and no listener left behind by unmounted lists.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use leptos::prelude::*;
use rdc::leptos::{Row, RowId};
use rdc::prelude::*;
use rdc::testing::MockApp;

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
struct Author {
    id: u32,
    name: String,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
struct Item {
    id: u32,
    name: String,
    #[entity(nested)]
    author: Author,
}

fn items() -> SchemaOf<Vec<Item>> {
    Collection::of("ListHookItems", Item::schema())
}

fn list_endpoint() -> RestEndpoint<(), (), Vec<Item>> {
    RestEndpoint::get("/items").args::<()>().body::<()>().schema(items())
}

fn item(id: u32, name: &str) -> rdc::json::Value {
    rdc::json!({ "id": id, "name": name, "author": { "id": id % 2, "name": format!("author {}", id % 2) } })
}

/// A mock app holding items 1, 2 and 3.
fn app_with_three() -> MockApp {
    let app = MockApp::new();
    let json = rdc::json::Value::Array(vec![item(1, "one"), item(2, "two"), item(3, "three")]);
    app.controller().set_response(&list_endpoint(), &(), json).unwrap();
    app
}

type Rows = Signal<Option<Arc<Vec<Row<Item>>>>>;

fn rows(list: &Rows) -> Arc<Vec<Row<Item>>> {
    list.get_untracked().expect("the list is stored")
}

fn names(list: &Rows) -> Vec<String> {
    rows(list).iter().map(|row| row.get_untracked().name.clone()).collect()
}

fn ids(list: &Rows) -> Vec<RowId> {
    rows(list).iter().map(Row::id).collect()
}

/// Counts the runs of an effect that reads each row's item (a row's render).
fn count_renders(app: &MockApp, list: &Rows) -> Vec<Arc<AtomicUsize>> {
    let counters: Vec<Arc<AtomicUsize>> = rows(list).iter().map(|_| Arc::default()).collect();
    let rows = rows(list);
    app.hooks(|| {
        for (row, counter) in rows.iter().zip(&counters) {
            let (row, counter) = (row.clone(), Arc::clone(counter));
            Effect::new(move |_| {
                row.with(|_| ());
                counter.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    counters
}

fn counts(counters: &[Arc<AtomicUsize>]) -> Vec<usize> {
    counters.iter().map(|c| c.load(Ordering::Relaxed)).collect()
}

/// The positions of the rows whose render ran again since mounting.
fn ran(counters: &[Arc<AtomicUsize>]) -> Vec<usize> {
    counts(counters).iter().enumerate().filter(|(_, n)| **n != 1).map(|(at, _)| at).collect()
}

#[test]
fn a_rename_sets_its_rows_signal_only_and_keeps_the_list() {
    let app = app_with_three();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    assert_eq!(names(&list), ["one", "two", "three"]);
    let before = rows(&list);
    let items: Vec<_> = before.iter().map(Row::get_untracked).collect();
    let renders = count_renders(&app, &list);
    assert_eq!(counts(&renders), [1, 1, 1]);

    app.controller().set(&Item::schema(), item(2, "two, renamed")).unwrap();
    app.run();
    assert!(Arc::ptr_eq(&before, &rows(&list)), "no row joined, left or moved: the same rows");
    assert_eq!(names(&list), ["one", "two, renamed", "three"]);
    assert!(Arc::ptr_eq(&items[0], &rows(&list)[0].get_untracked()), "row 1 keeps its item");
    assert!(Arc::ptr_eq(&items[2], &rows(&list)[2].get_untracked()), "row 3 keeps its item");
    assert_eq!(counts(&renders), [1, 2, 1], "only the renamed row ran again");

    // Its author, shared with row 3 (odd ids): both rows, not row 2.
    app.controller().set(&Author::schema(), rdc::json!({ "id": 1, "name": "author one" })).unwrap();
    app.run();
    assert_eq!(counts(&renders), [2, 2, 2]);
    assert_eq!(rows(&list)[2].get_untracked().author.name, "author one");
}

#[test]
fn rows_keep_their_ids_through_delete_unshift_and_move_and_new_rows_get_new_ones() {
    let app = app_with_three();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let first = ids(&list);
    assert_eq!(first.len(), 3);
    assert!(first[0] != first[1] && first[1] != first[2] && first[0] != first[2]);
    let kept = rows(&list)[2].get_untracked();

    app.controller().set(&Schema::invalidate::<Item>(), rdc::json!(2)).unwrap();
    app.run();
    assert_eq!(names(&list), ["one", "three"]);
    assert_eq!(ids(&list), [first[0], first[2]]);
    assert!(Arc::ptr_eq(&kept, &rows(&list)[1].get_untracked()), "an unchanged item keeps its Arc");

    app.controller().set(&Collection::unshift(&items()), item(4, "four")).unwrap();
    app.run();
    assert_eq!(names(&list), ["four", "one", "three"]);
    let unshifted = ids(&list);
    assert_eq!(&unshifted[1..], [first[0], first[2]]);
    assert!(!first.contains(&unshifted[0]), "a new row gets an id never given before");

    let moved = rdc::json::Value::Array(vec![item(3, "three"), item(4, "four"), item(1, "one")]);
    app.controller().set_response(&list_endpoint(), &(), moved).unwrap();
    app.run();
    assert_eq!(names(&list), ["three", "four", "one"]);
    assert_eq!(ids(&list), [first[2], unshifted[0], first[0]]);
}

#[test]
fn two_listeners_per_list_and_none_left_after_unmounting() {
    let app = app_with_three();
    // Mounts once through the mock app (its executor then runs Leptos' tasks).
    app.hooks(|| ());
    let listeners = app.controller().listener_count();
    for _ in 0..50 {
        let owner = Owner::new();
        let list = owner.with(|| {
            rdc::leptos::provide_controller(app.controller().clone());
            use_list(list_endpoint(), Signal::derive(|| Some(())))
        });
        app.run();
        assert_eq!(list.get_untracked().map(|rows| rows.len()), Some(3));
        assert_eq!(app.controller().listener_count(), listeners + 2, "one reader for the keys, one for the rows");
        owner.cleanup();
    }
    assert_eq!(app.controller().listener_count(), listeners);
}

/// An edit costs what it changed: a rename in a 1,000-row list reads that
/// row's entity again and nothing else (counted reads, not time); an author
/// shared by half the rows re-reads those rows alone.
#[test]
fn a_rename_in_a_thousand_row_list_reads_one_row_again() {
    let app = MockApp::new();
    let json = rdc::json::Value::Array((1..=1000).map(|id| item(id, &format!("item {id}"))).collect());
    app.controller().set_response(&list_endpoint(), &(), json).unwrap();
    let reads = app.controller().read_count();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    assert_eq!(rows(&list).len(), 1000);
    assert_eq!(app.controller().read_count() - reads, 1001, "mounting reads the keys and each row once");
    let before = rows(&list);

    let reads = app.controller().read_count();
    app.controller().set(&Item::schema(), item(500, "renamed")).unwrap();
    app.run();
    assert_eq!(app.controller().read_count() - reads, 1, "the renamed row alone was read again");
    assert_eq!(rows(&list)[499].get_untracked().name, "renamed");
    assert!(Arc::ptr_eq(&before, &rows(&list)), "the same rows");

    let reads = app.controller().read_count();
    app.controller().set(&Author::schema(), rdc::json!({ "id": 0, "name": "author zero" })).unwrap();
    app.run();
    assert_eq!(app.controller().read_count() - reads, 500, "the rows of the even ids read their author");
    assert_eq!(rows(&list)[1].get_untracked().author.name, "author zero");
    assert_eq!(rows(&list)[0].get_untracked().author.name, "author 1");
}

/// A write changing a row's item and its author at once wakes that row twice
/// (it read both store rows): it is read again once.
#[test]
fn a_row_woken_by_two_changed_store_rows_is_read_again_once() {
    let app = app_with_three();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let reads = app.controller().read_count();
    let both = rdc::json!({ "id": 2, "name": "renamed", "author": { "id": 0, "name": "author zero" } });
    app.controller().set(&Item::schema(), both).unwrap();
    app.run();
    assert_eq!(app.controller().read_count() - reads, 1, "row 2 alone, read once");
    assert_eq!(names(&list), ["one", "renamed", "three"]);
    assert_eq!(rows(&list)[1].get_untracked().author.name, "author zero");
}

/// A delete in a 1,000-row list reads the list's keys (and at most the
/// deleted row's entity), not the rows that stay, and adds or drops no
/// listener.
#[test]
fn a_delete_in_a_thousand_row_list_reads_no_row_that_stays() {
    let app = MockApp::new();
    let json = rdc::json::Value::Array((1..=1000).map(|id| item(id, &format!("item {id}"))).collect());
    app.controller().set_response(&list_endpoint(), &(), json).unwrap();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let listeners = app.controller().listener_count();
    let kept = rows(&list)[500].clone();

    let reads = app.controller().read_count();
    app.controller().set(&Schema::invalidate::<Item>(), rdc::json!(500)).unwrap();
    app.run();
    let read = app.controller().read_count() - reads;
    assert!(read <= 2, "the keys (and at most the deleted row's entity) read, not {read}");
    assert_eq!(rows(&list).len(), 999);
    assert_eq!(rows(&list)[499].id(), kept.id(), "the next row is kept");
    assert_eq!(app.controller().listener_count(), listeners, "no listener per row");
}

/// A list's listeners do not grow with its rows: a 1,000-row list adds two
/// controller listeners (its keys, its rows), and an edit of one row sets
/// that row's signal alone (the other 999 rows' renders do not run).
#[test]
fn a_thousand_row_lists_listeners_do_not_grow_with_rows_and_an_edit_sets_one_rows_signal() {
    let app = MockApp::new();
    let json = rdc::json::Value::Array((1..=1000).map(|id| item(id, &format!("item {id}"))).collect());
    app.controller().set_response(&list_endpoint(), &(), json).unwrap();
    app.hooks(|| ());
    let listeners = app.controller().listener_count();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    assert_eq!(rows(&list).len(), 1000);
    assert_eq!(app.controller().listener_count(), listeners + 2, "two listeners for 1,000 rows");
    let renders = count_renders(&app, &list);
    let items: Vec<_> = rows(&list).iter().map(Row::get_untracked).collect();

    app.controller().set(&Item::schema(), item(700, "renamed")).unwrap();
    app.run();
    assert_eq!(ran(&renders), [699], "only row 700's signal was set");
    assert_eq!(rows(&list)[699].get_untracked().name, "renamed");
    let kept = rows(&list).iter().zip(&items).filter(|(row, item)| Arc::ptr_eq(&row.get_untracked(), item)).count();
    assert_eq!(kept, 999, "the other rows keep their Arc");
    assert_eq!(app.controller().listener_count(), listeners + 2);
}

/// A list's answer set again (1,100 rows written, one of them changed) reads
/// the keys and the changed row again (a row written as it was changes no
/// field), and sets only that row's signal.
#[test]
fn an_answer_set_again_sets_only_the_changed_rows_signal() {
    let app = MockApp::new();
    let json = rdc::json::Value::Array((1..=1100).map(|id| item(id, &format!("item {id}"))).collect());
    app.controller().set_response(&list_endpoint(), &(), json).unwrap();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let renders = count_renders(&app, &list);
    // 1,100 items again (more rows than the journal keeps), item 3 renamed.
    let json = rdc::json::Value::Array(
        (1..=1100).map(|id| item(id, &if id == 3 { "three".to_owned() } else { format!("item {id}") })).collect(),
    );
    let reads = app.controller().read_count();
    app.controller().set_response(&list_endpoint(), &(), json).unwrap();
    app.run();
    assert_eq!(app.controller().read_count() - reads, 2, "the keys and item 3 read again");
    assert_eq!(ran(&renders), [2], "only item 3's signal was set");
    assert_eq!(rows(&list)[2].get_untracked().name, "three");
}

/// A row follows what its entity reads now: an item moved to another author
/// re-renders when that author changes, and no longer when its old one does.
#[test]
fn a_row_follows_its_new_author_and_leaves_its_old_one() {
    let app = app_with_three();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let renders = count_renders(&app, &list);
    // Item 2 (author 0) moves to author 1, the author of items 1 and 3.
    let moved = rdc::json!({ "id": 2, "name": "two", "author": { "id": 1, "name": "author 1" } });
    app.controller().set(&Item::schema(), moved).unwrap();
    app.run();
    assert_eq!(counts(&renders), [1, 2, 1]);

    let reads = app.controller().read_count();
    app.controller().set(&Author::schema(), rdc::json!({ "id": 0, "name": "author zero" })).unwrap();
    app.run();
    assert_eq!(app.controller().read_count() - reads, 0, "no row reads its old author: none read again");
    assert_eq!(counts(&renders), [1, 2, 1], "its old author no longer re-renders it");

    app.controller().set(&Author::schema(), rdc::json!({ "id": 1, "name": "author one" })).unwrap();
    app.run();
    assert_eq!(counts(&renders), [2, 3, 2], "its new author does");
    assert_eq!(rows(&list)[1].get_untracked().author.name, "author one");
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
struct ItemId {
    id: u32,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
struct Rename {
    name: String,
}

/// Renames an item, shown at once (an optimistic update) while its answer is held.
fn rename() -> RestEndpoint<ItemId, Rename, Item> {
    rdc::rest!(PATCH "/items/:id" -> Item, args = ItemId, body = Rename).optimistic(|args, body| {
        rdc::json!({ "id": args["id"].clone(), "name": body.map(|b| b["name"].clone()),
            "author": { "id": 0, "name": "author 0" } })
    })
}

/// While an optimistic update shows, an edit still costs the rows it touched
/// (the store takes its layers back and puts them on again around each write:
/// the rows' listener is told what changed, not that everything may have).
#[test]
fn an_edit_while_an_optimistic_update_shows_reads_that_row_alone() {
    let app = MockApp::new();
    let json = rdc::json::Value::Array((1..=1000).map(|id| item(id, &format!("item {id}"))).collect());
    app.controller().set_response(&list_endpoint(), &(), json).unwrap();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let renders = count_renders(&app, &list);
    let _held = app.hold(&rename(), &ItemId { id: 4 });
    let _pending = app.start(&rename(), ItemId { id: 4 }, Rename { name: "four, soon".into() });
    app.run();
    assert_eq!(rows(&list)[3].get_untracked().name, "four, soon", "the optimistic name shows");

    let reads = app.controller().read_count();
    app.controller().set(&Item::schema(), item(700, "renamed")).unwrap();
    app.run();
    let read = app.controller().read_count() - reads;
    assert!(read <= 2, "the renamed row (and at most the one under the layer) read again, not {read}");
    assert_eq!(rows(&list)[699].get_untracked().name, "renamed");
    assert_eq!(rows(&list)[3].get_untracked().name, "four, soon", "the optimistic name still shows");
    assert_eq!(ran(&renders), [3, 699], "the rows of items 4 and 700 re-rendered, once each");
    assert_eq!(counts(&renders)[3], 2);
}

/// A change to a field no listed entity reads (a nested author's `bio`, which
/// `Author` leaves out) reads no row again: a row follows the fields its
/// entity read, not the whole store rows.
#[test]
fn a_change_to_a_field_no_row_reads_reads_no_row_again() {
    let app = app_with_three();
    let author = |bio: &str| rdc::json!({ "id": 1, "name": "author 1", "bio": bio });
    app.controller().set(&Author::schema(), author("first")).unwrap();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let renders = count_renders(&app, &list);

    let reads = app.controller().read_count();
    app.controller().set(&Author::schema(), author("second")).unwrap();
    app.run();
    assert_eq!(app.controller().read_count() - reads, 0, "no row read its author's bio");
    assert_eq!(counts(&renders), [1, 1, 1]);

    // Its name, which they read: the rows of items 1 and 3, once each.
    let reads = app.controller().read_count();
    app.controller().set(&Author::schema(), rdc::json!({ "id": 1, "name": "author one", "bio": "second" })).unwrap();
    app.run();
    assert_eq!(app.controller().read_count() - reads, 2, "items 1 and 3 read their author again");
    assert_eq!(counts(&renders), [2, 1, 2]);
}

/// The rows follow the list's keys through edits anywhere in it (the keys
/// patched into the rows where they changed): each kept row keeps its id, a
/// key listed twice shows once, a key that goes and comes back gets a new
/// row, and an edit past the patch's reach still shows the right rows.
#[test]
fn rows_follow_edits_anywhere_in_the_list_keeping_ids() {
    let app = MockApp::new();
    let set = |order: &[u32]| {
        let json = rdc::json::Value::Array(order.iter().map(|&id| item(id, &format!("item {id}"))).collect());
        app.controller().set_response(&list_endpoint(), &(), json).unwrap();
        app.run();
    };
    let order: Vec<u32> = (1..=200).collect();
    set(&order);
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let id_of = |id: u32| rows(&list).iter().find(|row| row.get_untracked().id == id).map(Row::id);
    let first: Vec<RowId> = order.iter().map(|&id| id_of(id).unwrap()).collect();
    let shown = || rows(&list).iter().map(|row| row.get_untracked().id).collect::<Vec<u32>>();

    // A delete in the middle, then at each end.
    for gone in [100, 1, 200] {
        app.controller().set(&Schema::invalidate::<Item>(), rdc::json!(gone)).unwrap();
        app.run();
    }
    let mut expected: Vec<u32> = (2..200).filter(|&id| id != 100).collect();
    assert_eq!(shown(), expected);
    // An unshift and a push of new items.
    app.controller().set(&Collection::unshift(&items()), item(300, "new")).unwrap();
    app.controller().set(&Collection::push(&items()), item(301, "new")).unwrap();
    app.run();
    expected.insert(0, 300);
    expected.push(301);
    assert_eq!(shown(), expected);
    // Item 50 moved to the front, item 7 listed twice, item 100 back.
    let mut next: Vec<u32> = expected.iter().copied().filter(|&id| id != 50).collect();
    next.insert(0, 50);
    next.insert(10, 7);
    next.insert(120, 100);
    set(&next);
    let mut shown_now = next.clone();
    shown_now.remove(10);
    assert_eq!(shown(), shown_now, "a key listed twice shows once");
    for id in (2..200).filter(|&id| id != 100) {
        assert_eq!(id_of(id), Some(first[id as usize - 1]), "item {id} keeps its row");
    }
    assert!(!first.contains(&id_of(100).unwrap()), "an item gone and back gets a new row");
    // The list reversed: everything changed.
    let reversed: Vec<u32> = shown_now.iter().rev().copied().collect();
    set(&reversed);
    assert_eq!(shown(), reversed);
    assert_eq!(id_of(2), Some(first[1]));
    // Item 9 gone, then every row renamed: each row follows.
    let mut once = reversed.clone();
    once.retain(|&id| id != 9);
    set(&once);
    assert_eq!(shown(), once);
    let json = rdc::json::Value::Array(once.iter().map(|&id| item(id, "renamed")).collect());
    app.controller().set_response(&list_endpoint(), &(), json).unwrap();
    app.run();
    assert!(rows(&list).iter().all(|row| row.get_untracked().name == "renamed"));
}

/// Rows moved inside a patched stretch keep their ids and their wake-ups
/// (a rename after the move still reaches them), and stretches of 64 and 65
/// changed keys (the patch's reach and one past it) show the right rows.
#[test]
fn rows_moved_inside_a_patched_stretch_keep_their_ids_and_follow_renames() {
    let app = MockApp::new();
    let set = |order: &[u32]| {
        let json = rdc::json::Value::Array(order.iter().map(|&id| item(id, &format!("item {id}"))).collect());
        app.controller().set_response(&list_endpoint(), &(), json).unwrap();
        app.run();
    };
    let mut order: Vec<u32> = (1..=200).collect();
    set(&order);
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let id_of = |id: u32| rows(&list).iter().find(|row| row.get_untracked().id == id).map(Row::id);
    let shown = || rows(&list).iter().map(|row| row.get_untracked().id).collect::<Vec<u32>>();
    let (five, six) = (id_of(5).unwrap(), id_of(6).unwrap());

    order.swap(4, 5);
    set(&order);
    assert_eq!(shown(), order);
    assert_eq!((id_of(5), id_of(6)), (Some(five), Some(six)), "swapped rows keep their ids");
    app.controller().set(&Item::schema(), item(5, "five renamed")).unwrap();
    app.run();
    let row_five = rows(&list).iter().find(|row| row.get_untracked().id == 5).cloned().unwrap();
    assert_eq!(row_five.get_untracked().name, "five renamed", "a moved row still follows its item");

    for changed in [32u32, 33] {
        let kept = id_of(100).unwrap();
        let mut next = order.clone();
        next.splice(9..9 + changed as usize, 1000 * changed..1000 * changed + 32);
        set(&next);
        assert_eq!(shown(), next, "{changed} keys gone and 32 new");
        assert_eq!(id_of(100), Some(kept), "a row after the stretch keeps its id");
        order = next;
    }
}

/// A row whose required author is deleted leaves the list (its item no
/// longer reads), and comes back, as a new row, when the author is stored again.
#[test]
fn rows_of_a_deleted_required_author_leave_and_come_back_with_it() {
    let app = app_with_three();
    let list = app.hooks(|| use_list(list_endpoint(), Signal::derive(|| Some(()))));
    let first = ids(&list);
    // Items 1 and 3 have author 1; item 2 has author 0.
    app.controller().set(&Schema::invalidate::<Author>(), rdc::json!(1)).unwrap();
    app.run();
    assert_eq!(names(&list), ["two"]);
    assert_eq!(ids(&list), [first[1]]);

    // Newer data than the deletion brings the author back.
    app.advance(10);
    app.controller().set(&Author::schema(), rdc::json!({ "id": 1, "name": "author one" })).unwrap();
    app.run();
    assert_eq!(names(&list), ["one", "two", "three"]);
    assert_eq!(rows(&list)[0].get_untracked().author.name, "author one");
    let back = ids(&list);
    assert_eq!(back[1], first[1], "the row that stayed keeps its id");
    assert!(back[0] != first[0] && back[2] != first[2], "rows that left come back as new rows");
}
