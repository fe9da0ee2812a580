use rdc::prelude::*;

#[derive(Clone, serde::Deserialize, Entity)]
struct User {
    id: String,
    name: String,
}

#[derive(serde::Serialize)]
struct NewUser {
    name: String,
}

fn main() {
    let controller = rdc::leptos::new_controller();
    let create = rdc::rest!(POST "/users" -> User, body = NewUser);
    let _ = controller.fetch(&create, (), "Ada".to_string());
}
