#[derive(serde::Deserialize, rdc::Entity)]
#[entity(index = "emial")]
struct User {
    id: String,
    email: String,
}

fn main() {}
