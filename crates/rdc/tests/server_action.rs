//! `use_server_action` run natively: a server function's answer, set on its
//! `ServerAction` as Leptos sets it when the call returns, lands in the store
//! normalized (every reader of the entity updates, nothing is fetched); its
//! typed error, or an answer that does not normalize, shows as the form's
//! error and leaves the store as it was.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use rdc::leptos::{use_server_action, use_server_action_with, ServerFormError};
use rdc::prelude::*;
use rdc::testing::MockApp;

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, Entity)]
struct User {
    id: String,
    name: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
struct UserId {
    id: String,
}

/// What a broken server function answers: no primary key.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Nameless {
    name: String,
}

#[server]
async fn create_user(name: String) -> Result<User, ServerFnError> {
    Ok(User { id: "3".into(), name })
}

#[server]
async fn rename_user(id: String, name: String) -> Result<User, ServerFnError> {
    Ok(User { id, name })
}

#[server]
async fn create_nameless(name: String) -> Result<Nameless, ServerFnError> {
    Ok(Nameless { name })
}

/// Every user in the store, whichever endpoint brought it.
fn all_users() -> RestEndpoint<(), (), Vec<User>> {
    RestEndpoint::get("/users").args::<()>().body::<()>().schema(All::of::<User>())
}

/// What a create answers.
fn created() -> RestEndpoint<(), (), User> {
    RestEndpoint::post("/users").args::<()>().body::<()>().schema(User::schema())
}

fn one_user() -> RestEndpoint<UserId, (), User> {
    rdc::rest!(GET "/users/:id" -> User, args = UserId)
}

fn user(id: &str, name: &str) -> User {
    User { id: id.into(), name: name.into() }
}

/// A mock app whose store holds Ada and Grace, read by a mounted list.
fn app_with_two() -> (MockApp, Signal<Option<std::sync::Arc<Vec<User>>>>) {
    let app = MockApp::new();
    app.fixture(&all_users(), &(), rdc::json!([{ "id": "1", "name": "Ada" }, { "id": "2", "name": "Grace" }]));
    let list = app.hooks(|| use_dle(all_users(), Signal::derive(|| Some(()))).data);
    app.run();
    (app, list)
}

/// Completes a submit as Leptos does when the server function returns: the
/// action's version moves on, then its value is the outcome.
fn complete<S>(action: ServerAction<S>, outcome: Result<S::Output, S::Error>)
where
    S: ServerFn + Clone + Send + Sync + 'static,
    S::Output: Send + Sync + 'static,
    S::Error: Send + Sync + 'static,
{
    action.version().update(|n| *n += 1);
    action.value().set(Some(outcome));
}

fn name_of(app: &MockApp, id: &str) -> Option<String> {
    app.controller().entity::<User>(id).unwrap().map(|u| u.name.clone())
}

fn names(list: &Signal<Option<std::sync::Arc<Vec<User>>>>) -> Vec<String> {
    list.get_untracked().map(|users| users.iter().map(|u| u.name.clone()).collect()).unwrap_or_default()
}

#[test]
fn a_created_entity_reaches_every_reader_without_a_request() {
    let (app, list) = app_with_two();
    assert_eq!(names(&list), ["Ada", "Grace"]);
    let form = app.hooks(|| use_server_action(created(), ServerAction::<CreateUser>::new()));
    let sent = app.requests().len();

    complete(form.action, Ok(user("3", "Alan")));
    app.run();
    assert_eq!(names(&list), ["Ada", "Grace", "Alan"], "the list of every user shows the new one");
    assert_eq!(app.controller().entity::<User>("3").unwrap().map(|u| u.name.clone()).as_deref(), Some("Alan"));
    assert_eq!(app.requests().len(), sent, "nothing fetched: {:?}", app.requests());
    assert_eq!(form.error.get_untracked(), None);
}

