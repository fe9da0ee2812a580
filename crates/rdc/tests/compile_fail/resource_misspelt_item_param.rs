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
    let _ = rdc::resource!("/users/:user_id" -> User, args = UserId);
}
