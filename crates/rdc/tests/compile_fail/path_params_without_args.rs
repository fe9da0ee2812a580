use rdc::prelude::*;

#[derive(Clone, serde::Deserialize, Entity)]
struct User {
    id: String,
}

fn main() {
    let _ = rdc::rest!(GET "/users/:id" -> User);
}
