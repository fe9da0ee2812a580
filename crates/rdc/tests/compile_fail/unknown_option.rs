#[derive(Clone, PartialEq, serde::Serialize)]
struct UserId {
    id: String,
}

fn main() {
    let _ = rdc::rest!(GET "/users/:id", arg = UserId);
}
