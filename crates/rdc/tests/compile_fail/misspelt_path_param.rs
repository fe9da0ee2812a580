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
    rdc::rest!(GET "/users/:idd" -> User, args = UserId)
}

fn main() {
    let _ = get_user();
}
