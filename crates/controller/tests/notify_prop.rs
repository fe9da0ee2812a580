//! Property: a `listen_reads` listener is woken by every write that changes what
//! it read. After each of a random sequence of writes through the controller
//! (optimistic ones too), what every reader last saw equals a fresh read of the
//! store as readers see it (a new memo over `Controller::snapshot`).

mod cells;
mod controller_support;

use cells::SyncRefCell;
use std::sync::Arc;

use controller_support::*;
use proptest::prelude::*;
use rdc_controller::Controller;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{All, Entity, MemoCache, Pk, Schema, State};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Person {
    id: u32,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Note {
    id: u32,
    title: String,
    /// Sorts before `title`: its first write moves the title's position.
    #[serde(default)]
    body: Option<String>,
    #[entity(nested)]
    author: Person,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct NoteTitle {
    title: String,
}

#[derive(Debug, Clone)]
enum Op {
    Person(u32, u8),
    /// A note; `true`: its keys written in the other order.
    Note(u32, u8, u32, bool),
    DeletePerson(u32),
    DeleteNote(u32),
    List(Vec<u32>),
    /// A partial write of a note's body (adds the key the first time).
    Body(u32, u8),
    /// The list answered with partial notes (ids and titles only), an id possibly
    /// twice (the later fields win within the response).
    Titles(Vec<(u32, u8)>),
    Invalidate,
    /// A rename shown at once through an optimistic layer, then answered (with the
    /// server's own name) or aborted.
    Optimistic(u32, u8, bool),
    /// Two renames shown at once (on the same person or two), answered in either
    /// order, each with the server's name or a failure.
    Overlapping {
        ids: (u32, u32),
        later_first: bool,
        fail: (bool, bool),
    },
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0u32..4;
    prop_oneof![
        (id.clone(), 0u8..3).prop_map(|(id, name)| Op::Person(id, name)),
        (id.clone(), 0u8..3, id.clone(), any::<bool>())
            .prop_map(|(id, title, author, reversed)| Op::Note(id, title, author, reversed)),
        id.clone().prop_map(Op::DeletePerson),
        id.clone().prop_map(Op::DeleteNote),
        proptest::collection::vec(id.clone(), 0..5).prop_map(Op::List),
        (id.clone(), 0u8..2).prop_map(|(id, body)| Op::Body(id, body)),
        proptest::collection::vec((id.clone(), 0u8..3), 0..5).prop_map(Op::Titles),
        Just(Op::Invalidate),
        (id.clone(), 0u8..3, any::<bool>()).prop_map(|(id, name, answer)| Op::Optimistic(id, name, answer)),
        ((id.clone(), id.clone()), any::<bool>(), (any::<bool>(), any::<bool>()))
            .prop_map(|(ids, later_first, fail)| Op::Overlapping { ids, later_first, fail }),
    ]
}

/// A reader: what it read through the controller when it last ran, and the same
/// read done fresh on a copy of the store.
struct Reader {
    seen: Arc<SyncRefCell<Option<String>>>,
    fresh: Box<dyn Fn(&State) -> String>,
}

fn reader(
    c: &Controller,
    read: impl Fn(&Controller) -> String + Send + Sync + 'static,
    fresh: impl Fn(&State, &mut MemoCache) -> String + 'static,
) -> Reader {
    let seen = Arc::new(SyncRefCell::new(None));
    let (s, c2) = (Arc::clone(&seen), c.clone());
    c.listen_reads(move || *s.borrow_mut() = Some(read(&c2)));
    Reader { seen, fresh: Box::new(move |state| fresh(state, &mut MemoCache::default())) }
}

/// Debug text of a read's data, whatever went wrong.
fn text<T: std::fmt::Debug>(read: Result<Option<std::sync::Arc<T>>, impl std::fmt::Debug>) -> String {
    format!("{:?}", read.ok().flatten())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn readers_are_woken_by_every_change_to_what_they_read(ops in proptest::collection::vec(op(), 1..20)) {
        let (c, _time, tasks, server) = setup();
        let list = Api::new(&server, "GET", "/notes", Some(Schema::array(Note::schema())));
        let notes = Schema::array(Note::schema());
        let people: Schema = All::of::<Person>().into();
        let (l1, l2, l3) = (list.clone(), list.clone(), list.clone());
        let (n1, n2, n3, p1) = (notes.clone(), notes.clone(), notes, people.clone());
        let readers = [
            reader(&c, move |c| text(c.read::<_, Vec<Note>>(&l1, &json!({})).map(|r| r.data)),
                move |s, m| text(m.read_result::<Vec<Note>>(s, "GET /notes", &n1))),
            reader(&c, move |c| text(c.read::<_, Vec<NoteTitle>>(&l2, &json!({})).map(|r| r.data)),
                move |s, m| text(m.read_result::<Vec<NoteTitle>>(s, "GET /notes", &n2))),
            reader(&c, move |c| text(c.read::<_, Vec<Pk>>(&l3, &json!({})).map(|r| r.data)),
                move |s, m| text(m.read_result::<Vec<Pk>>(s, "GET /notes", &n3))),
            reader(&c, move |c| text(c.query::<Vec<Person>>("people", &people)),
                move |s, m| text(m.read::<Vec<Person>>(s, "people", &p1, &Value::Null))),
            reader(&c, |c| text(c.entity::<Note>("1")), |s, m| text(m.entity::<Note>(s, "1"))),
            reader(&c, |c| text(c.entity::<Person>("2")), |s, m| text(m.entity::<Person>(s, "2"))),
        ];
        let mut rename = Api::new(&server, "PUT", "/people", Some(Person::schema().into()));
        rename.optimistic = Some(|_, body| body.cloned().unwrap_or_default());
        let check = |c: &Controller, op: &Op| -> Result<(), TestCaseError> {
            let state = c.snapshot();
            for (i, r) in readers.iter().enumerate() {
                let now = (r.fresh)(&state);
                let seen = r.seen.borrow().clone();
                prop_assert!(seen.as_deref() == Some(now.as_str()), "reader {} after {:?}: saw {:?}, now {}", i, op, seen, now);
            }
            Ok(())
        };
        for op in &ops {
            // A write may be refused (a note whose author is not stored): nothing changes then.
            match op {
                Op::Person(id, name) => drop(c.set(&Person::schema(), json!({ "id": id, "name": format!("n{name}") }))),
                Op::Note(id, title, author, reversed) => {
                    let note = json!({ "id": id, "title": format!("t{title}"), "author": author });
                    let note = match note {
                        Value::Object(map) if *reversed => Value::Object(map.into_iter().rev().collect()),
                        other => other,
                    };
                    drop(c.set(&Note::schema(), note))
                }
                Op::DeletePerson(id) => drop(c.set(&Schema::invalidate::<Person>(), json!(id))),
                Op::DeleteNote(id) => drop(c.set(&Schema::invalidate::<Note>(), json!(id))),
                Op::List(ids) => {
                    let notes: Vec<Value> = ids.iter().map(|id| json!(id)).collect();
                    drop(c.set_response(&list, &json!({}), Value::Array(notes)));
                }
                Op::Body(id, body) => drop(c.set(&Note::schema(), json!({ "id": id, "body": format!("b{body}") }))),
                Op::Titles(notes) => {
                    let notes: Vec<Value> = notes.iter().map(|(id, t)| json!({ "id": id, "title": format!("t{t}") })).collect();
                    drop(c.set_response(&list, &json!({}), Value::Array(notes)));
                }
                Op::Invalidate => c.invalidate(&list, &json!({})),
                Op::Optimistic(id, name, answer) => {
                    let body = json!({ "id": id, "name": format!("o{name}") });
                    let (_, abort) = c.fetch_cancellable(&rename, json!({ "id": id }), Some(body));
                    tasks.run();
                    check(&c, op)?;
                    if !answer {
                        abort.abort();
                    }
                    let server_name = json!({ "id": id, "name": format!("s{name}") });
                    server.borrow_mut().answer(&format!("PUT /people/{id}"), Ok(server_name));
                    tasks.run();
                }
                Op::Overlapping { ids, later_first, fail } => {
                    let start = |id: u32, name: &str| {
                        let body = json!({ "id": id, "name": name });
                        drop(c.fetch_cancellable(&rename, json!({ "id": id }), Some(body)));
                    };
                    start(ids.0, "first");
                    start(ids.1, "second");
                    tasks.run();
                    check(&c, op)?;
                    // (person, which of its pending requests: the second rename of the
                    // same person answered first is its second pending one)
                    let answers = if *later_first {
                        [(ids.1, usize::from(ids.0 == ids.1), fail.1, "s-second"), (ids.0, 0, fail.0, "s-first")]
                    } else {
                        [(ids.0, 0, fail.0, "s-first"), (ids.1, 0, fail.1, "s-second")]
                    };
                    for (id, nth, failed, name) in answers {
                        let result = if failed { Err("400 no".to_string()) } else { Ok(json!({ "id": id, "name": name })) };
                        server.borrow_mut().answer_nth(&format!("PUT /people/{id}"), nth, result);
                        tasks.run();
                        check(&c, op)?;
                    }
                }
            }
            check(&c, op)?;
        }
    }
}
