#[derive(serde::Deserialize, rdc::Entity)]
#[entity(index = "id")]
struct User {
    id: String,
    email: String,
}

fn main() {}
