//! `share_writes`: what one controller writes reaches another through
//! `take_shared` (updates, list edits, deletes), optimistic layers stay home, and
//! two controllers sharing both ways settle without echoing.

mod cells;
mod controller_support;

use cells::SyncRefCell;
use std::sync::Arc;

use rdc_controller::{Controller, Dehydrated, FakeTime, LocalTasks};
use rdc_core::{json, Collection, Entity, Schema, SchemaOf};

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, Entity)]
struct User {
    id: String,
    name: String,
}

fn users() -> SchemaOf<Vec<User>> {
    Collection::of("Users", User::schema())
}

type Outbox = Arc<SyncRefCell<Vec<Dehydrated>>>;

/// Two controllers on one clock, each sharing its writes into an outbox.
fn tabs() -> ((Controller, Outbox), (Controller, Outbox), LocalTasks) {
    let (time, tasks) = (FakeTime::default(), LocalTasks::default());
    let tab = || {
        let controller = Controller::new(time.clone(), time.clone(), tasks.clone());
        let outbox = Outbox::default();
        let out = outbox.clone();
        controller.share_writes(move |slice| out.borrow_mut().push(slice.clone()));
        (controller, outbox)
    };
    (tab(), tab(), tasks.clone())
}

/// Delivers each outbox to the other tab until both are empty; returns how many slices went.
fn deliver(a: &(Controller, Outbox), b: &(Controller, Outbox)) -> usize {
    let mut sent = 0;
    for _ in 0..10 {
        let (to_b, to_a): (Vec<_>, Vec<_>) =
            (a.1.borrow_mut().drain(..).collect(), b.1.borrow_mut().drain(..).collect());
        if to_a.is_empty() && to_b.is_empty() {
            return sent;
        }
        sent += to_a.len() + to_b.len();
        to_b.into_iter().for_each(|slice| b.0.take_shared(slice));
        to_a.into_iter().for_each(|slice| a.0.take_shared(slice));
    }
    panic!("the tabs kept echoing")
}

/// The list of users, as a function endpoint (its key: `users`).
fn list() -> rdc_controller::FnEndpoint<(), Vec<User>, String> {
    rdc_controller::from_fn("users", |_: ()| async { Ok::<Vec<User>, String>(Vec::new()) }).schema(users())
}

fn names(controller: &Controller) -> Vec<String> {
    let read = controller.read::<_, Vec<User>>(&list(), &()).unwrap();
    read.data.map(|all| all.iter().map(|u| u.name.clone()).collect()).unwrap_or_default()
}

#[test]
fn updates_list_edits_and_deletes_reach_the_other_tab_without_echoes() {
    let (a, b, _) = tabs();
    a.0.set_response(&list(), &(), json!([{ "id": "1", "name": "Ada" }])).unwrap();
    assert_eq!(deliver(&a, &b), 1, "one write, one slice, no echo");
    assert_eq!(names(&b.0), ["Ada"]);
    // An entity written in the other tab, and an item pushed onto the list.
    b.0.set(&User::schema().into(), json!({ "id": "1", "name": "Ada L." })).unwrap();
    b.0.set(&Collection::push(&users()).into(), json!({ "id": "2", "name": "Grace" })).unwrap();
    assert_eq!(deliver(&a, &b), 2);
    assert_eq!(names(&a.0), ["Ada L.", "Grace"]);
    // A delete.
    a.0.set(&Schema::invalidate::<User>(), json!({ "id": "2" })).unwrap();
    deliver(&a, &b);
    assert_eq!((names(&b.0), b.0.entity::<User>("2").unwrap()), (vec!["Ada L.".to_owned()], None));
}

#[test]
fn an_optimistic_layer_stays_in_its_tab_and_its_answer_goes() {
    let (a, b, tasks) = tabs();
    a.0.set(&User::schema().into(), json!({ "id": "1", "name": "Ada" })).unwrap();
    deliver(&a, &b);
    let server = Arc::new(SyncRefCell::new(controller_support::Server::default()));
    let mut rename = controller_support::Api::new(&server, "PATCH", "/users/1", Some(User::schema().into()));
    rename.optimistic = Some(|_, body| body.cloned().unwrap_or_default());
    let _ =
        controller_support::spawn_fetch(&a.0, &tasks, &rename, json!(null), Some(json!({ "id": "1", "name": "Ada?" })));
    let shown = |tab: &Controller| tab.entity::<User>("1").unwrap().map(|u| u.name.clone());
    assert_eq!(shown(&a.0), Some("Ada?".into()), "shown at once in its tab");
    assert_eq!(deliver(&a, &b), 0, "the layer is not shared");
    assert_eq!(shown(&b.0), Some("Ada".into()));
    server.borrow_mut().answer("PATCH /users/1", Ok(json!({ "id": "1", "name": "Ada L." })));
    tasks.run();
    assert_eq!(deliver(&a, &b), 1, "the answer is");
    assert_eq!(shown(&b.0), Some("Ada L.".into()));
}