#[test]
fn an_answer_for_an_endpoint_with_args_is_stored_under_the_args_it_names() {
    let (app, list) = app_with_two();
    let form = app.hooks(|| {
        use_server_action_with(one_user(), |u: &User| UserId { id: u.id.clone() }, ServerAction::<RenameUser>::new())
    });
    let one = app.hooks(|| use_dle(one_user(), Signal::derive(|| Some(UserId { id: "1".into() }))).data);
    let sent = app.requests().len();

    complete(form.action, Ok(user("1", "Ada Lovelace")));
    app.run();
    assert_eq!(names(&list), ["Ada Lovelace", "Grace"], "the entity merged: the list shows the new name");
    assert_eq!(one.get_untracked().map(|u| u.name.clone()).as_deref(), Some("Ada Lovelace"));
    assert_eq!(app.requests().len(), sent, "user 1 read from the stored answer: {:?}", app.requests());
}

#[test]
fn the_server_functions_typed_error_shows_and_the_store_keeps_what_it_had() {
    let (app, list) = app_with_two();
    let form = app.hooks(|| use_server_action(created(), ServerAction::<CreateUser>::new()));

    complete(form.action, Err(ServerFnError::ServerError("the name is taken".into())));
    app.run();
    match form.error.get_untracked() {
        Some(ServerFormError::Server(ServerFnError::ServerError(message))) => assert_eq!(message, "the name is taken"),
        other => panic!("expected the server function's error, got {other:?}"),
    }
    assert_eq!(names(&list), ["Ada", "Grace"]);

    complete(form.action, Ok(user("3", "Alan")));
    app.run();
    assert_eq!(form.error.get_untracked(), None, "an answer clears the last error");
    assert_eq!(names(&list), ["Ada", "Grace", "Alan"]);
}

#[test]
fn an_answer_that_does_not_normalize_is_a_store_error_naming_the_endpoint_and_path() {
    let (app, list) = app_with_two();
    let form = app.hooks(|| use_server_action(created(), ServerAction::<CreateNameless>::new()));

    complete(form.action, Ok(Nameless { name: "Alan".into() }));
    app.run();
    let error = form.error.get_untracked().expect("a store error");
    assert!(matches!(error, ServerFormError::Store { error: FetchError::Normalize(_), .. }), "{error:?}");
    let text = error.to_string();
    assert!(text.contains("POST /users") && text.contains("no primary key"), "{text}");
    assert_eq!(names(&list), ["Ada", "Grace"], "the store keeps what it had");
}

#[test]
fn the_error_a_post_before_hydration_carried_back_shows_at_once() {
    let app = MockApp::new();
    // What the server function's handler puts in the redirect's query.
    let taken: ServerFnError = ServerFnError::ServerError("the name is taken".into());
    let url =
        leptos::server_fn::error::ServerFnUrlError::new(CreateUser::PATH, taken).to_url("http://demo/form").unwrap();
    let carried = url.query_pairs().find(|(k, _)| k == "__err").map(|(_, v)| v.into_owned()).unwrap();
    let shown_at_once = app.hooks(|| {
        provide_context(leptos::server::ServerActionError::new(CreateUser::PATH, &carried));
        // On the server no effect runs: the error must be there as the hook returns.
        use_server_action(created(), ServerAction::<CreateUser>::new()).error.get_untracked()
    });
    match shown_at_once {
        Some(ServerFormError::Server(ServerFnError::ServerError(message))) => assert_eq!(message, "the name is taken"),
        other => panic!("expected the carried error, got {other:?}"),
    }
}

#[test]
fn an_answer_the_action_held_before_the_hook_was_built_is_not_written_again() {
    let (app, _list) = app_with_two();
    // A form that answered earlier, then unmounted: its action keeps the old answer.
    let action = app.hooks(ServerAction::<CreateUser>::new);
    complete(action, Ok(user("3", "Alan (old)")));
    app.run();
    // Newer data since: Alan was renamed.
    app.controller().set_response(&created(), &(), rdc::json!({ "id": "3", "name": "Alan Turing" })).unwrap();
    // The form mounts again (or a second hook is built on the same action).
    let form = app.hooks(|| use_server_action(created(), action));
    app.run();
    assert_eq!(name_of(&app, "3").as_deref(), Some("Alan Turing"), "the old answer must not overwrite newer data");
    assert_eq!(form.error.get_untracked(), None);
}

