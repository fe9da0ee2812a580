fn found_pk(_: &rdc::core::Object, _: &rdc::core::Found<'_>) -> Option<String> {
    None
}

#[derive(serde::Deserialize, rdc::Entity)]
#[entity(pk = "id", pk_found = "found_pk")]
struct User {
    id: String,
}

fn main() {}
