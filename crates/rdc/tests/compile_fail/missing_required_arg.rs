use rdc::prelude::*;

#[derive(Clone, serde::Deserialize, Entity)]
struct User {
    id: String,
}

#[derive(Clone, PartialEq, serde::Serialize)]
struct UserId {
    id: String,
}

fn get_user() -> RestEndpoint<UserId, (), User> {
    rdc::rest!(GET "/users/:id" -> User, args = UserId)
}

fn main() {
    // The endpoint needs a `UserId`: no args is refused by rdc's typed calls.
    let controller = rdc::leptos::new_controller();
    let _ = controller.fetch(&get_user(), (), ());
    let _ = use_suspense(get_user(), ());
}
