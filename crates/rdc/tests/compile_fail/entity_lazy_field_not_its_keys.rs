use rdc::core::Pk;

#[derive(serde::Deserialize, rdc::Entity)]
struct Building {
    id: String,
}

#[derive(serde::Deserialize, rdc::Entity)]
struct Department {
    id: String,
    // A list of buildings is held as a `Vec<Pk>`, not one key.
    #[entity(lazy = "Vec<Building>")]
    buildings: Pk,
}

fn main() {}