#[test]
fn each_answer_is_written_once() {
    let (app, list) = app_with_two();
    let writes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = writes.clone();
    let form = app.hooks(move || {
        use_server_action_with(
            created(),
            move |_: &User| {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            },
            ServerAction::<CreateUser>::new(),
        )
    });
    let count = || writes.load(std::sync::atomic::Ordering::SeqCst);
    app.run();
    assert_eq!(count(), 0, "nothing answered yet");

    complete(form.action, Ok(user("3", "Alan")));
    app.run();
    assert_eq!((count(), name_of(&app, "3").as_deref()), (1, Some("Alan")));
    app.run();
    assert_eq!(count(), 1, "written once");

    // A second submit with the same answer is written again, once.
    app.controller().set_response(&created(), &(), rdc::json!({ "id": "3", "name": "Alan Turing" })).unwrap();
    complete(form.action, Ok(user("3", "Alan")));
    app.run();
    app.run();
    assert_eq!((count(), name_of(&app, "3").as_deref()), (2, Some("Alan")));
    assert_eq!(names(&list), ["Ada", "Grace", "Alan"]);
}

#[test]
fn a_signal_read_inside_args_does_not_write_the_answer_again() {
    let (app, _list) = app_with_two();
    let read = RwSignal::new(0);
    let writes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = writes.clone();
    let form = app.hooks(move || {
        use_server_action_with(
            one_user(),
            move |u: &User| {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let _ = read.get();
                UserId { id: u.id.clone() }
            },
            ServerAction::<RenameUser>::new(),
        )
    });
    complete(form.action, Ok(user("1", "Ada Lovelace")));
    app.run();
    assert_eq!(writes.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Newer data, then the signal `args` read changes: the old answer stays unwritten.
    app.controller()
        .set_response(&one_user(), &UserId { id: "1".into() }, rdc::json!({ "id": "1", "name": "Ada King" }))
        .unwrap();
    read.set(1);
    app.run();
    assert_eq!(writes.load(std::sync::atomic::Ordering::SeqCst), 1, "args' signal re-ran the write");
    assert_eq!(name_of(&app, "1").as_deref(), Some("Ada King"));
}

#[test]
fn a_submit_starting_clears_the_last_error() {
    let (app, _list) = app_with_two();
    let form = app.hooks(|| use_server_action(created(), ServerAction::<CreateUser>::new()));
    complete(form.action, Err(ServerFnError::ServerError("the name is taken".into())));
    app.run();
    assert!(form.error.get_untracked().is_some());

    // The next submit starts: Leptos gives the action its input as it sends
    // (natively the call itself cannot be sent, so the test sets what `dispatch` sets).
    form.action.input().set(Some(CreateUser { name: "Alan".into() }));
    app.run();
    assert_eq!(form.error.get_untracked(), None, "the error is cleared as the submit starts");
}

/// An answer serde cannot encode.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
struct Unencodable {
    id: String,
}

impl serde::Serialize for Unencodable {
    fn serialize<Z: serde::Serializer>(&self, _: Z) -> Result<Z::Ok, Z::Error> {
        Err(serde::ser::Error::custom("this answer cannot be encoded"))
    }
}

#[server]
async fn create_unencodable(id: String) -> Result<Unencodable, ServerFnError> {
    Ok(Unencodable { id })
}

#[test]
fn an_answer_that_does_not_encode_is_an_encode_error_naming_the_endpoint() {
    let (app, list) = app_with_two();
    let form = app.hooks(|| use_server_action(created(), ServerAction::<CreateUnencodable>::new()));

    complete(form.action, Ok(Unencodable { id: "3".into() }));
    app.run();
    let error = form.error.get_untracked().expect("an encode error");
    match &error {
        ServerFormError::Encode { key, message } => {
            assert_eq!(key, "POST /users");
            assert!(message.contains("this answer cannot be encoded"), "{message}");
        }
        other => panic!("expected an encode error, got {other:?}"),
    }
    assert!(error.to_string().contains("POST /users"), "{error}");
    assert_eq!(names(&list), ["Ada", "Grace"], "the store keeps what it had");
}
