use rdc::prelude::*;

#[derive(Clone, serde::Deserialize, Entity)]
struct User {
    id: String,
}

#[derive(Clone, PartialEq, serde::Serialize)]
struct UserId {
    id: String,
}

fn main() {
    let controller = rdc::leptos::new_controller();
    let get_user = rdc::rest!(GET "/users/:id" -> User, args = UserId);
    let _ = controller.fetch(&get_user, UserId {}, ());
}
