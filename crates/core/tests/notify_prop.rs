//! Property: a `listen_reads` listener is woken by every write that changes what
//! it read. After each of a random sequence of writes through the controller, a
//! reader whose read now differs from what it last saw must have run.

mod controller_support;

use std::cell::RefCell;
use std::rc::Rc;

use controller_support::*;
use proptest::prelude::*;
use rdc_core::{All, Controller, Entity, Pk, Schema};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Person {
    id: u32,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Note {
    id: u32,
    title: String,
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
    Note(u32, u8, u32),
    DeletePerson(u32),
    DeleteNote(u32),
    List(Vec<u32>),
    Invalidate,
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0u32..4;
    prop_oneof![
        (id.clone(), 0u8..3).prop_map(|(id, name)| Op::Person(id, name)),
        (id.clone(), 0u8..3, id.clone()).prop_map(|(id, title, author)| Op::Note(id, title, author)),
        id.clone().prop_map(Op::DeletePerson),
        id.clone().prop_map(Op::DeleteNote),
        proptest::collection::vec(id, 0..5).prop_map(Op::List),
        Just(Op::Invalidate),
    ]
}

/// A reader: what it read when it last ran, and whether it ran since asked.
struct Reader {
    seen: Rc<RefCell<Option<String>>>,
    ran: Rc<RefCell<bool>>,
    read: Rc<dyn Fn(&Controller) -> String>,
}

fn reader(c: &Controller, read: impl Fn(&Controller) -> String + 'static) -> Reader {
    let read: Rc<dyn Fn(&Controller) -> String> = Rc::new(read);
    let (seen, ran) = (Rc::new(RefCell::new(None)), Rc::new(RefCell::new(false)));
    let (s, r, f, c2) = (Rc::clone(&seen), Rc::clone(&ran), Rc::clone(&read), c.clone());
    c.listen_reads(move || {
        *s.borrow_mut() = Some(f(&c2));
        *r.borrow_mut() = true;
    });
    Reader { seen, ran, read }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn readers_are_woken_by_every_change_to_what_they_read(ops in proptest::collection::vec(op(), 1..20)) {
        let (c, _time, _tasks, server) = setup();
        let list = Api::new(&server, "GET", "/notes", Some(Schema::array(Note::schema())));
        let all_people: Schema = All::of::<Person>().into();
        let readers = vec![
            reader(&c, { let l = list.clone(); move |c| format!("{:?}", c.read::<_, Vec<Note>>(&l, &json!({})).map(|r| (r.data, r.status))) }),
            reader(&c, { let l = list.clone(); move |c| format!("{:?}", c.read::<_, Vec<NoteTitle>>(&l, &json!({})).map(|r| r.data)) }),
            reader(&c, { let l = list.clone(); move |c| format!("{:?}", c.read::<_, Vec<Pk>>(&l, &json!({})).map(|r| r.data)) }),
            reader(&c, move |c| format!("{:?}", c.query::<Vec<Person>>("people", &all_people))),
            reader(&c, |c| format!("{:?}", c.entity::<Note>("1"))),
            reader(&c, |c| format!("{:?}", c.entity::<Person>("2"))),
        ];
        for op in &ops {
            for r in &readers {
                *r.ran.borrow_mut() = false;
            }
            // A write may be refused (a note whose author is not stored): nothing changes then.
            match op {
                Op::Person(id, name) => drop(c.set(&Person::schema(), json!({ "id": id, "name": format!("n{name}") }))),
                Op::Note(id, title, author) => {
                    drop(c.set(&Note::schema(), json!({ "id": id, "title": format!("t{title}"), "author": author })))
                }
                Op::DeletePerson(id) => drop(c.set(&Schema::invalidate::<Person>(), json!(id))),
                Op::DeleteNote(id) => drop(c.set(&Schema::invalidate::<Note>(), json!(id))),
                Op::List(ids) => {
                    let notes: Vec<Value> = ids.iter().map(|id| json!(id)).collect();
                    drop(c.set_response(&list, &json!({}), Value::Array(notes)));
                }
                Op::Invalidate => c.invalidate(&list, &json!({})),
            }
            for (i, r) in readers.iter().enumerate() {
                let now = (r.read)(&c);
                let seen = r.seen.borrow().clone();
                prop_assert!(
                    seen.as_deref() == Some(now.as_str()) || *r.ran.borrow(),
                    "reader {} was not woken by {:?}: saw {:?}, now {}", i, op, seen, now
                );
            }
        }
    }
}
