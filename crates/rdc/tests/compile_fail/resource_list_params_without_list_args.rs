use rdc::prelude::*;

#[derive(Clone, serde::Deserialize, Entity)]
struct User {
    id: String,
}

#[derive(Clone, PartialEq, serde::Serialize)]
struct MemberId {
    team: String,
    id: String,
}

fn main() {
    // The list path `/teams/:team/users` needs a team: its args type is missing.
    let _ = rdc::resource!("/teams/:team/users/:id" -> User, args = MemberId);
}
